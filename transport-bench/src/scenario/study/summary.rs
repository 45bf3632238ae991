//! The study's summaries: per-transport figures from the records, warnings, findings and the verdict.

use self::witnesses::Witnesses;
use crate::engine::load::Load;
use bench_report::stats::percentiles;
use solr_client::{Timing, TransportKind};
use std::time::Duration;

use super::*;

/// Builds one transport's figures from its measured records (also used by `report RUN`).
pub fn summarize(
    scenario: &str,
    name: &str,
    kind: TransportKind,
    recs: &[&Record],
    witnesses: Witnesses,
    rep_p50_ms: Vec<f64>,
    elapsed: Duration,
) -> TransportSummary {
    let timings: Vec<&Timing> = recs.iter().filter_map(|r| r.timing.as_ref()).collect();
    let n = timings.len().max(1) as f64;
    let mean = |f: &dyn Fn(&Timing) -> Duration| {
        timings
            .iter()
            .map(|t| f(t).as_secs_f64() * 1000.0)
            .sum::<f64>()
            / n
    };
    let phases_mean_ms = vec![
        ("blocked".to_string(), mean(&|t| t.blocked)),
        ("dns".to_string(), mean(&|t| t.dns.unwrap_or_default())),
        (
            "connect".to_string(),
            mean(&|t| t.connect.unwrap_or_default()),
        ),
        ("tls".to_string(), mean(&|t| t.tls.unwrap_or_default())),
        ("write".to_string(), mean(&|t| t.write)),
        ("server_wait".to_string(), mean(&|t| t.server_wait)),
        ("transfer".to_string(), mean(&|t| t.transfer)),
        (
            "decompress".to_string(),
            mean(&|t| t.decompress.unwrap_or_default()),
        ),
        ("parse".to_string(), mean(&|t| t.parse.unwrap_or_default())),
    ];
    let mut kinds: std::collections::BTreeMap<String, u64> = Default::default();
    for e in recs.iter().filter_map(|r| r.error.as_ref()) {
        *kinds.entry(e.chars().take(80).collect()).or_default() += 1;
    }
    let corrected: Vec<Duration> = recs
        .iter()
        .filter_map(|r| r.latency_ms)
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .collect();
    let late = recs
        .iter()
        .filter_map(|r| r.start_delay_ms)
        .filter(|d| *d > 1.0)
        .count() as u64;
    let open_loop = !corrected.is_empty();
    TransportSummary {
        scenario: scenario.into(),
        transport: name.into(),
        wall: percentiles(timings.iter().map(|t| t.total())),
        curve_ms: bench_report::stats::curve(timings.iter().map(|t| t.total())),
        corrected: open_loop.then(|| percentiles(corrected)),
        qtime: percentiles(
            timings
                .iter()
                .filter_map(|t| t.qtime_ms)
                .map(|q| Duration::from_millis(u64::from(q))),
        ),
        qtime_missing: timings.iter().filter(|t| t.qtime_ms.is_none()).count() as u64,
        overhead: percentiles(timings.iter().filter_map(|t| t.overhead())),
        rep_p50_ms,
        phases_mean_ms,
        bytes_in_mean: timings.iter().map(|t| t.bytes_in as f64).sum::<f64>() / n,
        decoded_bytes_mean: timings.iter().map(|t| t.decoded_bytes as f64).sum::<f64>() / n,
        errors: recs.iter().filter(|r| r.error.is_some()).count() as u64,
        error_kinds: kinds.into_iter().collect(),
        reuse_ratio: (kind != TransportKind::Reqwest)
            .then(|| timings.iter().filter(|t| t.reused).count() as f64 / n),
        witnesses,
        throughput_rps: timings.len() as f64 / elapsed.as_secs_f64().max(1e-9),
        late_starts: open_loop.then_some(late),
    }
}

pub(super) fn warnings(ts: &[TransportSummary], cfg: &StudyConfig) -> Vec<String> {
    let mut w = Vec::new();
    for t in ts {
        if t.witnesses.disagree() {
            w.push(format!(
                "{} {}: {}",
                t.scenario,
                t.transport,
                t.witnesses.describe()
            ));
        }
        if let Some(off) = t.witnesses.unexpected() {
            w.push(format!("{} {}: {off}", t.scenario, t.transport));
        }
        if !t.witnesses.kernel_isolated {
            w.push(format!(
                "{} {}: {NOT_ISOLATED} (kernel {}), not counted as a witness",
                t.scenario, t.transport, t.witnesses.kernel_active_opens
            ));
        }
        if t.witnesses.pcap_syns.is_some() && t.witnesses.pcap_dropped.is_none() {
            w.push(format!(
                "{} {}: the capture's drops are unknown (pcap_stats failed): the pcap count may be short",
                t.scenario, t.transport
            ));
        }
        if t.witnesses.pcap_dropped.unwrap_or(0) > 0 {
            w.push(format!(
                "{} {}: the capture dropped {} packets",
                t.scenario,
                t.transport,
                t.witnesses.pcap_dropped.unwrap_or(0)
            ));
        }
        if let (Load::Open { rate, .. }, Some(late)) = (cfg.load, t.late_starts) {
            if t.throughput_rps < 0.95 * rate || late * 10 > t.wall.n {
                w.push(format!(
                    "{} {}: saturated: {:.0} req/s achieved of {rate:.0} targeted, {late} late starts",
                    t.scenario, t.transport, t.throughput_rps
                ));
            }
        }
    }
    w
}

/// How reports name a kernel count taken in a namespace shared with other processes.
pub const NOT_ISOLATED: &str = "kernel witness not isolated";

/// Adds the median of one repetition's successful requests to `medians`; a repetition
/// without any has none and is named in `left_out` instead.
pub(super) fn rep_median(
    medians: &mut Vec<f64>,
    left_out: &mut Vec<String>,
    ok: Vec<Duration>,
    scenario: &str,
    transport: &str,
    rep: usize,
) {
    match percentiles(ok).p50_ms {
        Some(p50) => medians.push(p50),
        None => left_out.push(format!(
            "{scenario} {transport} rep {}: no successful request; left out of the per-repetition medians (the noise estimate of compare)",
            rep + 1
        )),
    }
}

/// One line per transport: does it reuse connections as it should, and how much of its time
/// is outside Solr (the `audit` findings).
pub fn findings(ts: &[TransportSummary]) -> Vec<String> {
    ts.iter()
        .map(|t| format!("{:<14} {}", t.transport, finding_line(t)))
        .collect()
}

/// What [`findings`] says of one transport, after its name: reuse, the share of time outside
/// Solr, the witnesses, and the connection count when it is off its expectation.
pub fn finding_line(t: &TransportSummary) -> String {
    let w = &t.witnesses;
    let reuse = if reuses_none(t) {
        format!(
            "NO connection reuse: {} requests, {} connections",
            w.requests, w.connector
        )
    } else {
        format!(
            "reuses connections: {} requests, {} connections",
            w.requests, w.connector
        )
    };
    let share = match (t.wall.p50_ms, t.overhead.p50_ms) {
        (Some(wall), Some(over)) if wall > 0.0 => format!(
            "{:.0}% of p50 outside Solr ({over:.2} of {wall:.2} ms){}",
            over / wall * 100.0,
            missing_note(t.qtime_missing)
        ),
        (Some(_), None) => format!(
            "time outside Solr unknown ({} responses without QTime)",
            t.qtime_missing
        ),
        _ => "no successful request".into(),
    };
    format!(
        "{reuse}; {share}; {}{}",
        w.describe(),
        w.unexpected()
            .map(|u| format!("; UNEXPECTED: {u}"))
            .unwrap_or_default()
    )
}

/// Whether a transport opened a connection for every request (more than one request).
pub fn reuses_none(t: &TransportSummary) -> bool {
    let w = &t.witnesses;
    w.connector >= w.requests && w.requests > 1
}

/// The reason a run is a failure when every measured request failed (none succeeded):
/// how many failed and the most frequent error, first. None when any succeeded or none ran.
pub fn all_failed(records: &[Record]) -> Option<String> {
    let measured: Vec<&Record> = records.iter().filter(|r| !r.warmup).collect();
    if measured.is_empty() || measured.iter().any(|r| r.error.is_none()) {
        return None;
    }
    let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    for e in measured.iter().filter_map(|r| r.error.as_deref()) {
        *kinds.entry(e).or_default() += 1;
    }
    let (top, n) = kinds
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(e, n)| (*e, *n))
        .unwrap_or(("", 0));
    Some(format!(
        "every request failed ({} of {}); the most frequent error ({n}x): {top}",
        measured.len(),
        measured.len()
    ))
}

/// `"; n responses without QTime"` when some responses carried none, else empty.
pub(super) fn missing_note(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!("; {n} responses without QTime")
    }
}

/// The one-line verdict: the best transport against `fresh` in the search workload, with the
/// connection counts, and the XML vs JSON update size.
pub fn verdict(ts: &[TransportSummary], indexing: &[IndexSummary]) -> String {
    let p50 = |t: &TransportSummary| t.wall.p50_ms.unwrap_or(f64::NAN);
    let mut parts = Vec::new();
    let runs: Vec<(String, &Witnesses)> = ts
        .iter()
        .map(|t| (format!("{} {}", t.scenario, t.transport), &t.witnesses))
        .collect();
    parts.extend(witnesses::verdict_parts(&runs));
    let scenario = if ts.iter().any(|t| t.scenario == "search") {
        "search"
    } else {
        "mixed"
    };
    let ts: Vec<&TransportSummary> = ts.iter().filter(|t| t.scenario == scenario).collect();
    let fresh = ts.iter().find(|t| t.transport == "fresh");
    let best = ts
        .iter()
        .filter(|t| t.wall.p50_ms.is_some())
        .min_by(|a, b| p50(a).total_cmp(&p50(b)));
    match (fresh, best) {
        (Some(f), Some(b)) if b.transport != f.transport => parts.push(format!(
            "{} cut {scenario} p50 by {:.0}% vs fresh ({:.2} -> {:.2} ms; QTime p50 {} ms); fresh opened {} connections, {} opened {}",
            b.transport,
            (1.0 - p50(b) / p50(f)) * 100.0,
            p50(f),
            p50(b),
            b.qtime.p50_ms.map_or("-".into(), |q| format!("{q:.0}")),
            f.witnesses.connector,
            b.transport,
            b.witnesses.connector
        )),
        (_, Some(b)) => parts.push(format!("fastest: {} (p50 {:.2} ms)", b.transport, p50(b))),
        _ => parts.push("no successful requests".into()),
    }
    let json = indexing.iter().find(|i| i.format == "json");
    let xml = indexing.iter().find(|i| i.format == "xml");
    if let (Some(j), Some(x)) = (json, xml) {
        parts.push(format!(
            "XML updates {:+.0}% bytes vs JSON ({:+.0}% gzipped)",
            (x.body_bytes as f64 / j.body_bytes.max(1) as f64 - 1.0) * 100.0,
            (x.body_bytes_gzip as f64 / j.body_bytes_gzip.max(1) as f64 - 1.0) * 100.0
        ));
    }
    format!("verdict: {}", parts.join("; "))
}
