//! The large-responses text report, verdict, charts and saved files.

use crate::report::lines::{self, Chart, Series};
use anyhow::{Context, Result};
use bench_report::table::fixed as opt;
use std::io::Write;
use std::path::Path;

use super::*;

/// The one-line verdict, with the seed's figures and the check at the largest page.
pub fn verdict(s: &LargeSummary, link: &str) -> String {
    let mut parts = Vec::new();
    if let Some(c) = s.comparisons.last() {
        let off = s.cells.iter().find(|x| x.rows == c.rows && !x.gzip);
        let on = s.cells.iter().find(|x| x.rows == c.rows && x.gzip);
        if let (Some(off), Some(on)) = (off, on) {
            let p50 = c.p50_reduction_pct.unwrap_or(f64::NAN);
            parts.push(format!(
                "rows={} over {link}: gzip cut wire bytes by {:.0}% ({:.0} -> {:.0} KB per response) and p50 by {p50:.0}% ({:.1} -> {:.1} ms; p95 {}), client CPU {:+.2} ms per response{}",
                c.rows,
                c.wire_reduction_pct,
                off.wire_bytes_mean / 1000.0,
                on.wire_bytes_mean / 1000.0,
                off.p50_ms.unwrap_or(f64::NAN),
                on.p50_ms.unwrap_or(f64::NAN),
                c.p95_reduction_pct
                    .map(|p| format!("{:+.0}%", -p))
                    .unwrap_or_else(|| "-".into()),
                c.cpu_delta_ms,
                if c.rows >= 1000 {
                    format!(
                        " (published reference: -75% traffic, -60% time; check >=70% bytes and >=50% p50: {})",
                        if c.wire_reduction_pct >= 70.0 && p50 >= 50.0 {
                            "met"
                        } else {
                            "NOT met"
                        }
                    )
                } else {
                    String::new()
                }
            ));
        }
    }
    parts.push(match s.gzip_pays_from_rows {
        Some(r) if Some(r) == s.comparisons.first().map(|c| c.rows) => {
            format!("gzip paid at every page size measured (from rows={r})")
        }
        Some(r) => format!("gzip starts to pay at rows={r}"),
        None => "gzip did not pay at the largest page size measured".into(),
    });
    if s.cells.iter().any(|c| !c.docs_exact) {
        parts.push("SOME RESPONSES HELD FEWER DOCUMENTS THAN ASKED".into());
    }
    format!("verdict: {}", parts.join("; "))
}

/// Prints the tables; the last line is the verdict.
pub fn print_text<W: Write>(r: &LargeReport, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "Large responses through the WAN topology, Solr {}",
        r.upstream
    )?;
    if let Some(h) = r.settings["wan_header"].as_str() {
        writeln!(w, "{h}")?;
    }
    writeln!(w)?;
    writeln!(w, "Per page size and gzip: bytes per response, wall ms, client CPU ms per response (thread CPU clock)")?;
    let cells = bench_report::Table::new()
        .right("rows", 5)
        .left("gzip", 4)
        .right("n", 4)
        .right("wire B", 11)
        .right("decoded B", 11)
        .right("p50", 8)
        .right("p95", 8)
        .right("QTime", 6)
        .right("transfer", 8)
        .right("gunzip", 8)
        .right("parse", 7)
        .right("cpu", 7)
        .right("err", 4);
    cells.header(w)?;
    for c in &r.cells {
        let line = cells.line(&[
            &c.rows,
            &if c.gzip { "on" } else { "off" },
            &c.n,
            &format!("{:.0}", c.wire_bytes_mean),
            &format!("{:.0}", c.decoded_bytes_mean),
            &opt(c.p50_ms, 2),
            &opt(c.p95_ms, 2),
            &opt(c.qtime_p50_ms, 0),
            &format!("{:.2}", c.transfer_mean_ms),
            &format!("{:.2}", c.decompress_mean_ms),
            &format!("{:.2}", c.parse_mean_ms),
            &format!("{:.2}", c.cpu_mean_ms),
            &c.errors,
        ]);
        let short = if c.docs_exact { "" } else { " (short pages!)" };
        writeln!(w, "{line}{short}")?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "Gzip vs none, per page size (reduction: positive = gzip smaller/faster)"
    )?;
    let comparisons = bench_report::Table::new()
        .right("rows", 5)
        .right("wire", 10)
        .right("p50", 9)
        .right("p95", 9)
        .right("cpu ms", 10)
        .right("same bodies", 16);
    comparisons.header(w)?;
    for c in &r.comparisons {
        let pct = |v: Option<f64>| v.map(|p| format!("{p:+.1}%")).unwrap_or_else(|| "-".into());
        comparisons.row(
            w,
            &[
                &c.rows,
                &format!("{:+.1}%", c.wire_reduction_pct),
                &pct(c.p50_reduction_pct),
                &pct(c.p95_reduction_pct),
                &format!("{:+.2}", c.cpu_delta_ms),
                &if c.decoded_identical { "yes" } else { "NO" },
            ],
        )?;
    }
    writeln!(w)?;
    let b = &r.bytes;
    writeln!(
        w,
        "Byte accounting: the transport read {} bytes; the capture saw {} TCP payload bytes from the server ({} with retransmissions; {} packets dropped by the capture); {} connections opened, {} SYNs captured",
        b.client_bytes_in,
        b.pcap_payload_in
            .map(|p| p.to_string())
            .unwrap_or_else(|| "-".into()),
        b.pcap_payload_in_with_retransmits
            .map(|p| p.to_string())
            .unwrap_or_else(|| "-".into()),
        b.pcap_dropped
            .map(|p| p.to_string())
            .unwrap_or_else(|| "unknown".into()),
        b.connections,
        b.pcap_syns
            .map(|p| p.to_string())
            .unwrap_or_else(|| "-".into()),
    )?;
    let took = format!("large-responses took {:.1} s", r.duration_s);
    bench_report::table::print_ending(w, &r.warnings, Some(&took), &r.verdict)?;
    Ok(())
}

/// Charts: wall p50/p95 vs rows, and wire/decoded KB per response vs rows (log x).
pub fn charts(r: &LargeReport) -> (String, String) {
    let name = |g: bool| if g { "gzip" } else { "no gzip" };
    let mut time = Vec::new();
    let mut bytes = Vec::new();
    for (i, g) in [false, true].into_iter().enumerate() {
        let cells: Vec<&LargeCell> = r.cells.iter().filter(|c| c.gzip == g).collect();
        if cells.is_empty() {
            continue;
        }
        let pts = |f: &dyn Fn(&LargeCell) -> Option<f64>| {
            cells
                .iter()
                .filter_map(|c| f(c).map(|v| (c.rows as f64, v)))
                .collect::<Vec<_>>()
        };
        time.push(Series {
            label: format!("p50, {}", name(g)),
            points: pts(&|c| c.p50_ms),
            dashed: false,
            color: i,
        });
        time.push(Series {
            label: format!("p95, {}", name(g)),
            points: pts(&|c| c.p95_ms),
            dashed: true,
            color: i,
        });
        bytes.push(Series {
            label: format!("wire, {}", name(g)),
            points: pts(&|c| Some(c.wire_bytes_mean / 1000.0)),
            dashed: false,
            color: i,
        });
    }
    bytes.push(Series {
        label: "decoded".into(),
        points: r
            .cells
            .iter()
            .filter(|c| !c.gzip)
            .map(|c| (c.rows as f64, c.decoded_bytes_mean / 1000.0))
            .collect(),
        dashed: true,
        color: 2,
    });
    let link = r.settings["link"].as_str().unwrap_or("");
    (
        lines::render(
            &Chart {
                title: format!("Large responses: wall time vs page size ({link})"),
                x_label: "rows per search (log)".into(),
                y_label: "ms".into(),
                log_x: true,
            },
            &time,
        ),
        lines::render(
            &Chart {
                title: format!("Large responses: KB per response vs page size ({link})"),
                x_label: "rows per search (log)".into(),
                y_label: "KB".into(),
                log_x: true,
            },
            &bytes,
        ),
    )
}

/// Writes `records.jsonl` and everything [`save_report`] writes.
pub fn save(dir: &Path, r: &LargeReport, records: &[LargeRecord]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    crate::engine::run_dir::write_jsonl(&dir.join("records.jsonl"), records)?;
    save_report(dir, r)
}

/// Writes `large-responses.json`, `.csv`, `.txt`, two SVG charts and `run.json`.
pub fn save_report(dir: &Path, r: &LargeReport) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(
        dir.join("large-responses.json"),
        serde_json::to_vec_pretty(r)?,
    )?;
    bench_report::write_csv(&dir.join("large-responses.csv"), &r.cells)?;
    let mut txt = Vec::new();
    print_text(r, &mut txt)?;
    std::fs::write(dir.join("large-responses.txt"), txt)?;
    let (time, bytes) = charts(r);
    std::fs::write(dir.join("large-responses-time.svg"), time)?;
    std::fs::write(dir.join("large-responses-bytes.svg"), bytes)?;
    bench_report::RunReport::finish_save(r, dir)
}

impl bench_report::RunReport for LargeReport {
    const KIND: &'static str = "large-responses";
    const FILE: &'static str = "large-responses.json";

    /// Everything but `records.jsonl`, which the run wrote (see
    /// [`crate::scenario::large_responses::save`]).
    fn save(&self, dir: &std::path::Path) -> Result<()> {
        crate::scenario::large_responses::save_report(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn std::io::Write) -> Result<()> {
        crate::scenario::large_responses::print_text(self, &mut w)
    }
}
