//! The watch report: connection and request figures built from a [`Tracker`], the findings
//! (each with its fix), the one-line verdict, and the text table.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::conn::{Close, Proto, Tracker};
use super::solr::{self, BodyFormat};
use super::tls::Handshake;
use bench_report::stats::{percentiles, Percentiles};

/// Responses at least this large (body bytes) should be compressed.
const GZIP_WORTH: u64 = 1024;

/// Everything `watch` reports (saved as `watch.json`; schema in `schema/watch.schema.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchReport {
    /// Interface or file watched.
    pub source: String,
    /// Server port watched.
    pub port: u16,
    /// From the first to the last packet, seconds.
    pub span_s: f64,
    /// Frames read.
    pub frames: u64,
    /// Frames that were not TCP over IPv4/IPv6 (or were cut before the TCP header).
    pub frames_undecoded: u64,
    /// TCP frames not to or from the port.
    pub frames_other_port: u64,
    /// Frames captured shorter than their payload (snap length).
    pub frames_cut_short: u64,
    /// Packets the kernel dropped during a live capture.
    pub capture_dropped: u64,
    /// An error that ended reading the capture early (the rest was still analysed).
    pub capture_error: Option<String>,
    /// Connection figures.
    pub connections: ConnectionSummary,
    /// Request figures (cleartext HTTP/1.1 only).
    pub requests: RequestSummary,
    /// TLS figures, when any connection spoke TLS.
    pub tls: Option<TlsSummary>,
    /// What could not be decoded, counted and said.
    pub undecodable: Undecodable,
    /// Findings, most important first, each with its fix.
    pub findings: Vec<Finding>,
    /// One line.
    pub verdict: String,
    /// Every connection (also in `connections.csv`).
    pub connection_list: Vec<ConnectionRecord>,
}

/// Connection figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConnectionSummary {
    /// Connections seen.
    pub seen: u64,
    /// Of those, opened during the capture (SYN seen).
    pub opened: u64,
    /// Of those, already open when the capture started.
    pub already_open: u64,
    /// Retransmitted SYNs.
    pub syn_retransmits: u64,
    /// Cleartext HTTP/1.x connections.
    pub http1: u64,
    /// TLS connections.
    pub tls: u64,
    /// HTTP/2 prior-knowledge connections.
    pub http2: u64,
    /// Connections with payload in no protocol known here.
    pub other: u64,
    /// Connections that carried no payload.
    pub empty: u64,
    /// Connections that carried at least one HTTP request.
    pub with_requests: u64,
    /// Requests per connection that carried requests: mean.
    pub requests_per_connection: f64,
    /// Most requests on one connection.
    pub max_requests_per_connection: u64,
    /// Lifetime (first to last packet) of connections that closed in the capture.
    pub lifetime: Percentiles,
    /// Idle gaps on reused connections: end of a response to the next request.
    pub idle_gap: Percentiles,
    /// The client sent the first FIN.
    pub closed_by_client: u64,
    /// The server sent the first FIN (e.g. its idle timeout).
    pub closed_by_server: u64,
    /// Of those, after the client's last request asked it to close.
    pub closed_by_server_as_asked: u64,
    /// Reset by the client.
    pub reset_by_client: u64,
    /// Reset by the server.
    pub reset_by_server: u64,
    /// Still open at the end of the capture.
    pub still_open: u64,
    /// New connections per second over the capture.
    pub new_per_second: f64,
    /// Most new connections in any one second.
    pub new_per_second_peak: u64,
    /// Sockets the closing side keeps in TIME_WAIT (60 s on Linux) in steady state at this
    /// rate of new connections.
    pub time_wait_estimate: u64,
    /// Connections closed with a FIN in the last 60 s of the capture: in TIME_WAIT on the
    /// closing side when it ended.
    pub time_wait_at_end: u64,
    /// Segments whose bytes had been seen already.
    pub retransmitted_segments: u64,
    /// Segments that arrived ahead of a hole.
    pub out_of_order_segments: u64,
}

/// Request figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RequestSummary {
    /// Requests parsed.
    pub requests: u64,
    /// Requests answered by a complete response.
    pub answered: u64,
    /// Requests without a (complete) response in the capture.
    pub unanswered: u64,
    /// Requests that sent `Accept-Encoding` with gzip.
    pub accept_gzip: u64,
    /// Responses with a `Content-Encoding` (gzip, deflate, ...).
    pub compressed_responses: u64,
    /// Responses with a body of at least 1 KB and no `Content-Encoding`.
    pub uncompressed_large_responses: u64,
    /// Median response size on the wire (bytes).
    pub response_bytes_median: u64,
    /// Responses whose QTime was decoded.
    pub qtime_decoded: u64,
    /// Wall time: first request byte to last response byte (packet timestamps).
    pub wall: Percentiles,
    /// QTime reported by Solr.
    pub qtime: Percentiles,
    /// Wall time minus QTime, where both are known.
    pub outside_solr: Percentiles,
    /// Status codes.
    pub statuses: BTreeMap<String, u64>,
    /// `wt` values (`(none)` when absent).
    pub wt: BTreeMap<String, u64>,
    /// Requests that sent `Connection: keep-alive`.
    pub keep_alive_header: u64,
    /// Requests that asked the server to close (`Connection: close`, or HTTP/1.0 without
    /// keep-alive).
    pub close_requested: u64,
    /// Update bodies by format.
    pub update_formats: Vec<FormatSummary>,
    /// Per method and path.
    pub endpoints: Vec<EndpointSummary>,
}

/// Update bodies of one format.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormatSummary {
    /// json, xml, javabin, cbor, csv, form, other.
    pub format: String,
    /// Requests.
    pub requests: u64,
    /// Body bytes (as sent, after de-chunking).
    pub body_bytes: u64,
}

/// One method and path.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EndpointSummary {
    /// Method.
    pub method: String,
    /// Path, without the query string.
    pub path: String,
    /// Requests.
    pub requests: u64,
    /// Mean request size on the wire (head + body).
    pub request_bytes_mean: f64,
    /// Mean response size on the wire.
    pub response_bytes_mean: f64,
    /// Requests sending `Accept-Encoding: gzip`.
    pub accept_gzip: u64,
    /// Responses with a `Content-Encoding`.
    pub compressed: u64,
    /// Wall time.
    pub wall: Percentiles,
    /// QTime.
    pub qtime: Percentiles,
}

/// TLS figures (connection level only).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TlsSummary {
    /// TLS connections.
    pub connections: u64,
    /// ClientHellos parsed.
    pub client_hellos: u64,
    /// ClientHellos offering a session ticket.
    pub offered_ticket: u64,
    /// ClientHellos offering a pre-shared key (TLS 1.3 resumption).
    pub offered_psk: u64,
    /// Full handshakes.
    pub full: u64,
    /// Resumed handshakes.
    pub resumed: u64,
    /// Handshakes not captured well enough to tell.
    pub unknown: u64,
    /// TLS 1.3 connections.
    pub tls13: u64,
    /// Frame bytes to the server over TLS connections.
    pub bytes_to_server: u64,
    /// Frame bytes from the server over TLS connections.
    pub bytes_from_server: u64,
    /// Connection lifetime.
    pub lifetime: Percentiles,
    /// What TLS hides.
    pub note: String,
}

/// What could not be decoded.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Undecodable {
    /// Bytes missing from the capture (holes, frames cut short).
    pub missing_bytes: u64,
    /// HTTP bytes the parser could not place in a message.
    pub http_bytes: u64,
    /// Payload bytes of TLS, HTTP/2 or unknown protocols (not decoded by design).
    pub opaque_bytes: u64,
    /// Connections whose HTTP parser lost sync.
    pub connections_out_of_sync: u64,
    /// Messages cut off by the end of the capture or a hole.
    pub incomplete_messages: u64,
    /// Answered requests whose response carried no readable QTime.
    pub qtime_missing: u64,
    /// Reasons, with how many connections each.
    pub reasons: BTreeMap<String, u64>,
}

/// One finding.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    /// high, medium or info.
    pub severity: String,
    /// A short key: no-reuse, no-gzip, xml-updates, ...
    pub kind: String,
    /// What the wire shows.
    pub what: String,
    /// What to change.
    pub fix: String,
}

/// One connection.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConnectionRecord {
    /// Order of first appearance, from 1.
    pub id: usize,
    /// Client address and port.
    pub client: String,
    /// http1, tls, http2, other or none.
    pub protocol: String,
    /// SYN seen in the capture.
    pub opened_in_capture: bool,
    /// First packet, ms after the capture's first packet.
    pub start_ms: f64,
    /// Last packet, ms after the capture's first packet.
    pub end_ms: f64,
    /// Requests carried.
    pub requests: u64,
    /// Request start times, ms after the capture's first packet.
    pub request_starts_ms: Vec<f64>,
    /// Frame bytes to the server.
    pub bytes_to_server: u64,
    /// Frame bytes from the server.
    pub bytes_from_server: u64,
    /// client_fin, server_fin, client_rst, server_rst or open.
    pub closed_by: String,
    /// Longest idle gap between a response and the next request, ms.
    pub max_idle_ms: Option<f64>,
    /// TLS handshake kind.
    pub handshake: Option<Handshake>,
}

/// One request (written to `requests.csv`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RequestRecord {
    /// Connection id.
    pub conn: usize,
    /// Method.
    pub method: String,
    /// Path.
    pub path: String,
    /// `wt` parameter.
    pub wt: String,
    /// Status (0: no response).
    pub status: u16,
    /// Request bytes on the wire.
    pub request_bytes: u64,
    /// Response bytes on the wire.
    pub response_bytes: u64,
    /// Accept-Encoding sent.
    pub accept_encoding: String,
    /// Content-Encoding received.
    pub content_encoding: String,
    /// Update body format.
    pub body_format: String,
    /// Start, ms after the capture's first packet.
    pub start_ms: f64,
    /// Wall time, ms.
    pub wall_ms: Option<f64>,
    /// QTime, ms.
    pub qtime_ms: Option<u64>,
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn close_name(c: Option<Close>) -> &'static str {
    match c {
        Some(Close::ClientFin) => "client_fin",
        Some(Close::ServerFin) => "server_fin",
        Some(Close::ClientRst) => "client_rst",
        Some(Close::ServerRst) => "server_rst",
        None => "open",
    }
}

fn proto_name(p: Proto) -> &'static str {
    match p {
        Proto::Http1 => "http1",
        Proto::Tls => "tls",
        Proto::Http2 => "http2",
        Proto::Other => "other",
        Proto::None => "none",
    }
}

fn gzip_asked(m: &super::http::Message) -> bool {
    m.header("accept-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("gzip"))
}

/// The request asks the server to close the connection after answering.
fn asks_close(m: &super::http::Message) -> bool {
    let conn = m.header("connection").map(|v| v.to_ascii_lowercase());
    match conn.as_deref() {
        Some(v) if v.contains("close") => true,
        Some(v) if v.contains("keep-alive") => false,
        _ => m.version == "HTTP/1.0",
    }
}

fn is_update(path: &str, method: &str) -> bool {
    method == "POST" && path.split('/').any(|s| s == "update")
}

/// Per-request records of a finished tracker.
pub fn requests(t: &Tracker) -> Vec<RequestRecord> {
    let t0 = t.first_ts.unwrap_or(0);
    let mut out = Vec::new();
    for c in &t.conns {
        for (i, q) in c.requests.iter().enumerate() {
            let r = c.responses.get(i).filter(|r| !r.incomplete);
            let path = solr::path(&q.target).to_string();
            let fmt = q.facts.format.map_or("", |f| f.name()).to_string();
            let wt = solr::param(&q.target, "wt")
                .or_else(|| q.facts.form_wt.clone())
                .unwrap_or_default();
            let qtime = r.and_then(|r| r.facts.qtime);
            out.push(RequestRecord {
                conn: c.id,
                method: q.method.clone(),
                path,
                wt,
                status: r.map_or(0, |r| r.status),
                request_bytes: q.wire_bytes,
                response_bytes: r.map_or(0, |r| r.wire_bytes),
                accept_encoding: q.header("accept-encoding").unwrap_or("").to_string(),
                content_encoding: r
                    .and_then(|r| r.header("content-encoding"))
                    .unwrap_or("")
                    .to_string(),
                body_format: fmt,
                start_ms: ms(q.first_ts.saturating_sub(t0)),
                wall_ms: r.map(|r| ms(r.last_ts.saturating_sub(q.first_ts))),
                qtime_ms: qtime,
            });
        }
    }
    out
}

fn dur_ms(v: f64) -> Duration {
    Duration::from_secs_f64(v.max(0.0) / 1000.0)
}

fn pct_ms(vals: impl IntoIterator<Item = f64>) -> Percentiles {
    percentiles(vals.into_iter().map(dur_ms))
}

fn median(mut v: Vec<u64>) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[v.len() / 2]
}

/// Builds the report from a finished tracker.
pub fn build(
    t: &Tracker,
    source: &str,
    capture_dropped: u64,
    capture_error: Option<String>,
) -> WatchReport {
    let t0 = t.first_ts.unwrap_or(0);
    let span_us = t.last_ts.saturating_sub(t0);
    let span_s = span_us as f64 / 1e6;
    let recs = requests(t);

    // Connections.
    let mut cs = ConnectionSummary {
        seen: t.conns.len() as u64,
        ..Default::default()
    };
    let mut lifetimes = Vec::new();
    let mut gaps = Vec::new();
    let mut opened_secs: BTreeMap<u64, u64> = BTreeMap::new();
    let mut list = Vec::new();
    let mut und = Undecodable::default();
    let mut tls = TlsSummary {
        note:
            "TLS hides requests: only connections, handshakes, bytes and timing are visible; \
               capture the cleartext side (e.g. behind the TLS terminator) for request-level detail"
                .into(),
        ..Default::default()
    };
    let mut tls_life = Vec::new();
    let mut req_total = 0u64;
    for c in &t.conns {
        let mut handshake = None;
        match c.proto {
            Proto::Http1 => cs.http1 += 1,
            Proto::Tls => {
                cs.tls += 1;
                let f = c.tls.facts();
                tls.connections += 1;
                tls.client_hellos += u64::from(f.client_hello);
                tls.offered_ticket += u64::from(f.offered_ticket);
                tls.offered_psk += u64::from(f.offered_psk);
                tls.tls13 += u64::from(f.version == 0x0304);
                let h = f.handshake();
                match h {
                    Handshake::Full => tls.full += 1,
                    Handshake::Resumed => tls.resumed += 1,
                    Handshake::Unknown => tls.unknown += 1,
                }
                handshake = Some(h);
                tls.bytes_to_server += c.wire_to_server;
                tls.bytes_from_server += c.wire_from_server;
                if c.close.is_some() {
                    tls_life.push(ms(c.last_ts.saturating_sub(c.first_ts)));
                }
            }
            Proto::Http2 => cs.http2 += 1,
            Proto::Other => cs.other += 1,
            Proto::None => cs.empty += 1,
        }
        if let Some(ts) = c.syn_ts {
            cs.opened += 1;
            *opened_secs
                .entry(ts.saturating_sub(t0) / 1_000_000)
                .or_default() += 1;
        } else {
            cs.already_open += 1;
        }
        cs.syn_retransmits += c.syn_retransmits;
        cs.retransmitted_segments += c.c2s.retransmitted + c.s2c.retransmitted;
        cs.out_of_order_segments += c.c2s.out_of_order + c.s2c.out_of_order;
        match c.close.map(|x| x.0) {
            Some(Close::ClientFin) => cs.closed_by_client += 1,
            Some(Close::ServerFin) => {
                cs.closed_by_server += 1;
                if c.requests.last().is_some_and(asks_close) {
                    cs.closed_by_server_as_asked += 1;
                }
            }
            Some(Close::ClientRst) => cs.reset_by_client += 1,
            Some(Close::ServerRst) => cs.reset_by_server += 1,
            None => cs.still_open += 1,
        }
        if c.close.is_some() && c.syn_ts.is_some() {
            lifetimes.push(ms(c.last_ts.saturating_sub(c.first_ts)));
        }
        let n = c.requests.len() as u64;
        req_total += n;
        if n > 0 {
            cs.with_requests += 1;
            cs.max_requests_per_connection = cs.max_requests_per_connection.max(n);
        }
        let mut max_idle: Option<f64> = None;
        for i in 1..c.requests.len() {
            if let Some(prev) = c.responses.get(i - 1) {
                let g = ms(c.requests[i].first_ts.saturating_sub(prev.last_ts));
                gaps.push(g);
                max_idle = Some(max_idle.map_or(g, |m: f64| m.max(g)));
            }
        }
        // Undecodable.
        und.missing_bytes += c.c2s.gap_bytes + c.s2c.gap_bytes;
        und.http_bytes += c.req.undecoded_bytes + c.resp.undecoded_bytes;
        und.opaque_bytes += c.opaque_bytes;
        und.incomplete_messages += c.requests.iter().filter(|m| m.incomplete).count() as u64
            + c.responses.iter().filter(|m| m.incomplete).count() as u64;
        let lost: Vec<&String> = [&c.req.lost, &c.resp.lost].into_iter().flatten().collect();
        if !lost.is_empty() && c.proto == Proto::Http1 {
            und.connections_out_of_sync += 1;
        }
        for why in lost {
            *und.reasons.entry(why.clone()).or_default() += 1;
        }
        match c.proto {
            Proto::Http2 => {
                *und.reasons
                    .entry("HTTP/2 connection (not decoded)".into())
                    .or_default() += 1
            }
            Proto::Other => *und.reasons.entry("unknown protocol".into()).or_default() += 1,
            _ => {}
        }
        list.push(ConnectionRecord {
            id: c.id,
            client: c.client.clone(),
            protocol: proto_name(c.proto).into(),
            opened_in_capture: c.syn_ts.is_some(),
            start_ms: ms(c.first_ts.saturating_sub(t0)),
            end_ms: ms(c.last_ts.saturating_sub(t0)),
            requests: n,
            request_starts_ms: c
                .requests
                .iter()
                .map(|q| ms(q.first_ts.saturating_sub(t0)))
                .collect(),
            bytes_to_server: c.wire_to_server,
            bytes_from_server: c.wire_from_server,
            closed_by: close_name(c.close.map(|x| x.0)).into(),
            max_idle_ms: max_idle,
            handshake,
        });
    }
    cs.requests_per_connection = if cs.with_requests > 0 {
        req_total as f64 / cs.with_requests as f64
    } else {
        0.0
    };
    cs.lifetime = pct_ms(lifetimes);
    cs.idle_gap = pct_ms(gaps);
    cs.new_per_second = if span_s >= 1.0 {
        cs.opened as f64 / span_s
    } else {
        cs.opened as f64
    };
    cs.new_per_second_peak = opened_secs.values().copied().max().unwrap_or(0);
    cs.time_wait_estimate = (cs.new_per_second * 60.0).round() as u64;
    cs.time_wait_at_end = t
        .conns
        .iter()
        .filter(|c| {
            matches!(c.close, Some((Close::ClientFin | Close::ServerFin, ts)) if t.last_ts.saturating_sub(ts) < 60_000_000)
        })
        .count() as u64;

    // Requests.
    let mut rs = RequestSummary {
        requests: recs.len() as u64,
        ..Default::default()
    };
    let mut formats: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let mut eps: BTreeMap<(String, String), Vec<&RequestRecord>> = BTreeMap::new();
    let mut resp_sizes = Vec::new();
    let mut outside = Vec::new();
    for c in &t.conns {
        for (i, q) in c.requests.iter().enumerate() {
            if gzip_asked(q) {
                rs.accept_gzip += 1;
            }
            if q.header("connection")
                .is_some_and(|v| v.eq_ignore_ascii_case("keep-alive"))
            {
                rs.keep_alive_header += 1;
            }
            if asks_close(q) {
                rs.close_requested += 1;
            }
            if let Some(r) = c.responses.get(i).filter(|r| !r.incomplete) {
                if r.header("content-encoding")
                    .is_some_and(|e| e != "identity")
                {
                    rs.compressed_responses += 1;
                } else if r.body_len >= GZIP_WORTH {
                    rs.uncompressed_large_responses += 1;
                }
            }
            let path = solr::path(&q.target);
            if let Some(f) = q.facts.format.filter(|_| is_update(path, &q.method)) {
                let e = formats.entry(f.name()).or_default();
                e.0 += 1;
                e.1 += q.body_len;
            }
        }
    }
    for r in &recs {
        if r.status > 0 {
            rs.answered += 1;
            resp_sizes.push(r.response_bytes);
            *rs.statuses.entry(r.status.to_string()).or_default() += 1;
        }
        let wt = if r.wt.is_empty() {
            "(none)"
        } else {
            r.wt.as_str()
        };
        *rs.wt.entry(wt.to_string()).or_default() += 1;
        if let (Some(w), Some(q)) = (r.wall_ms, r.qtime_ms) {
            outside.push(w - q as f64);
        }
        if r.qtime_ms.is_some() {
            rs.qtime_decoded += 1;
        } else if r.status > 0 {
            und.qtime_missing += 1;
        }
        eps.entry((r.method.clone(), r.path.clone()))
            .or_default()
            .push(r);
    }
    rs.unanswered = rs.requests - rs.answered;
    rs.response_bytes_median = median(resp_sizes);
    rs.wall = pct_ms(recs.iter().filter_map(|r| r.wall_ms));
    rs.qtime = pct_ms(recs.iter().filter_map(|r| r.qtime_ms.map(|q| q as f64)));
    rs.outside_solr = pct_ms(outside);
    rs.update_formats = formats
        .into_iter()
        .map(|(f, (n, b))| FormatSummary {
            format: f.into(),
            requests: n,
            body_bytes: b,
        })
        .collect();
    let mut endpoints: Vec<EndpointSummary> = eps
        .into_iter()
        .map(|((method, path), v)| {
            let n = v.len() as f64;
            EndpointSummary {
                method,
                path,
                requests: v.len() as u64,
                request_bytes_mean: v.iter().map(|r| r.request_bytes as f64).sum::<f64>() / n,
                response_bytes_mean: v.iter().map(|r| r.response_bytes as f64).sum::<f64>() / n,
                accept_gzip: v
                    .iter()
                    .filter(|r| r.accept_encoding.to_ascii_lowercase().contains("gzip"))
                    .count() as u64,
                compressed: v.iter().filter(|r| !r.content_encoding.is_empty()).count() as u64,
                wall: pct_ms(v.iter().filter_map(|r| r.wall_ms)),
                qtime: pct_ms(v.iter().filter_map(|r| r.qtime_ms.map(|q| q as f64))),
            }
        })
        .collect();
    endpoints.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.path.cmp(&b.path)));
    rs.endpoints = endpoints;
    tls.lifetime = pct_ms(tls_life);

    let mut report = WatchReport {
        source: source.to_string(),
        port: t.port,
        span_s,
        frames: t.frames,
        frames_undecoded: t.frames_undecoded,
        frames_other_port: t.frames_other_port,
        frames_cut_short: t.frames_cut_short,
        capture_dropped,
        capture_error,
        connections: cs,
        requests: rs,
        tls: (tls.connections > 0).then_some(tls),
        undecodable: und,
        findings: Vec::new(),
        verdict: String::new(),
        connection_list: list,
    };
    report.findings = findings(&report, t);
    report.verdict = verdict(&report);
    report
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

fn finding(sev: &str, kind: &str, what: String, fix: impl Into<String>) -> Finding {
    Finding {
        severity: sev.into(),
        kind: kind.into(),
        what,
        fix: fix.into(),
    }
}

fn findings(r: &WatchReport, t: &Tracker) -> Vec<Finding> {
    let mut f = Vec::new();
    let c = &r.connections;
    let q = &r.requests;
    if c.seen == 0 {
        f.push(finding(
            "high",
            "no-traffic",
            format!("no TCP traffic to or from port {} was seen", r.port),
            "check --port and --interface (loopback is `lo`; `any` sees every interface), and \
             that the application talks to Solr while watch runs",
        ));
        return f;
    }
    let reqs = q.requests;
    if reqs >= 2 && c.with_requests >= 2 && c.requests_per_connection < 2.0 {
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
        f.push(finding(
            "high",
            "no-reuse",
            format!(
                "{reqs} requests on {} connections: your client does not reuse connections{ka}",
                c.with_requests
            ),
            "keep one client object and let it pool connections: Python requests.Session, \
             Ruby Faraday with net_http_persistent or Typhoeus, PHP/curl one handle for many \
             requests, Java one shared HttpClient; curl: several URLs in one invocation",
        ));
    } else if c.max_requests_per_connection >= 2 {
        f.push(finding(
            "info",
            "reuse",
            format!(
                "connections are reused: {reqs} requests on {} connections ({:.1} per connection)",
                c.with_requests, c.requests_per_connection
            ),
            "nothing to change",
        ));
    }
    if c.opened >= 20 && c.new_per_second >= 10.0 {
        f.push(finding(
            "medium",
            "time-wait",
            format!(
                "{:.0} new connections per second (peak {} in one second): at this rate about {} sockets wait \
                 in TIME_WAIT (60 s) on the side that closes first",
                c.new_per_second, c.new_per_second_peak, c.time_wait_estimate
            ),
            "reuse connections; a client that closes first holds the TIME_WAIT sockets and can \
             run out of ephemeral ports",
        ));
    }
    if q.uncompressed_large_responses > 0 {
        let asked = t
            .conns
            .iter()
            .flat_map(|c| c.requests.iter().zip(c.responses.iter()))
            .filter(|(_, rp)| {
                !rp.incomplete
                    && rp.header("content-encoding").is_none()
                    && rp.body_len >= GZIP_WORTH
            })
            .filter(|(rq, _)| gzip_asked(rq))
            .count() as u64;
        let not_asked = q.uncompressed_large_responses - asked;
        if not_asked > 0 {
            f.push(finding(
                if q.response_bytes_median >= 100 * 1024 {
                    "high"
                } else {
                    "medium"
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
            ));
        }
        if asked > 0 {
            f.push(finding(
                "medium",
                "server-no-gzip",
                format!("{asked} responses of 1 KB or more came uncompressed although the client asked for gzip"),
                "enable gzip on the server or the proxy in front of it (Solr's Jetty gzip handler)",
            ));
        }
    }
    if q.compressed_responses > 0 {
        f.push(finding(
            "info",
            "gzip",
            format!("{} responses came compressed", q.compressed_responses),
            "nothing to change",
        ));
    }
    if let Some(x) = q.update_formats.iter().find(|x| x.format == "xml") {
        let est = match xml_as_json_ratio(t) {
            Some(ratio) => format!(
                "the same documents as JSON would be about {:.0}% smaller",
                (1.0 - ratio) * 100.0
            ),
            None => "JSON is typically ~40% smaller".to_string(),
        };
        f.push(finding(
            "medium",
            "xml-updates",
            format!(
                "{} update requests sent XML ({}): {est} (seed 003 measured 42% smaller \
                 uncompressed, 11% gzipped)",
                x.requests,
                kb(x.body_bytes as f64)
            ),
            "send updates as JSON (Content-Type: application/json; Sunspot/RSolr: \
             update_format :json; pysolr and SolrJ can send JSON or javabin)",
        ));
    }
    let ruby = q.wt.get("ruby").copied().unwrap_or(0) + q.wt.get("python").copied().unwrap_or(0);
    if ruby > 0 {
        f.push(finding(
            "medium",
            "wt-eval",
            format!("{ruby} requests asked for wt=ruby or wt=python"),
            "use wt=json: seed 003 found wt=ruby ~3x slower to parse, and evaluated with eval",
        ));
    }
    if c.reset_by_client + c.reset_by_server > 0 {
        f.push(finding(
            "medium",
            "resets",
            format!(
                "{} connections ended with a reset ({} by the client, {} by the server)",
                c.reset_by_client + c.reset_by_server,
                c.reset_by_client,
                c.reset_by_server
            ),
            "a reset loses whatever was in flight: check client timeouts and server idle timeouts",
        ));
    }
    let unasked = c.closed_by_server - c.closed_by_server_as_asked;
    if r.tls.is_none() && unasked > 0 && unasked * 2 >= c.seen {
        f.push(finding(
            "medium",
            "server-closes",
            format!(
                "the server closed {unasked} of {} connections first without being asked \
                 (its idle timeout, or an error)",
                c.seen
            ),
            "let the client's pool drop idle connections before the server's idle timeout, or \
             raise the server's timeout",
        ));
    }
    if let Some(tl) = &r.tls {
        if tl.full >= 2 && tl.resumed == 0 {
            f.push(finding(
                "medium",
                "tls-full-handshakes",
                format!(
                    "{} TLS connections, every one with a full handshake",
                    tl.full
                ),
                "reuse connections; where a new one is needed, resume sessions (tickets/PSK)",
            ));
        }
        f.push(finding(
            "info",
            "tls-opaque",
            format!(
                "{} TLS connections ({} full, {} resumed handshakes): request-level detail needs cleartext",
                tl.connections, tl.full, tl.resumed
            ),
            "watch the cleartext side (between a TLS terminator and Solr) for methods, sizes and QTime",
        ));
    }
    if let (Some(w), Some(qt)) = (q.wall.p50_ms, q.qtime.p50_ms) {
        if q.qtime.n > 0 {
            f.push(finding(
                "info",
                "outside-solr",
                format!(
                    "median wall time {w:.2} ms vs median QTime {qt:.0} ms: the difference is \
                     the network, connection set-up and the response transfer, not Solr"
                ),
                if f.iter()
                    .any(|x| x.kind == "no-reuse" || x.kind == "no-gzip")
                {
                    "reuse connections and compress before tuning Solr"
                } else {
                    "nothing on the wire to fix: what remains is round trips, transfer and the \
                     client's own time"
                },
            ));
        }
    }
    let u = &r.undecodable;
    let lost_frames = r.frames_undecoded + r.frames_cut_short;
    if u.missing_bytes + u.http_bytes > 0
        || u.connections_out_of_sync > 0
        || lost_frames > 0
        || r.capture_error.is_some()
        || r.capture_dropped > 0
    {
        let mut why: Vec<String> = u
            .reasons
            .iter()
            .map(|(k, v)| format!("{k} ({v})"))
            .collect();
        if let Some(e) = &r.capture_error {
            why.push(format!("capture: {e}"));
        }
        f.push(finding(
            "info",
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
        ));
    }
    let rank = |s: &str| match s {
        "high" => 0,
        "medium" => 1,
        _ => 2,
    };
    f.sort_by_key(|x| rank(&x.severity));
    f
}

fn verdict(r: &WatchReport) -> String {
    let c = &r.connections;
    let q = &r.requests;
    let top: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.severity != "info")
        .map(|f| f.kind.as_str())
        .collect();
    let head = if q.requests > 0 {
        format!(
            "{} requests on {} connections ({:.1} per connection)",
            q.requests, c.with_requests, c.requests_per_connection
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
    let tail = if top.is_empty() {
        "no problem found".to_string()
    } else {
        format!("fix: {}", top.join(", "))
    };
    format!("verdict: {head}{lat}; {tail}")
}

fn opt(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.2}"))
}

/// Prints the report as text tables ending with the verdict.
pub fn print_text<W: Write>(r: &WatchReport, w: &mut W) -> Result<()> {
    let c = &r.connections;
    let q = &r.requests;
    writeln!(
        w,
        "watch {} port {}: {} frames over {:.2} s",
        r.source, r.port, r.frames, r.span_s
    )?;
    writeln!(w)?;
    writeln!(w, "Connections")?;
    writeln!(
        w,
        "  seen {} (opened in capture {}, already open {}); http1 {}, tls {}, http2 {}, other {}, empty {}",
        c.seen, c.opened, c.already_open, c.http1, c.tls, c.http2, c.other, c.empty
    )?;
    writeln!(
        w,
        "  requests per connection: mean {:.2}, max {} (over {} connections with requests)",
        c.requests_per_connection, c.max_requests_per_connection, c.with_requests
    )?;
    writeln!(
        w,
        "  lifetime ms: p50 {} p90 {} max {}; idle gaps ms: n {} p50 {} max {}",
        opt(c.lifetime.p50_ms),
        opt(c.lifetime.p90_ms),
        opt(c.lifetime.max_ms),
        c.idle_gap.n,
        opt(c.idle_gap.p50_ms),
        opt(c.idle_gap.max_ms)
    )?;
    writeln!(
        w,
        "  closed by: client FIN {}, server FIN {}, client RST {}, server RST {}, still open {}",
        c.closed_by_client, c.closed_by_server, c.reset_by_client, c.reset_by_server, c.still_open
    )?;
    writeln!(
        w,
        "  new connections/s {:.1} (peak {} in one second), {} in TIME_WAIT at the end; SYN retransmits {}, \
         retransmitted segments {}, out of order {}",
        c.new_per_second,
        c.new_per_second_peak,
        c.time_wait_at_end,
        c.syn_retransmits,
        c.retransmitted_segments,
        c.out_of_order_segments
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "Requests: {} ({} answered), Accept-Encoding gzip {}, compressed responses {}, wt {:?}",
        q.requests, q.answered, q.accept_gzip, q.compressed_responses, q.wt
    )?;
    if !q.endpoints.is_empty() {
        writeln!(
            w,
            "  {:<6} {:<32} {:>6} {:>10} {:>10} {:>5} {:>5} {:>9} {:>9} {:>9} {:>7}",
            "method",
            "path",
            "n",
            "req B",
            "resp B",
            "gzAsk",
            "gzGot",
            "wall p50",
            "wall p90",
            "wall max",
            "QT p50"
        )?;
        for e in &q.endpoints {
            writeln!(
                w,
                "  {:<6} {:<32} {:>6} {:>10.0} {:>10.0} {:>5} {:>5} {:>9} {:>9} {:>9} {:>7}",
                e.method,
                e.path,
                e.requests,
                e.request_bytes_mean,
                e.response_bytes_mean,
                e.accept_gzip,
                e.compressed,
                opt(e.wall.p50_ms),
                opt(e.wall.p90_ms),
                opt(e.wall.max_ms),
                e.qtime.p50_ms.map_or("-".into(), |x| format!("{x:.0}"))
            )?;
        }
        writeln!(
            w,
            "  wall ms  p50 {} p90 {} p99 {} max {} | QTime ms p50 {} p90 {} max {} ({} decoded) | outside Solr p50 {}",
            opt(q.wall.p50_ms),
            opt(q.wall.p90_ms),
            opt(q.wall.p99_ms),
            opt(q.wall.max_ms),
            opt(q.qtime.p50_ms),
            opt(q.qtime.p90_ms),
            opt(q.qtime.max_ms),
            q.qtime_decoded,
            opt(q.outside_solr.p50_ms)
        )?;
        if !q.statuses.is_empty() {
            writeln!(w, "  statuses {:?}", q.statuses)?;
        }
        for fm in &q.update_formats {
            writeln!(
                w,
                "  updates as {}: {} requests, {} body bytes",
                fm.format, fm.requests, fm.body_bytes
            )?;
        }
    }
    if let Some(t) = &r.tls {
        writeln!(w)?;
        writeln!(
            w,
            "TLS: {} connections, {} ClientHellos ({} offering a ticket, {} a PSK), {} full, {} \
             resumed, {} unknown handshakes, {} TLS 1.3; {} B to / {} B from the server",
            t.connections,
            t.client_hellos,
            t.offered_ticket,
            t.offered_psk,
            t.full,
            t.resumed,
            t.unknown,
            t.tls13,
            t.bytes_to_server,
            t.bytes_from_server
        )?;
        writeln!(w, "  {}", t.note)?;
    }
    writeln!(w)?;
    writeln!(w, "Findings")?;
    for f in &r.findings {
        writeln!(w, "  [{}] {}", f.severity, f.what)?;
        if f.fix != "nothing to change" {
            writeln!(w, "      fix: {}", f.fix)?;
        }
    }
    writeln!(w)?;
    writeln!(w, "{}", r.verdict)?;
    Ok(())
}
