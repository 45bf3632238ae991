//! Printing and saving a study: a text table, `summary.json`, `transports.csv` (and
//! `formats.csv` with the response-format axis), the raw
//! per-request `records.jsonl`, and SVG charts. Printers are generic over `Write` so tests
//! print into a Vec.

pub mod compare;
pub mod lines;
pub mod svg;

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use bench_report::table::Table;

use crate::study::{summarize, Record, StudyReport};

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into())
}

/// Writes the human-readable report; its last line is the verdict.
pub fn print_text<W: Write>(r: &StudyReport, w: &mut W) -> Result<()> {
    // Names with a response format (`pooled+gzip+javabin`) are longer than 14.
    let name_width = r
        .transports
        .iter()
        .map(|t| t.transport.len())
        .max()
        .unwrap_or(0)
        .max(14);
    writeln!(w, "Solr: {}", r.url)?;
    writeln!(w)?;
    if !r.indexing.is_empty() {
        writeln!(
            w,
            "Reindex ({} docs per format, pooled transport)",
            r.indexing.first().map(|i| i.docs).unwrap_or(0)
        )?;
        let table = Table::new()
            .left("format", 6)
            .right("seconds", 9)
            .right("docs/s", 10)
            .right("body bytes", 12)
            .right("gzipped", 12)
            .right("QTime p50", 9);
        table.header(w)?;
        for i in &r.indexing {
            table.row(
                w,
                &[
                    &i.format,
                    &format!("{:.2}", i.seconds),
                    &format!("{:.0}", i.docs_per_sec),
                    &i.body_bytes,
                    &i.body_bytes_gzip,
                    &opt(i.qtime_p50_ms),
                ],
            )?;
        }
        writeln!(w)?;
    }
    for scenario in ["search", "mixed"] {
        let ts: Vec<_> = r
            .transports
            .iter()
            .filter(|t| t.scenario == scenario)
            .collect();
        if ts.is_empty() {
            continue;
        }
        writeln!(w, "Workload {scenario}: wall (client total) vs Solr QTime, ms; conns = connector / kernel ActiveOpens / pcap SYNs / expected (! = witnesses disagree or not as expected)")?;
        let table = Table::new()
            .left("transport", name_width)
            .right("n", 6)
            .right("p50", 8)
            .right("p90", 8)
            .right("p99", 8)
            .right("max", 8)
            .right("QTime50", 7)
            .right("overhd50", 9)
            .right("reuse", 7)
            .right("bytes_in", 9)
            .right("decoded", 9)
            .right("conns", 20)
            .right("err", 4);
        table.header(w)?;
        for t in ts {
            let wi = &t.witnesses;
            table.row(
                w,
                &[
                    &t.transport,
                    &t.wall.n,
                    &opt(t.wall.p50_ms),
                    &opt(t.wall.p90_ms),
                    &opt(t.wall.p99_ms),
                    &opt(t.wall.max_ms),
                    &opt(t.qtime.p50_ms),
                    &opt(t.overhead.p50_ms),
                    &t.reuse_ratio
                        .map(|r| format!("{:.0}%", r * 100.0))
                        .unwrap_or_else(|| "n/a".into()),
                    &format!("{:.0}", t.bytes_in_mean),
                    &format!("{:.0}", t.decoded_bytes_mean),
                    &format!(
                        "{}/{}/{}/{}{}",
                        wi.connector,
                        wi.kernel_active_opens,
                        wi.pcap_syns
                            .map(|p| p.to_string())
                            .unwrap_or_else(|| "-".into()),
                        wi.expected,
                        if wi.disagree() || wi.within_expected == Some(false) {
                            "!"
                        } else {
                            ""
                        }
                    ),
                    &t.errors,
                ],
            )?;
            if let Some(c) = &t.corrected {
                writeln!(
                    w,
                    "{:<14} open loop, from scheduled start: p50 {} p90 {} p99 {} max {}; {} late starts",
                    "",
                    opt(c.p50_ms),
                    opt(c.p90_ms),
                    opt(c.p99_ms),
                    opt(c.max_ms),
                    t.late_starts.unwrap_or(0)
                )?;
            }
            if t.qtime_missing > 0 {
                writeln!(
                    w,
                    "{:<14} {} responses without QTime (left out of QTime50 and overhd50, not counted as 0)",
                    "", t.qtime_missing
                )?;
            }
        }
        writeln!(w)?;
    }
    crate::scenario::study::formats::print_text(&r.formats, w)?;
    writeln!(
        w,
        "Mean phase breakdown, ms ({} workload)",
        r.transports
            .first()
            .map(|t| t.scenario.as_str())
            .unwrap_or("-")
    )?;
    let mut phases = Table::new().left("transport", name_width);
    if let Some(first) = r.transports.first() {
        for (name, _) in &first.phases_mean_ms {
            phases = phases.right(name.as_str(), 11);
        }
        phases.header(w)?;
    }
    for t in r
        .transports
        .iter()
        .filter(|t| t.scenario == r.transports[0].scenario)
    {
        phases.row_iter(
            w,
            std::iter::once(t.transport.clone())
                .chain(t.phases_mean_ms.iter().map(|(_, v)| format!("{v:.3}"))),
        )?;
    }
    writeln!(w)?;
    if let Some(p) = &r.idle {
        crate::idle::print(p, w)?;
    }
    for warning in &r.warnings {
        writeln!(w, "warning: {warning}")?;
    }
    writeln!(w, "study took {:.1} s", r.duration_s)?;
    writeln!(w, "{}", r.verdict)?;
    Ok(())
}

/// Saves `records.jsonl` and everything [`save_report`] writes into `dir`.
pub fn save(dir: &Path, r: &StudyReport, records: &[Record]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_jsonl(&dir.join("records.jsonl"), records)?;
    save_report(dir, r)
}

/// Saves `summary.json`, `transports.csv`, `report.txt`, the charts and `run.json` into
/// `dir`.
pub fn save_report(dir: &Path, r: &StudyReport) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(dir.join("summary.json"), serde_json::to_vec_pretty(r)?)?;
    let rows: Vec<TransportRow> = r.transports.iter().map(TransportRow::from).collect();
    bench_report::write_csv(&dir.join("transports.csv"), &rows)?;
    crate::scenario::study::formats::save_csv(dir, &r.formats)?;
    let mut txt = Vec::new();
    print_text(r, &mut txt)?;
    std::fs::write(dir.join("report.txt"), txt)?;
    for scenario in ["search", "mixed"] {
        if r.transports.iter().any(|t| t.scenario == scenario) {
            std::fs::write(
                dir.join(format!("phases-{scenario}.svg")),
                svg::phases(r, scenario),
            )?;
            std::fs::write(
                dir.join(format!("percentiles-{scenario}.svg")),
                svg::percentiles(r, scenario),
            )?;
            std::fs::write(
                dir.join(format!("connections-{scenario}.svg")),
                svg::connections(r, scenario),
            )?;
        }
    }
    bench_report::RunReport::finish_save(r, dir)
}

/// One line of `transports.csv`.
#[derive(serde::Serialize)]
struct TransportRow<'a> {
    scenario: &'a str,
    transport: &'a str,
    n: u64,
    p50_ms: Option<f64>,
    p90_ms: Option<f64>,
    p99_ms: Option<f64>,
    max_ms: Option<f64>,
    qtime_p50_ms: Option<f64>,
    overhead_p50_ms: Option<f64>,
    reuse_ratio: Option<f64>,
    bytes_in_mean: f64,
    connector: u64,
    kernel_active_opens: u64,
    expected: u64,
    errors: u64,
    qtime_missing: u64,
}

impl<'a> From<&'a crate::study::TransportSummary> for TransportRow<'a> {
    fn from(t: &'a crate::study::TransportSummary) -> Self {
        Self {
            scenario: &t.scenario,
            transport: &t.transport,
            n: t.wall.n,
            p50_ms: t.wall.p50_ms,
            p90_ms: t.wall.p90_ms,
            p99_ms: t.wall.p99_ms,
            max_ms: t.wall.max_ms,
            qtime_p50_ms: t.qtime.p50_ms,
            overhead_p50_ms: t.overhead.p50_ms,
            reuse_ratio: t.reuse_ratio,
            bytes_in_mean: t.bytes_in_mean,
            connector: t.witnesses.connector,
            kernel_active_opens: t.witnesses.kernel_active_opens,
            expected: t.witnesses.expected,
            errors: t.errors,
            qtime_missing: t.qtime_missing,
        }
    }
}

/// Reads a `summary.json` (or the `summary.json` inside a run folder).
pub fn load_summary(path: &Path) -> Result<StudyReport> {
    let file = if path.is_dir() {
        path.join("summary.json")
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
    serde_json::from_slice(&text)
        .with_context(|| format!("{} is not a transport-bench summary", file.display()))
}

/// Rebuilds every figure of a saved run from its raw `records.jsonl` (witness counts and
/// indexing figures come from `summary.json`, which recorded them), then rewrites the text
/// report, CSV and charts.
pub fn rerender(run: &Path) -> Result<StudyReport> {
    let mut r = load_summary(run)?;
    let path = run.join("records.jsonl");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let records: Vec<Record> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{} line {}", path.display(), i + 1))
        })
        .collect::<Result<_>>()?;
    for t in &mut r.transports {
        let recs: Vec<&Record> = records
            .iter()
            .filter(|x| x.scenario == t.scenario && x.transport == t.transport && !x.warmup)
            .collect();
        let kind = t
            .transport
            .split('+')
            .next()
            .and_then(|k| k.split('(').next())
            .and_then(|k| k.parse().ok())
            .unwrap_or(solr_client::TransportKind::Pooled);
        let elapsed =
            std::time::Duration::from_secs_f64(t.wall.n as f64 / t.throughput_rps.max(1e-9));
        // Which witnesses counted follows from the counts (a run saved before it was
        // recorded said `agree` of the connector alone).
        let mut witnesses = t.witnesses.clone();
        witnesses.judge_agreement();
        *t = summarize(
            &t.scenario,
            &t.transport,
            kind,
            &recs,
            witnesses,
            t.rep_p50_ms.clone(),
            elapsed,
        );
    }
    if !r.formats.is_empty() {
        let formats: Vec<solr_client::ResponseFormat> = r
            .formats
            .iter()
            .filter_map(|f| {
                solr_client::ResponseFormat::ALL
                    .into_iter()
                    .find(|x| x.as_str() == f.format)
            })
            .collect();
        r.formats = crate::scenario::study::formats::summaries(&records, &r.transports, &formats);
    }
    save(run, &r, &records)?;
    Ok(r)
}

/// Writes `records` to `path` as JSON lines (one record a line), the raw data a report is
/// re-rendered from.
pub fn write_jsonl<T: serde::Serialize>(path: &std::path::Path, records: &[T]) -> Result<()> {
    let mut out = Vec::new();
    for rec in records {
        serde_json::to_writer(&mut out, rec)?;
        out.push(b'\n');
    }
    std::fs::write(path, out)?;
    Ok(())
}
