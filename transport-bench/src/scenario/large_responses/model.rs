//! The large-responses report types: one record per request, cells, comparisons, byte accounts, the report.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use solr_client::Timing;

/// One measured request (a line of `records.jsonl`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LargeRecord {
    /// Rows asked for.
    pub rows: u64,
    /// Gzip on.
    pub gzip: bool,
    /// Step (requests with the same step and rows fetched the same page).
    pub step: usize,
    /// Warm-up request.
    pub warmup: bool,
    /// Page offset.
    pub start: u64,
    /// Documents in the response.
    pub docs: u64,
    /// Client CPU time for this request (thread CPU clock), ms.
    pub cpu_ms: f64,
    /// The client's timing record (None when the request failed).
    pub timing: Option<Timing>,
    /// Error text.
    pub error: Option<String>,
}

/// Figures of one cell (page size x gzip).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LargeCell {
    /// Rows per search.
    pub rows: u64,
    /// Gzip on.
    pub gzip: bool,
    /// Successful measured requests.
    pub n: u64,
    /// Failed measured requests.
    pub errors: u64,
    /// Every response held exactly `rows` documents.
    pub docs_exact: bool,
    /// Mean bytes read from the socket per response (headers, body, TLS records).
    pub wire_bytes_mean: f64,
    /// Mean decoded (decompressed) body bytes per response.
    pub decoded_bytes_mean: f64,
    /// Wall p50, ms.
    pub p50_ms: Option<f64>,
    /// Wall p95, ms (None under 20 samples).
    pub p95_ms: Option<f64>,
    /// Wall mean, ms.
    pub mean_ms: f64,
    /// Solr QTime p50 of the responses that carried one, ms.
    pub qtime_p50_ms: Option<f64>,
    /// Responses without a QTime (left out of `qtime_p50_ms`, not counted as 0).
    #[serde(default)]
    pub qtime_missing: u64,
    /// Mean transfer phase (first to last response byte), ms.
    pub transfer_mean_ms: f64,
    /// Mean decompress phase, ms.
    pub decompress_mean_ms: f64,
    /// Mean parse phase, ms.
    pub parse_mean_ms: f64,
    /// Client CPU time per response (thread CPU clock around the request): mean, ms.
    pub cpu_mean_ms: f64,
    /// Client CPU time per response: p50, ms.
    pub cpu_p50_ms: f64,
}

/// Gzip against no gzip at one page size.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LargeComparison {
    /// Rows per search.
    pub rows: u64,
    /// Wire bytes saved by gzip, % of the uncompressed response.
    pub wire_reduction_pct: f64,
    /// p50 saved by gzip, % (negative: gzip was slower).
    pub p50_reduction_pct: Option<f64>,
    /// p95 saved by gzip, %.
    pub p95_reduction_pct: Option<f64>,
    /// Extra client CPU per response with gzip, ms.
    pub cpu_delta_ms: f64,
    /// Responses at the same step had identical decoded bodies, up to the digits of QTime.
    pub decoded_identical: bool,
}

/// Cross-check of the transport's byte counts against the capture.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ByteAccount {
    /// Sum of the transport's socket bytes read, every request (warm-up included).
    pub client_bytes_in: u64,
    /// TCP payload bytes from the server seen by the capture on the app-side device, each
    /// sequence number once (what the socket could read).
    pub pcap_payload_in: Option<u64>,
    /// The same with retransmitted segments counted each time they arrived.
    pub pcap_payload_in_with_retransmits: Option<u64>,
    /// Packets the capture dropped (None: no capture, or `pcap_stats` failed: unknown).
    pub pcap_dropped: Option<u64>,
    /// Connections the transport opened.
    pub connections: u64,
    /// SYNs the capture saw.
    pub pcap_syns: Option<u64>,
}

/// What `large-responses.json` holds (schema: `transport-bench/schema/large-responses.schema.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LargeReport {
    /// Schema version of this JSON.
    pub schema_version: u32,
    /// The Solr behind the proxy.
    pub upstream: String,
    /// Settings and the WAN calibration.
    pub settings: Value,
    /// Per page size and gzip setting.
    pub cells: Vec<LargeCell>,
    /// Gzip vs not, per page size.
    pub comparisons: Vec<LargeComparison>,
    /// Byte accounting.
    pub bytes: ByteAccount,
    /// Smallest page size from which gzip's p50 is lower at every larger size measured.
    pub gzip_pays_from_rows: Option<u64>,
    /// Warnings.
    pub warnings: Vec<String>,
    /// Wall-clock duration, seconds.
    pub duration_s: f64,
    /// The one-line verdict.
    pub verdict: String,
}

/// Cells, comparisons and where gzip starts to pay.
#[derive(Debug, Clone)]
pub struct LargeSummary {
    /// Per page size and gzip setting.
    pub cells: Vec<LargeCell>,
    /// Gzip vs not, per page size.
    pub comparisons: Vec<LargeComparison>,
    /// Smallest page size from which gzip's p50 is lower at every larger size measured.
    pub gzip_pays_from_rows: Option<u64>,
}
