//! Printing and saving a `bulk-files` report: the per-run table beside the seed's figures,
//! `summary.json`, `runs.csv`, `runs.svg` and the verdict.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use super::{BulkReport, BulkRun};
use bench_report::chart::{BarChart, BarRow, PALETTE};
use bench_report::table::{fixed, Field, RecordTable};
use solr_harness::seedkit::opt_ms;

/// The seed's published wall times (420 XML files, 2.68 MB and ~1.1K docs each, Solr 4.3.1,
/// soft commits): hot, cold, hot, cold, in seconds.
pub const SEED_RUNS: [(&str, f64); 4] = [
    ("hot", 87.604),
    ("cold", 90.285),
    ("hot", 87.924),
    ("cold", 92.791),
];

/// The seed's documents and megabytes per run (420 x 1,100 docs, 420 x 2.68 MB).
pub const SEED_DOCS: f64 = 462_000.0;
/// See [`SEED_DOCS`].
pub const SEED_MB: f64 = 1_125.6;

/// The table: one row per run (the published runs print in its first columns).
const RUN_FIELDS: &[Field<BulkRun>] = &[
    Field::left("rep", 4, |run| (run.rep + 1).to_string()),
    Field::left("cache", 5, |run| run.cache.clone()),
    Field::right("cached MB", 9, |run| fixed(run.resident_mb, 1)),
    Field::right("wall s", 8, |run| format!("{:.2}", run.wall_s)),
    Field::right("read s", 7, |run| format!("{:.2}", run.read_s)),
    Field::right("post s", 7, |run| format!("{:.2}", run.post_s)),
    Field::right("commit", 7, |run| format!("{:.2}", run.commit_s)),
    Field::right("docs/s", 9, |run| format!("{:.0}", run.docs_per_s)),
    Field::right("MB/s", 7, |run| format!("{:.1}", run.mb_per_s)),
    Field::right("read p50", 9, |run| opt_ms(run.read_per_file.p50_ms)),
    Field::right("post p50", 9, |run| opt_ms(run.post_per_file.p50_ms)),
    Field::right("post p99", 9, |run| opt_ms(run.post_per_file.p99_ms)),
    Field::right("indexed == sent", 16, |run| {
        let ok = if run.ok { "yes" } else { "NO" };
        format!("{ok} {}/{}", run.indexed, run.docs)
    }),
    Field::right("load", 5, |run| fixed(run.load_1m, 1)),
];

/// Writes the table; the last line is the verdict.
pub fn print_text<W: Write>(r: &BulkReport, w: &mut W) -> Result<()> {
    writeln!(w, "Solr: {}", r.url)?;
    writeln!(
        w,
        "Bulk files: {} {} files, {} docs, {:.1} MB ({:.2} MB/file), one post per file, soft commit; files in {}",
        r.files,
        r.settings["format"].as_str().unwrap_or("?"),
        r.docs,
        r.mb,
        r.mean_file_mb,
        r.dir
    )?;
    writeln!(w)?;
    let runs = RecordTable::new(RUN_FIELDS);
    runs.print(w, &r.runs)?;
    let table = runs.table();
    writeln!(
        w,
        "(read/post p50, p99: per file, ms; cached MB: the files in the page cache before the run, by fincore; load: host 1-minute load average at the start)"
    )?;
    writeln!(w)?;
    writeln!(w, "Seed (Solr 4.3.1, 420 XML files, 462K docs, 1,126 MB):")?;
    for (i, (cache, s)) in SEED_RUNS.iter().enumerate() {
        table.row(
            w,
            &[
                &(i / 2 + 1),
                cache,
                &"-",
                &format!("{s:.2}"),
                &"-",
                &"-",
                &"-",
                &format!("{:.0}", SEED_DOCS / s),
                &format!("{:.1}", SEED_MB / s),
            ],
        )?;
    }
    writeln!(w)?;
    if let Some(why) = &r.cold_skipped {
        writeln!(w, "cold runs skipped: {why}")?;
    }
    if let Some(d) = r.cold_minus_hot_mean_s {
        let diffs: Vec<String> = r
            .cold_minus_hot_s
            .iter()
            .map(|d| format!("{d:+.2}"))
            .collect();
        writeln!(
            w,
            "cold - hot wall time: {} s per repetition, mean {d:+.2} s (seed: +2.68, +4.87 s)",
            diffs.join(", ")
        )?;
    }
    bench_report::table::print_ending(w, &r.warnings, Some(""), &r.verdict)?;
    Ok(())
}

/// The one-line verdict.
pub fn verdict(r: &BulkReport) -> String {
    let hot = r.hot_wall.mean_ms / 1e3;
    let seed_hot = (SEED_RUNS[0].1 + SEED_RUNS[2].1) / 2.0;
    let docs_per_s = r.docs as f64 / hot.max(1e-9);
    let ok = r.runs.iter().all(|x| x.ok);
    let cold = match (r.cold_minus_hot_mean_s, &r.cold_skipped) {
        (Some(d), _) => {
            let read_hot = mean(r, "hot", |x| x.read_s);
            let read_cold = mean(r, "cold", |x| x.read_s);
            // Run-to-run noise: the spread of the runs with the same cache state.
            let spread = |cache: &str| {
                let v: Vec<f64> = r
                    .runs
                    .iter()
                    .filter(|x| x.cache == cache)
                    .map(|x| x.wall_s)
                    .collect();
                v.iter().copied().fold(f64::MIN, f64::max)
                    - v.iter().copied().fold(f64::MAX, f64::min)
            };
            let noise = spread("hot").max(spread("cold"));
            let within = if r.cold_minus_hot_s.len() >= 2 && d.abs() <= noise {
                format!(
                    ", inside the run-to-run noise ({noise:.1} s between runs of one cache state)"
                )
            } else if r.cold_minus_hot_s.len() >= 2 {
                format!(", beyond the run-to-run noise ({noise:.1} s)")
            } else {
                ", one repetition: noise unknown".to_string()
            };
            format!(
                "cold - hot {d:+.2} s ({:+.1}%) mean wall{within}; the page cache's direct share, file reads, {:+.2} s cold (seed: cold slower by 3-5 s, 3-6%)",
                d / hot.max(1e-9) * 100.0,
                read_cold - read_hot
            )
        }
        (None, Some(why)) => format!(
            "no cold run ({})",
            why.split(':').next().unwrap_or("skipped")
        ),
        (None, None) => "no cold run".into(),
    };
    format!(
        "verdict: {} docs ({:.0} MB) in {hot:.1} s hot = {docs_per_s:.0} docs/s, {:.1} MB/s (seed: {seed_hot:.1} s = {:.0} docs/s, {:.1} MB/s); {cold}; {}",
        r.docs,
        r.mb,
        r.mb / hot.max(1e-9),
        SEED_DOCS / seed_hot,
        SEED_MB / seed_hot,
        if ok {
            "docs indexed == docs sent in every run"
        } else {
            "DOCS INDEXED != DOCS SENT"
        }
    )
}

fn mean(r: &BulkReport, cache: &str, f: fn(&super::BulkRun) -> f64) -> f64 {
    let v: Vec<f64> = r.runs.iter().filter(|x| x.cache == cache).map(f).collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Saves `summary.json`, `report.txt`, `runs.csv` and `runs.svg` in `dir`.
pub fn save(dir: &Path, r: &BulkReport) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    std::fs::write(dir.join("summary.json"), serde_json::to_string_pretty(r)?)?;
    let mut txt = Vec::new();
    print_text(r, &mut txt)?;
    std::fs::write(dir.join("report.txt"), txt)?;
    let rows: Vec<RunRow> = r.runs.iter().map(RunRow::from).collect();
    bench_report::write_csv(&dir.join("runs.csv"), &rows)?;
    std::fs::write(dir.join("runs.svg"), runs_svg(r))?;
    bench_report::RunReport::finish_save(r, dir)
}

/// Horizontal bars per run: wall time split into file reads, posts and the commit; hot runs
/// blue, cold red.
pub fn runs_svg(r: &BulkReport) -> String {
    let title = format!(
        "Bulk files: wall time per run (s), {} files, {} docs",
        r.files, r.docs
    );
    let chart = BarChart::new(title)
        .unit("s")
        .legend("file reads", PALETTE[3])
        .legend("posts (hot)", PALETTE[0])
        .legend("posts (cold)", PALETTE[1])
        .legend("soft commit", PALETTE[2]);
    r.runs
        .iter()
        .fold(chart, |chart, x| {
            let post = if x.cache == "hot" {
                PALETTE[0]
            } else {
                PALETTE[1]
            };
            let other = (x.wall_s - x.read_s - x.post_s - x.commit_s).max(0.0);
            chart.row(
                BarRow::new(format!("rep {} {}", x.rep + 1, x.cache))
                    .segment("read", x.read_s, PALETTE[3])
                    .segment("post", x.post_s, post)
                    .segment("commit", x.commit_s, PALETTE[2])
                    .segment("other", other, "#9e9e9e")
                    .note(format!("{:.2} s", x.wall_s)),
            )
        })
        .render()
}

/// One line of `runs.csv`.
#[derive(serde::Serialize)]
struct RunRow<'a> {
    rep: usize,
    cache: &'a str,
    resident_mb: Option<f64>,
    wall_s: f64,
    read_s: f64,
    post_s: f64,
    commit_s: f64,
    docs: u64,
    mb: f64,
    docs_per_s: f64,
    mb_per_s: f64,
    read_p50_ms: Option<f64>,
    post_p50_ms: Option<f64>,
    post_p90_ms: Option<f64>,
    post_p99_ms: Option<f64>,
    post_max_ms: Option<f64>,
    indexed: u64,
    ok: bool,
    load_1m: Option<f64>,
}

impl<'a> From<&'a super::BulkRun> for RunRow<'a> {
    fn from(x: &'a super::BulkRun) -> Self {
        Self {
            rep: x.rep + 1,
            cache: &x.cache,
            resident_mb: x.resident_mb,
            wall_s: x.wall_s,
            read_s: x.read_s,
            post_s: x.post_s,
            commit_s: x.commit_s,
            docs: x.docs,
            mb: x.mb,
            docs_per_s: x.docs_per_s,
            mb_per_s: x.mb_per_s,
            read_p50_ms: x.read_per_file.p50_ms,
            post_p50_ms: x.post_per_file.p50_ms,
            post_p90_ms: x.post_per_file.p90_ms,
            post_p99_ms: x.post_per_file.p99_ms,
            post_max_ms: x.post_per_file.max_ms,
            indexed: x.indexed,
            ok: x.ok,
            load_1m: x.load_1m,
        }
    }
}

impl bench_report::RunReport for BulkReport {
    const KIND: &'static str = "bulk-files";

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        crate::scenario::bulk_files::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn std::io::Write) -> Result<()> {
        crate::scenario::bulk_files::print_text(self, &mut w)
    }
}

#[cfg(test)]
mod tests {
    use super::super::BulkRun;
    use super::*;
    use bench_report::stats::Percentiles;

    fn run(rep: usize, cache: &str, ok: bool) -> BulkRun {
        let p = Percentiles {
            n: 420,
            mean_ms: 10.0,
            p50_ms: ok.then_some(9.87),
            p90_ms: None,
            p99_ms: Some(30.25),
            max_ms: None,
        };
        BulkRun {
            rep,
            cache: cache.into(),
            resident_mb: ok.then_some(1125.64),
            wall_s: 87.604,
            read_s: 1.234,
            post_s: 80.5,
            commit_s: 0.126,
            docs: 462000,
            mb: 1125.6,
            docs_per_s: 5273.7,
            mb_per_s: 12.85,
            read_per_file: p.clone(),
            post_per_file: p,
            indexed: 462000 - u64::from(!ok),
            ok,
            load_1m: ok.then_some(0.75),
        }
    }

    /// The text of the table (measured and published rows) for a fixed model, kept byte for
    /// byte.
    #[test]
    fn table_prints_unchanged() {
        let r = BulkReport {
            url: "http://solr".into(),
            settings: serde_json::json!({"format": "xml"}),
            dir: "/data".into(),
            files: 420,
            docs: 462000,
            mb: 1125.6,
            mean_file_mb: 2.68,
            cold_skipped: None,
            runs: vec![run(0, "hot", true), run(1, "cold", false)],
            hot_wall: Percentiles::default(),
            cold_wall: Percentiles::default(),
            cold_minus_hot_s: Vec::new(),
            cold_minus_hot_mean_s: None,
            warnings: Vec::new(),
            verdict: "verdict: fixed".into(),
        };
        let mut out = Vec::new();
        print_text(&r, &mut out).expect("print");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            r#"Solr: http://solr
Bulk files: 420 xml files, 462000 docs, 1125.6 MB (2.68 MB/file), one post per file, soft commit; files in /data

rep  cache cached MB   wall s  read s  post s  commit    docs/s    MB/s  read p50  post p50  post p99  indexed == sent  load
1    hot      1125.6    87.60    1.23   80.50    0.13      5274    12.8       9.9       9.9      30.2 yes 462000/462000   0.8
2    cold          -    87.60    1.23   80.50    0.13      5274    12.8         -         -      30.2 NO 461999/462000     -
(read/post p50, p99: per file, ms; cached MB: the files in the page cache before the run, by fincore; load: host 1-minute load average at the start)

Seed (Solr 4.3.1, 420 XML files, 462K docs, 1,126 MB):
1    hot           -    87.60       -       -       -      5274    12.8
1    cold          -    90.28       -       -       -      5117    12.5
2    hot           -    87.92       -       -       -      5255    12.8
2    cold          -    92.79       -       -       -      4979    12.1


verdict: fixed
"#
        );
    }
}
