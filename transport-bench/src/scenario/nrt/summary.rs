//! An nrt run's figures from what its tasks recorded: the per-group summaries, the refreshes,
//! the per-second timeline, the visibility lags and the exact count check.

use std::sync::atomic::Ordering;
use std::time::Duration;

use solr_harness::seedkit::Merges;

use super::run::Recorders;
use super::{
    lock, CommitKind, CountCheck, Events, GroupSummary, IndexingSummary, NrtConfig, NrtRun,
    Refresh, Second, VisibilitySummary,
};
use bench_report::stats::percentiles;

/// What the run did before the measured phase.
pub(super) struct Prepared {
    pub(super) preload_docs: u64,
    pub(super) preload_s: f64,
    pub(super) merge_wait_s: f64,
    pub(super) merge_gauges: bool,
    pub(super) merges_before: Option<Merges>,
}

/// The measured phase's length, unseen probes, load averages and merge counters after it.
pub(super) struct Measured {
    pub(super) duration_s: f64,
    pub(super) unseen: u64,
    pub(super) load_1m_before: Option<f64>,
    pub(super) load_1m_after: Option<f64>,
    pub(super) merges_after: Option<Merges>,
}

/// Documents found after the final commit.
pub(super) struct Counts {
    pub(super) preload_found: u64,
    pub(super) indexed_found: u64,
}

/// The events recorded during the measured phase, taken out of their recorders.
struct Taken {
    commits: Events,
    adds: Events,
    searches: Events,
    probes: Events,
    lags: Vec<Duration>,
}

impl Taken {
    fn from(rec: &Recorders) -> Taken {
        Taken {
            commits: std::mem::take(&mut *lock(&rec.commits)),
            adds: std::mem::take(&mut *lock(&rec.adds)),
            searches: std::mem::take(&mut *lock(&rec.searches)),
            probes: std::mem::take(&mut *lock(&rec.probes)),
            lags: std::mem::take(&mut *lock(&rec.lags)),
        }
    }
}

/// Events that ended within the measured phase (the refresh loop and prober ran a little
/// longer).
fn within(e: &Events, duration_s: f64) -> Vec<(f64, f64)> {
    e.ok.iter()
        .copied()
        .filter(|(at, _)| *at <= duration_s)
        .collect()
}

/// One group's summary over the measured phase.
fn group(name: &str, threads: usize, e: &Events, duration_s: f64) -> GroupSummary {
    let ok = within(e, duration_s);
    GroupSummary {
        name: name.into(),
        threads,
        count: ok.len() as u64,
        errors: e.errors,
        rate_per_s: ok.len() as f64 / duration_s,
        time: percentiles(ok.iter().map(|(_, ms)| Duration::from_secs_f64(ms / 1e3))),
    }
}

/// The per-second timeline: refreshes (count, mean and max time), documents and searches.
fn timeline(t: &Taken, refreshes: &[Refresh], duration_s: f64) -> Vec<Second> {
    let secs = duration_s.round().max(1.0) as usize;
    let mut timeline: Vec<Second> = (0..secs)
        .map(|t| Second {
            t: t as u64,
            refreshes: 0,
            refresh_mean_ms: None,
            refresh_max_ms: None,
            docs: 0,
            searches: 0,
        })
        .collect();
    let bucket = |at: f64| (at.floor() as usize).min(secs - 1);
    for r in refreshes {
        let s = &mut timeline[bucket(r.at_s)];
        let n = s.refreshes as f64;
        s.refresh_mean_ms = Some((s.refresh_mean_ms.unwrap_or(0.0) * n + r.ms) / (n + 1.0));
        s.refresh_max_ms = Some(s.refresh_max_ms.unwrap_or(0.0).max(r.ms));
        s.refreshes += 1;
    }
    for (at, _) in within(&t.adds, duration_s) {
        timeline[bucket(at)].docs += 1;
    }
    for (at, _) in within(&t.searches, duration_s) {
        timeline[bucket(at)].searches += 1;
    }
    timeline
}

/// The visibility figures: probed, seen and unseen documents, the lag, the probe rounds.
fn visibility(t: &mut Taken, probed: u64, unseen: u64) -> VisibilitySummary {
    let probe_round_mean_ms = if t.probes.ok.is_empty() {
        0.0
    } else {
        t.probes.ok.iter().map(|(_, ms)| ms).sum::<f64>() / t.probes.ok.len() as f64
    };
    let lags = std::mem::take(&mut t.lags);
    VisibilitySummary {
        probed,
        seen: lags.len() as u64,
        unseen,
        lag: percentiles(lags),
        probe_rounds: t.probes.ok.len() as u64 + t.probes.errors,
        probe_round_mean_ms,
    }
}

/// The run's report from what it prepared, measured, counted and recorded.
pub(super) fn summarize(
    a: &NrtConfig,
    kind: CommitKind,
    prefix: &str,
    p: Prepared,
    m: Measured,
    c: Counts,
    rec: &Recorders,
) -> NrtRun {
    let mut t = Taken::from(rec);
    let d = m.duration_s;
    let groups = vec![
        group("UpdateIndexView", 1, &t.commits, d),
        group("Indexing", a.index_threads, &t.adds, d),
        group("Searching", a.search_threads, &t.searches, d),
        group("Probing", 1, &t.probes, d),
    ];
    let refreshes: Vec<Refresh> = within(&t.commits, d)
        .into_iter()
        .map(|(at_s, ms)| Refresh { at_s, ms })
        .collect();
    let timeline = timeline(&t, &refreshes, d);
    let acknowledged = t.adds.ok.len() as u64;
    let indexing = IndexingSummary {
        target_docs_per_s: a.rate * a.index_threads as f64,
        achieved_docs_per_s: within(&t.adds, d).len() as f64 / d,
        acknowledged,
    };
    let visibility = visibility(&mut t, rec.probed.load(Ordering::Relaxed), m.unseen);
    NrtRun {
        commit: kind.as_str().into(),
        id_prefix: prefix.into(),
        preload_docs: p.preload_docs,
        preload_s: p.preload_s,
        merge_wait_s: p.merge_wait_s,
        merge_gauges: p.merge_gauges,
        merges_during: match (p.merges_before, m.merges_after) {
            (Some(b), Some(a)) => Some(a.completed.saturating_sub(b.completed)),
            _ => None,
        },
        duration_s: d,
        refreshes_per_min: refreshes.len() as f64 / d * 60.0,
        groups,
        indexing,
        visibility,
        refreshes,
        timeline,
        check: CountCheck {
            preload_acknowledged: p.preload_docs,
            preload_found: c.preload_found,
            indexed_acknowledged: acknowledged,
            indexed_found: c.indexed_found,
            ok: c.preload_found == p.preload_docs && c.indexed_found == acknowledged,
        },
        load_1m_before: m.load_1m_before,
        load_1m_after: m.load_1m_after,
    }
}
