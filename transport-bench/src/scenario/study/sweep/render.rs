//! The sweep's text report, verdict, chart and saved files.

use crate::report::lines::{self, Chart, Series};
use crate::scenario::study::Witnesses;
use anyhow::{Context, Result};
use bench_report::table::{fixed as opt, Field, RecordTable};
use std::io::Write;
use std::path::Path;

use super::*;

/// The one-line verdict: what the witnesses of `runs` ([`witness_runs`]) say, then the
/// fresh/pooled figures of the table.
pub fn verdict(rows: &[SweepRow], runs: &[(String, &Witnesses)]) -> String {
    let mut parts = crate::scenario::study::witnesses::verdict_parts(runs);
    let max_rtt = rows.iter().map(|r| r.rtt_ms).fold(0.0, f64::max);
    let mut tls: Vec<&str> = rows.iter().map(|r| r.tls.as_str()).collect();
    tls.dedup();
    for v in tls {
        let at = |name: &str| {
            rows.iter()
                .find(|r| r.tls == v && r.rtt_ms == max_rtt && r.transport == name)
        };
        if let (Some(f), Some(p)) = (at("fresh"), at("pooled")) {
            parts.push(format!(
                "TLS {v} at RTT {max_rtt} ms: fresh p50 {:.1} ms vs pooled {:.1} ms (x{:.2}, theory x{:.2}; QTime p50 {} ms)",
                f.p50_ms.unwrap_or(f64::NAN),
                p.p50_ms.unwrap_or(f64::NAN),
                f.fresh_pooled_ratio.unwrap_or(f64::NAN),
                f.theory_ratio.unwrap_or(f64::NAN),
                p.qtime_p50_ms.map_or("-".into(), |q| format!("{q:.0}")),
            ));
        }
        if let (Some(p), Some(g)) = (at("pooled"), at("pooled+gzip")) {
            if let (Some(a), Some(b)) = (p.p50_ms, g.p50_ms) {
                parts.push(format!(
                    "gzip moved pooled p50 by {:+.0}% ({} -> {} bytes in)",
                    (b / a - 1.0) * 100.0,
                    p.bytes_in_mean.round(),
                    g.bytes_in_mean.round()
                ));
            }
        }
    }
    let checked: Vec<&SweepRow> = rows
        .iter()
        .filter(|r| r.rtt_ms > 0.0 && r.ratio_off_pct.is_some())
        .collect();
    let flagged: Vec<String> = checked
        .iter()
        .filter(|r| r.flagged)
        .map(|r| {
            format!(
                "TLS {} RTT {} {} {:+.0}%",
                r.tls,
                r.rtt_ms,
                r.transport,
                r.ratio_off_pct.unwrap_or(0.0)
            )
        })
        .collect();
    if !checked.is_empty() {
        parts.push(format!(
            "fresh/pooled within 10% of theory in {} of {} cells{}",
            checked.len() - flagged.len(),
            checked.len(),
            if flagged.is_empty() {
                String::new()
            } else {
                format!(" (outside: {})", flagged.join(", "))
            }
        ));
    }
    if !rows.iter().any(|r| r.fresh_pooled_ratio.is_some()) {
        parts.push("no fresh/pooled pair measured".into());
    }
    format!("verdict: {}", parts.join("; "))
}

/// The searches table: one row per TLS version x RTT x transport.
const ROW_FIELDS: &[Field<SweepRow>] = &[
    Field::left("TLS", 4, |x| x.tls.clone()),
    Field::right("RTT", 6, |x| x.rtt_ms.to_string()),
    Field::left("transport", 13, |x| x.transport.clone()),
    Field::right("n", 5, |x| x.n.to_string()),
    Field::right("p50", 8, |x| opt(x.p50_ms, 2)),
    Field::right("p95", 8, |x| opt(x.p95_ms, 2)),
    Field::right("QTime", 6, |x| opt(x.qtime_p50_ms, 0)),
    Field::right("conns", 18, conns),
    Field::right("k", 2, |x| x.round_trips.to_string()),
    Field::right("expect50", 9, |x| opt(x.expected_p50_ms, 2)),
    Field::right("vs exp", 7, |x| signed(x.vs_expected_pct, 0, "")),
    Field::right("f/p", 7, |x| opt(x.fresh_pooled_ratio, 2)),
    Field::right("theory", 7, |x| opt(x.theory_ratio, 2)),
    Field::right("off", 7, |x| {
        signed(x.ratio_off_pct, 1, if x.flagged { "!" } else { "" })
    }),
];

/// The `conns` cell: connector / kernel / pcap / expected, `!` when the witnesses disagree
/// or are not as expected.
fn conns(x: &SweepRow) -> String {
    format!(
        "{}/{}/{}/{}{}",
        x.conns_connector,
        x.conns_kernel,
        x.conns_pcap
            .map(|p| p.to_string())
            .unwrap_or_else(|| "-".into()),
        x.conns_expected,
        if x.witnesses_agree == Some(false) || x.conns_within_expected == Some(false) {
            "!"
        } else {
            ""
        }
    )
}

/// A signed percentage with `prec` decimals and `mark` after the `%`, or `-`.
fn signed(v: Option<f64>, prec: usize, mark: &str) -> String {
    v.map(|p| format!("{p:+.prec$}%{mark}"))
        .unwrap_or_else(|| "-".into())
}

/// Prints the table, the calibration of each point, warnings and the verdict (last line).
pub fn print_text<W: Write>(r: &SweepReport, w: &mut W) -> Result<()> {
    writeln!(w, "RTT sweep through the WAN topology, Solr {}", r.upstream)?;
    for p in &r.points {
        writeln!(
            w,
            "  {:<16} TLS {} RTT {:>5} ms: TCP connect p50 {:.2} ms{}{}",
            p.run,
            p.tls,
            p.rtt_ms,
            p.connect_p50_ms,
            p.connect_ratio
                .map(|x| format!(" (ratio {x:.3})"))
                .unwrap_or_default(),
            p.bandwidth_ratio
                .map(|x| format!(", goodput/cap {x:.3}"))
                .unwrap_or_default()
        )?;
    }
    writeln!(w)?;
    writeln!(w, "Searches: wall p50/p95 and Solr QTime p50 (ms); conns = connector / kernel / pcap SYNs / expected; expected p50 = p50 at RTT 0 + k x RTT; fresh/pooled ratio vs theory (! = more than 10% off)")?;
    RecordTable::new(ROW_FIELDS).print(w, &r.rows)?;
    writeln!(w)?;
    let took = format!("sweep took {:.1} s", r.duration_s);
    bench_report::table::print_ending(w, &r.warnings, Some(&took), &r.verdict)?;
    Ok(())
}

/// The chart: p50 vs RTT, one line per TLS version and transport, theory dashed.
pub fn chart(r: &SweepReport) -> String {
    let mut keys: Vec<(String, String)> = Vec::new();
    for x in &r.rows {
        let k = (x.tls.clone(), x.transport.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let multi_tls = keys.iter().any(|k| k.0 != keys[0].0);
    let mut series = Vec::new();
    for (i, (tls, transport)) in keys.iter().enumerate() {
        let mine: Vec<&SweepRow> = r
            .rows
            .iter()
            .filter(|x| &x.tls == tls && &x.transport == transport)
            .collect();
        let label = if multi_tls {
            format!("TLS {tls} {transport}")
        } else {
            transport.clone()
        };
        series.push(Series {
            label: label.clone(),
            points: mine
                .iter()
                .filter_map(|x| x.p50_ms.map(|p| (x.rtt_ms, p)))
                .collect(),
            dashed: false,
            color: i,
        });
        if !transport.contains('+') {
            series.push(Series {
                label: format!("{label} theory"),
                points: mine
                    .iter()
                    .filter_map(|x| x.expected_p50_ms.map(|p| (x.rtt_ms, p)))
                    .collect(),
                dashed: true,
                color: i,
            });
        }
    }
    let tls: Vec<String> = {
        let mut v: Vec<String> = keys.iter().map(|k| k.0.clone()).collect();
        v.dedup();
        v
    };
    lines::render(
        &Chart {
            title: format!(
                "Search p50 vs round-trip time, TLS {} at the proxy",
                tls.join(" and ")
            ),
            x_label: "RTT (ms)".into(),
            y_label: "p50 (ms)".into(),
            log_x: false,
        },
        &series,
    )
}

/// Writes `sweep.json`, `sweep.csv`, `sweep.txt` and `sweep.svg` into `dir`.
pub fn save(dir: &Path, r: &SweepReport) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(dir.join("sweep.json"), serde_json::to_vec_pretty(r)?)?;
    bench_report::write_csv(&dir.join("sweep.csv"), &r.rows)?;
    let mut txt = Vec::new();
    print_text(r, &mut txt)?;
    std::fs::write(dir.join("sweep.txt"), txt)?;
    std::fs::write(dir.join("sweep.svg"), chart(r))?;
    bench_report::RunReport::finish_save(r, dir)
}

impl bench_report::RunReport for SweepReport {
    const KIND: &'static str = "sweep";
    const FILE: &'static str = "sweep.json";

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        crate::scenario::study::sweep::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn std::io::Write) -> Result<()> {
        crate::scenario::study::sweep::print_text(self, &mut w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(transport: &str, some: bool) -> SweepRow {
        let v = |x: f64| some.then_some(x);
        SweepRow {
            tls: "1.3".into(),
            rtt_ms: 50.0,
            transport: transport.into(),
            n: 200,
            errors: 0,
            p50_ms: v(51.234),
            p95_ms: v(60.5),
            qtime_p50_ms: v(1.6),
            qtime_missing: 0,
            bytes_in_mean: 2048.0,
            conns_connector: 4,
            conns_kernel: 4,
            conns_pcap: some.then_some(4),
            conns_expected: 4,
            witnesses_counted: String::new(),
            witnesses_agree: Some(some),
            conns_within_expected: Some(true),
            round_trips: 2,
            expected_p50_ms: v(101.0),
            vs_expected_pct: v(-49.3),
            fresh_pooled_ratio: v(1.987),
            theory_ratio: v(2.0),
            ratio_off_pct: v(-0.65),
            flagged: !some,
        }
    }

    /// The text of the table for a fixed model, kept byte for byte.
    #[test]
    fn table_prints_unchanged() {
        let r = SweepReport {
            schema_version: 1,
            upstream: "http://solr".into(),
            settings: serde_json::Value::Null,
            points: Vec::new(),
            rows: vec![row("pooled", true), row("fresh-connection", false)],
            warnings: vec!["w".into()],
            duration_s: 12.34,
            verdict: "verdict: fixed".into(),
        };
        let mut out = Vec::new();
        print_text(&r, &mut out).expect("print");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            r#"RTT sweep through the WAN topology, Solr http://solr

Searches: wall p50/p95 and Solr QTime p50 (ms); conns = connector / kernel / pcap SYNs / expected; expected p50 = p50 at RTT 0 + k x RTT; fresh/pooled ratio vs theory (! = more than 10% off)
TLS     RTT transport         n      p50      p95  QTime              conns  k  expect50  vs exp     f/p  theory     off
1.3      50 pooled          200    51.23    60.50      2            4/4/4/4  2    101.00    -49%    1.99    2.00   -0.7%
1.3      50 fresh-connection   200        -        -      -           4/4/-/4!  2         -       -       -       -       -

warning: w
sweep took 12.3 s
verdict: fixed
"#
        );
    }
}
