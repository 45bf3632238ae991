//! The sweep's table: measured p50s beside the round trips theory predicts (handshakes, TCP slow start).

use crate::scenario::study::{StudyReport, TransportSummary, Witnesses};
use wan_emu::TlsVersion;

use super::*;

/// Payload bytes per TCP segment on the emulated link (1500-byte MTU, less IPv4, TCP and
/// TCP timestamp headers).
pub const MSS: f64 = 1448.0;

/// Linux's initial congestion window, in segments (RFC 6928).
pub const INITIAL_WINDOW: f64 = 10.0;

/// Round trips beyond the first that a new connection needs to receive `bytes`: slow start
/// sends [`INITIAL_WINDOW`] segments in the first round trip and doubles the window each
/// round trip after (the client acknowledges every second segment; Linux grows the window by
/// the segments acknowledged). A pooled connection's window is already open, so this is
/// charged to fresh connections only; a 21 KB answer costs fresh one more RTT.
pub fn slow_start_rounds(bytes: f64) -> u32 {
    let segments = (bytes / MSS).ceil();
    let (mut sent, mut window, mut extra) = (INITIAL_WINDOW, INITIAL_WINDOW, 0);
    while sent < segments {
        window *= 2.0;
        sent += window;
        extra += 1;
    }
    extra
}

pub(super) fn round_trips(transport: &str, tls: TlsVersion) -> u32 {
    match (transport.starts_with("fresh"), tls) {
        (true, TlsVersion::Tls13) => 3,
        (true, TlsVersion::Tls12) => 4,
        (false, _) => 1,
    }
}

pub(super) fn p95(t: &TransportSummary) -> Option<f64> {
    t.curve_ms
        .iter()
        .find(|(p, _)| (*p - 95.0).abs() < 1e-9)
        .map(|(_, v)| *v)
}

/// Builds the table from the studies, one per (TLS version, RTT); RTT 0 must be among them.
/// `rebaselines` are extra RTT-0 runs (the sweep repeats RTT 0 at the end): each
/// transport's `t0` is the lowest RTT-0 p50 of all, because a busy machine only adds time.
pub fn rows(
    studies: &[(TlsVersion, f64, &StudyReport)],
    rebaselines: &[(TlsVersion, &StudyReport)],
) -> Vec<SweepRow> {
    let mut out: Vec<SweepRow> = Vec::new();
    for (tls, rtt, r) in studies {
        for t in r.transports.iter().filter(|t| t.scenario == "search") {
            let w = &t.witnesses;
            out.push(SweepRow {
                tls: tls.to_string(),
                rtt_ms: *rtt,
                transport: t.transport.clone(),
                n: t.wall.n,
                errors: t.errors,
                p50_ms: t.wall.p50_ms,
                p95_ms: p95(t),
                qtime_p50_ms: t.qtime.p50_ms,
                qtime_missing: t.qtime_missing,
                bytes_in_mean: t.bytes_in_mean,
                conns_connector: w.connector,
                conns_kernel: w.kernel_active_opens,
                conns_pcap: w.pcap_syns,
                conns_expected: w.expected,
                witnesses_counted: w.counted.join("+"),
                witnesses_agree: w.agree,
                conns_within_expected: w.within_expected,
                round_trips: round_trips(&t.transport, *tls),
                expected_p50_ms: None,
                vs_expected_pct: None,
                fresh_pooled_ratio: None,
                theory_ratio: None,
                ratio_off_pct: None,
                flagged: false,
            });
        }
    }
    // A fresh connection receives its answer in slow start: the pooled sibling's bytes in
    // (the same answer, without the handshake) decide the extra round trips.
    let snapshot = out.clone();
    for row in out.iter_mut().filter(|r| r.transport.starts_with("fresh")) {
        let pooled_name = row.transport.replacen("fresh", "pooled", 1);
        let answer = snapshot
            .iter()
            .find(|r| r.tls == row.tls && r.rtt_ms == row.rtt_ms && r.transport == pooled_name)
            .map_or(row.bytes_in_mean, |p| p.bytes_in_mean);
        row.round_trips += slow_start_rounds(answer);
    }
    let base = |rows: &[SweepRow], tls: &str, transport: &str| {
        let first = rows
            .iter()
            .find(|r| r.tls == tls && r.transport == transport && r.rtt_ms == 0.0)
            .and_then(|r| r.p50_ms);
        rebaselines
            .iter()
            .filter(|(v, _)| v.to_string() == tls)
            .flat_map(|(_, r)| r.transports.iter())
            .filter(|t| t.scenario == "search" && t.transport == transport)
            .filter_map(|t| t.wall.p50_ms)
            .chain(first)
            .min_by(f64::total_cmp)
    };
    let snapshot = out.clone();
    for row in &mut out {
        if let (Some(b), Some(p)) = (base(&snapshot, &row.tls, &row.transport), row.p50_ms) {
            let e = b + f64::from(row.round_trips) * row.rtt_ms;
            row.expected_p50_ms = Some(e);
            row.vs_expected_pct = Some((p / e - 1.0) * 100.0);
        }
        if !row.transport.starts_with("fresh") {
            continue;
        }
        let pooled_name = row.transport.replacen("fresh", "pooled", 1);
        let pooled = snapshot
            .iter()
            .find(|r| r.tls == row.tls && r.rtt_ms == row.rtt_ms && r.transport == pooled_name);
        let (Some(pooled), Some(fresh_p50)) = (pooled, row.p50_ms) else {
            continue;
        };
        let Some(pooled_p50) = pooled.p50_ms else {
            continue;
        };
        let ratio = fresh_p50 / pooled_p50;
        row.fresh_pooled_ratio = Some(ratio);
        let bf = base(&snapshot, &row.tls, &row.transport);
        let bp = base(&snapshot, &row.tls, &pooled_name);
        if let (Some(bf), Some(bp)) = (bf, bp) {
            let theory =
                (bf + f64::from(row.round_trips) * row.rtt_ms) / (bp + row.rtt_ms).max(1e-9);
            let off = ratio / theory - 1.0;
            row.theory_ratio = Some(theory);
            row.ratio_off_pct = Some(off * 100.0);
            row.flagged = row.rtt_ms > 0.0 && off.abs() > RATIO_TOLERANCE;
        }
    }
    out
}

/// The witnesses of every search run of `studies` and of the RTT-0 `rebaselines`,
/// labelled `TLS 1.3 RTT 20 fresh` (`TLS 1.3 RTT 0 again fresh`).
pub fn witness_runs<'a>(
    studies: &[(TlsVersion, f64, &'a StudyReport)],
    rebaselines: &[(TlsVersion, &'a StudyReport)],
) -> Vec<(String, &'a Witnesses)> {
    let points = studies
        .iter()
        .map(|(tls, rtt, r)| (format!("TLS {tls} RTT {rtt}"), *r))
        .chain(
            rebaselines
                .iter()
                .map(|(tls, r)| (format!("TLS {tls} RTT 0 again"), *r)),
        );
    points
        .flat_map(|(point, r)| {
            r.transports
                .iter()
                .filter(|t| t.scenario == "search")
                .map(move |t| (format!("{point} {}", t.transport), &t.witnesses))
        })
        .collect()
}
