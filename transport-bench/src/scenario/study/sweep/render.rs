//! The sweep's text report, verdict, chart and saved files.

use crate::report::lines::{self, Chart, Series};
use crate::scenario::study::Witnesses;
use anyhow::{Context, Result};
use bench_report::table::fixed as opt;
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
    let table = bench_report::Table::new()
        .left("TLS", 4)
        .right("RTT", 6)
        .left("transport", 13)
        .right("n", 5)
        .right("p50", 8)
        .right("p95", 8)
        .right("QTime", 6)
        .right("conns", 18)
        .right("k", 2)
        .right("expect50", 9)
        .right("vs exp", 7)
        .right("f/p", 7)
        .right("theory", 7)
        .right("off", 7);
    table.header(w)?;
    for x in &r.rows {
        table.row(
            w,
            &[
                &x.tls,
                &x.rtt_ms,
                &x.transport,
                &x.n,
                &opt(x.p50_ms, 2),
                &opt(x.p95_ms, 2),
                &opt(x.qtime_p50_ms, 0),
                &format!(
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
                ),
                &x.round_trips,
                &opt(x.expected_p50_ms, 2),
                &x.vs_expected_pct
                    .map(|p| format!("{p:+.0}%"))
                    .unwrap_or_else(|| "-".into()),
                &opt(x.fresh_pooled_ratio, 2),
                &opt(x.theory_ratio, 2),
                &x.ratio_off_pct
                    .map(|p| format!("{p:+.1}%{}", if x.flagged { "!" } else { "" }))
                    .unwrap_or_else(|| "-".into()),
            ],
        )?;
    }
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
