//! The sweep's report types: one point per (TLS version, RTT, transport), the table rows, the report.

use serde::{Deserialize, Serialize};

/// In scope for the field docs that link to it (the docs are also the published schema).
#[cfg(doc)]
use super::theory::slow_start_rounds;

/// One calibrated point of the sweep.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepPoint {
    /// TLS version at the proxy.
    pub tls: String,
    /// Requested RTT, ms.
    pub rtt_ms: f64,
    /// Median TCP connect time measured before the study, ms.
    pub connect_p50_ms: f64,
    /// Connect time over RTT (None at RTT 0).
    pub connect_ratio: Option<f64>,
    /// Measured bulk goodput over the cap (when a cap was set).
    pub bandwidth_ratio: Option<f64>,
    /// The study's folder (relative to the sweep's).
    pub run: String,
}

/// One row of the sweep table: one transport at one RTT and TLS version.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepRow {
    /// TLS version at the proxy.
    pub tls: String,
    /// Requested RTT, ms.
    pub rtt_ms: f64,
    /// Transport name (e.g. `pooled+gzip`).
    pub transport: String,
    /// Successful measured searches.
    pub n: u64,
    /// Failed searches.
    pub errors: u64,
    /// Wall p50, ms.
    pub p50_ms: Option<f64>,
    /// Wall p95, ms (None under 20 samples).
    pub p95_ms: Option<f64>,
    /// Solr QTime p50 of the searches that carried one, ms.
    pub qtime_p50_ms: Option<f64>,
    /// Searches answered without a QTime (left out of `qtime_p50_ms`, not counted as 0).
    #[serde(default)]
    pub qtime_missing: u64,
    /// Mean wire bytes in per search.
    pub bytes_in_mean: f64,
    /// Connections opened: the transport's connector.
    pub conns_connector: u64,
    /// Connections opened: kernel `ActiveOpens` of the app namespace.
    pub conns_kernel: u64,
    /// Connections opened: SYNs captured on the app-side device.
    pub conns_pcap: Option<u64>,
    /// Connections the transport should open.
    pub conns_expected: u64,
    /// The witnesses that counted, joined by `+` (e.g. `connector+kernel+pcap`).
    #[serde(default)]
    pub witnesses_counted: String,
    /// The witnesses that counted report the same number (None: fewer than two counted).
    pub witnesses_agree: Option<bool>,
    /// The connector opened what the transport should (None: no fixed expectation).
    #[serde(default)]
    pub conns_within_expected: Option<bool>,
    /// Round trips per request in the theory: 3 (TLS 1.3) or 4 (TLS 1.2) for fresh, plus
    /// the slow-start rounds its answer needs ([`slow_start_rounds`]); 1 otherwise.
    pub round_trips: u32,
    /// Theory: p50 at RTT 0 + round_trips x RTT, ms.
    pub expected_p50_ms: Option<f64>,
    /// Measured p50 over expected, minus 1, in %.
    pub vs_expected_pct: Option<f64>,
    /// Fresh rows: measured fresh / pooled p50 (same gzip setting).
    pub fresh_pooled_ratio: Option<f64>,
    /// Fresh rows: the theory's ratio.
    pub theory_ratio: Option<f64>,
    /// Fresh rows: measured over theory ratio, minus 1, in %.
    pub ratio_off_pct: Option<f64>,
    /// Fresh rows at RTT > 0: the ratio is more than 10 % from the theory.
    pub flagged: bool,
}

/// What `sweep.json` holds (schema: `transport-bench/schema/sweep.schema.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepReport {
    /// Schema version of this JSON.
    pub schema_version: u32,
    /// The Solr behind the proxy.
    pub upstream: String,
    /// Settings.
    pub settings: serde_json::Value,
    /// One per TLS version and RTT.
    pub points: Vec<SweepPoint>,
    /// The table.
    pub rows: Vec<SweepRow>,
    /// The studies' warnings, prefixed with their point.
    pub warnings: Vec<String>,
    /// Wall-clock duration, seconds.
    pub duration_s: f64,
    /// The one-line verdict.
    pub verdict: String,
}
