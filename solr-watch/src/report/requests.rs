//! Request figures of a finished [`Tracker`]: one [`RequestRecord`] a request and the
//! [`RequestSummary`] over them.

use std::collections::BTreeMap;

use super::wire::{asks_close, gzip_asked, is_update, ms};
use super::{
    EndpointSummary, FormatSummary, RequestRecord, RequestSummary, Undecodable, GZIP_WORTH,
};
use crate::wire::conn::{Conn, Tracker};
use crate::wire::http::Message;
use crate::wire::solr;
use bench_report::stats::exact_percentiles;

/// Per-request records of a finished tracker.
pub fn requests(t: &Tracker) -> Vec<RequestRecord> {
    let t0 = t.first_ts.unwrap_or(0);
    let mut out = Vec::new();
    for c in &t.conns {
        for (i, q) in c.requests.iter().enumerate() {
            let r = c.responses.get(i).filter(|r| !r.incomplete);
            out.push(record(c.id, q, r, t0));
        }
    }
    out
}

/// The record of request `q` on connection `conn`, answered by `r` if complete.
fn record(conn: usize, q: &Message, r: Option<&Message>, t0: u64) -> RequestRecord {
    RequestRecord {
        conn,
        method: q.method.clone(),
        path: solr::path(&q.target).to_string(),
        wt: solr::param(&q.target, "wt")
            .or_else(|| q.facts.form_wt.clone())
            .unwrap_or_default(),
        status: r.map_or(0, |r| r.status),
        request_bytes: q.wire_bytes,
        response_bytes: r.map_or(0, |r| r.wire_bytes),
        accept_encoding: q.header("accept-encoding").unwrap_or("").to_string(),
        content_encoding: r
            .and_then(|r| r.header("content-encoding"))
            .unwrap_or("")
            .to_string(),
        body_format: q.facts.format.map_or("", |f| f.name()).to_string(),
        start_ms: ms(q.first_ts.saturating_sub(t0)),
        wall_ms: r.map(|r| ms(r.last_ts.saturating_sub(q.first_ts))),
        qtime_ms: r.and_then(|r| r.facts.qtime),
        solr_status: r.and_then(|r| r.facts.solr_status),
    }
}

/// The request summary of `t`, whose records are `recs`; answers without a QTime are
/// added to `und`.
pub(super) fn request_summary(
    t: &Tracker,
    recs: &[RequestRecord],
    und: &mut Undecodable,
) -> RequestSummary {
    let mut rs = RequestSummary {
        requests: recs.len() as u64,
        ..Default::default()
    };
    let mut formats: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for c in &t.conns {
        count_heads(c, &mut rs, &mut formats);
    }
    let mut resp_sizes = Vec::new();
    let mut outside = Vec::new();
    for r in recs {
        if r.status > 0 {
            resp_sizes.push(r.response_bytes);
        }
        if let (Some(w), Some(q)) = (r.wall_ms, r.qtime_ms) {
            outside.push(w - q as f64);
        }
        count_record(r, &mut rs, und);
    }
    rs.unanswered = rs.requests - rs.answered;
    rs.response_bytes_median = median(resp_sizes);
    rs.wall = exact_percentiles(recs.iter().filter_map(|r| r.wall_ms));
    rs.qtime = exact_percentiles(recs.iter().filter_map(|r| r.qtime_ms.map(|q| q as f64)));
    rs.outside_solr = exact_percentiles(outside);
    rs.update_formats = formats
        .into_iter()
        .map(|(f, (n, b))| FormatSummary {
            format: f.into(),
            requests: n,
            body_bytes: b,
        })
        .collect();
    rs.endpoints = endpoints(recs);
    rs
}

/// Counts what the heads of `c`'s requests and answers ask and say; update bodies by format.
fn count_heads<'a>(
    c: &'a Conn,
    rs: &mut RequestSummary,
    formats: &mut BTreeMap<&'a str, (u64, u64)>,
) {
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

/// Counts the status, `wt` and QTime of one record.
fn count_record(r: &RequestRecord, rs: &mut RequestSummary, und: &mut Undecodable) {
    if r.status > 0 {
        rs.answered += 1;
        *rs.statuses.entry(r.status.to_string()).or_default() += 1;
    }
    let wt = if r.wt.is_empty() {
        "(none)"
    } else {
        r.wt.as_str()
    };
    *rs.wt.entry(wt.to_string()).or_default() += 1;
    if r.qtime_ms.is_some() {
        rs.qtime_decoded += 1;
    } else if r.status > 0 {
        und.qtime_missing += 1;
    }
}

/// Figures per method and path, most requests first.
fn endpoints(recs: &[RequestRecord]) -> Vec<EndpointSummary> {
    let mut eps: BTreeMap<(String, String), Vec<&RequestRecord>> = BTreeMap::new();
    for r in recs {
        eps.entry((r.method.clone(), r.path.clone()))
            .or_default()
            .push(r);
    }
    let mut endpoints: Vec<EndpointSummary> = eps
        .into_iter()
        .map(|((method, path), v)| endpoint(method, path, &v))
        .collect();
    endpoints.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.path.cmp(&b.path)));
    endpoints
}

fn endpoint(method: String, path: String, v: &[&RequestRecord]) -> EndpointSummary {
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
        wall: exact_percentiles(v.iter().filter_map(|r| r.wall_ms)),
        qtime: exact_percentiles(v.iter().filter_map(|r| r.qtime_ms.map(|q| q as f64))),
    }
}

/// The median size (the mean of the middle two for an even count, rounded); 0 when empty.
fn median(v: Vec<u64>) -> u64 {
    bench_report::stats::median(v.into_iter().map(|b| b as f64)).map_or(0, |m| m.round() as u64)
}
