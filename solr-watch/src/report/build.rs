//! Connection and request figures of a finished [`Tracker`], assembled into a [`WatchReport`].

use std::collections::BTreeMap;

use super::findings::{findings, verdict};
use super::*;
use crate::conn::{Close, Proto, Tracker};
use crate::http::Message;
use crate::http2::Http2Summary;
use crate::solr;
use crate::tls_decrypt::TlsDecryption;

pub(super) fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

pub(super) fn close_name(c: Option<Close>) -> &'static str {
    match c {
        Some(Close::ClientFin) => "client_fin",
        Some(Close::ServerFin) => "server_fin",
        Some(Close::ClientRst) => "client_rst",
        Some(Close::ServerRst) => "server_rst",
        None => "open",
    }
}

pub(super) fn proto_name(p: Proto) -> &'static str {
    match p {
        Proto::Http1 => "http1",
        Proto::Tls => "tls",
        Proto::Http2 => "http2",
        Proto::Other => "other",
        Proto::None => "none",
    }
}

pub(super) fn gzip_asked(m: &Message) -> bool {
    m.header("accept-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("gzip"))
}

/// The request asks the server to close the connection after answering.
pub(super) fn asks_close(m: &Message) -> bool {
    let conn = m.header("connection").map(|v| v.to_ascii_lowercase());
    match conn.as_deref() {
        Some(v) if v.contains("close") => true,
        Some(v) if v.contains("keep-alive") => false,
        _ => m.version == "HTTP/1.0",
    }
}

pub(super) fn is_update(path: &str, method: &str) -> bool {
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
                solr_status: r.and_then(|r| r.facts.solr_status),
            });
        }
    }
    out
}

/// Exact percentiles by nearest rank, the workspace's one routine.
pub use bench_report::stats::exact_percentiles;

fn pct_ms(vals: impl IntoIterator<Item = f64>) -> Percentiles {
    exact_percentiles(vals)
}

/// The median size (the mean of the middle two for an even count, rounded); 0 when empty.
fn median(v: Vec<u64>) -> u64 {
    bench_report::stats::median(v.into_iter().map(|b| b as f64)).map_or(0, |m| m.round() as u64)
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
    // Frames cut by the snap length hide request heads and bodies: on such a connection the
    // requests, their answers and everything read from them are unknown.
    let cut = |c: &crate::conn::Conn| c.cut_bytes > 0 && c.proto != Proto::Tls;
    let cut_conns = t.conns.iter().filter(|c| cut(c)).count() as u64;
    let requests_known = cut_conns == 0;
    let (mut with_requests, mut max_requests, mut as_asked) = (0u64, 0u64, 0u64);

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
    let mut decryption = t.keylog.as_ref().map(|k| TlsDecryption::new(&k.stats()));
    let mut tls_life = Vec::new();
    let mut h2 = Http2Summary::default();
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
                if let (Some(sum), Some(d)) = (decryption.as_mut(), c.decrypt.as_ref()) {
                    sum.add(d.stats());
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
                    as_asked += 1;
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
            with_requests += 1;
            max_requests = max_requests.max(n);
        }
        let mut max_idle: Option<f64> = None;
        let known = (!cut(c)).then_some(n);
        let judged = if requests_known { c.requests.len() } else { 0 };
        for i in 1..judged {
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
        if let Some(h) = &c.h2 {
            h2.add(h.facts());
            und.http_bytes += h.undecoded_bytes();
            if !h.facts().lost.is_empty() {
                und.connections_out_of_sync += 1;
            }
            for why in &h.facts().lost {
                *und.reasons.entry(why.clone()).or_default() += 1;
            }
        }
        if c.proto == Proto::Other {
            *und.reasons.entry("unknown protocol".into()).or_default() += 1;
        }
        list.push(ConnectionRecord {
            id: c.id,
            client: c.client.clone(),
            protocol: c
                .h2
                .as_ref()
                .map_or(proto_name(c.proto), |h| h.facts().start.as_str())
                .into(),
            opened_in_capture: c.syn_ts.is_some(),
            start_ms: ms(c.first_ts.saturating_sub(t0)),
            end_ms: ms(c.last_ts.saturating_sub(t0)),
            requests: known,
            request_starts_ms: c
                .requests
                .iter()
                .filter(|_| known.is_some())
                .map(|q| ms(q.first_ts.saturating_sub(t0)))
                .collect(),
            bytes_to_server: c.wire_to_server,
            bytes_from_server: c.wire_from_server,
            closed_by: close_name(c.close.map(|x| x.0)).into(),
            max_idle_ms: max_idle,
            handshake,
            h2: c.h2.as_ref().map(|h| h.facts().clone()),
        });
    }
    if requests_known {
        cs.with_requests = Some(with_requests);
        cs.max_requests_per_connection = Some(max_requests);
        cs.closed_by_server_as_asked = Some(as_asked);
        cs.requests_per_connection = Some(if with_requests > 0 {
            req_total as f64 / with_requests as f64
        } else {
            0.0
        });
    }
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
    if let Some(d) = &decryption {
        tls.note = crate::report::tls::note(d);
    }
    tls.decryption = decryption;

    let mut report =
        WatchReport {
            source: source.to_string(),
            port: t.port,
            span_s,
            frames: t.frames,
            frames_undecoded: t.frames_undecoded,
            frames_other_port: t.frames_other_port,
            frames_cut_short: t.frames_cut_short,
            snap_len: (t.frames_cut_short > 0).then_some(if t.snap_len > 0 {
                t.snap_len
            } else {
                t.cut_frame_len
            }),
            requests_unknown: (!requests_known).then(|| {
                let bytes: u64 = t.conns.iter().filter(|c| cut(c)).map(|c| c.cut_bytes).sum();
                format!(
                "{} frames were cut short by the snap length ({} bytes): {bytes} payload bytes \
                 missing on {cut_conns} of {} connections, so requests, responses, QTime, gzip \
                 and reuse per request cannot be judged",
                t.frames_cut_short,
                if t.snap_len > 0 { t.snap_len } else { t.cut_frame_len },
                t.conns.len()
            )
            }),
            capture_dropped,
            capture_error,
            connections: cs,
            requests: requests_known.then_some(rs),
            tls: (tls.connections > 0).then_some(tls),
            http2: (h2.connections > 0).then_some(h2),
            undecodable: und,
            findings: Vec::new(),
            verdict: String::new(),
            connection_list: list,
        };
    report.findings = findings(&report, t);
    report.verdict = verdict(&report);
    report
}
