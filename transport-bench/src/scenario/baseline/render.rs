//! The baseline's text report, verdict and saved files (JSON, text, per-round CSV).

use anyhow::Result;
use bench_report::table::{fixed, Field, RecordTable};
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

/// The table: one row per client row, medians over the rounds and ratios to the references.
const ROW_FIELDS: &[Field<RowFigures>] = &[
    Field::left("row", 15, |x| x.row.as_str().to_string()),
    Field::right("n", 6, |x| x.latency.n.to_string()),
    Field::right("p50 ms", 7, |x| fixed(x.latency.p50_ms, 3)),
    Field::right("p99 ms", 7, |x| fixed(x.latency.p99_ms, 3)),
    Field::right("CPU us/req", 10, |x| format!("{:.1}", x.cpu_us_per_req)),
    Field::right("p50 vs raw", 10, |x| ratio(x.p50_vs_raw)),
    Field::right("rounds", 10, |x| range(x.p50_vs_raw_rounds)),
    Field::right("p99 vs raw", 10, |x| ratio(x.p99_vs_raw)),
    Field::right("CPU vs raw", 10, |x| ratio(x.cpu_vs_raw)),
    Field::right("rounds", 10, |x| range(x.cpu_vs_raw_rounds)),
    Field::left("equal work", 15, |x| {
        x.equal_work.map_or("-", BaselineRow::as_str).to_string()
    }),
    Field::right("p50 vs equal", 12, |x| ratio(x.p50_vs_equal)),
    Field::right("rounds", 10, |x| range(x.p50_vs_equal_rounds)),
    Field::right("CPU vs equal", 12, |x| ratio(x.cpu_vs_equal)),
    Field::right("rounds", 10, |x| range(x.cpu_vs_equal_rounds)),
    Field::right("errors", 6, |x| x.errors.to_string()),
];

/// Prints the table; the last line is the verdict.
pub fn print_text<W: std::io::Write>(r: &BaselineReport, w: &mut W) -> Result<()> {
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
    RecordTable::new(ROW_FIELDS).print(w, &r.rows)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use bench_report::stats::Percentiles;

    fn figures(row: BaselineRow, some: bool) -> RowFigures {
        let v = |x: f64| some.then_some(x);
        RowFigures {
            row,
            latency: Percentiles {
                n: 500,
                mean_ms: 1.0,
                p50_ms: v(0.8765),
                p90_ms: None,
                p99_ms: v(2.5),
                max_ms: None,
            },
            cpu_us_per_req: 45.67,
            p50_vs_raw: v(1.234),
            p99_vs_raw: v(1.5),
            cpu_vs_raw: None,
            p50_vs_raw_rounds: some.then_some((1.1, 1.3)),
            cpu_vs_raw_rounds: None,
            equal_work: some.then_some(BaselineRow::RawHyperJson),
            p50_vs_equal: v(1.05),
            cpu_vs_equal: v(0.98),
            p50_vs_equal_rounds: None,
            cpu_vs_equal_rounds: some.then_some((0.9, 1.0)),
            errors: u64::from(!some),
        }
    }

    /// The text of the table for a fixed model, kept byte for byte.
    #[test]
    fn table_prints_unchanged() {
        let r = BaselineReport {
            url: "http://solr".into(),
            collection: "bench".into(),
            queries: 1000,
            rounds: 3,
            rows: vec![
                figures(BaselineRow::RawHyper, false),
                figures(BaselineRow::RawHyperTyped, true),
            ],
            per_round: Vec::new(),
            targets: Vec::new(),
            verdict: "verdict: fixed".into(),
        };
        let mut out = Vec::new();
        print_text(&r, &mut out).expect("print");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            r#"Solr: http://solr (collection bench)
Raw hyper baseline: 1000 searches per row per round, 3 rounds (order rotating), one process
"vs raw": to raw-hyper (no decoding); "vs equal": to the raw loop doing the same decoding work (the targets' reference)

row                  n  p50 ms  p99 ms CPU us/req p50 vs raw     rounds p99 vs raw CPU vs raw     rounds equal work      p50 vs equal     rounds CPU vs equal     rounds errors
raw-hyper          500       -       -       45.7          -          -          -          -          - -                          -          -            -          -      1
raw-hyper-typed    500   0.876   2.500       45.7      1.23x 1.10..1.30      1.50x          -          - raw-hyper-json         1.05x          -        0.98x 0.90..1.00      0

verdict: fixed
"#
        );
    }
}
