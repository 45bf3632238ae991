//! The baseline's report types: rows, per-round figures, target checks and the report.

use bench_report::stats::Percentiles;
use serde::{Deserialize, Serialize};

/// A row of the baseline.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum BaselineRow {
    /// hyper's HTTP/1.1 client connection, one keep-alive connection, body read, not decoded.
    RawHyper,
    /// The raw hyper loop plus `serde_json::from_slice` of the body into a JSON tree: the
    /// floor of a client that decodes (the equal-work reference of the untyped rows).
    RawHyperJson,
    /// The raw hyper loop plus `serde_json::from_slice` of the body into the envelope the
    /// `pooled-typed` row returns (`SelectResponse<Hit>`): its equal-work reference.
    RawHyperTyped,
    /// solr-client, a new connection per request.
    Fresh,
    /// solr-client, keep-alive pool, untyped documents.
    Pooled,
    /// solr-client, keep-alive pool, hits decoded into a struct (`select_as::<T>`).
    PooledTyped,
    /// solr-client over HTTP/2 (prior knowledge), one connection.
    Http2,
    /// solr-client over reqwest's default client.
    Reqwest,
}

impl BaselineRow {
    /// Every row, in report order.
    pub const ALL: [BaselineRow; 8] = [
        BaselineRow::RawHyper,
        BaselineRow::RawHyperJson,
        BaselineRow::RawHyperTyped,
        BaselineRow::Fresh,
        BaselineRow::Pooled,
        BaselineRow::PooledTyped,
        BaselineRow::Http2,
        BaselineRow::Reqwest,
    ];

    /// The name on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            BaselineRow::RawHyper => "raw-hyper",
            BaselineRow::RawHyperJson => "raw-hyper-json",
            BaselineRow::RawHyperTyped => "raw-hyper-typed",
            BaselineRow::Fresh => "fresh",
            BaselineRow::Pooled => "pooled",
            BaselineRow::PooledTyped => "pooled-typed",
            BaselineRow::Http2 => "http2",
            BaselineRow::Reqwest => "reqwest",
        }
    }

    /// The raw row that does the same decoding work as this one (`raw-hyper-json` for the
    /// untyped client rows, `raw-hyper-typed` for `pooled-typed`); None for the raw rows.
    pub fn equal_work(self) -> Option<BaselineRow> {
        match self {
            BaselineRow::RawHyper | BaselineRow::RawHyperJson | BaselineRow::RawHyperTyped => None,
            BaselineRow::PooledTyped => Some(BaselineRow::RawHyperTyped),
            BaselineRow::Fresh
            | BaselineRow::Pooled
            | BaselineRow::Http2
            | BaselineRow::Reqwest => Some(BaselineRow::RawHyperJson),
        }
    }
}

/// One row in one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RoundRow {
    /// Round (0-based).
    pub round: usize,
    /// Row.
    pub row: BaselineRow,
    /// Latency of this round's requests.
    pub latency: Percentiles,
    /// Client CPU microseconds per request (process CPU time around the block).
    pub cpu_us_per_req: f64,
}

/// One row over every round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowFigures {
    /// Row.
    pub row: BaselineRow,
    /// Latency over every round's requests.
    pub latency: Percentiles,
    /// Client CPU microseconds per request over every round.
    pub cpu_us_per_req: f64,
    /// p50 / raw hyper's p50 (pooled over all rounds).
    pub p50_vs_raw: Option<f64>,
    /// p99 / raw hyper's p99.
    pub p99_vs_raw: Option<f64>,
    /// CPU per request / raw hyper's.
    pub cpu_vs_raw: Option<f64>,
    /// Lowest and highest per-round p50 ratio to raw hyper in the same round.
    pub p50_vs_raw_rounds: Option<(f64, f64)>,
    /// Lowest and highest per-round CPU ratio to raw hyper in the same round.
    pub cpu_vs_raw_rounds: Option<(f64, f64)>,
    /// The raw row doing the same decoding work ([`BaselineRow::equal_work`]), when it ran.
    pub equal_work: Option<BaselineRow>,
    /// p50 / the equal-work raw row's p50.
    pub p50_vs_equal: Option<f64>,
    /// CPU per request / the equal-work raw row's.
    pub cpu_vs_equal: Option<f64>,
    /// Lowest and highest per-round p50 ratio to the equal-work raw row in the same round.
    pub p50_vs_equal_rounds: Option<(f64, f64)>,
    /// Lowest and highest per-round CPU ratio to the equal-work raw row in the same round.
    pub cpu_vs_equal_rounds: Option<(f64, f64)>,
    /// Requests that failed (not HTTP 200, or an error).
    pub errors: u64,
}

/// One of the baseline's targets (p50 and CPU against the equal-work raw loop), checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetCheck {
    /// The solr-client row.
    pub row: BaselineRow,
    /// The raw row doing the same decoding work it is compared with.
    pub reference: BaselineRow,
    /// p50 ratio (over every round).
    pub p50_ratio: f64,
    /// CPU per request ratio (over every round).
    pub cpu_ratio: f64,
    /// p50 ratio <= 1.05.
    pub p50_met: bool,
    /// CPU ratio <= 1.2.
    pub cpu_met: bool,
}

/// The `baseline` report (`summary.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BaselineReport {
    /// Solr base URL.
    pub url: String,
    /// Core or collection.
    pub collection: String,
    /// Searches per row per round.
    pub queries: usize,
    /// Rounds.
    pub rounds: usize,
    /// Per row, over every round.
    pub rows: Vec<RowFigures>,
    /// Per round and row, in the order they ran.
    pub per_round: Vec<RoundRow>,
    /// The baseline's targets, checked against the raw loop doing equal work: pooled vs
    /// raw-hyper-json and pooled-typed vs raw-hyper-typed, p50 <= 1.05x and CPU <= 1.2x.
    pub targets: Vec<TargetCheck>,
    /// The one-line verdict.
    pub verdict: String,
}
