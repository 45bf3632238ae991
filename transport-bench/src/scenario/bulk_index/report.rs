//! The `bulk-index` report: every run, the per-row medians with ratios to SolrJ's
//! `ConcurrentUpdateHttp2SolrClient`, the CUSC sweep, the text table and the verdict.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use bench_report::table::Table;
use bench_report::RunReport;
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
    report.verdict = verdict(&report);
    report
}

/// The one-line verdict: exactness first, then the fastest row and solr-client's best
/// against SolrJ CUSC.
pub fn verdict(r: &BulkIndexReport) -> String {
    if !r.all_exact {
        let bad: Vec<String> = r
            .runs
            .iter()
            .filter(|x| !x.exact)
            .map(|x| format!("{} ({} of {})", x.row.as_str(), x.num_found, x.docs))
            .collect();
        return format!(
            "FAILED: numFound differs from the documents sent: {}",
            bad.join(", ")
        );
    }
    let fastest = r
        .rows
        .iter()
        .max_by(|a, b| a.docs_per_s.total_cmp(&b.docs_per_s));
    let best_rust = r
        .rows
        .iter()
        .filter(|x| matches!(x.row, IndexRow::Sequential | IndexRow::Concurrent))
        .max_by(|a, b| a.docs_per_s.total_cmp(&b.docs_per_s));
    match (fastest, best_rust) {
        (Some(f), Some(b)) if b.docs_per_s_vs_cusc.is_some() => format!(
            "every run exact; fastest: {} ({:.0} docs/s); solr-client {} = {:.2}x SolrJ CUSC docs/s with {:.2}x its client CPU (median of {} rounds)",
            f.row.as_str(),
            f.docs_per_s,
            b.row.as_str(),
            b.docs_per_s_vs_cusc.unwrap_or(f64::NAN),
            b.cpu_vs_cusc.unwrap_or(f64::NAN),
            r.rounds
        ),
        (Some(f), _) => format!(
            "every run exact; fastest: {} ({:.0} docs/s, median of {} rounds)",
            f.row.as_str(),
            f.docs_per_s,
            r.rounds
        ),
        _ => "no run".into(),
    }
}

fn ratio(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}x")).unwrap_or_else(|| "-".into())
}

/// Prints the tables; the last line is the verdict.
pub fn print_text<W: Write>(r: &BulkIndexReport, w: &mut W) -> Result<()> {
    writeln!(w, "Solr: {} (collection {})", r.url, r.collection)?;
    writeln!(
        w,
        "Bulk indexing: {} docs per run, {} rounds (order rotating), batches of {}, {} in flight (concurrent), solr-client format {}, SolrJ CUSC queue {} threads {}",
        r.docs, r.rounds, r.batch, r.in_flight, r.format, r.cusc.0, r.cusc.1
    )?;
    if !r.cusc_sweep.is_empty() {
        writeln!(w)?;
        writeln!(
            w,
            "SolrJ ConcurrentUpdateHttp2SolrClient sweep (one run each):"
        )?;
        let t = Table::new()
            .right("queue", 6)
            .right("threads", 7)
            .right("docs/s", 10)
            .right("CPU s", 7)
            .right("exact", 5);
        t.header(w)?;
        for p in &r.cusc_sweep {
            t.row(
                w,
                &[
                    &p.queue,
                    &p.threads,
                    &format!("{:.0}", p.docs_per_s),
                    &format!("{:.2}", p.cpu_s),
                    &p.exact,
                ],
            )?;
        }
    }
    writeln!(w)?;
    let t = Table::new()
        .left("row", 12)
        .right("runs", 4)
        .right("docs/s", 9)
        .right("min..max docs/s", 17)
        .right("CPU s", 7)
        .right("CPU us/doc", 10)
        .right("Solr CPU us/doc", 15)
        .right("docs/s vs CUSC", 14)
        .right("CPU vs CUSC", 11)
        .right("numFound exact", 14);
    t.header(w)?;
    for x in &r.rows {
        t.row(
            w,
            &[
                &x.row.as_str(),
                &x.runs,
                &format!("{:.0}", x.docs_per_s),
                &format!("{:.0}..{:.0}", x.docs_per_s_range.0, x.docs_per_s_range.1),
                &format!("{:.2}", x.cpu_s),
                &format!("{:.1}", x.cpu_us_per_doc),
                &x.solr_cpu_us_per_doc
                    .map(|v| format!("{v:.1}"))
                    .unwrap_or_else(|| "-".into()),
                &ratio(x.docs_per_s_vs_cusc),
                &ratio(x.cpu_vs_cusc),
                &x.all_exact,
            ],
        )?;
    }
    writeln!(w)?;
    writeln!(w, "{}", r.verdict)?;
    Ok(())
}

/// A CSV record per run.
#[derive(Debug, Serialize)]
struct RunCsv<'a> {
    round: Option<usize>,
    row: &'a str,
    docs: u64,
    wall_s: f64,
    docs_per_s: f64,
    cpu_s: f64,
    cpu_us_per_doc: f64,
    commit_s: f64,
    num_found: u64,
    exact: bool,
    errors: u64,
    solr_cpu_s: Option<f64>,
}

impl RunReport for BulkIndexReport {
    const KIND: &'static str = "bulk-index";

    fn save(&self, dir: &Path) -> Result<()> {
        bench_report::run::write_json(dir, Self::FILE, self)?;
        let mut text = Vec::new();
        print_text(self, &mut text)?;
        std::fs::write(dir.join("report.txt"), text)?;
        let recs: Vec<RunCsv> = self
            .runs
            .iter()
            .map(|r| RunCsv {
                round: r.round,
                row: r.row.as_str(),
                docs: r.docs,
                wall_s: r.wall_s,
                docs_per_s: r.docs_per_s,
                cpu_s: r.cpu_s,
                cpu_us_per_doc: r.cpu_us_per_doc,
                commit_s: r.commit_s,
                num_found: r.num_found,
                exact: r.exact,
                errors: r.errors,
                solr_cpu_s: r.solr_cpu_s,
            })
            .collect();
        bench_report::write_csv(&dir.join("runs.csv"), &recs)?;
        self.finish_save(dir)
    }

    fn print_text(&self, w: &mut dyn Write) -> Result<()> {
        let mut w = w;
        print_text(self, &mut w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
