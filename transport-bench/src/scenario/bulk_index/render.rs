//! The bulk-index text report, verdict and saved files.

use super::IndexRow;
use anyhow::Result;
use bench_report::table::Table;
use bench_report::RunReport;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

use super::*;

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

pub(super) fn ratio(v: Option<f64>) -> String {
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
pub(super) struct RunCsv<'a> {
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
