//! A finished [`Tracker`] assembled into a [`WatchReport`]: its connection figures (module
//! `connections`), request figures ([`requests`](mod@super::requests)) and findings
//! ([`findings`](mod@super::findings)).

use super::connections::{connection_figures, cut};
use super::findings::{findings, verdict};
use super::requests::{request_summary, requests};
use super::*;
use crate::wire::conn::Tracker;

/// Builds the report from a finished tracker.
pub fn build(
    t: &Tracker,
    source: &str,
    capture_dropped: u64,
    capture_error: Option<String>,
) -> WatchReport {
    let span_s = t.last_ts.saturating_sub(t.first_ts.unwrap_or(0)) as f64 / 1e6;
    let requests_unknown = requests_unknown(t);
    let requests_known = requests_unknown.is_none();
    let mut figures = connection_figures(t, requests_known, span_s);
    let rs = request_summary(t, &requests(t), &mut figures.undecodable);
    let mut report = WatchReport {
        source: source.to_string(),
        port: t.port,
        span_s,
        frames: t.frames,
        frames_undecoded: t.frames_undecoded,
        frames_other_port: t.frames_other_port,
        frames_cut_short: t.frames_cut_short,
        snap_len: (t.frames_cut_short > 0).then_some(snap_len(t)),
        requests_unknown,
        capture_dropped,
        capture_error,
        connections: figures.connections,
        requests: requests_known.then_some(rs),
        tls: (figures.tls.connections > 0).then_some(figures.tls),
        http2: (figures.http2.connections > 0).then_some(figures.http2),
        undecodable: figures.undecodable,
        findings: Vec::new(),
        verdict: String::new(),
        connection_list: figures.list,
    };
    report.findings = findings(&report, t);
    report.verdict = verdict(&report);
    report
}

/// The snap length that cut frames: from the capture's header, else the longest cut frame.
fn snap_len(t: &Tracker) -> u32 {
    if t.snap_len > 0 {
        t.snap_len
    } else {
        t.cut_frame_len
    }
}

/// Why requests cannot be judged: what the watcher said ([`Tracker::requests_unread`]), or
/// frames carrying them cut by the snap length.
fn requests_unknown(t: &Tracker) -> Option<String> {
    if let Some(why) = &t.requests_unread {
        return Some(why.clone());
    }
    let cut_conns = t.conns.iter().filter(|c| cut(c)).count();
    if cut_conns == 0 {
        return None;
    }
    let bytes: u64 = t.conns.iter().filter(|c| cut(c)).map(|c| c.cut_bytes).sum();
    Some(format!(
        "{} frames were cut short by the snap length ({} bytes): {bytes} payload bytes \
         missing on {cut_conns} of {} connections, so requests, responses, QTime, gzip \
         and reuse per request cannot be judged",
        t.frames_cut_short,
        snap_len(t),
        t.conns.len()
    ))
}
