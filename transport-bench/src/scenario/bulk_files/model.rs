//! The bulk-files report types: one run per (file set, cache state) and the report.

use bench_report::stats::Percentiles;
use serde::{Deserialize, Serialize};

/// One timed run over all files.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BulkRun {
    /// Repetition (0-based).
    pub rep: usize,
    /// `hot` or `cold`.
    pub cache: String,
    /// MB of the update files resident in the page cache just before the run (`fincore`;
    /// None when unavailable).
    pub resident_mb: Option<f64>,
    /// Wall time of the run (reads + posts + commit), seconds.
    pub wall_s: f64,
    /// Of which reading the files, seconds.
    pub read_s: f64,
    /// Of which posting them (request to response), seconds.
    pub post_s: f64,
    /// Of which the final soft commit, seconds.
    pub commit_s: f64,
    /// Documents sent.
    pub docs: u64,
    /// MB posted.
    pub mb: f64,
    /// Documents per second of wall time.
    pub docs_per_s: f64,
    /// MB per second of wall time.
    pub mb_per_s: f64,
    /// Per-file read time.
    pub read_per_file: Percentiles,
    /// Per-file post time.
    pub post_per_file: Percentiles,
    /// `numFound` of the id prefix after the commit.
    pub indexed: u64,
    /// `indexed == docs`.
    pub ok: bool,
    /// Host 1-minute load average at the start of the run (2 cores here).
    pub load_1m: Option<f64>,
}

/// The `bulk-files` report (`summary.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BulkReport {
    /// Solr base URL.
    pub url: String,
    /// The options of the run.
    pub settings: serde_json::Value,
    /// Folder of the update files.
    pub dir: String,
    /// Files posted per run.
    pub files: usize,
    /// Documents per run.
    pub docs: u64,
    /// MB per run.
    pub mb: f64,
    /// Mean file size, MB.
    pub mean_file_mb: f64,
    /// Why the cold runs were skipped, if they were.
    pub cold_skipped: Option<String>,
    /// Every run in the order it ran.
    pub runs: Vec<BulkRun>,
    /// Wall time of the hot runs, as a distribution (ms).
    pub hot_wall: Percentiles,
    /// Wall time of the cold runs, as a distribution (ms).
    pub cold_wall: Percentiles,
    /// Cold minus hot wall time per repetition, seconds.
    pub cold_minus_hot_s: Vec<f64>,
    /// Mean of `cold_minus_hot_s`.
    pub cold_minus_hot_mean_s: Option<f64>,
    /// Warnings.
    pub warnings: Vec<String>,
    /// The one-line verdict.
    pub verdict: String,
}
