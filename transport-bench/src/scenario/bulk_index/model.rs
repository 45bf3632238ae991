//! The `bulk-index` report types: every run, the per-row medians with ratios to SolrJ's
//! `ConcurrentUpdateHttp2SolrClient`, the CUSC sweep, and how they are built from the runs.

use serde::{Deserialize, Serialize};
use solr_harness::seedkit::Target;

use super::{BulkIndexConfig, IndexRow};

/// One point of the CUSC sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepPoint {
    /// `withQueueSize`.
    pub queue: usize,
    /// `withThreadCount`.
    pub threads: usize,
    /// Documents per second.
    pub docs_per_s: f64,
    /// Client (JVM) CPU seconds.
    pub cpu_s: f64,
    /// `numFound` was exactly the documents sent.
    pub exact: bool,
}

/// One run of one row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IndexRun {
    /// Round (0-based); None for the warm-up and sweep runs.
    pub round: Option<usize>,
    /// Who indexed.
    pub row: IndexRow,
    /// The id prefix of the run's documents.
    pub prefix: String,
    /// Documents sent.
    pub docs: u64,
    /// Seconds from the first document to the last answer (no commit).
    pub wall_s: f64,
    /// `docs / wall_s`.
    pub docs_per_s: f64,
    /// Client CPU seconds during the run (the JVM's process CPU for SolrJ rows, this
    /// process's for solr-client rows).
    pub cpu_s: f64,
    /// Client CPU microseconds per document.
    pub cpu_us_per_doc: f64,
    /// Seconds of the hard commit after the run.
    pub commit_s: f64,
    /// `numFound` of the run's prefix after the commit.
    pub num_found: u64,
    /// `num_found == docs`.
    pub exact: bool,
    /// Documents (solr-client) or requests (SolrJ) the client reported as failed.
    pub errors: u64,
    /// The first error, if any.
    pub first_error: Option<String>,
    /// CUSC `(queue, threads)` of a `solrj-cusc` run.
    pub cusc: Option<(usize, usize)>,
    /// Host 1-minute load average at the start (2 cores here).
    pub load_1m: Option<f64>,
    /// CPU seconds of the Solr JVM during the run (no commit), for a local Solr whose pid
    /// is known; None otherwise.
    #[serde(default)]
    pub solr_cpu_s: Option<f64>,
}

/// One row over the rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowSummary {
    /// Who indexed.
    pub row: IndexRow,
    /// Timed runs.
    pub runs: usize,
    /// Median documents per second.
    pub docs_per_s: f64,
    /// Lowest and highest documents per second.
    pub docs_per_s_range: (f64, f64),
    /// Median client CPU seconds per run.
    pub cpu_s: f64,
    /// Median client CPU microseconds per document.
    pub cpu_us_per_doc: f64,
    /// Median Solr JVM CPU microseconds per document (None when not measured).
    #[serde(default)]
    pub solr_cpu_us_per_doc: Option<f64>,
    /// `docs_per_s` / SolrJ CUSC's (None without a CUSC row).
    pub docs_per_s_vs_cusc: Option<f64>,
    /// `cpu_s` / SolrJ CUSC's (None without a CUSC row).
    pub cpu_vs_cusc: Option<f64>,
    /// Every run's `numFound` was exact.
    pub all_exact: bool,
}

/// The `bulk-index` report (`summary.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BulkIndexReport {
    /// Solr base URL.
    pub url: String,
    /// Core or collection.
    pub collection: String,
    /// Documents per timed run.
    pub docs: usize,
    /// Rounds.
    pub rounds: usize,
    /// Documents per request of the batched rows.
    pub batch: usize,
    /// Batches in flight in the concurrent row.
    pub in_flight: usize,
    /// solr-client's update format.
    pub format: String,
    /// The CUSC sweep (empty when one setting was given).
    pub cusc_sweep: Vec<SweepPoint>,
    /// CUSC `(queue, threads)` of the timed rounds.
    pub cusc: (usize, usize),
    /// Every run in the order it ran (warm-up and sweep runs have no round).
    pub runs: Vec<IndexRun>,
    /// Per row, in report order.
    pub rows: Vec<RowSummary>,
    /// Every run (warm-up and sweep included) found exactly its documents.
    pub all_exact: bool,
    /// The one-line verdict.
    pub verdict: String,
}

/// The median ([`bench_report::stats::median`]); NaN when there is no value.
fn median(v: Vec<f64>) -> f64 {
    bench_report::stats::median(v).unwrap_or(f64::NAN)
}

/// Builds the report from the runs.
pub fn build(
    cfg: &BulkIndexConfig,
    target: &Target,
    cusc: (usize, usize),
    cusc_sweep: Vec<SweepPoint>,
    runs: Vec<IndexRun>,
) -> BulkIndexReport {
    let summary = |row: IndexRow| {
        let timed: Vec<&IndexRun> = runs
            .iter()
            .filter(|r| r.row == row && r.round.is_some())
            .collect();
        let dps: Vec<f64> = timed.iter().map(|r| r.docs_per_s).collect();
        RowSummary {
            row,
            runs: timed.len(),
            docs_per_s: median(dps.clone()),
            docs_per_s_range: (
                dps.iter().copied().fold(f64::INFINITY, f64::min),
                dps.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ),
            cpu_s: median(timed.iter().map(|r| r.cpu_s).collect()),
            cpu_us_per_doc: median(timed.iter().map(|r| r.cpu_us_per_doc).collect()),
            solr_cpu_us_per_doc: timed
                .iter()
                .map(|r| r.solr_cpu_s.map(|s| s * 1e6 / r.docs.max(1) as f64))
                .collect::<Option<Vec<f64>>>()
                .filter(|v| !v.is_empty())
                .map(median),
            docs_per_s_vs_cusc: None,
            cpu_vs_cusc: None,
            all_exact: timed.iter().all(|r| r.exact),
        }
    };
    let mut rows: Vec<RowSummary> = cfg.rows.iter().map(|&r| summary(r)).collect();
    if let Some(base) = rows.iter().find(|r| r.row == IndexRow::SolrjCusc).cloned() {
        for r in &mut rows {
            r.docs_per_s_vs_cusc = Some(r.docs_per_s / base.docs_per_s);
            r.cpu_vs_cusc = (base.cpu_s > 0.0).then(|| r.cpu_s / base.cpu_s);
        }
    }
    let all_exact = runs.iter().all(|r| r.exact) && cusc_sweep.iter().all(|p| p.exact);
    let mut report = BulkIndexReport {
        url: target.url.clone(),
        collection: target.collection.clone(),
        docs: cfg.docs,
        rounds: cfg.rounds,
        batch: cfg.batch,
        in_flight: cfg.in_flight,
        format: cfg.format.as_str().to_string(),
        cusc_sweep,
        cusc,
        runs,
        rows,
        all_exact,
        verdict: String::new(),
    };
    report.verdict = super::verdict(&report);
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::bulk_index::print_text;

    fn run(row: IndexRow, round: Option<usize>, solr_cpu_s: Option<f64>) -> IndexRun {
        IndexRun {
            round,
            row,
            prefix: "p-".into(),
            docs: 1000,
            wall_s: 1.0,
            docs_per_s: 1000.0,
            cpu_s: 0.1,
            cpu_us_per_doc: 100.0,
            commit_s: 0.0,
            num_found: 1000,
            exact: true,
            errors: 0,
            first_error: None,
            cusc: None,
            load_1m: None,
            solr_cpu_s,
        }
    }

    #[test]
    fn solr_cpu_per_doc_is_the_median_of_timed_runs_and_absent_when_unmeasured() {
        let cfg = BulkIndexConfig {
            docs: 1000,
            rounds: 3,
            batch: 100,
            in_flight: 2,
            format: solr_client::UpdateFormat::Json,
            rows: vec![IndexRow::Sequential, IndexRow::Concurrent],
            cusc_queue: vec![1],
            cusc_threads: vec![1],
            sweep_docs: 1,
            warmup_docs: 0,
            tag: "t".into(),
            solrj_log: "x".into(),
            quiet: true,
        };
        let target = Target {
            url: "http://127.0.0.1:1/solr".into(),
            collection: "bench".into(),
            ca: None,
            local: None,
        };
        let runs = vec![
            // The warm-up does not count.
            run(IndexRow::Sequential, None, Some(9.0)),
            run(IndexRow::Sequential, Some(0), Some(0.2)),
            run(IndexRow::Sequential, Some(1), Some(0.4)),
            run(IndexRow::Sequential, Some(2), Some(0.3)),
            run(IndexRow::Concurrent, Some(0), Some(0.3)),
            run(IndexRow::Concurrent, Some(1), None),
        ];
        let r = build(&cfg, &target, (1, 1), Vec::new(), runs);
        let us = r.rows[0].solr_cpu_us_per_doc.expect("measured");
        assert!((us - 300.0).abs() < 1e-9, "{us}");
        assert_eq!(r.rows[1].solr_cpu_us_per_doc, None, "one run unmeasured");
        let mut text = Vec::new();
        print_text(&r, &mut text).expect("prints");
        let text = String::from_utf8(text).expect("utf-8");
        assert!(text.contains("Solr CPU us/doc"), "{text}");
    }
}
