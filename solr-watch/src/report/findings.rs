//! What the figures mean: findings (each with a [`Severity`] and its fix) and the one-line
//! verdict.

use super::wire::{gzip_asked, is_update};
use super::*;
use crate::wire::conn::Tracker;
use crate::wire::http2::Http2Summary;
use crate::wire::solr::{self, BodyFormat};

/// How much a finding matters. Serialised as today's strings (`"high"`, `"medium"`,
/// `"info"`), so `watch.json` keeps its shape; ordered most important first.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Costs the application noticeably (e.g. no connection reuse): fix first.
    High,
    /// Worth fixing.
    Medium,
    /// What the wire shows, nothing necessarily wrong.
    Info,
}

impl Severity {
    /// `high`, `medium` or `info`, as in `watch.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Info => "info",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn kb(b: f64) -> String {
    if b >= 1024.0 * 1024.0 {
        format!("{:.1} MB", b / 1024.0 / 1024.0)
    } else if b >= 1024.0 {
        format!("{:.1} KB", b / 1024.0)
    } else {
        format!("{b:.0} B")
    }
}

/// Rough size of the XML `<add>` bodies of a capture once written as JSON (same documents,
/// field names and values), from the bodies captured whole. None when there is none.
fn xml_as_json_ratio(t: &Tracker) -> Option<f64> {
    let (mut xml, mut json) = (0u64, 0u64);
    for q in t.conns.iter().flat_map(|c| c.requests.iter()) {
        let path = solr::path(&q.target);
        if !is_update(path, &q.method) || q.facts.format != Some(BodyFormat::Xml) {
            continue;
        }
        let Some(j) = q.facts.json_estimate else {
            continue;
        };
        xml += q.body_len;
        json += j;
    }
    (xml > 0).then(|| json as f64 / xml as f64)
}

fn finding(sev: Severity, kind: &str, what: String, fix: impl Into<String>) -> Finding {
    Finding {
        severity: sev,
        kind: kind.into(),
        what,
        fix: fix.into(),
    }
}

pub(super) fn findings(r: &WatchReport, t: &Tracker) -> Vec<Finding> {
    let c = &r.connections;
    if c.seen == 0 {
        return vec![no_traffic(r.port)];
    }
    // Requests unknown (frames cut by the snap length): an empty summary, so no finding is
    // derived from bytes the capture does not have.
    let unknown = RequestSummary::default();
    let q = r.requests.as_ref().unwrap_or(&unknown);
    let mut f = Vec::new();
    f.extend(reuse(c, q, t));
    f.extend(time_wait(c));
    f.extend(gzip(q, t));
    f.extend(xml_updates(q, t));
    f.extend(wt_eval(q));
    f.extend(resets(c));
    // The server's closes already explain the connections the client could not reuse.
    if !f.iter().any(|x| x.kind == "server-closed-first") {
        f.extend(server_closes(r));
    }
    if let Some(tl) = &r.tls {
        f.extend(tls(tl));
    }
    if let Some(h) = &r.http2 {
        f.extend(http2(h));
    }
    f.extend(outside_solr(q, &f));
    f.extend(snap_length(r));
    f.extend(undecodable(r));
    f.sort_by_key(|x| x.severity);
    f
}

fn no_traffic(port: u16) -> Finding {
    finding(
        Severity::High,
        "no-traffic",
        format!("no TCP traffic to or from port {port} was seen"),
        "check --port and --interface (loopback is `lo`; `any` sees every interface), and \
         that the application talks to Solr while watch runs",
    )
}

/// Whether connections carry more than one request each: `no-reuse` (or
/// `server-closed-first` when the server ended them), `early-close` or `reuse`.
fn reuse(c: &ConnectionSummary, q: &RequestSummary, t: &Tracker) -> Option<Finding> {
    let reqs = q.requests;
    let with_requests = c.with_requests.unwrap_or(0);
    let per_connection = c.requests_per_connection.unwrap_or(0.0);
    if reqs >= 2 && with_requests >= 2 && per_connection < 2.0 {
        let server = super::server_first::finding(t, reqs);
        return Some(server.unwrap_or_else(|| no_reuse(q, with_requests)));
    }
    if c.max_requests_per_connection.unwrap_or(0) < 2 {
        return None;
    }
    // Reused, but maybe not for long: a client closing its own connections early.
    Some(super::early_close::finding(t).unwrap_or_else(|| {
        finding(
            Severity::Info,
            "reuse",
            format!(
                "connections are reused: {reqs} requests on {} connections ({:.1} per connection)",
                with_requests, per_connection
            ),
            "nothing to change",
        )
    }))
}

fn no_reuse(q: &RequestSummary, with_requests: u64) -> Finding {
    let ka = if q.keep_alive_header > 0 {
        format!(
            " although {} requests sent `Connection: keep-alive` (the header alone is not reuse)",
            q.keep_alive_header
        )
    } else if q.close_requested > 0 {
        format!(
            ": {} requests asked the server to close (`Connection: close` or HTTP/1.0)",
            q.close_requested
        )
    } else {
        String::new()
    };
    finding(
        Severity::High,
        "no-reuse",
        format!(
            "{} requests on {} connections: your client does not reuse connections{ka}",
            q.requests, with_requests
        ),
        "keep one client object and let it pool connections: Python requests.Session, \
         Ruby Faraday with net_http_persistent or Typhoeus, PHP/curl one handle for many \
         requests, Java one shared HttpClient; curl: several URLs in one invocation",
    )
}

fn time_wait(c: &ConnectionSummary) -> Option<Finding> {
    (c.opened >= 20 && c.new_per_second >= 10.0).then(|| {
        finding(
            Severity::Medium,
            "time-wait",
            format!(
                "{:.0} new connections per second (peak {} in one second): at this rate about {} sockets wait \
                 in TIME_WAIT (60 s) on the side that closes first",
                c.new_per_second, c.new_per_second_peak, c.time_wait_estimate
            ),
            "reuse connections; a client that closes first holds the TIME_WAIT sockets and can \
             run out of ephemeral ports",
        )
    })
}

/// Large answers sent uncompressed (`no-gzip`, `server-no-gzip`), or compressed (`gzip`).
fn gzip(q: &RequestSummary, t: &Tracker) -> Vec<Finding> {
    let mut f = Vec::new();
    if q.uncompressed_large_responses > 0 {
        let asked = uncompressed_though_asked(t);
        let not_asked = q.uncompressed_large_responses - asked;
        if not_asked > 0 {
            f.push(no_gzip(q, not_asked));
        }
        if asked > 0 {
            f.push(finding(
                Severity::Medium,
                "server-no-gzip",
                format!("{asked} responses of 1 KB or more came uncompressed although the client asked for gzip"),
                "enable gzip on the server or the proxy in front of it (Solr's Jetty gzip handler)",
            ));
        }
    }
    if q.compressed_responses > 0 {
        f.push(finding(
            Severity::Info,
            "gzip",
            format!("{} responses came compressed", q.compressed_responses),
            "nothing to change",
        ));
    }
    f
}

/// Large answers that came uncompressed to a request that asked for gzip.
fn uncompressed_though_asked(t: &Tracker) -> u64 {
    t.conns
        .iter()
        .flat_map(|c| c.requests.iter().zip(c.responses.iter()))
        .filter(|(_, rp)| {
            !rp.incomplete && rp.header("content-encoding").is_none() && rp.body_len >= GZIP_WORTH
        })
        .filter(|(rq, _)| gzip_asked(rq))
        .count() as u64
}

fn no_gzip(q: &RequestSummary, not_asked: u64) -> Finding {
    finding(
        if q.response_bytes_median >= 100 * 1024 {
            Severity::High
        } else {
            Severity::Medium
        },
        "no-gzip",
        format!(
            "{not_asked} responses of 1 KB or more came uncompressed (median response {} \
             on the wire) and the client never asked: no `Accept-Encoding: gzip`",
            kb(q.response_bytes_median as f64)
        ),
        "ask for gzip: send `Accept-Encoding: gzip` (curl --compressed; Python requests \
         does by default; Ruby Net::HTTP/Faraday: set the header and inflate, or use \
         Typhoeus with accept_encoding)",
    )
}

fn xml_updates(q: &RequestSummary, t: &Tracker) -> Option<Finding> {
    let x = q.update_formats.iter().find(|x| x.format == "xml")?;
    let est = match xml_as_json_ratio(t) {
        Some(ratio) => format!(
            "the same documents as JSON would be about {:.0}% smaller",
            (1.0 - ratio) * 100.0
        ),
        None => "JSON is typically ~40% smaller".to_string(),
    };
    Some(finding(
        Severity::Medium,
        "xml-updates",
        format!(
            "{} update requests sent XML ({}): {est} (JSON measured 42% smaller than \
             XML uncompressed, 11% gzipped, in this project's format study)",
            x.requests,
            kb(x.body_bytes as f64)
        ),
        "send updates as JSON (Content-Type: application/json; Sunspot/RSolr: \
         update_format :json; pysolr and SolrJ can send JSON or javabin)",
    ))
}

fn wt_eval(q: &RequestSummary) -> Option<Finding> {
    let ruby = q.wt.get("ruby").copied().unwrap_or(0) + q.wt.get("python").copied().unwrap_or(0);
    (ruby > 0).then(|| {
        finding(
            Severity::Medium,
            "wt-eval",
            format!("{ruby} requests asked for wt=ruby or wt=python"),
            "use wt=json: wt=ruby was measured ~3x slower to parse, and is evaluated with eval",
        )
    })
}

fn resets(c: &ConnectionSummary) -> Option<Finding> {
    (c.reset_by_client + c.reset_by_server > 0).then(|| {
        finding(
            Severity::Medium,
            "resets",
            format!(
                "{} connections ended with a reset ({} by the client, {} by the server)",
                c.reset_by_client + c.reset_by_server,
                c.reset_by_client,
                c.reset_by_server
            ),
            "a reset loses whatever was in flight: check client timeouts and server idle timeouts",
        )
    })
}

fn server_closes(r: &WatchReport) -> Option<Finding> {
    let c = &r.connections;
    // Unknown whether the client asked (requests cut by the snap length): no finding.
    let unasked = c
        .closed_by_server_as_asked
        .map_or(0, |asked| c.closed_by_server - asked);
    (r.tls.is_none() && unasked > 0 && unasked * 2 >= c.seen).then(|| {
        finding(
            Severity::Medium,
            "server-closes",
            format!(
                "the server closed {unasked} of {} connections first without being asked \
                 (its idle timeout, or an error)",
                c.seen
            ),
            "let the client's pool drop idle connections before the server's idle timeout, or \
             raise the server's timeout",
        )
    })
}

/// Full handshakes, and what a key log decrypted or TLS hid.
fn tls(tl: &TlsSummary) -> Vec<Finding> {
    let mut f = Vec::new();
    if tl.full >= 2 && tl.resumed == 0 {
        f.push(finding(
            Severity::Medium,
            "tls-full-handshakes",
            format!(
                "{} TLS connections, every one with a full handshake",
                tl.full
            ),
            "reuse connections; where a new one is needed, resume sessions (tickets/PSK)",
        ));
    }
    if let Some(d) = &tl.decryption {
        f.extend(super::tls::findings(tl.connections, d));
    } else {
        f.push(finding(
            Severity::Info,
            "tls-opaque",
            format!(
                "{} TLS connections ({} full, {} resumed handshakes): request-level detail needs cleartext",
                tl.connections, tl.full, tl.resumed
            ),
            "watch the cleartext side (between a TLS terminator and Solr) for methods, sizes and QTime, \
             or give watch the client's key log (--keylog, the SSLKEYLOGFILE format)",
        ));
    }
    f
}

/// HTTP/2 flow-control stalls and stream or connection errors.
fn http2(h: &Http2Summary) -> Vec<Finding> {
    let mut f = Vec::new();
    let stalls = h.control.server_stalls + h.control.client_stalls;
    if stalls > 0 {
        f.push(finding(
            Severity::Medium,
            "h2-flow-control",
            format!(
                "HTTP/2 flow control stalled senders {stalls} times: the server {} times \
                 ({:.1} ms), the client {} times ({:.1} ms), longest {:.1} ms, waiting for \
                 a WINDOW_UPDATE with a stream still open",
                h.control.server_stalls,
                h.control.server_stalled_ms,
                h.control.client_stalls,
                h.control.client_stalled_ms,
                h.control.max_stall_ms.unwrap_or(0.0)
            ),
            "raise the receiving side's HTTP/2 windows (initial stream and connection \
             window, e.g. Jetty's initialStreamRecvWindow / the client's window settings) \
             to at least a response's size, or read responses faster",
        ));
    }
    if h.errors() > 0 {
        f.push(finding(
            Severity::Medium,
            "h2-errors",
            format!(
                "{} HTTP/2 streams or connections ended with an error: RST_STREAM {:?}, \
                 GOAWAY {:?}",
                h.errors(),
                h.control.rst_stream,
                h.control.goaway
            ),
            "a refused or reset stream loses its request: check the server's stream \
             limits (max concurrent streams) and the client's timeouts",
        ));
    }
    f
}

/// Wall time against QTime; the fix depends on the findings `so_far`.
fn outside_solr(q: &RequestSummary, so_far: &[Finding]) -> Option<Finding> {
    let (Some(w), Some(qt)) = (q.wall.p50_ms, q.qtime.p50_ms) else {
        return None;
    };
    if q.qtime.n == 0 {
        return None;
    }
    let wire_first = so_far
        .iter()
        .any(|x| matches!(x.kind.as_str(), "no-reuse" | "early-close" | "no-gzip"));
    Some(finding(
        Severity::Info,
        "outside-solr",
        format!(
            "median wall time {w:.2} ms vs median QTime {qt:.0} ms: the difference is \
             the network, connection set-up and the response transfer, not Solr"
        ),
        if wire_first {
            "reuse connections and compress before tuning Solr"
        } else {
            "nothing on the wire to fix: what remains is round trips, transfer and the \
             client's own time"
        },
    ))
}

fn snap_length(r: &WatchReport) -> Option<Finding> {
    let (Some(why), Some(snap)) = (&r.requests_unknown, r.snap_len) else {
        return None;
    };
    Some(finding(
        Severity::Info,
        "snap-length",
        format!("requests not judged: {why}"),
        format!(
            "capture whole packets: tcpdump -s 0 (this capture kept {snap} bytes of each); \
             connection-level figures (connections, SYNs, closes, resets, bytes) are exact"
        ),
    ))
}

fn undecodable(r: &WatchReport) -> Option<Finding> {
    let u = &r.undecodable;
    let lost_frames = r.frames_undecoded + r.frames_cut_short;
    let any = u.missing_bytes + u.http_bytes > 0
        || u.connections_out_of_sync > 0
        || lost_frames > 0
        || r.capture_error.is_some()
        || r.capture_dropped > 0;
    if !any {
        return None;
    }
    let mut why: Vec<String> = u
        .reasons
        .iter()
        .map(|(k, v)| format!("{k} ({v})"))
        .collect();
    if let Some(e) = &r.capture_error {
        why.push(format!("capture: {e}"));
    }
    Some(finding(
        Severity::Info,
        "undecodable",
        format!(
            "not decoded: {} frames, {} frames cut short, {} bytes missing, {} HTTP bytes \
             out of sync on {} connections, {} packets dropped by the kernel{}",
            r.frames_undecoded,
            r.frames_cut_short,
            u.missing_bytes,
            u.http_bytes,
            u.connections_out_of_sync,
            r.capture_dropped,
            if why.is_empty() {
                String::new()
            } else {
                format!(": {}", why.join("; "))
            }
        ),
        "figures above cover what was decoded; capture with a larger snap length on a \
         quieter interface for the rest",
    ))
}

pub(super) fn verdict(r: &WatchReport) -> String {
    let c = &r.connections;
    let unknown = RequestSummary::default();
    let q = r.requests.as_ref().unwrap_or(&unknown);
    let top: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .map(|f| f.kind.as_str())
        .collect();
    let head = if let (None, Some(snap)) = (&r.requests, r.snap_len) {
        format!(
            "{} connections ({} opened in the capture); requests cannot be judged: frames were \
             cut by the snap length ({snap} bytes)",
            c.seen, c.opened
        )
    } else if let (None, Some(why)) = (&r.requests, &r.requests_unknown) {
        format!("{} connections; requests unknown: {why}", c.seen)
    } else if q.requests > 0 {
        format!(
            "{} requests on {} connections ({:.1} per connection)",
            q.requests,
            c.with_requests.unwrap_or(0),
            c.requests_per_connection.unwrap_or(0.0)
        )
    } else if let Some(t) = &r.tls {
        format!(
            "{} TLS connections ({} full, {} resumed handshakes)",
            t.connections, t.full, t.resumed
        )
    } else {
        format!("{} connections, no HTTP requests decoded", c.seen)
    };
    let lat = match (q.wall.p50_ms, q.qtime.p50_ms) {
        (Some(w), Some(qt)) => format!(", median wall {w:.2} ms vs QTime {qt:.0} ms"),
        (Some(w), None) => format!(", median wall {w:.2} ms"),
        _ => String::new(),
    };
    let tail = if top.is_empty() && r.requests.is_none() {
        "no problem found on the connection level; the request level was not judged".to_string()
    } else if top.is_empty() {
        "no problem found".to_string()
    } else {
        format!("fix: {}", top.join(", "))
    };
    format!("verdict: {head}{lat}; {tail}")
}
