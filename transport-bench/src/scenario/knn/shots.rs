//! kNN searches under a closed loop: one shot, the loop, and the cell its shots make.

use bench_report::stats::percentiles;
use indicatif::ProgressBar;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use solr_client::{Knn, SolrClient};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::*;

/// One query's result.
#[derive(Debug, Clone)]
pub(super) struct Shot {
    pub(super) latency: Duration,
    pub(super) outcome: std::result::Result<ShotOk, String>,
}

#[derive(Debug, Clone)]
pub(super) struct ShotOk {
    pub(super) hits: u64,
    pub(super) self_top1: bool,
    pub(super) bytes_out: u64,
    pub(super) bytes_in: u64,
    pub(super) exact: bool,
    pub(super) qtime_ms: Option<u32>,
}

pub(super) fn knn_query(field_fl: &str, v: &[f32], k: u32) -> solr_client::Select {
    let s = Knn::new("vector", v.to_vec())
        .top_k(k)
        .cache(false)
        .to_select();
    if field_fl.is_empty() {
        s
    } else {
        s.fl(field_fl)
    }
}

pub(super) async fn one(
    client: &SolrClient,
    fl: &str,
    corpus: &Corpus,
    doc: usize,
    k: u32,
) -> Shot {
    let t0 = Instant::now();
    let r = if fl.is_empty() {
        client
            .knn(
                &Knn::new("vector", corpus.vectors[doc].clone())
                    .top_k(k)
                    .cache(false),
            )
            .await
    } else {
        client.select(&knn_query(fl, &corpus.vectors[doc], k)).await
    };
    let latency = t0.elapsed();
    let outcome = match r {
        Ok(r) => {
            let own = format!("knn-{doc}");
            Ok(ShotOk {
                hits: r.docs().len() as u64,
                self_top1: r
                    .docs()
                    .first()
                    .and_then(|d| d.get("id"))
                    .and_then(|v| v.as_str())
                    == Some(own.as_str()),
                bytes_out: r.timing.bytes_out,
                bytes_in: r.timing.bytes_in,
                exact: r.timing.bytes_exact,
                qtime_ms: r.timing.qtime_ms,
            })
        }
        Err(e) => Err(format!("{e:#}")),
    };
    Shot { latency, outcome }
}

/// Runs `n` queries (or until `limit`) from `order[start..]` with `c` workers.
#[allow(clippy::too_many_arguments)]
pub(super) async fn closed_loop(
    client: &SolrClient,
    fl: &str,
    corpus: &Arc<Corpus>,
    order: &Arc<Vec<usize>>,
    start: usize,
    c: usize,
    k: u32,
    n: usize,
    limit: Option<Duration>,
    pb: &ProgressBar,
) -> (Vec<Shot>, Duration) {
    let next = Arc::new(AtomicUsize::new(0));
    let shots = Arc::new(Mutex::new(Vec::with_capacity(n)));
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..c {
        let (client, fl, corpus, order) = (
            client.clone(),
            fl.to_string(),
            corpus.clone(),
            order.clone(),
        );
        let (next, shots, pb) = (next.clone(), shots.clone(), pb.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                if limit.is_some_and(|l| t0.elapsed() >= l) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let doc = order[(start + i) % order.len()];
                let shot = one(&client, &fl, &corpus, doc, k).await;
                shots.lock().unwrap_or_else(|e| e.into_inner()).push(shot);
                pb.inc(1);
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let wall = t0.elapsed();
    let shots = std::mem::take(&mut *shots.lock().unwrap_or_else(|e| e.into_inner()));
    (shots, wall)
}

pub(super) fn cell_from(
    c: usize,
    k: u32,
    shots: &[Shot],
    wall: Duration,
    usage: procstat::Usage,
    cache: Option<u64>,
) -> Cell {
    let ok: Vec<(&Shot, &ShotOk)> = shots
        .iter()
        .filter_map(|s| s.outcome.as_ref().ok().map(|o| (s, o)))
        .collect();
    let latency = percentiles(ok.iter().map(|(s, _)| s.latency));
    let qtime = percentiles(
        ok.iter()
            .filter_map(|(_, o)| o.qtime_ms)
            .map(|q| Duration::from_millis(u64::from(q))),
    );
    let answered = ok.len() as f64;
    let wall_s = wall.as_secs_f64();
    let qps = answered / wall_s.max(1e-9);
    let little_qps = if latency.mean_ms > 0.0 {
        c as f64 / (latency.mean_ms / 1000.0)
    } else {
        0.0
    };
    let per = |f: fn(&ShotOk) -> u64| {
        if ok.is_empty() {
            0.0
        } else {
            ok.iter().map(|(_, o)| f(o)).sum::<u64>() as f64 / answered
        }
    };
    Cell {
        concurrency: c,
        top_k: k,
        requests: shots.len() as u64,
        errors: (shots.len() - ok.len()) as u64,
        hits_mismatches: ok.iter().filter(|(_, o)| o.hits != u64::from(k)).count() as u64,
        hits_min: ok.iter().map(|(_, o)| o.hits).min(),
        hits_max: ok.iter().map(|(_, o)| o.hits).max(),
        self_top1: ok.iter().filter(|(_, o)| o.self_top1).count() as u64,
        wall_s,
        qps,
        latency,
        qtime,
        qtime_missing: ok.iter().filter(|(_, o)| o.qtime_ms.is_none()).count() as u64,
        little_qps,
        little_ratio: if little_qps > 0.0 {
            qps / little_qps
        } else {
            0.0
        },
        bytes_out_per_query: per(|o| o.bytes_out),
        bytes_in_per_query: per(|o| o.bytes_in),
        bytes_exact: !ok.is_empty() && ok.iter().all(|(_, o)| o.exact),
        solr_cpu_mean_pct: usage.proc_cpu_mean,
        solr_cpu_max_pct: usage.proc_cpu_max,
        solr_rss_max_mib: usage.proc_rss_max_mib,
        host_cpu_mean_pct: usage.host_cpu_mean,
        host_cpu_max_pct: usage.host_cpu_max,
        host_runnable_mean: usage.host_runnable_mean,
        samples: usage.samples,
        cache_hits: cache,
        first_error: shots.iter().find_map(|s| s.outcome.as_ref().err().cloned()),
    }
}

pub(super) fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    v.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    v
}
