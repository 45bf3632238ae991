//! The study's report types: one record per request, the per-transport and per-format summaries, the report.

use self::formats::FormatSummary;
use self::witnesses::Witnesses;
use bench_report::stats::Percentiles;
use serde::{Deserialize, Serialize};
use solr_client::Timing;

use super::*;

/// One measured request (one line of `records.jsonl`: enough to rebuild every figure).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// Workload: `search` or `mixed`.
    pub scenario: String,
    /// `select` or `add`.
    pub op: String,
    /// Transport name (e.g. `pooled+gzip`).
    pub transport: String,
    /// Repetition.
    pub rep: usize,
    /// Warm-up requests are kept in the raw data but excluded from figures.
    pub warmup: bool,
    /// Error text, when the request failed.
    pub error: Option<String>,
    /// The client's timing record.
    pub timing: Option<Timing>,
    /// Open loop: latency from the scheduled start, ms.
    pub latency_ms: Option<f64>,
    /// Open loop: start delay behind the schedule, ms.
    pub start_delay_ms: Option<f64>,
    /// Searches: the `numFound` of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_found: Option<u64>,
    /// Position of the operation in its repetition's workload (the same search has the same
    /// position in every transport and response format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<usize>,
}

/// Figures of one transport in one workload, over all repetitions.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TransportSummary {
    /// Workload: `search` or `mixed`.
    pub scenario: String,
    /// Transport name.
    pub transport: String,
    /// Wall (client total) latency.
    pub wall: Percentiles,
    /// Latency curve `(percentile, ms)` of the wall time, for charts.
    pub curve_ms: Vec<(f64, f64)>,
    /// Open loop: latency from the scheduled start (corrected for coordinated omission).
    pub corrected: Option<Percentiles>,
    /// Solr QTime, of the responses that carried one.
    pub qtime: Percentiles,
    /// Successful responses without a QTime (`omitHeader=true`, a proxy's page): left out
    /// of `qtime` and `overhead` rather than counted as 0.
    #[serde(default)]
    pub qtime_missing: u64,
    /// Overhead = total - QTime, of the responses that carried a QTime.
    pub overhead: Percentiles,
    /// Per-repetition medians of wall time (the noise estimate of `compare`).
    pub rep_p50_ms: Vec<f64>,
    /// Mean of each phase in ms.
    pub phases_mean_ms: Vec<(String, f64)>,
    /// Mean wire bytes in per request.
    pub bytes_in_mean: f64,
    /// Mean decoded bytes per request.
    pub decoded_bytes_mean: f64,
    /// Failed requests, by error text (first 80 chars).
    pub errors: u64,
    /// Error kinds and counts.
    pub error_kinds: Vec<(String, u64)>,
    /// Share of requests on a reused connection (None where the transport cannot tell).
    pub reuse_ratio: Option<f64>,
    /// Witnesses, summed over repetitions.
    pub witnesses: Witnesses,
    /// Throughput in requests per second (measured part).
    pub throughput_rps: f64,
    /// Open loop: requests that started more than 1 ms behind schedule.
    pub late_starts: Option<u64>,
}

/// Indexing figures of one update format.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IndexSummary {
    /// Format.
    pub format: String,
    /// Documents acknowledged.
    pub docs: usize,
    /// Wall time including the final commit, seconds.
    pub seconds: f64,
    /// Documents per second.
    pub docs_per_sec: f64,
    /// Request body bytes.
    pub body_bytes: u64,
    /// Request body bytes if gzipped.
    pub body_bytes_gzip: u64,
    /// Median QTime of the update requests that carried one.
    pub qtime_p50_ms: Option<f64>,
    /// Update responses without a QTime (left out of `qtime_p50_ms`, not counted as 0).
    #[serde(default)]
    pub qtime_missing: u64,
}

/// The study's result: what `summary.json` holds (schema: `transport-bench/schema/summary.schema.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StudyReport {
    /// Schema version of this JSON.
    pub schema_version: u32,
    /// Solr URL studied.
    pub url: String,
    /// Settings.
    pub settings: serde_json::Value,
    /// Indexing per update format.
    pub indexing: Vec<IndexSummary>,
    /// Per workload and transport.
    pub transports: Vec<TransportSummary>,
    /// Warnings (saturation, capture drops, witness disagreement).
    pub warnings: Vec<String>,
    /// Wall-clock duration of the whole study, seconds.
    pub duration_s: f64,
    /// The one-line verdict.
    pub verdict: String,
    /// `audit` only: the idle penalty of one kept-alive connection ([`crate::scenario::study::idle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<super::idle::IdleProbe>,
    /// Per response format, with `--response-format` naming more than JSON ([`formats`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formats: Vec<FormatSummary>,
    /// The findings, each with a severity, as `watch`'s ([`super::judge`]; `--fail-on`).
    #[serde(default)]
    pub findings: Vec<solr_watch::report::Finding>,
}
