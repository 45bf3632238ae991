//! The nrt report types: per-group, indexing and visibility summaries, per-second timeline, refreshes, count checks, runs and the report.

use bench_report::stats::Percentiles;
use serde::{Deserialize, Serialize};

/// Count, rate and times of one group of tasks.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GroupSummary {
    /// `UpdateIndexView` (commits), `Indexing`, `Searching` or `Probing`.
    pub name: String,
    /// Tasks in the group.
    pub threads: usize,
    /// Requests that succeeded during the measured phase.
    pub count: u64,
    /// Requests that failed.
    pub errors: u64,
    /// Successful requests per second of the measured phase.
    pub rate_per_s: f64,
    /// Time per request (wall, client side).
    pub time: Percentiles,
}

/// Indexing achieved against its target.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IndexingSummary {
    /// Target docs/s over all indexing tasks.
    pub target_docs_per_s: f64,
    /// Achieved acknowledged docs/s.
    pub achieved_docs_per_s: f64,
    /// Adds Solr acknowledged.
    pub acknowledged: u64,
}

/// Visibility lag: acknowledged add -> first probe search that finds the document.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VisibilitySummary {
    /// Documents probed (every `probe_every`th acknowledged add).
    pub probed: u64,
    /// Probed documents found.
    pub seen: u64,
    /// Probed documents never found before the probe timeout.
    pub unseen: u64,
    /// The lag, measured to the send time of the first probe that found the document; the
    /// resolution is one probe round.
    pub lag: Percentiles,
    /// Probe searches sent.
    pub probe_rounds: u64,
    /// Mean time of one probe round, ms (the lag's resolution).
    pub probe_round_mean_ms: f64,
}

/// One second of the measured phase.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Second {
    /// Second since the start of the measured phase.
    pub t: u64,
    /// Refreshes (commits) finished in this second.
    pub refreshes: u64,
    /// Their mean time, ms.
    pub refresh_mean_ms: Option<f64>,
    /// Their longest time, ms.
    pub refresh_max_ms: Option<f64>,
    /// Adds acknowledged in this second.
    pub docs: u64,
    /// Searches answered in this second.
    pub searches: u64,
}

/// One finished refresh: when it ended (s since the phase start) and how long it took (ms).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Refresh {
    /// End, seconds since the start of the measured phase.
    pub at_s: f64,
    /// Duration, ms.
    pub ms: f64,
}

/// Exact count check after the final hard commit.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CountCheck {
    /// Preloaded documents acknowledged.
    pub preload_acknowledged: u64,
    /// `numFound` of the preload's id prefix.
    pub preload_found: u64,
    /// Adds acknowledged during the measured phase.
    pub indexed_acknowledged: u64,
    /// `numFound` of the indexing tasks' id prefix.
    pub indexed_found: u64,
    /// Both counts equal.
    pub ok: bool,
}

/// One run of the algorithm with one commit kind.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NrtRun {
    /// `hard` or `soft`.
    pub commit: String,
    /// Id prefix of this run's documents.
    pub id_prefix: String,
    /// Preload: documents and seconds (including the commit).
    pub preload_docs: u64,
    /// Preload seconds, including its commit.
    pub preload_s: f64,
    /// Seconds waited for background merges after the preload commit.
    pub merge_wait_s: f64,
    /// Whether Solr's merge gauges were read (false: a fixed wait instead).
    pub merge_gauges: bool,
    /// Merges Solr finished during the measured phase (None without the gauges).
    pub merges_during: Option<u64>,
    /// Measured phase, seconds (actual).
    pub duration_s: f64,
    /// Per group: UpdateIndexView, Indexing, Searching, Probing.
    pub groups: Vec<GroupSummary>,
    /// Refreshes per minute (and per second: `/ 60`).
    pub refreshes_per_min: f64,
    /// Indexing achieved vs target.
    pub indexing: IndexingSummary,
    /// Visibility lag of probed documents.
    pub visibility: VisibilitySummary,
    /// Every refresh of the measured phase.
    pub refreshes: Vec<Refresh>,
    /// Per-second timeline.
    pub timeline: Vec<Second>,
    /// Exact counts.
    pub check: CountCheck,
    /// Host 1-minute load average when the measured phase started (2 cores here).
    pub load_1m_before: Option<f64>,
    /// Host 1-minute load average when it ended.
    pub load_1m_after: Option<f64>,
}

/// The `nrt` report (`summary.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NrtReport {
    /// Solr base URL.
    pub url: String,
    /// The options of the run.
    pub settings: serde_json::Value,
    /// One run per commit kind.
    pub runs: Vec<NrtRun>,
    /// Warnings (errors seen, unseen probes, count mismatches).
    pub warnings: Vec<String>,
    /// The one-line verdict.
    pub verdict: String,
}
