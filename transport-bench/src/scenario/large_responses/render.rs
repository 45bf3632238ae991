//! The large-responses text report, verdict, charts and saved files.

use crate::report::lines::{self, Chart, Series};
use anyhow::{Context, Result};
use bench_report::table::{fixed as opt, Field, RecordTable};
use std::io::Write;
use std::path::Path;

use super::*;

/// The one-line verdict, with the seed's figures and the issue's check at the largest page.
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

/// The cells table: one row per page size x gzip.
const CELL_FIELDS: &[Field<LargeCell>] = &[
    Field::right("rows", 5, |c| c.rows.to_string()),
    Field::left("gzip", 4, |c| if c.gzip { "on" } else { "off" }.to_string()),
    Field::right("n", 4, |c| c.n.to_string()),
    Field::right("wire B", 11, |c| format!("{:.0}", c.wire_bytes_mean)),
    Field::right("decoded B", 11, |c| format!("{:.0}", c.decoded_bytes_mean)),
    Field::right("p50", 8, |c| opt(c.p50_ms, 2)),
    Field::right("p95", 8, |c| opt(c.p95_ms, 2)),
    Field::right("QTime", 6, |c| opt(c.qtime_p50_ms, 0)),
    Field::right("transfer", 8, |c| format!("{:.2}", c.transfer_mean_ms)),
    Field::right("gunzip", 8, |c| format!("{:.2}", c.decompress_mean_ms)),
    Field::right("parse", 7, |c| format!("{:.2}", c.parse_mean_ms)),
    Field::right("cpu", 7, |c| format!("{:.2}", c.cpu_mean_ms)),
    Field::right("err", 4, |c| c.errors.to_string()),
];

/// The gzip-vs-none table: one row per page size.
const COMPARISON_FIELDS: &[Field<LargeComparison>] = &[
    Field::right("rows", 5, |c| c.rows.to_string()),
    Field::right("wire", 10, |c| format!("{:+.1}%", c.wire_reduction_pct)),
    Field::right("p50", 9, |c| pct(c.p50_reduction_pct)),
    Field::right("p95", 9, |c| pct(c.p95_reduction_pct)),
    Field::right("cpu ms", 10, |c| format!("{:+.2}", c.cpu_delta_ms)),
    Field::right("same bodies", 16, |c| {
        if c.decoded_identical { "yes" } else { "NO" }.to_string()
    }),
];

/// A signed percentage with one decimal, or `-`.
fn pct(v: Option<f64>) -> String {
    v.map(|p| format!("{p:+.1}%")).unwrap_or_else(|| "-".into())
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
    let cells = RecordTable::new(CELL_FIELDS);
    cells.table().header(w)?;
    for c in &r.cells {
        let line = cells.line(c);
        let short = if c.docs_exact { "" } else { " (short pages!)" };
        writeln!(w, "{line}{short}")?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "Gzip vs none, per page size (reduction: positive = gzip smaller/faster)"
    )?;
    RecordTable::new(COMPARISON_FIELDS).print(w, &r.comparisons)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(rows: u64, gzip: bool) -> LargeCell {
        let v = |x: f64| gzip.then_some(x);
        LargeCell {
            rows,
            gzip,
            n: 30,
            errors: u64::from(!gzip),
            docs_exact: gzip,
            wire_bytes_mean: 123456.7,
            decoded_bytes_mean: 654321.2,
            p50_ms: v(12.345),
            p95_ms: v(20.0),
            mean_ms: 13.0,
            qtime_p50_ms: v(3.4),
            qtime_missing: 0,
            transfer_mean_ms: 1.111,
            decompress_mean_ms: 2.226,
            parse_mean_ms: 3.3,
            cpu_mean_ms: 4.0,
            cpu_p50_ms: 4.0,
        }
    }

    /// The text of both tables for a fixed model, kept byte for byte.
    #[test]
    fn tables_print_unchanged() {
        let comparison = |rows, some: bool| LargeComparison {
            rows,
            wire_reduction_pct: 74.56,
            p50_reduction_pct: some.then_some(-3.21),
            p95_reduction_pct: some.then_some(40.0),
            cpu_delta_ms: 0.125,
            decoded_identical: some,
        };
        let r = LargeReport {
            schema_version: 1,
            upstream: "http://solr".into(),
            settings: serde_json::Value::Null,
            cells: vec![cell(10, false), cell(1000, true)],
            comparisons: vec![comparison(10, false), comparison(1000, true)],
            bytes: ByteAccount {
                client_bytes_in: 1,
                pcap_payload_in: None,
                pcap_payload_in_with_retransmits: Some(2),
                pcap_dropped: None,
                connections: 3,
                pcap_syns: Some(3),
            },
            gzip_pays_from_rows: Some(1000),
            warnings: Vec::new(),
            duration_s: 1.5,
            verdict: "verdict: fixed".into(),
        };
        let mut out = Vec::new();
        print_text(&r, &mut out).expect("print");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            r#"Large responses through the WAN topology, Solr http://solr

Per page size and gzip: bytes per response, wall ms, client CPU ms per response (thread CPU clock)
 rows gzip    n      wire B   decoded B      p50      p95  QTime transfer   gunzip   parse     cpu  err
   10 off    30      123457      654321        -        -      -     1.11     2.23    3.30    4.00    1 (short pages!)
 1000 on     30      123457      654321    12.35    20.00      3     1.11     2.23    3.30    4.00    0

Gzip vs none, per page size (reduction: positive = gzip smaller/faster)
 rows       wire       p50       p95     cpu ms      same bodies
   10     +74.6%         -         -      +0.12               NO
 1000     +74.6%     -3.2%    +40.0%      +0.12              yes

Byte accounting: the transport read 1 bytes; the capture saw - TCP payload bytes from the server (2 with retransmissions; unknown packets dropped by the capture); 3 connections opened, 3 SYNs captured
large-responses took 1.5 s
verdict: fixed
"#
        );
    }
}
