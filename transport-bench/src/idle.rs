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

use std::time::{Duration, Instant};

use anyhow::Result;
use serde::{Deserialize, Serialize};
use solr_client::{Select, SolrClient};

use crate::stats::percentiles;

/// Idle gaps probed by `audit` unless `--idle-gaps` says otherwise, ms.
pub const DEFAULT_GAPS_MS: [u64; 4] = [0, 20, 100, 300];

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
    /// Solr QTime p50, ms.
    pub qtime_p50_ms: Option<f64>,
    /// Server wait p50 (request written -> first response byte), ms.
    pub server_wait_p50_ms: Option<f64>,
    /// Connections the pooled transport opened during this gap's searches (0 when the
    /// connection was kept: the penalty is then not a reconnect).
    pub connections_opened: u64,
    /// Wall p50 over the back-to-back p50, minus 1, in %.
    pub vs_back_to_back_pct: Option<f64>,
}

/// The probe's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleProbe {
    /// Transport used (pooled: one kept-alive connection, so no gap reconnects).
    pub transport: String,
    /// Per gap, in the order probed.
    pub gaps: Vec<IdleGap>,
    /// One sentence: the penalty at the longest gap, and whose share it is.
    pub finding: String,
}

/// Runs `n` searches after each gap in `gaps_ms` on `client` (a pooled client; `opened`
/// reads its connections-opened counter).
pub async fn probe(
    client: &SolrClient,
    opened: &(dyn Fn() -> u64 + Send + Sync),
    select: &Select,
    gaps_ms: &[u64],
    n: usize,
    progress: &indicatif::ProgressBar,
) -> Result<IdleProbe> {
    // One search opens the connection; it is not measured.
    client.select(select).await?;
    let mut gaps = Vec::new();
    for &gap_ms in gaps_ms {
        let before = opened();
        let (mut wall, mut qtime, mut wait, mut errors) = (Vec::new(), Vec::new(), Vec::new(), 0);
        for _ in 0..n {
            let idle_until = Instant::now() + Duration::from_millis(gap_ms);
            tokio::time::sleep_until(idle_until.into()).await;
            match client.select(select).await {
                Ok(r) => {
                    wall.push(r.timing.total());
                    wait.push(r.timing.server_wait);
                    if let Some(q) = r.timing.qtime_ms {
                        qtime.push(Duration::from_millis(u64::from(q)));
                    }
                }
                Err(_) => errors += 1,
            }
            progress.inc(1);
        }
        gaps.push(IdleGap {
            gap_ms,
            n: wall.len(),
            errors,
            wall_p50_ms: percentiles(wall.iter().copied()).p50_ms,
            qtime_p50_ms: percentiles(qtime.iter().copied()).p50_ms,
            server_wait_p50_ms: percentiles(wait.iter().copied()).p50_ms,
            connections_opened: opened() - before,
            vs_back_to_back_pct: None,
        });
    }
    Ok(finish(gaps))
}

/// Fills the comparisons against the back-to-back gap and writes the finding.
pub fn finish(mut gaps: Vec<IdleGap>) -> IdleProbe {
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
                    "idle penalty: after {} ms idle a kept-alive search took {w:.2} ms p50 vs {b:.2} ms back to back ({:+.0}%; {dq}{reconnect}): the machines run slower after idling; an app with sparse traffic pays it, a benchmark loop does not",
                    l.gap_ms,
                    (w / b - 1.0) * 100.0
                )
            } else {
                format!(
                    "no idle penalty: after {} ms idle a kept-alive search took {w:.2} ms p50 vs {b:.2} ms back to back ({dq}{reconnect})",
                    l.gap_ms
                )
            }
        }
        _ => "idle probe: no back-to-back baseline or no gap measured".to_string(),
    };
    IdleProbe {
        transport: "pooled".into(),
        gaps,
        finding,
    }
}

/// Prints the probe's table and finding.
pub fn print<W: std::io::Write>(p: &IdleProbe, w: &mut W) -> std::io::Result<()> {
    let o = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |x| format!("{x:.2}"));
    writeln!(
        w,
        "Idle penalty ({}, one kept-alive connection; each search after an idle gap)",
        p.transport
    )?;
    writeln!(
        w,
        "{:>7} {:>4} {:>4} {:>9} {:>9} {:>11} {:>6} {:>8}",
        "gap ms", "n", "err", "p50 ms", "QTime50", "srv wait50", "conns", "vs 0"
    )?;
    for g in &p.gaps {
        writeln!(
            w,
            "{:>7} {:>4} {:>4} {:>9} {:>9} {:>11} {:>6} {:>8}",
            g.gap_ms,
            g.n,
            g.errors,
            o(g.wall_p50_ms),
            o(g.qtime_p50_ms),
            o(g.server_wait_p50_ms),
            g.connections_opened,
            g.vs_back_to_back_pct
                .map_or_else(|| "-".to_string(), |x| format!("{x:+.0}%"))
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
            server_wait_p50_ms: Some(wall - 0.5),
            connections_opened: opened,
            vs_back_to_back_pct: None,
        }
    }

    #[test]
    fn penalty_against_back_to_back() {
        let p = finish(vec![
            gap(0, 3.0, 0.0, 0),
            gap(100, 6.0, 2.0, 0),
            gap(300, 12.0, 6.0, 0),
        ]);
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
    }

    #[test]
    fn small_differences_and_reconnects_are_named() {
        let p = finish(vec![gap(0, 3.0, 0.0, 0), gap(300, 3.3, 0.0, 2)]);
        assert!(p.finding.starts_with("no idle penalty"), "{}", p.finding);
        assert!(p.finding.contains("2 reconnects"), "{}", p.finding);
        let none = finish(vec![gap(300, 3.3, 0.0, 0)]);
        assert!(none.finding.contains("no back-to-back baseline"));
    }
}
