//! Printing and saving the kNN report: a text table per JVM, the response-time reduction
//! table, `knn.json`, `knn.csv`, the `knn.svg` chart, and the verdict set beside the published
//! reference.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use super::{Cell, JvmRun, KnnReport, Reduction};

/// The published reference: SIMD on vs off (Java 21) cut response time by this much, %
/// (min, max, mean).
pub const SEED_SIMD_REDUCTION_PCT: (f64, f64, f64) = (10.0, 30.0, 16.0);
/// The published reference, 2-vCPU rows with SIMD: (instance, QPS at 1, 5, 10, 20 users).
pub const SEED_QPS_2VCPU: &[(&str, [f64; 4])] = &[
    ("t4g.large", [143.0, 241.0, 247.0, 259.0]),
    ("c7g.large", [187.0, 348.0, 373.0, 383.0]),
];
/// The published reference, 4-vCPU t4g.xlarge with SIMD: QPS at 1, 5, 10, 20 users.
pub const SEED_QPS_4VCPU: [f64; 4] = [140.0, 482.0, 506.0, 518.0];

use bench_report::table::fixed as opt;

/// The reduction table: one row per contender x cell.
const REDUCTION_FIELDS: &[Field<Reduction>] = &[
    Field::left("contender", 22, |x| x.contender.clone()),
    Field::right("conc", 5, |x| x.concurrency.to_string()),
    Field::right("topK", 5, |x| x.top_k.to_string()),
    Field::right("base mean", 10, |x| format!("{:.2}", x.baseline_mean_ms)),
    Field::right("cont mean", 10, |x| format!("{:.2}", x.contender_mean_ms)),
    Field::right("red %", 8, |x| format!("{:.1}", x.mean_reduction_pct)),
    Field::right("base p50", 8, |x| opt(x.baseline_p50_ms, 2)),
    Field::right("cont p50", 8, |x| opt(x.contender_p50_ms, 2)),
    Field::right("p50 red%", 8, |x| opt(x.p50_reduction_pct, 1)),
    Field::right("base QPS", 9, |x| format!("{:.1}", x.baseline_qps)),
    Field::right("cont QPS", 9, |x| format!("{:.1}", x.contender_qps)),
    Field::right("QPS +%", 7, |x| format!("{:.1}", x.qps_gain_pct)),
];

/// A JVM's table: one row per concurrency x topK cell.
const CELL_FIELDS: &[Field<Cell>] = &[
    Field::right("conc", 5, |c| c.concurrency.to_string()),
    Field::right("topK", 5, |c| c.top_k.to_string()),
    Field::right("n", 6, |c| c.requests.to_string()),
    Field::right("err", 4, |c| c.errors.to_string()),
    Field::right("hits!=K", 7, |c| c.hits_mismatches.to_string()),
    Field::right("QPS", 8, |c| format!("{:.1}", c.qps)),
    Field::right("mean", 8, |c| format!("{:.2}", c.latency.mean_ms)),
    Field::right("p50", 8, |c| opt(c.latency.p50_ms, 2)),
    Field::right("p90", 8, |c| opt(c.latency.p90_ms, 2)),
    Field::right("p99", 8, |c| opt(c.latency.p99_ms, 2)),
    Field::right("QTime50", 7, |c| opt(c.qtime.p50_ms, 0)),
    Field::right("Little", 6, |c| format!("{:.2}", c.little_ratio)),
    Field::right("B out/q", 8, |c| format!("{:.0}", c.bytes_out_per_query)),
    Field::right("B in/q", 8, |c| format!("{:.0}", c.bytes_in_per_query)),
    Field::right("SolrCPU%m/x", 11, |c| {
        format!(
            "{}/{}",
            opt(c.solr_cpu_mean_pct, 0),
            opt(c.solr_cpu_max_pct, 0)
        )
    }),
    Field::right("RSS MiB", 7, |c| opt(c.solr_rss_max_mib, 0)),
    Field::right("HostCPU%m/x", 11, |c| {
        format!(
            "{}/{}",
            opt(c.host_cpu_mean_pct, 0),
            opt(c.host_cpu_max_pct, 0)
        )
    }),
    Field::right("runq", 4, |c| opt(c.host_runnable_mean, 1)),
    Field::right("cache", 5, |c| {
        c.cache_hits.map_or_else(|| "-".into(), |h| h.to_string())
    }),
];

/// Writes the human-readable report; its last line is the verdict.
pub fn print_text<W: Write>(r: &KnnReport, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "kNN load test: {} docs x {} dims, dot_product, fl={:?}, {} requests per cell{}, heap {}",
        r.docs,
        r.dim,
        r.fl,
        r.requests_per_cell,
        if r.cell_seconds > 0.0 {
            format!(" (at most {} s)", r.cell_seconds)
        } else {
            String::new()
        },
        r.heap
    )?;
    writeln!(
        w,
        "host: {} CPUs, {} [{}]; CPU % sampled from /proc every {} ms (Solr: 100 = one core; host: 100 = all cores)",
        r.host.cpus,
        r.host.cpu_model,
        r.host.simd_flags.join(" "),
        r.sample_ms
    )?;
    for j in &r.jvms {
        writeln!(w)?;
        print_jvm(j, w)?;
    }
    if !r.reductions.is_empty() {
        writeln!(w)?;
        writeln!(
            w,
            "Response-time reduction, contender vs baseline (mean latency; positive = faster). Seed: SIMD on vs off {:.0}..{:.0} % (mean {:.0} %)",
            SEED_SIMD_REDUCTION_PCT.0, SEED_SIMD_REDUCTION_PCT.1, SEED_SIMD_REDUCTION_PCT.2
        )?;
        RecordTable::new(REDUCTION_FIELDS).print(w, &r.reductions)?;
        for (cont, s) in reduction_summary(r) {
            writeln!(
                w,
                "{cont} vs {}: mean reduction {:.1} % (min {:.1}, max {:.1}) over {} cells",
                r.reductions[0].baseline, s.0, s.1, s.2, s.3
            )?;
        }
    }
    writeln!(w)?;
    writeln!(w, "{}", r.verdict)?;
    Ok(())
}

fn print_jvm<W: Write>(j: &JvmRun, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "JVM {}: {}{}",
        j.name,
        j.java_version.as_deref().unwrap_or("(external Solr)"),
        if j.jvm_opts.is_empty() {
            String::new()
        } else {
            format!(" [{}]", j.jvm_opts.join(" "))
        }
    )?;
    if let Some(why) = &j.skipped {
        writeln!(w, "  SKIPPED: {why}")?;
        return Ok(());
    }
    writeln!(
        w,
        "  Lucene vectorization: {}",
        if j.vectorized {
            "Panama Vector API ON"
        } else {
            "off (scalar)"
        }
    )?;
    if j.vectorization_log.is_empty() && j.java_version.is_some() {
        writeln!(
            w,
            "    log: (nothing: on this Java Lucene picks its scalar provider without a word)"
        )?;
    }
    for l in &j.vectorization_log {
        writeln!(w, "    log: {l}")?;
    }
    if let Some(i) = &j.indexing {
        writeln!(
            w,
            "  indexed {} docs in {:.1} s ({:.0} docs/s, {:.1} MB sent), committed",
            i.docs,
            i.seconds,
            i.docs_per_sec,
            i.bytes_out as f64 / 1e6
        )?;
    }
    RecordTable::new(CELL_FIELDS).print(w, &j.cells)?;
    let n: u64 = j.cells.iter().map(|c| c.requests - c.errors).sum();
    let top1: u64 = j.cells.iter().map(|c| c.self_top1).sum();
    if n > 0 {
        writeln!(
            w,
            "  own document ranked first in {top1} of {n} answers ({:.1} %); Little = QPS x mean latency / concurrency; runq = mean runnable threads on the host",
            top1 as f64 / n as f64 * 100.0
        )?;
    }
    Ok(())
}

/// Per contender: (mean, min, max, cells) of the mean-latency reduction, %.
pub fn reduction_summary(r: &KnnReport) -> Vec<(String, (f64, f64, f64, usize))> {
    let mut names: Vec<&str> = r.reductions.iter().map(|x| x.contender.as_str()).collect();
    names.dedup();
    names
        .into_iter()
        .map(|n| {
            let v: Vec<f64> = r
                .reductions
                .iter()
                .filter(|x| x.contender == n)
                .map(|x| x.mean_reduction_pct)
                .collect();
            let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (n.to_string(), (mean, min, max, v.len()))
        })
        .collect()
}

/// The one-line verdict, set beside the seed's published figures.
pub fn verdict(r: &KnnReport) -> String {
    let ran: Vec<&JvmRun> = r.jvms.iter().filter(|j| j.skipped.is_none()).collect();
    if ran.is_empty() {
        return "verdict: nothing measured (every JVM setting was skipped)".into();
    }
    let cells: Vec<_> = ran.iter().flat_map(|j| j.cells.iter()).collect();
    let answered: u64 = cells.iter().map(|c| c.requests - c.errors).sum();
    let errors: u64 = cells.iter().map(|c| c.errors).sum();
    let mism: u64 = cells.iter().map(|c| c.hits_mismatches).sum();
    let mut parts = Vec::new();
    parts.push(if mism == 0 && errors == 0 {
        format!("hits == topK in all {answered} answers")
    } else {
        format!(
            "FINDING: {mism} answers with hits != topK, {errors} failed queries (of {})",
            answered + errors
        )
    });
    let base = r
        .reductions
        .first()
        .map(|x| x.baseline.as_str())
        .unwrap_or("?");
    let run_of = |n: &str| ran.iter().copied().find(|j| j.name == n);
    for (cont, (mean, min, max, _)) in reduction_summary(r) {
        let (Some(b), Some(c)) = (run_of(base), run_of(&cont)) else {
            continue;
        };
        if b.vectorized != c.vectorized {
            // The seed's comparison: vectorization off -> on.
            let (off, on) = if c.vectorized { (b, c) } else { (c, b) };
            let pair = KnnReport {
                reductions: super::reductions(&[off.clone(), on.clone()]),
                ..Default::default()
            };
            let Some((_, (m, lo, hi, _))) = reduction_summary(&pair).into_iter().next() else {
                continue;
            };
            let (smin, smax, smean) = SEED_SIMD_REDUCTION_PCT;
            let cmp = if m >= smin && m <= smax {
                "within the seed's range"
            } else if m < smin {
                "below the seed's range"
            } else {
                "above the seed's range"
            };
            parts.push(format!(
                "SIMD on ({}) vs off ({}): response-time reduction {m:.0} % (cells {lo:.0}..{hi:.0} %), seed {smin:.0}..{smax:.0} % (mean {smean:.0} %): {cmp}",
                on.name, off.name
            ));
        } else {
            parts.push(format!(
                "{cont} vs {base} (same vectorization): response-time reduction {mean:.0} % (cells {min:.0}..{max:.0} %), seed Java 11 vs 21: no difference (-4..+4 %)"
            ));
        }
    }
    // QPS growth with concurrency at the smallest topK, last JVM run (the seed's QPS table).
    if let (Some(j), Some(k)) = (ran.last(), r.top_k.iter().min()) {
        let row: Vec<_> = j.cells.iter().filter(|c| c.top_k == *k).collect();
        if let (Some(a), Some(b)) = (row.first(), row.last()) {
            if a.concurrency != b.concurrency {
                parts.push(format!(
                    "{} QPS {:.0} at c={} -> {:.0} at c={} (topK {k}; seed 2 vCPU c7g.large {:.0} -> {:.0}, 4 vCPU {:.0} -> {:.0})",
                    j.name,
                    a.qps,
                    a.concurrency,
                    b.qps,
                    b.concurrency,
                    SEED_QPS_2VCPU[1].1[0],
                    SEED_QPS_2VCPU[1].1[3],
                    SEED_QPS_4VCPU[0],
                    SEED_QPS_4VCPU[3]
                ));
            }
        }
    }
    format!("verdict: {}", parts.join("; "))
}

/// One CSV row per JVM x cell.
pub fn csv(r: &KnnReport) -> String {
    let mut rows = Vec::new();
    for j in &r.jvms {
        for c in &j.cells {
            rows.push(CellLine {
                jvm: &j.name,
                concurrency: c.concurrency,
                top_k: c.top_k,
                requests: c.requests,
                errors: c.errors,
                hits_mismatches: c.hits_mismatches,
                self_top1: c.self_top1,
                qps: c.qps,
                mean_ms: c.latency.mean_ms,
                p50_ms: c.latency.p50_ms,
                p90_ms: c.latency.p90_ms,
                p99_ms: c.latency.p99_ms,
                qtime_p50_ms: c.qtime.p50_ms,
                little_ratio: c.little_ratio,
                bytes_out_per_query: c.bytes_out_per_query,
                bytes_in_per_query: c.bytes_in_per_query,
                solr_cpu_mean_pct: c.solr_cpu_mean_pct,
                solr_cpu_max_pct: c.solr_cpu_max_pct,
                solr_rss_max_mib: c.solr_rss_max_mib,
                host_cpu_mean_pct: c.host_cpu_mean_pct,
                host_cpu_max_pct: c.host_cpu_max_pct,
                host_runnable_mean: c.host_runnable_mean,
                cache_hits: c.cache_hits,
            });
        }
    }
    bench_report::csv_out::to_string(&rows).expect("flat records serialise")
}

/// One line of `knn.csv`: a cell of one JVM.
#[derive(serde::Serialize)]
struct CellLine<'a> {
    jvm: &'a str,
    concurrency: usize,
    top_k: u32,
    requests: u64,
    errors: u64,
    hits_mismatches: u64,
    self_top1: u64,
    qps: f64,
    mean_ms: f64,
    p50_ms: Option<f64>,
    p90_ms: Option<f64>,
    p99_ms: Option<f64>,
    qtime_p50_ms: Option<f64>,
    little_ratio: f64,
    bytes_out_per_query: f64,
    bytes_in_per_query: f64,
    solr_cpu_mean_pct: Option<f64>,
    solr_cpu_max_pct: Option<f64>,
    solr_rss_max_mib: Option<f64>,
    host_cpu_mean_pct: Option<f64>,
    host_cpu_max_pct: Option<f64>,
    host_runnable_mean: Option<f64>,
    cache_hits: Option<u64>,
}

use bench_report::chart::{Figure, LineChart, Series, Style};
use bench_report::table::{Field, RecordTable};

/// Two panels: mean latency vs concurrency and QPS vs concurrency; one line per JVM x topK
/// (colour = topK, dash = JVM).
pub fn svg(r: &KnnReport) -> String {
    type Metric = fn(&super::Cell) -> f64;
    let panels: [(&str, Metric); 2] = [
        ("mean latency, ms", |c| c.latency.mean_ms),
        ("QPS", |c| c.qps),
    ];
    let charts: Vec<LineChart> = panels
        .iter()
        .map(|(title, f)| panel(r, title, *f))
        .collect();
    charts
        .iter()
        .fold(
            Figure::new(format!("kNN sweep: {} docs x {} dims", r.docs, r.dim)).across(),
            |fig, c| fig.panel(c),
        )
        .render()
}

/// One panel of [`svg`]: `metric` vs concurrency, a line per JVM x topK.
fn panel(r: &KnnReport, title: &str, metric: fn(&super::Cell) -> f64) -> LineChart {
    let chart = LineChart::new(format!("{title} vs concurrency"))
        .labels("concurrency", title)
        .size(620.0, 400.0);
    let mut lines = Vec::new();
    for (ji, j) in r.jvms.iter().enumerate() {
        let skipped = if j.skipped.is_some() {
            " (skipped)"
        } else {
            ""
        };
        for (ki, k) in r.top_k.iter().enumerate() {
            let pts = j
                .cells
                .iter()
                .filter(|c| c.top_k == *k)
                .map(|c| (c.concurrency as f64, metric(c)))
                .collect();
            let label = format!("{}{skipped} topK {k}", j.name);
            lines.push(
                Series::new(label, pts)
                    .style(Style::Line)
                    .color(ki)
                    .dash(ji),
            );
        }
    }
    lines.into_iter().fold(chart, LineChart::series)
}

/// Writes `knn.json`, `knn.csv`, `knn.svg` and `report.txt` into `dir`.
pub fn save(dir: &Path, r: &KnnReport) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    std::fs::write(dir.join("knn.json"), serde_json::to_string_pretty(r)?)?;
    std::fs::write(dir.join("knn.csv"), csv(r))?;
    std::fs::write(dir.join("knn.svg"), svg(r))?;
    let mut text = Vec::new();
    print_text(r, &mut text)?;
    std::fs::write(dir.join("report.txt"), text)?;
    bench_report::RunReport::finish_save(r, dir)
}

impl bench_report::RunReport for KnnReport {
    const KIND: &'static str = "knn";
    const FILE: &'static str = "knn.json";

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        crate::scenario::knn::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn std::io::Write) -> Result<()> {
        crate::scenario::knn::print_text(self, &mut w)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{reductions, Cell, JvmRun, KnnReport};
    use super::*;
    use bench_report::stats::Percentiles;

    fn cell(c: usize, k: u32, mean: f64, qps: f64) -> Cell {
        Cell {
            concurrency: c,
            top_k: k,
            requests: 10,
            qps,
            latency: Percentiles {
                n: 10,
                mean_ms: mean,
                p50_ms: Some(mean),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn reduction_table_and_verdict() {
        let base = JvmRun {
            name: "java17".into(),
            cells: vec![cell(1, 10, 10.0, 100.0), cell(2, 10, 20.0, 100.0)],
            ..Default::default()
        };
        let cont = JvmRun {
            name: "temurin25+vector".into(),
            cells: vec![cell(1, 10, 8.0, 125.0), cell(2, 10, 16.0, 125.0)],
            ..Default::default()
        };
        let skipped = JvmRun {
            name: "x".into(),
            skipped: Some("not installed".into()),
            ..Default::default()
        };
        let mut r = KnnReport {
            concurrency: vec![1, 2],
            top_k: vec![10],
            jvms: vec![base, skipped, cont],
            ..Default::default()
        };
        r.reductions = reductions(&r.jvms);
        assert_eq!(r.reductions.len(), 2);
        assert!((r.reductions[0].mean_reduction_pct - 20.0).abs() < 1e-9);
        assert!((r.reductions[0].qps_gain_pct - 25.0).abs() < 1e-9);
        r.verdict = verdict(&r);
        assert!(
            r.verdict
                .starts_with("verdict: hits == topK in all 40 answers"),
            "{}",
            r.verdict
        );
        assert!(
            r.verdict.contains("reduction 20 %") && r.verdict.contains("same vectorization"),
            "{}",
            r.verdict
        );
        r.jvms[2].vectorized = true;
        r.verdict = verdict(&r);
        assert!(
            r.verdict.contains(
                "SIMD on (temurin25+vector) vs off (java17): response-time reduction 20 %"
            ) && r.verdict.contains("within the seed's range"),
            "{}",
            r.verdict
        );
        let mut out = Vec::new();
        print_text(&r, &mut out).expect("print");
        let text = String::from_utf8(out).expect("utf8");
        assert!(text
            .trim_end()
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("verdict:"));
        assert!(text.contains("SKIPPED: not installed"));
        assert_eq!(csv(&r).lines().count(), 1 + 4);
        assert!(svg(&r).contains("<polyline"));
    }

    /// The text of both tables for a fixed model, kept byte for byte.
    #[test]
    fn tables_print_unchanged() {
        let full = |c: usize, k: u32| Cell {
            concurrency: c,
            top_k: k,
            requests: 1000 + c as u64,
            errors: 2,
            hits_mismatches: 1,
            self_top1: 990,
            qps: 123.456,
            latency: Percentiles {
                n: 998,
                mean_ms: 7.891,
                p50_ms: Some(6.5),
                p90_ms: Some(12.345),
                p99_ms: None,
                max_ms: Some(40.0),
            },
            qtime: Percentiles {
                p50_ms: Some(3.6),
                ..Default::default()
            },
            little_ratio: 0.987,
            bytes_out_per_query: 512.4,
            bytes_in_per_query: 20480.6,
            solr_cpu_mean_pct: Some(150.4),
            solr_cpu_max_pct: Some(199.6),
            solr_rss_max_mib: None,
            host_cpu_mean_pct: Some(45.0),
            host_cpu_max_pct: None,
            host_runnable_mean: Some(2.25),
            cache_hits: Some(17),
            ..Default::default()
        };
        let j = JvmRun {
            name: "java21".into(),
            java_version: Some("21.0.2".into()),
            cells: vec![full(1, 10), cell(20, 100, 9.0, 2222.0)],
            ..Default::default()
        };
        let mut r = KnnReport {
            jvms: vec![
                j.clone(),
                JvmRun {
                    name: "java25+simd".into(),
                    ..j
                },
            ],
            ..Default::default()
        };
        r.reductions = reductions(&r.jvms);
        r.reductions[0].p50_reduction_pct = None;
        let mut out = Vec::new();
        print_text(&r, &mut out).expect("print");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            r#"kNN load test: 0 docs x 0 dims, dot_product, fl="", 0 requests per cell, heap 
host: 0 CPUs,  []; CPU % sampled from /proc every 0 ms (Solr: 100 = one core; host: 100 = all cores)

JVM java21: 21.0.2
  Lucene vectorization: off (scalar)
    log: (nothing: on this Java Lucene picks its scalar provider without a word)
 conc  topK      n  err hits!=K      QPS     mean      p50      p90      p99 QTime50 Little  B out/q   B in/q SolrCPU%m/x RSS MiB HostCPU%m/x runq cache
    1    10   1001    2       1    123.5     7.89     6.50    12.35        -       4   0.99      512    20481     150/200       -        45/-  2.2    17
   20   100     10    0       0   2222.0     9.00     9.00        -        -       -   0.00        0        0         -/-       -         -/-    -     -
  own document ranked first in 990 of 1009 answers (98.1 %); Little = QPS x mean latency / concurrency; runq = mean runnable threads on the host

JVM java25+simd: 21.0.2
  Lucene vectorization: off (scalar)
    log: (nothing: on this Java Lucene picks its scalar provider without a word)
 conc  topK      n  err hits!=K      QPS     mean      p50      p90      p99 QTime50 Little  B out/q   B in/q SolrCPU%m/x RSS MiB HostCPU%m/x runq cache
    1    10   1001    2       1    123.5     7.89     6.50    12.35        -       4   0.99      512    20481     150/200       -        45/-  2.2    17
   20   100     10    0       0   2222.0     9.00     9.00        -        -       -   0.00        0        0         -/-       -         -/-    -     -
  own document ranked first in 990 of 1009 answers (98.1 %); Little = QPS x mean latency / concurrency; runq = mean runnable threads on the host

Response-time reduction, contender vs baseline (mean latency; positive = faster). Seed: SIMD on vs off 10..30 % (mean 16 %)
contender               conc  topK  base mean  cont mean    red % base p50 cont p50 p50 red%  base QPS  cont QPS  QPS +%
java25+simd                1    10       7.89       7.89      0.0     6.50     6.50        -     123.5     123.5     0.0
java25+simd               20   100       9.00       9.00      0.0     9.00     9.00      0.0    2222.0    2222.0     0.0
java25+simd vs java21: mean reduction 0.0 % (min 0.0, max 0.0) over 2 cells


"#
        );
    }
}
