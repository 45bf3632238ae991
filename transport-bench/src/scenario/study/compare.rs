//! `compare A.json B.json`: baseline vs contender, like `esrally compare`. For every
//! workload and transport present in both runs: p50, p90, p99 and throughput, absolute and
//! relative differences, and whether the p50 difference is outside the noise margin.
//!
//! Noise margin: the spread (max - min) of the per-repetition medians, the larger of the two
//! runs'; with a single repetition there is no estimate and every difference is "noise?".

use std::io::Write;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::scenario::study::StudyReport;

/// One compared figure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Difference {
    /// Workload.
    pub scenario: String,
    /// Transport.
    pub transport: String,
    /// Figure name (`p50_ms`, `p90_ms`, `p99_ms`, `throughput_rps`).
    pub metric: String,
    /// Baseline value.
    pub baseline: f64,
    /// Contender value.
    pub contender: f64,
    /// contender - baseline.
    pub diff: f64,
    /// Relative difference in percent of the baseline.
    pub diff_pct: f64,
    /// Noise margin for this figure (p50 only).
    pub noise: Option<f64>,
    /// Whether |diff| exceeds the noise margin (None: no margin known).
    pub significant: Option<bool>,
}

fn spread(v: &[f64]) -> Option<f64> {
    if v.len() < 2 {
        return None;
    }
    let max = v.iter().cloned().fold(f64::MIN, f64::max);
    let min = v.iter().cloned().fold(f64::MAX, f64::min);
    Some(max - min)
}

/// The runs (`workload transport`) of `r`, e.g. `search pooled`.
fn runs(r: &StudyReport) -> Vec<String> {
    r.transports
        .iter()
        .map(|t| format!("{} {}", t.scenario, t.transport))
        .collect()
}

/// Why `a` and `b` cannot be compared: no workload and transport run in both (each side's
/// runs named). None when at least one is in common.
pub fn nothing_in_common(a: &StudyReport, b: &StudyReport) -> Option<String> {
    let (ra, rb) = (runs(a), runs(b));
    if ra.iter().any(|x| rb.contains(x)) {
        return None;
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    Some(format!(
        "nothing to compare: no workload and transport in common (baseline: {}; contender: {})",
        list(&ra),
        list(&rb)
    ))
}

/// Compares two studies.
pub fn compare(a: &StudyReport, b: &StudyReport) -> Vec<Difference> {
    let mut out = Vec::new();
    for ta in &a.transports {
        let Some(tb) = b
            .transports
            .iter()
            .find(|t| t.scenario == ta.scenario && t.transport == ta.transport)
        else {
            continue;
        };
        let noise = match (spread(&ta.rep_p50_ms), spread(&tb.rep_p50_ms)) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        let figures = [
            ("p50_ms", ta.wall.p50_ms, tb.wall.p50_ms, noise),
            ("p90_ms", ta.wall.p90_ms, tb.wall.p90_ms, None),
            ("p99_ms", ta.wall.p99_ms, tb.wall.p99_ms, None),
            (
                "throughput_rps",
                Some(ta.throughput_rps),
                Some(tb.throughput_rps),
                None,
            ),
        ];
        for (metric, x, y, noise) in figures {
            let (Some(x), Some(y)) = (x, y) else { continue };
            let diff = y - x;
            out.push(Difference {
                scenario: ta.scenario.clone(),
                transport: ta.transport.clone(),
                metric: metric.into(),
                baseline: x,
                contender: y,
                diff,
                diff_pct: if x != 0.0 { diff / x * 100.0 } else { 0.0 },
                noise,
                significant: noise.map(|n| diff.abs() > n),
            });
        }
    }
    out
}

/// Prints the comparison; the last line is the verdict.
pub fn print<W: Write>(diffs: &[Difference], w: &mut W) -> Result<()> {
    let table = bench_report::Table::new()
        .left("workload", 7)
        .left("transport", 14)
        .left("metric", 15)
        .right("baseline", 10)
        .right("contender", 10)
        .right("diff", 10)
        .right("diff %", 8)
        .right("noise", 8);
    writeln!(w, "{}  verdict", table.header_line())?;
    for d in diffs {
        let line = table.line(&[
            &d.scenario,
            &d.transport,
            &d.metric,
            &format!("{:.3}", d.baseline),
            &format!("{:.3}", d.contender),
            &format!("{:+.3}", d.diff),
            &format!("{:+.1}%", d.diff_pct),
            &d.noise
                .map(|n| format!("{n:.3}"))
                .unwrap_or_else(|| "-".into()),
        ]);
        let verdict = match d.significant {
            Some(true) => "OUTSIDE noise",
            Some(false) => "within noise",
            None => "",
        };
        writeln!(w, "{line}  {verdict}")?;
    }
    let judged: Vec<_> = diffs.iter().filter(|d| d.significant.is_some()).collect();
    let outside = judged
        .iter()
        .filter(|d| d.significant == Some(true))
        .count();
    writeln!(
        w,
        "verdict: {outside} of {} p50 differences outside the noise margin{}",
        judged.len(),
        if judged.is_empty() {
            " (no margin: run with --reps 2 or more)"
        } else {
            ""
        }
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use solr_client::{Timing, TransportKind};

    use super::*;
    use crate::scenario::study::{summarize, Record, Witnesses};

    /// A one-transport study whose requests all took `ms`, with these per-repetition medians.
    fn run(ms: u64, rep_p50_ms: Vec<f64>) -> StudyReport {
        let recs: Vec<Record> = (0..20)
            .map(|_| Record {
                scenario: "search".into(),
                op: "select".into(),
                transport: "pooled".into(),
                rep: 0,
                warmup: false,
                error: None,
                timing: Some({
                    let mut t = Timing::default();
                    t.server_wait = Duration::from_millis(ms);
                    t.qtime_ms = Some(0);
                    t
                }),
                latency_ms: None,
                start_delay_ms: None,
                num_found: None,
                seq: None,
            })
            .collect();
        let refs: Vec<&Record> = recs.iter().collect();
        let t = summarize(
            "search",
            "pooled",
            TransportKind::Pooled,
            &refs,
            Witnesses::default(),
            rep_p50_ms,
            Duration::from_secs(1),
        );
        StudyReport {
            schema_version: 1,
            url: "http://127.0.0.1:8983/solr".into(),
            settings: serde_json::json!({}),
            indexing: vec![],
            transports: vec![t],
            warnings: vec![],
            duration_s: 1.0,
            verdict: String::new(),
            idle: None,
            formats: vec![],
            findings: vec![],
        }
    }

    fn p50(d: &[Difference]) -> &Difference {
        d.iter().find(|d| d.metric == "p50_ms").expect("a p50 row")
    }

    /// Two different runs with a known shift. +5 ms against a noise margin of
    /// 0.4 ms (the wider run's spread of repetition medians) is outside it; +0.2 ms is not.
    #[test]
    fn runs_with_no_transport_in_common_are_named_not_compared() {
        let a = run(10, vec![10.0, 11.0]);
        let mut b = run(10, vec![10.0, 11.0]);
        assert_eq!(nothing_in_common(&a, &b), None);
        b.transports[0].transport = "fresh".into();
        assert_eq!(
            nothing_in_common(&a, &b).as_deref(),
            Some(
                "nothing to compare: no workload and transport in common \
                 (baseline: search pooled; contender: search fresh)"
            )
        );
        b.transports.clear();
        assert!(nothing_in_common(&a, &b)
            .expect("nothing in common")
            .ends_with("(baseline: search pooled; contender: none)"));
    }

    #[test]
    fn a_known_shift_between_two_runs_is_measured_and_judged() {
        let baseline = run(10, vec![10.0, 10.4]);
        let slower = run(15, vec![15.0, 15.3]);
        let d = compare(&baseline, &slower);
        let p = p50(&d);
        assert!((p.diff - 5.0).abs() < 0.02, "{p:?}");
        assert!((p.diff_pct - 50.0).abs() < 0.2, "{p:?}");
        assert!((p.noise.expect("two repetitions") - 0.4).abs() < 1e-9);
        assert_eq!(p.significant, Some(true));
        let mut out = Vec::new();
        print(&d, &mut out).expect("prints");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(text.contains("OUTSIDE noise"), "{text}");
        assert!(
            text.ends_with("verdict: 1 of 1 p50 differences outside the noise margin\n"),
            "{text}"
        );

        let close = run(10, vec![10.1, 10.2]);
        let mut nudged = close.clone();
        nudged.transports[0].wall.p50_ms = nudged.transports[0].wall.p50_ms.map(|p| p + 0.2);
        let p = compare(&baseline, &nudged);
        let p = p50(&p);
        assert!((p.diff - 0.2).abs() < 0.02, "{p:?}");
        assert_eq!(p.significant, Some(false), "{p:?}");
    }
}
