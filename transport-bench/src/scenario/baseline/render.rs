//! The baseline's text report, verdict and saved files (JSON, text, per-round CSV).

use anyhow::Result;
use serde::Serialize;

use super::*;

/// The one-line verdict: the pooled rows against the baseline's targets (the raw loop doing
/// equal work), with their ratio to the plain raw loop beside.
pub fn verdict(r: &BaselineReport) -> String {
    let errors: u64 = r.rows.iter().map(|x| x.errors).sum();
    if errors > 0 {
        return format!("{errors} requests failed: the ratios are not comparable");
    }
    let parts: Vec<String> = r
        .targets
        .iter()
        .map(|t| {
            let plain = r
                .rows
                .iter()
                .find(|x| x.row == t.row)
                .and_then(|x| Some((x.p50_vs_raw?, x.cpu_vs_raw?)))
                .map(|(p, c)| format!(" [vs raw-hyper: p50 {p:.2}x, CPU {c:.2}x]"))
                .unwrap_or_default();
            format!(
                "{} vs {}: p50 {:.2}x ({}), CPU {:.2}x ({}){plain}",
                t.row.as_str(),
                t.reference.as_str(),
                t.p50_ratio,
                if t.p50_met {
                    "<= 1.05x met"
                } else {
                    "> 1.05x: missed"
                },
                t.cpu_ratio,
                if t.cpu_met {
                    "<= 1.2x met"
                } else {
                    "> 1.2x: missed"
                },
            )
        })
        .collect();
    if parts.is_empty() {
        return "no pooled row beside its equal-work raw row (raw-hyper-json for pooled, \
                raw-hyper-typed for pooled-typed): no target to check"
            .into();
    }
    format!(
        "against the raw loop doing equal work, over {} rounds x {} searches: {}",
        r.rounds,
        r.queries,
        parts.join("; ")
    )
}

pub(super) fn ratio(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}x")).unwrap_or_else(|| "-".into())
}

pub(super) fn range(v: Option<(f64, f64)>) -> String {
    v.map(|(a, b)| format!("{a:.2}..{b:.2}"))
        .unwrap_or_else(|| "-".into())
}

/// Prints the table; the last line is the verdict.
pub fn print_text<W: std::io::Write>(r: &BaselineReport, w: &mut W) -> Result<()> {
    use bench_report::table::Table;
    writeln!(w, "Solr: {} (collection {})", r.url, r.collection)?;
    writeln!(
        w,
        "Raw hyper baseline: {} searches per row per round, {} rounds (order rotating), one process",
        r.queries, r.rounds
    )?;
    writeln!(
        w,
        "\"vs raw\": to raw-hyper (no decoding); \"vs equal\": to the raw loop doing the same \
         decoding work (the targets' reference)"
    )?;
    writeln!(w)?;
    let t = Table::new()
        .left("row", 15)
        .right("n", 6)
        .right("p50 ms", 7)
        .right("p99 ms", 7)
        .right("CPU us/req", 10)
        .right("p50 vs raw", 10)
        .right("rounds", 10)
        .right("p99 vs raw", 10)
        .right("CPU vs raw", 10)
        .right("rounds", 10)
        .left("equal work", 15)
        .right("p50 vs equal", 12)
        .right("rounds", 10)
        .right("CPU vs equal", 12)
        .right("rounds", 10)
        .right("errors", 6);
    t.header(w)?;
    let ms = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into());
    for x in &r.rows {
        t.row(
            w,
            &[
                &x.row.as_str(),
                &x.latency.n,
                &ms(x.latency.p50_ms),
                &ms(x.latency.p99_ms),
                &format!("{:.1}", x.cpu_us_per_req),
                &ratio(x.p50_vs_raw),
                &range(x.p50_vs_raw_rounds),
                &ratio(x.p99_vs_raw),
                &ratio(x.cpu_vs_raw),
                &range(x.cpu_vs_raw_rounds),
                &x.equal_work.map_or("-", BaselineRow::as_str),
                &ratio(x.p50_vs_equal),
                &range(x.p50_vs_equal_rounds),
                &ratio(x.cpu_vs_equal),
                &range(x.cpu_vs_equal_rounds),
                &x.errors,
            ],
        )?;
    }
    writeln!(w)?;
    writeln!(w, "{}", r.verdict)?;
    Ok(())
}

#[derive(Debug, Serialize)]
pub(super) struct RoundCsv {
    pub(super) round: usize,
    pub(super) row: &'static str,
    pub(super) n: u64,
    pub(super) p50_ms: Option<f64>,
    pub(super) p99_ms: Option<f64>,
    pub(super) cpu_us_per_req: f64,
}

impl bench_report::RunReport for BaselineReport {
    const KIND: &'static str = "baseline";

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        bench_report::run::write_json(dir, Self::FILE, self)?;
        let mut text = Vec::new();
        print_text(self, &mut text)?;
        std::fs::write(dir.join("report.txt"), text)?;
        let recs: Vec<RoundCsv> = self
            .per_round
            .iter()
            .map(|x| RoundCsv {
                round: x.round,
                row: x.row.as_str(),
                n: x.latency.n,
                p50_ms: x.latency.p50_ms,
                p99_ms: x.latency.p99_ms,
                cpu_us_per_req: x.cpu_us_per_req,
            })
            .collect();
        bench_report::write_csv(&dir.join("rounds.csv"), &recs)?;
        self.finish_save(dir)
    }

    fn print_text(&self, w: &mut dyn std::io::Write) -> Result<()> {
        let mut w = w;
        print_text(self, &mut w)
    }
}
