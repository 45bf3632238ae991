//! The bulk-index text report, verdict and saved files.

use super::IndexRow;
use anyhow::Result;
use bench_report::table::{fixed, Field, RecordTable};
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

/// The SolrJ CUSC sweep table: one row per queue x threads point.
const SWEEP_FIELDS: &[Field<SweepPoint>] = &[
    Field::right("queue", 6, |p| p.queue.to_string()),
    Field::right("threads", 7, |p| p.threads.to_string()),
    Field::right("docs/s", 10, |p| format!("{:.0}", p.docs_per_s)),
    Field::right("CPU s", 7, |p| format!("{:.2}", p.cpu_s)),
    Field::right("exact", 5, |p| p.exact.to_string()),
];

/// The main table: one row per indexing row, medians over the rounds.
const ROW_FIELDS: &[Field<RowSummary>] = &[
    Field::left("row", 12, |x| x.row.as_str().to_string()),
    Field::right("runs", 4, |x| x.runs.to_string()),
    Field::right("docs/s", 9, |x| format!("{:.0}", x.docs_per_s)),
    Field::right("min..max docs/s", 17, |x| {
        format!("{:.0}..{:.0}", x.docs_per_s_range.0, x.docs_per_s_range.1)
    }),
    Field::right("CPU s", 7, |x| format!("{:.2}", x.cpu_s)),
    Field::right("CPU us/doc", 10, |x| format!("{:.1}", x.cpu_us_per_doc)),
    Field::right("Solr CPU us/doc", 15, |x| fixed(x.solr_cpu_us_per_doc, 1)),
    Field::right("docs/s vs CUSC", 14, |x| ratio(x.docs_per_s_vs_cusc)),
    Field::right("CPU vs CUSC", 11, |x| ratio(x.cpu_vs_cusc)),
    Field::right("numFound exact", 14, |x| x.all_exact.to_string()),
];

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
        RecordTable::new(SWEEP_FIELDS).print(w, &r.cusc_sweep)?;
    }
    writeln!(w)?;
    RecordTable::new(ROW_FIELDS).print(w, &r.rows)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(row: IndexRow, vs: Option<f64>, solr: Option<f64>) -> RowSummary {
        RowSummary {
            row,
            runs: 3,
            docs_per_s: 12345.6,
            docs_per_s_range: (11000.4, 13999.5),
            cpu_s: 1.234,
            cpu_us_per_doc: 12.34,
            solr_cpu_us_per_doc: solr,
            docs_per_s_vs_cusc: vs,
            cpu_vs_cusc: vs.map(|v| v / 2.0),
            all_exact: vs.is_some(),
        }
    }

    /// The text of both tables for a fixed model, kept byte for byte.
    #[test]
    fn tables_print_unchanged() {
        let point = |queue, exact| SweepPoint {
            queue,
            threads: 4,
            docs_per_s: 9876.5,
            cpu_s: 0.456,
            exact,
        };
        let r = BulkIndexReport {
            url: "http://solr".into(),
            collection: "bench".into(),
            docs: 100000,
            rounds: 3,
            batch: 1000,
            in_flight: 4,
            format: "json".into(),
            cusc_sweep: vec![point(10, true), point(1000, false)],
            cusc: (10, 4),
            runs: Vec::new(),
            rows: vec![
                row(IndexRow::SolrjCusc, Some(1.0), Some(3.25)),
                row(IndexRow::Concurrent, None, None),
            ],
            all_exact: true,
            verdict: "verdict: fixed".into(),
        };
        let mut out = Vec::new();
        print_text(&r, &mut out).expect("print");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            r#"Solr: http://solr (collection bench)
Bulk indexing: 100000 docs per run, 3 rounds (order rotating), batches of 1000, 4 in flight (concurrent), solr-client format json, SolrJ CUSC queue 10 threads 4

SolrJ ConcurrentUpdateHttp2SolrClient sweep (one run each):
 queue threads     docs/s   CPU s exact
    10       4       9876    0.46  true
  1000       4       9876    0.46 false

row          runs    docs/s   min..max docs/s   CPU s CPU us/doc Solr CPU us/doc docs/s vs CUSC CPU vs CUSC numFound exact
solrj-cusc      3     12346      11000..14000    1.23       12.3             3.2          1.00x       0.50x           true
concurrent      3     12346      11000..14000    1.23       12.3               -              -           -          false

verdict: fixed
"#
        );
    }
}
