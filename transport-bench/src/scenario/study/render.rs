//! The study's text table, saved files (`summary.json`, `transports.csv`) and SVG charts (phase
//! breakdown, percentile curves, connections by witness).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use bench_report::chart::{
    BarChart, BarRow, Layout, LineChart, Scale, Series, Style, PALETTE as SERIES,
    PHASE_COLORS as COLORS,
};
use bench_report::table::{Field, RecordTable, Table};

use super::*;

pub(super) fn opt(v: Option<f64>) -> String {
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
    match r.settings.get("proxy").and_then(|p| p.as_str()) {
        Some(p) => writeln!(
            w,
            "Solr: {} through {}",
            r.url,
            crate::args::proxy_phrase(p)
        )?,
        None => writeln!(w, "Solr: {}", r.url)?,
    }
    writeln!(w)?;
    print_indexing(r, w)?;
    for scenario in ["search", "mixed"] {
        print_workload(r, scenario, name_width, w)?;
    }
    crate::scenario::study::formats::print_text(&r.formats, w)?;
    print_phases(r, name_width, w)?;
    if let Some(p) = &r.idle {
        super::idle::print(p, w)?;
    }
    for warning in &r.warnings {
        writeln!(w, "warning: {warning}")?;
    }
    writeln!(w, "run took {:.1} s", r.duration_s)?;
    writeln!(w, "{}", r.verdict)?;
    Ok(())
}

/// The reindexing table: one row per update format.
const INDEX_FIELDS: &[Field<IndexSummary>] = &[
    Field::left("format", 6, |i| i.format.clone()),
    Field::right("seconds", 9, |i| format!("{:.2}", i.seconds)),
    Field::right("docs/s", 10, |i| format!("{:.0}", i.docs_per_sec)),
    Field::right("body bytes", 12, |i| i.body_bytes.to_string()),
    Field::right("gzipped", 12, |i| i.body_bytes_gzip.to_string()),
    Field::right("QTime p50", 9, |i| opt(i.qtime_p50_ms)),
];

/// A workload's table: one row per transport (the name column is widened to the longest).
const TRANSPORT_FIELDS: &[Field<TransportSummary>] = &[
    Field::left("transport", 14, |t| t.transport.clone()),
    Field::right("n", 6, |t| t.wall.n.to_string()),
    Field::right("p50", 8, |t| opt(t.wall.p50_ms)),
    Field::right("p90", 8, |t| opt(t.wall.p90_ms)),
    Field::right("p99", 8, |t| opt(t.wall.p99_ms)),
    Field::right("max", 8, |t| opt(t.wall.max_ms)),
    Field::right("QTime50", 7, |t| opt(t.qtime.p50_ms)),
    Field::right("overhd50", 9, |t| opt(t.overhead.p50_ms)),
    Field::right("reuse", 7, |t| {
        t.reuse_ratio
            .map(|r| format!("{:.0}%", r * 100.0))
            .unwrap_or_else(|| "n/a".into())
    }),
    Field::right("bytes_in", 9, |t| format!("{:.0}", t.bytes_in_mean)),
    Field::right("decoded", 9, |t| format!("{:.0}", t.decoded_bytes_mean)),
    Field::right("conns", 20, |t| conns(&t.witnesses)),
    Field::right("err", 4, |t| t.errors.to_string()),
];

/// The reindexing table, one row per update format (nothing without indexing).
fn print_indexing<W: Write>(r: &StudyReport, w: &mut W) -> Result<()> {
    if r.indexing.is_empty() {
        return Ok(());
    }
    writeln!(
        w,
        "Reindex ({} docs per format, pooled transport)",
        r.indexing.first().map(|i| i.docs).unwrap_or(0)
    )?;
    RecordTable::new(INDEX_FIELDS).print(w, &r.indexing)?;
    writeln!(w)?;
    Ok(())
}

/// The table of one workload, one row per transport (nothing when it did not run).
fn print_workload<W: Write>(
    r: &StudyReport,
    scenario: &str,
    name_width: usize,
    w: &mut W,
) -> Result<()> {
    let ts: Vec<_> = r
        .transports
        .iter()
        .filter(|t| t.scenario == scenario)
        .collect();
    if ts.is_empty() {
        return Ok(());
    }
    writeln!(w, "Workload {scenario}: wall (client total) vs Solr QTime, ms; conns = connector / kernel ActiveOpens / pcap SYNs / expected (! = witnesses disagree or not as expected)")?;
    let table = RecordTable::new(TRANSPORT_FIELDS).width(0, name_width);
    table.table().header(w)?;
    for t in ts {
        print_transport(&table, t, w)?;
    }
    writeln!(w)?;
    Ok(())
}

/// The `conns` cell: connector / kernel / pcap / expected, `!` when they disagree or are
/// not as expected.
fn conns(wi: &Witnesses) -> String {
    format!(
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
    )
}

/// One transport's row, with its open-loop and missing-QTime lines.
fn print_transport<W: Write>(
    table: &RecordTable<TransportSummary>,
    t: &TransportSummary,
    w: &mut W,
) -> Result<()> {
    table.row(w, t)?;
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
    Ok(())
}

/// The mean phase breakdown of the first workload's transports.
fn print_phases<W: Write>(r: &StudyReport, name_width: usize, w: &mut W) -> Result<()> {
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
    Ok(())
}

/// Saves `records.jsonl` and everything [`save_report`] writes into `dir`.
pub fn save(dir: &Path, r: &StudyReport, records: &[Record]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    crate::engine::run_dir::write_jsonl(&dir.join("records.jsonl"), records)?;
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
                phases(r, scenario),
            )?;
            std::fs::write(
                dir.join(format!("percentiles-{scenario}.svg")),
                percentiles(r, scenario),
            )?;
            std::fs::write(
                dir.join(format!("connections-{scenario}.svg")),
                connections(r, scenario),
            )?;
        }
    }
    bench_report::RunReport::finish_save(r, dir)
}

/// One line of `transports.csv`.
#[derive(serde::Serialize)]
pub(super) struct TransportRow<'a> {
    pub(super) scenario: &'a str,
    pub(super) transport: &'a str,
    pub(super) n: u64,
    pub(super) p50_ms: Option<f64>,
    pub(super) p90_ms: Option<f64>,
    pub(super) p99_ms: Option<f64>,
    pub(super) max_ms: Option<f64>,
    pub(super) qtime_p50_ms: Option<f64>,
    pub(super) overhead_p50_ms: Option<f64>,
    pub(super) reuse_ratio: Option<f64>,
    pub(super) bytes_in_mean: f64,
    pub(super) connector: u64,
    pub(super) kernel_active_opens: u64,
    pub(super) expected: u64,
    pub(super) errors: u64,
    pub(super) qtime_missing: u64,
}

impl<'a> From<&'a crate::scenario::study::TransportSummary> for TransportRow<'a> {
    fn from(t: &'a crate::scenario::study::TransportSummary) -> Self {
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

fn of_scenario<'a>(r: &'a StudyReport, scenario: &str) -> Vec<&'a TransportSummary> {
    r.transports
        .iter()
        .filter(|t| t.scenario == scenario)
        .collect()
}

/// Stacked horizontal bars: mean time per phase for each transport of `scenario`.
pub fn phases(r: &StudyReport, scenario: &str) -> String {
    let ts = of_scenario(r, scenario);
    let title = format!("Mean request time by phase, {scenario} workload (ms)");
    let mut chart = BarChart::new(title).unit("ms");
    if let Some(t) = ts.first() {
        for (k, (name, _)) in t.phases_mean_ms.iter().enumerate() {
            chart = chart.legend(name, COLORS[k % COLORS.len()]);
        }
    }
    ts.iter()
        .fold(chart, |chart, t| {
            let row = t
                .phases_mean_ms
                .iter()
                .enumerate()
                .fold(BarRow::new(&t.transport), |row, (k, (name, v))| {
                    row.segment(name, *v, COLORS[k % COLORS.len()])
                });
            chart.row(row)
        })
        .render()
}

/// Latency percentile curves (x: percentile on a log scale of 1/(1-p); y: ms).
pub fn percentiles(r: &StudyReport, scenario: &str) -> String {
    let title = format!("Wall latency percentiles, {scenario} workload (ms)");
    let chart = LineChart::new(title)
        .labels("percentile", "ms")
        .scales(Scale::Percentile, Scale::Linear);
    of_scenario(r, scenario)
        .iter()
        .fold(chart, |c, t| {
            c.series(Series::new(&t.transport, t.curve_ms.clone()).style(Style::Line))
        })
        .render()
}

/// Connections opened per transport, as each witness counted them.
pub fn connections(r: &StudyReport, scenario: &str) -> String {
    let title = format!(
        "Connections opened, {scenario} workload: connector / kernel ActiveOpens / pcap SYNs"
    );
    let chart = BarChart::new(title)
        .layout(Layout::Grouped)
        .decimals(0)
        .unit("connections")
        .legend("connector", SERIES[0])
        .legend("kernel", SERIES[1])
        .legend("pcap", SERIES[2]);
    of_scenario(r, scenario)
        .iter()
        .fold(chart, |chart, t| {
            let w = &t.witnesses;
            let mut row = BarRow::new(&t.transport)
                .segment("connector", w.connector as f64, SERIES[0])
                .segment("kernel", w.kernel_active_opens as f64, SERIES[1]);
            if let Some(p) = w.pcap_syns {
                row = row.segment("pcap", p as f64, SERIES[2]);
            }
            chart.row(row)
        })
        .render()
}

impl bench_report::RunReport for StudyReport {
    const KIND: &'static str = "study";

    /// Everything but `records.jsonl`, which the run wrote (see [`save`]).
    fn save(&self, dir: &std::path::Path) -> Result<()> {
        crate::scenario::study::save_report(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn std::io::Write) -> Result<()> {
        crate::scenario::study::print_text(self, &mut w)
    }

    /// Every figure is rebuilt from `records.jsonl` ([`crate::scenario::study::rerender`]).
    fn rerender(dir: &std::path::Path) -> Result<Self> {
        crate::scenario::study::rerender(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_report::stats::Percentiles;

    fn transport(name: &str, scenario: &str, some: bool) -> TransportSummary {
        let v = |x: f64| some.then_some(x);
        let p = Percentiles {
            n: 100,
            mean_ms: 5.0,
            p50_ms: v(4.567),
            p90_ms: v(8.0),
            p99_ms: None,
            max_ms: v(20.125),
        };
        TransportSummary {
            scenario: scenario.into(),
            transport: name.into(),
            wall: p.clone(),
            curve_ms: Vec::new(),
            corrected: some.then(|| p.clone()),
            qtime: p.clone(),
            qtime_missing: u64::from(!some),
            overhead: p,
            rep_p50_ms: Vec::new(),
            phases_mean_ms: vec![("connect".into(), 1.5)],
            bytes_in_mean: 2048.4,
            decoded_bytes_mean: 4096.6,
            errors: 1,
            error_kinds: Vec::new(),
            reuse_ratio: v(0.987),
            witnesses: Witnesses {
                connector: 2,
                kernel_active_opens: 2,
                pcap_syns: v(3.0).map(|_| 3),
                expected: 2,
                ..Default::default()
            },
            throughput_rps: 10.0,
            late_starts: some.then_some(4),
        }
    }

    /// The text of the reindex and workload tables for a fixed model, kept byte for byte.
    #[test]
    fn tables_print_unchanged() {
        let index = |format: &str, q| IndexSummary {
            format: format.into(),
            docs: 5000,
            seconds: 1.234,
            docs_per_sec: 4051.9,
            body_bytes: 123456,
            body_bytes_gzip: 23456,
            qtime_p50_ms: q,
            qtime_missing: 0,
        };
        let r = StudyReport {
            schema_version: 1,
            url: "http://solr".into(),
            settings: serde_json::Value::Null,
            indexing: vec![index("json", Some(12.5)), index("javabin", None)],
            transports: vec![
                transport("pooled", "search", true),
                transport("pooled+gzip+javabin", "search", false),
                transport("fresh", "mixed", true),
            ],
            warnings: Vec::new(),
            duration_s: 2.0,
            verdict: "verdict: fixed".into(),
            idle: None,
            formats: Vec::new(),
            findings: Vec::new(),
        };
        let mut out = Vec::new();
        print_text(&r, &mut out).expect("print");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            r#"Solr: http://solr

Reindex (5000 docs per format, pooled transport)
format   seconds     docs/s   body bytes      gzipped QTime p50
json        1.23       4052       123456        23456     12.50
javabin      1.23       4052       123456        23456         -

Workload search: wall (client total) vs Solr QTime, ms; conns = connector / kernel ActiveOpens / pcap SYNs / expected (! = witnesses disagree or not as expected)
transport                n      p50      p90      p99      max QTime50  overhd50   reuse  bytes_in   decoded                conns  err
pooled                 100     4.57     8.00        -    20.12    4.57      4.57     99%      2048      4097              2/2/3/2    1
               open loop, from scheduled start: p50 4.57 p90 8.00 p99 - max 20.12; 4 late starts
pooled+gzip+javabin    100        -        -        -        -       -         -     n/a      2048      4097              2/2/-/2    1
               1 responses without QTime (left out of QTime50 and overhd50, not counted as 0)

Workload mixed: wall (client total) vs Solr QTime, ms; conns = connector / kernel ActiveOpens / pcap SYNs / expected (! = witnesses disagree or not as expected)
transport                n      p50      p90      p99      max QTime50  overhd50   reuse  bytes_in   decoded                conns  err
fresh                  100     4.57     8.00        -    20.12    4.57      4.57     99%      2048      4097              2/2/3/2    1
               open loop, from scheduled start: p50 4.57 p90 8.00 p99 - max 20.12; 4 late starts

Mean phase breakdown, ms (search workload)
transport               connect
pooled                    1.500
pooled+gzip+javabin       1.500

run took 2.0 s
verdict: fixed
"#
        );
    }
}
