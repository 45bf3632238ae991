//! The idle penalty: the same search on one pooled (kept-alive) connection, back to back and
//! after idle gaps. On a shared or virtual machine, a Solr (and a client) that idled for tens
//! of milliseconds runs its next request slower: CPU caches were evicted, cores went to sleep
//! or were lent to other tenants. Solr's QTime rises with it, and the rest of the difference
//! is the client's and the kernels' share. An app with sparse traffic sees this, not the
//! back-to-back figure a benchmark loop measures; no client setting removes it, so the audit
//! measures it beside the transports instead of leaving it inside "network time".
//!
//! Measured here (2 shared vCPUs, local Solr, pooled `requests.Session`, 21 KB answers):
//! p50 3.3 ms back to back, 6.8 ms after 20 ms gaps, 16 ms after 80 ms, 49 ms after 300 ms;
//! QTime 0 -> 7 ms.

use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use solr_client::{Select, SolrClient};

use bench_report::stats::percentiles;

/// Idle gaps probed by `audit` unless `--idle-gaps` says otherwise, ms (comma-separated, as
/// the option takes them).
pub const DEFAULT_GAPS: &str = "0,20,100,300";

/// Searches per gap (after one unmeasured search that opens the connection).
pub const DEFAULT_SEARCHES: usize = 15;

/// One gap's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleGap {
    /// Idle time before each search, ms (0: back to back).
    pub gap_ms: u64,
    /// Searches measured.
    pub n: usize,
    /// Searches that failed (not in the figures).
    pub errors: usize,
    /// Wall time p50 (the client's timing record, total), ms.
    pub wall_p50_ms: Option<f64>,
    /// Solr QTime p50 of the answers that carried one, ms.
    pub qtime_p50_ms: Option<f64>,
    /// Answers without a QTime (left out of `qtime_p50_ms`, not counted as 0).
    #[serde(default)]
    pub qtime_missing: u64,
    /// Server wait p50 (request written -> first response byte), ms.
    pub server_wait_p50_ms: Option<f64>,
    /// Connections the pooled transport opened during this gap's searches (0 when the
    /// connection was kept: the penalty is then not a reconnect).
    pub connections_opened: u64,
    /// Wall p50 over the back-to-back p50, minus 1, in %.
    pub vs_back_to_back_pct: Option<f64>,
}

/// The longest gap again, while a warmer keeps Solr busy with cheap requests on a second
/// connection: what a client-side keep-warm would buy, and what it costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleWarmed {
    /// The warmer's interval between its requests, ms.
    pub interval_ms: u64,
    /// Requests the warmer sent during the measurement (its cost to Solr).
    pub warmer_requests: u64,
    /// The measured searches (same gap, same connection as the cold ones).
    pub gap: IdleGap,
    /// Wall p50 over the cold p50 at the same gap, minus 1, in %.
    pub vs_cold_pct: Option<f64>,
}

/// The probe's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleProbe {
    /// Transport used (pooled: one kept-alive connection, so no gap reconnects).
    pub transport: String,
    /// Per gap, in the order probed.
    pub gaps: Vec<IdleGap>,
    /// The longest gap with a warmer running (None without `--idle-warmer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmed: Option<IdleWarmed>,
    /// One sentence: the penalty at the longest gap, and whose share it is.
    pub finding: String,
}

/// A warmer: a second client sending `select` every `interval` while the longest gap is
/// measured again.
#[derive(Debug)]
pub struct Warmer<'a> {
    /// Its own client (its own connection).
    pub client: &'a SolrClient,
    /// What it sends (cheap: e.g. `*:*` with no rows).
    pub select: Select,
    /// Time between its requests.
    pub interval: Duration,
}

/// Runs `n` searches after each gap in `gaps_ms` on `client` (a pooled client; `opened`
/// reads its connections-opened counter); then, with a `warmer`, the longest gap again while
/// the warmer runs.
pub async fn probe(
    client: &SolrClient,
    opened: &(dyn Fn() -> u64 + Send + Sync),
    select: &Select,
    gaps_ms: &[u64],
    n: usize,
    warmer: Option<Warmer<'_>>,
    progress: &indicatif::ProgressBar,
) -> Result<IdleProbe> {
    // One search opens the connection; it is not measured.
    client.select(select).await?;
    let mut gaps = Vec::new();
    for &gap_ms in gaps_ms {
        gaps.push(measure(client, opened, select, gap_ms, n, progress).await);
    }
    let longest = gaps_ms.iter().copied().filter(|g| *g > 0).max();
    let mut warmed = None;
    if let (Some(w), Some(gap_ms)) = (warmer, longest) {
        let stop = std::sync::atomic::AtomicBool::new(false);
        let sent = std::sync::atomic::AtomicU64::new(0);
        let warm = async {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                tokio::time::sleep(w.interval).await;
                // A failed warm-up request costs nothing but its own figure.
                let _ = w.client.select(&w.select).await;
                sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let measured = async {
            // Let the warmer run one gap before measuring.
            tokio::time::sleep(Duration::from_millis(gap_ms)).await;
            let g = measure(client, opened, select, gap_ms, n, progress).await;
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            g
        };
        let ((), gap) = tokio::join!(warm, measured);
        warmed = Some(IdleWarmed {
            interval_ms: u64::try_from(w.interval.as_millis()).unwrap_or(u64::MAX),
            warmer_requests: sent.load(std::sync::atomic::Ordering::Relaxed),
            gap,
            vs_cold_pct: None,
        });
    }
    Ok(finish(gaps, warmed))
}

/// `n` searches, each after `gap_ms` of idle.
async fn measure(
    client: &SolrClient,
    opened: &(dyn Fn() -> u64 + Send + Sync),
    select: &Select,
    gap_ms: u64,
    n: usize,
    progress: &indicatif::ProgressBar,
) -> IdleGap {
    let before = opened();
    let (mut wall, mut qtime, mut wait, mut errors) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut qtime_missing = 0;
    for _ in 0..n {
        tokio::time::sleep(Duration::from_millis(gap_ms)).await;
        match client.select(select).await {
            Ok(r) => {
                wall.push(r.timing.total());
                wait.push(r.timing.server_wait);
                match r.timing.qtime_ms {
                    Some(q) => qtime.push(Duration::from_millis(u64::from(q))),
                    None => qtime_missing += 1,
                }
            }
            Err(_) => errors += 1,
        }
        progress.inc(1);
    }
    IdleGap {
        gap_ms,
        n: wall.len(),
        errors,
        wall_p50_ms: percentiles(wall.iter().copied()).p50_ms,
        qtime_p50_ms: percentiles(qtime.iter().copied()).p50_ms,
        qtime_missing,
        server_wait_p50_ms: percentiles(wait.iter().copied()).p50_ms,
        connections_opened: opened() - before,
        vs_back_to_back_pct: None,
    }
}

/// Fills the comparisons against the back-to-back gap and writes the finding.
pub fn finish(mut gaps: Vec<IdleGap>, mut warmed: Option<IdleWarmed>) -> IdleProbe {
    let base = gaps
        .iter()
        .find(|g| g.gap_ms == 0)
        .and_then(|g| g.wall_p50_ms.map(|w| (w, g.qtime_p50_ms)));
    for g in &mut gaps {
        g.vs_back_to_back_pct = match (base, g.wall_p50_ms) {
            (Some((b, _)), Some(w)) if b > 0.0 => Some((w / b - 1.0) * 100.0),
            _ => None,
        };
    }
    let longest = gaps
        .iter()
        .filter(|g| g.gap_ms > 0 && g.wall_p50_ms.is_some())
        .max_by_key(|g| g.gap_ms);
    let mut warm_text = String::new();
    if let (Some(w), Some(l)) = (warmed.as_mut(), longest) {
        w.gap.vs_back_to_back_pct = match (base, w.gap.wall_p50_ms) {
            (Some((b, _)), Some(x)) if b > 0.0 => Some((x / b - 1.0) * 100.0),
            _ => None,
        };
        w.vs_cold_pct = match (l.wall_p50_ms, w.gap.wall_p50_ms) {
            (Some(c), Some(x)) if c > 0.0 => Some((x / c - 1.0) * 100.0),
            _ => None,
        };
        if let (Some(x), Some(pct)) = (w.gap.wall_p50_ms, w.vs_cold_pct) {
            warm_text = format!(
                "; with a warmer request every {} ms on another connection ({} sent) it took {x:.2} ms ({pct:+.0}%{})",
                w.interval_ms,
                w.warmer_requests,
                w.gap
                    .qtime_p50_ms
                    .map_or_else(String::new, |q| format!(", QTime p50 {q:.0} ms"))
            );
        }
    }
    let finding = match (base, longest) {
        (Some((b, bq)), Some(l)) => {
            let w = l.wall_p50_ms.unwrap_or(b);
            let dq = match (bq, l.qtime_p50_ms) {
                (Some(a), Some(z)) => format!("QTime p50 {a:.0} -> {z:.0} ms"),
                _ => "QTime not reported".to_string(),
            };
            let reconnect = if l.connections_opened > 0 {
                format!(
                    "; {} reconnects (a pool or server idle timeout shorter than the gap)",
                    l.connections_opened
                )
            } else {
                "; same connection throughout".to_string()
            };
            if w > b * 1.2 && w - b > 1.0 {
                format!(
                    "idle penalty: after {} ms idle a kept-alive search took {w:.2} ms p50 vs {b:.2} ms back to back ({:+.0}%; {dq}{reconnect}){warm_text}: the machines run slower after idling; an app with sparse traffic pays it, a benchmark loop does not",
                    l.gap_ms,
                    (w / b - 1.0) * 100.0
                )
            } else {
                format!(
                    "no idle penalty: after {} ms idle a kept-alive search took {w:.2} ms p50 vs {b:.2} ms back to back ({dq}{reconnect}){warm_text}",
                    l.gap_ms
                )
            }
        }
        _ => "idle probe: no back-to-back baseline or no gap measured".to_string(),
    };
    IdleProbe {
        transport: "pooled".into(),
        gaps,
        warmed,
        finding,
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:+.0}%"))
}

/// The probe's table: one row per gap.
fn table() -> bench_report::Table {
    bench_report::Table::new()
        .right("gap ms", 7)
        .right("n", 4)
        .right("err", 4)
        .right("p50 ms", 9)
        .right("QTime50", 9)
        .right("srv wait50", 11)
        .right("conns", 6)
        .right("vs 0", 8)
}

/// One gap's table row.
fn row(g: &IdleGap) -> String {
    let o = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |x| format!("{x:.2}"));
    table().line(&[
        &g.gap_ms,
        &g.n,
        &g.errors,
        &o(g.wall_p50_ms),
        &o(g.qtime_p50_ms),
        &o(g.server_wait_p50_ms),
        &g.connections_opened,
        &pct(g.vs_back_to_back_pct),
    ])
}

/// Prints the probe's table and finding.
pub fn print<W: std::io::Write>(p: &IdleProbe, w: &mut W) -> std::io::Result<()> {
    writeln!(
        w,
        "Idle penalty ({}, one kept-alive connection; each search after an idle gap)",
        p.transport
    )?;
    table().header(w)?;
    for g in &p.gaps {
        writeln!(w, "{}", row(g))?;
    }
    if let Some(x) = &p.warmed {
        writeln!(
            w,
            "{}  warmer every {} ms ({} requests; {} vs cold)",
            row(&x.gap),
            x.interval_ms,
            x.warmer_requests,
            pct(x.vs_cold_pct)
        )?;
    }
    writeln!(w, "{}", p.finding)?;
    writeln!(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(gap_ms: u64, wall: f64, qtime: f64, opened: u64) -> IdleGap {
        IdleGap {
            gap_ms,
            n: 15,
            errors: 0,
            wall_p50_ms: Some(wall),
            qtime_p50_ms: Some(qtime),
            qtime_missing: 0,
            server_wait_p50_ms: Some(wall - 0.5),
            connections_opened: opened,
            vs_back_to_back_pct: None,
        }
    }

    #[test]
    fn penalty_against_back_to_back() {
        let warmed = IdleWarmed {
            interval_ms: 20,
            warmer_requests: 240,
            gap: gap(300, 4.8, 0.0, 0),
            vs_cold_pct: None,
        };
        let p = finish(
            vec![
                gap(0, 3.0, 0.0, 0),
                gap(100, 6.0, 2.0, 0),
                gap(300, 12.0, 6.0, 0),
            ],
            Some(warmed),
        );
        let w = p.warmed.as_ref().unwrap();
        assert!((w.vs_cold_pct.unwrap() + 60.0).abs() < 1e-9);
        assert!((w.gap.vs_back_to_back_pct.unwrap() - 60.0).abs() < 1e-9);
        assert!(
            p.finding.contains("warmer request every 20 ms") && p.finding.contains("-60%"),
            "{}",
            p.finding
        );
        assert_eq!(p.gaps[0].vs_back_to_back_pct, Some(0.0));
        assert_eq!(p.gaps[2].vs_back_to_back_pct, Some(300.0));
        assert!(
            p.finding.starts_with("idle penalty: after 300 ms idle"),
            "{}",
            p.finding
        );
        assert!(p.finding.contains("QTime p50 0 -> 6 ms"), "{}", p.finding);
        assert!(p.finding.contains("same connection"), "{}", p.finding);
        let mut out = Vec::new();
        print(&p, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("+300%"), "{text}");
        assert!(
            text.contains("warmer every 20 ms (240 requests; -60% vs cold)"),
            "{text}"
        );
    }

    #[test]
    fn small_differences_and_reconnects_are_named() {
        let p = finish(vec![gap(0, 3.0, 0.0, 0), gap(300, 3.3, 0.0, 2)], None);
        assert!(p.finding.starts_with("no idle penalty"), "{}", p.finding);
        assert!(p.finding.contains("2 reconnects"), "{}", p.finding);
        let none = finish(vec![gap(300, 3.3, 0.0, 0)], None);
        assert!(none.finding.contains("no back-to-back baseline"));
    }
}
