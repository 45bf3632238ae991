//! The raw-hyper baseline: the same searches, in one process and interleaved
//! rounds, through a raw hyper keep-alive loop (hyper's HTTP/1.1 connection API over one
//! TCP connection, hyper-util's tokio adapter, no solr-client code: the floor) and through
//! each solr-client transport, with per-request latency and the process's CPU time around
//! every row's block of requests.
//!
//! The raw loop sends the very request solr-client would (same path and parameters, built
//! before timing starts) and reads the body whole without decoding it; the solr-client rows
//! decode the answer (`select`, untyped documents) and the `pooled-typed` row decodes the
//! hits straight into a struct (`select_as::<T>`).
//!
//! A client that decodes is compared with a raw loop that does the same decoding work:
//! `raw-hyper-json` parses the body into a `serde_json::Value` (the equal-work reference of
//! the untyped client rows) and `raw-hyper-typed` runs `serde_json::from_slice` into the very
//! envelope `pooled-typed` returns (`SelectResponse<Hit>`), so their ratio is the client's
//! own overhead: transport, pool, timing and checks. The baseline's targets compare `pooled` to
//! `raw-hyper-json` and `pooled-typed` to `raw-hyper-typed`; every ratio to the plain
//! `raw-hyper` loop (no decoding) is printed as well.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use solr_client::{Select, SolrClient, TlsOptions, TransportKind};

use crate::engine::cpu::process_cpu;
use crate::engine::workload::Generator;
use bench_report::stats::percentiles;

pub mod cli;
mod model;
mod raw;
mod render;

pub use model::*;
use raw::*;
pub use render::*;

/// What `baseline` runs.
#[derive(Debug, Clone)]
pub struct BaselineConfig {
    /// Solr base URL (http only: the raw loop speaks plain HTTP/1.1).
    pub url: String,
    /// Core or collection.
    pub collection: String,
    /// Searches per row per round (the same list for every row).
    pub queries: usize,
    /// Rounds; the row order rotates by one per round.
    pub rounds: usize,
    /// Untimed searches per row before the first round.
    pub warmup: usize,
    /// Rows per page.
    pub rows_per_page: usize,
    /// The rows, in report order (ratios are to the `raw-hyper` row and to each row's
    /// equal-work raw row, when present).
    pub rows: Vec<BaselineRow>,
    /// Workload seed (the queries).
    pub seed: u64,
}

fn client(cfg: &BaselineConfig, kind: TransportKind) -> Result<SolrClient> {
    Ok(solr_harness::auth::apply(SolrClient::builder(&cfg.url))?
        .collection(&cfg.collection)
        .tls(TlsOptions::new())
        .transport(kind)
        .build()?)
}

/// Runs the baseline: warm-up, then `rounds` rounds of every row over the same searches.
pub async fn run(cfg: &BaselineConfig, quiet: bool) -> Result<BaselineReport> {
    if cfg.queries == 0 || cfg.rounds == 0 || cfg.rows.is_empty() {
        bail!("--queries, --rounds and --rows must not be empty or 0");
    }
    let base = url::Url::parse(&cfg.url).context("--url is not a URL")?;
    if base.scheme() != "http" {
        bail!("the raw hyper loop speaks plain HTTP/1.1: give an http:// Solr URL");
    }
    let pooled = client(cfg, TransportKind::Pooled)?;
    pooled
        .ping()
        .await
        .with_context(|| format!("Solr at {} does not answer", cfg.url))?;
    let mut gen = Generator::new(cfg.seed, 0);
    let searches: Vec<(Select, String)> = (0..cfg.queries)
        .map(|_| {
            let (q, fq) = gen.query();
            let s = Select::new(q).rows(cfg.rows_per_page as u64);
            let s = match fq {
                Some(f) => s.fq(f),
                None => s,
            };
            let uri = raw_uri(&pooled, &s);
            (s, uri)
        })
        .collect();
    let mut runners = Vec::new();
    for &row in &cfg.rows {
        runners.push(match row {
            BaselineRow::RawHyper => Runner::Raw(RawHyper::connect(&base).await?, RawDecode::None),
            BaselineRow::RawHyperJson => {
                Runner::Raw(RawHyper::connect(&base).await?, RawDecode::Json)
            }
            BaselineRow::RawHyperTyped => {
                Runner::Raw(RawHyper::connect(&base).await?, RawDecode::Typed)
            }
            BaselineRow::Fresh => {
                Runner::Client(Box::new(client(cfg, TransportKind::Fresh)?), false)
            }
            BaselineRow::Pooled => {
                Runner::Client(Box::new(client(cfg, TransportKind::Pooled)?), false)
            }
            BaselineRow::PooledTyped => {
                Runner::Client(Box::new(client(cfg, TransportKind::Pooled)?), true)
            }
            BaselineRow::Http2 => {
                Runner::Client(Box::new(client(cfg, TransportKind::Http2)?), false)
            }
            BaselineRow::Reqwest => {
                Runner::Client(Box::new(client(cfg, TransportKind::Reqwest)?), false)
            }
        });
    }
    let total = (cfg.rows.len() * (cfg.warmup + cfg.rounds * cfg.queries)) as u64;
    let pb = solr_harness::seedkit::progress(quiet, total, "baseline");
    let mut errors = vec![0u64; cfg.rows.len()];
    for (i, r) in runners.iter_mut().enumerate() {
        pb.set_message(format!("warm-up {}", cfg.rows[i].as_str()));
        for (s, uri) in searches.iter().cycle().take(cfg.warmup) {
            if !r.one(s, uri).await {
                errors[i] += 1;
            }
            pb.inc(1);
        }
    }
    let mut lat: Vec<Vec<Duration>> = vec![Vec::new(); cfg.rows.len()];
    let mut cpu: Vec<Duration> = vec![Duration::ZERO; cfg.rows.len()];
    let mut per_round = Vec::new();
    for round in 0..cfg.rounds {
        let n = cfg.rows.len();
        for k in 0..n {
            let i = (round + k) % n;
            pb.set_message(format!("round {} {}", round + 1, cfg.rows[i].as_str()));
            let mut this = Vec::with_capacity(cfg.queries);
            let c0 = process_cpu();
            for (s, uri) in &searches {
                let t0 = Instant::now();
                let ok = runners[i].one(s, uri).await;
                this.push(t0.elapsed());
                if !ok {
                    errors[i] += 1;
                }
            }
            let c = process_cpu().saturating_sub(c0);
            pb.inc(cfg.queries as u64);
            cpu[i] += c;
            per_round.push(RoundRow {
                round,
                row: cfg.rows[i],
                latency: percentiles(this.iter().copied()),
                cpu_us_per_req: c.as_secs_f64() * 1e6 / cfg.queries as f64,
            });
            lat[i].extend(this);
        }
    }
    pb.finish_and_clear();
    Ok(report(cfg, lat, cpu, errors, per_round))
}

fn report(
    cfg: &BaselineConfig,
    lat: Vec<Vec<Duration>>,
    cpu: Vec<Duration>,
    errors: Vec<u64>,
    per_round: Vec<RoundRow>,
) -> BaselineReport {
    let reqs = (cfg.rounds * cfg.queries) as f64;
    let mut rows: Vec<RowFigures> = cfg
        .rows
        .iter()
        .enumerate()
        .map(|(i, &row)| RowFigures {
            row,
            latency: percentiles(lat[i].iter().copied()),
            cpu_us_per_req: cpu[i].as_secs_f64() * 1e6 / reqs,
            p50_vs_raw: None,
            p99_vs_raw: None,
            cpu_vs_raw: None,
            p50_vs_raw_rounds: None,
            cpu_vs_raw_rounds: None,
            equal_work: None,
            p50_vs_equal: None,
            cpu_vs_equal: None,
            p50_vs_equal_rounds: None,
            cpu_vs_equal_rounds: None,
            errors: errors[i],
        })
        .collect();
    let present = |row: BaselineRow| rows.iter().any(|r| r.row == row);
    let has_raw = present(BaselineRow::RawHyper);
    let equal: Vec<Option<BaselineRow>> = rows
        .iter()
        .map(|r| r.row.equal_work().filter(|&e| present(e)))
        .collect();
    let snapshot = rows.clone();
    for (r, equal) in rows.iter_mut().zip(equal) {
        if has_raw {
            let c = compare(
                &snapshot,
                &per_round,
                cfg.rounds,
                r.row,
                BaselineRow::RawHyper,
            );
            r.p50_vs_raw = c.p50;
            r.p99_vs_raw = c.p99;
            r.cpu_vs_raw = c.cpu;
            r.p50_vs_raw_rounds = c.p50_rounds;
            r.cpu_vs_raw_rounds = c.cpu_rounds;
        }
        if let Some(e) = equal {
            let c = compare(&snapshot, &per_round, cfg.rounds, r.row, e);
            r.equal_work = Some(e);
            r.p50_vs_equal = c.p50;
            r.cpu_vs_equal = c.cpu;
            r.p50_vs_equal_rounds = c.p50_rounds;
            r.cpu_vs_equal_rounds = c.cpu_rounds;
        }
    }
    let targets: Vec<TargetCheck> = rows
        .iter()
        .filter(|r| matches!(r.row, BaselineRow::Pooled | BaselineRow::PooledTyped))
        .filter_map(|r| {
            let (p50, cpu) = (r.p50_vs_equal?, r.cpu_vs_equal?);
            Some(TargetCheck {
                row: r.row,
                reference: r.equal_work?,
                p50_ratio: p50,
                cpu_ratio: cpu,
                p50_met: p50 <= 1.05,
                cpu_met: cpu <= 1.2,
            })
        })
        .collect();
    let mut report = BaselineReport {
        url: cfg.url.clone(),
        collection: cfg.collection.clone(),
        queries: cfg.queries,
        rounds: cfg.rounds,
        rows,
        per_round,
        targets,
        verdict: String::new(),
    };
    report.verdict = verdict(&report);
    report
}

/// Ratios of one row to a reference row: over every round, and the per-round range.
struct Comparison {
    p50: Option<f64>,
    p99: Option<f64>,
    cpu: Option<f64>,
    p50_rounds: Option<(f64, f64)>,
    cpu_rounds: Option<(f64, f64)>,
}

fn compare(
    rows: &[RowFigures],
    per_round: &[RoundRow],
    rounds: usize,
    row: BaselineRow,
    reference: BaselineRow,
) -> Comparison {
    let div = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let find = |row| rows.iter().find(|r| r.row == row);
    let (Some(a), Some(b)) = (find(row), find(reference)) else {
        return Comparison {
            p50: None,
            p99: None,
            cpu: None,
            p50_rounds: None,
            cpu_rounds: None,
        };
    };
    let mut p50s = Vec::new();
    let mut cpus = Vec::new();
    for round in 0..rounds {
        let find = |row| per_round.iter().find(|x| x.round == round && x.row == row);
        if let (Some(x), Some(y)) = (find(row), find(reference)) {
            p50s.extend(div(x.latency.p50_ms, y.latency.p50_ms));
            cpus.extend(div(Some(x.cpu_us_per_req), Some(y.cpu_us_per_req)));
        }
    }
    let range = |v: &[f64]| {
        (!v.is_empty()).then(|| {
            (
                v.iter().copied().fold(f64::INFINITY, f64::min),
                v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        })
    };
    Comparison {
        p50: div(a.latency.p50_ms, b.latency.p50_ms),
        p99: div(a.latency.p99_ms, b.latency.p99_ms),
        cpu: div(Some(a.cpu_us_per_req), Some(b.cpu_us_per_req)),
        p50_rounds: range(&p50s),
        cpu_rounds: range(&cpus),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> BaselineConfig {
        BaselineConfig {
            url: "http://127.0.0.1:1/solr".into(),
            collection: "bench".into(),
            queries: 2,
            rounds: 2,
            warmup: 0,
            rows_per_page: 10,
            rows: vec![BaselineRow::RawHyper, BaselineRow::Pooled],
            seed: 1,
        }
    }

    #[test]
    fn ratios_are_to_raw_hyper_per_round_and_overall() {
        let ms = Duration::from_millis;
        let lat = vec![
            vec![ms(1), ms(1), ms(1), ms(1)],
            vec![ms(2), ms(2), ms(2), ms(1)],
        ];
        let rr = |round, row, p50: u64, cpu| RoundRow {
            round,
            row,
            latency: percentiles([ms(p50), ms(p50)]),
            cpu_us_per_req: cpu,
        };
        let per_round = vec![
            rr(0, BaselineRow::RawHyper, 1, 10.0),
            rr(0, BaselineRow::Pooled, 2, 11.0),
            rr(1, BaselineRow::Pooled, 1, 12.0),
            rr(1, BaselineRow::RawHyper, 1, 10.0),
        ];
        let cpu = vec![Duration::from_micros(40), Duration::from_micros(46)];
        let r = report(&cfg(), lat, cpu, vec![0, 0], per_round);
        let pooled = &r.rows[1];
        assert_eq!(pooled.cpu_vs_raw.map(|x| (x * 100.0).round()), Some(115.0));
        let (lo, hi) = pooled.p50_vs_raw_rounds.expect("per-round ratios");
        assert!(
            (lo - 1.0).abs() < 0.01 && (hi - 2.0).abs() < 0.01,
            "{lo} {hi}"
        );
        let (clo, chi) = pooled.cpu_vs_raw_rounds.expect("per-round CPU ratios");
        assert!((clo - 1.1).abs() < 1e-9 && (chi - 1.2).abs() < 1e-9);
        // Without raw-hyper-json (pooled's equal-work row) there is no target to check.
        assert_eq!(pooled.equal_work, None);
        assert!(r.targets.is_empty());
        assert!(r.verdict.contains("no target"), "{}", r.verdict);
    }

    #[test]
    fn targets_compare_each_pooled_row_with_the_raw_loop_doing_equal_work() {
        use BaselineRow::*;
        let rows = vec![RawHyper, RawHyperJson, RawHyperTyped, Pooled, PooledTyped];
        let c = BaselineConfig {
            rows: rows.clone(),
            rounds: 1,
            ..cfg()
        };
        let ms = Duration::from_millis;
        // (p50 ms, CPU us per request) per row, one round of 2 requests.
        let figures = [(1, 10.0), (2, 20.0), (2, 15.0), (2, 22.0), (3, 30.0)];
        let lat = figures.iter().map(|&(p, _)| vec![ms(p), ms(p)]).collect();
        let cpu = figures
            .iter()
            .map(|&(_, c)| Duration::from_secs_f64(c * 2e-6))
            .collect();
        let per_round = rows
            .iter()
            .zip(figures)
            .map(|(&row, (p, c))| RoundRow {
                round: 0,
                row,
                latency: percentiles([ms(p), ms(p)]),
                cpu_us_per_req: c,
            })
            .collect();
        let r = report(&c, lat, cpu, vec![0; 5], per_round);
        let round2 = |x: Option<f64>| x.map(|x| (x * 100.0).round() / 100.0);
        let pooled = &r.rows[3];
        assert_eq!(pooled.equal_work, Some(RawHyperJson));
        assert_eq!(round2(pooled.cpu_vs_raw), Some(2.2));
        assert_eq!(round2(pooled.cpu_vs_equal), Some(1.1));
        assert_eq!(r.rows[4].equal_work, Some(RawHyperTyped));
        assert_eq!(r.rows[1].equal_work, None);
        let t: Vec<_> = r
            .targets
            .iter()
            .map(|t| (t.row, t.reference, t.p50_met, t.cpu_met))
            .collect();
        assert_eq!(
            t,
            [
                (Pooled, RawHyperJson, true, true),
                (PooledTyped, RawHyperTyped, false, false)
            ]
        );
        assert!(
            r.verdict
                .contains("pooled vs raw-hyper-json: p50 1.00x (<= 1.05x met)"),
            "{}",
            r.verdict
        );
        assert!(r.verdict.contains("[vs raw-hyper: p50 2.00x, CPU 2.20x]"));
    }

    #[test]
    fn empty_or_https_settings_are_errors() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let mut c = cfg();
        c.queries = 0;
        assert!(rt.block_on(run(&c, true)).is_err());
        let mut c = cfg();
        c.url = "https://127.0.0.1:1/solr".into();
        let e = rt.block_on(run(&c, true)).expect_err("https");
        assert!(e.to_string().contains("http://"), "{e}");
    }
}
