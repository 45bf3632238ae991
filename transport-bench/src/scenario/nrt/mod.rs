//! Near-real-time indexing under search load, the Lucene benchmark
//! algorithm the published reference ran against Solr:
//!
//! ```text
//! clear; preload N docs on 4 threads; commit; wait for merges; 4 warm-up searches;
//! then for D seconds, concurrently:
//!   1 task:  commit (hard or soft) in a loop, as fast as possible   "UpdateIndexView"
//!   2 tasks: add one doc per request at 100 docs/s each             "Indexing"
//!   4 tasks: search as fast as possible                             "Searching"
//! ```
//!
//! Added to the seed: a dedicated prober measures the visibility lag of every
//! acknowledged add (ack -> the first search that finds it), and after the run the exact
//! count of indexed documents is checked against the acknowledged ones.

mod model;
mod render;

pub use model::*;
pub use render::*;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use solr_client::{Commit, Select, SolrClient, UpdateFormat};

use crate::seedkit::{self, Target};
use crate::stats::percentiles;
use crate::workload::Generator;

/// Commit kind of the refresh loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommitKind {
    /// Hard commit (flush + fsync + new searcher).
    Hard,
    /// Soft commit (new searcher, no fsync).
    Soft,
}

impl CommitKind {
    /// `hard` or `soft`.
    pub fn as_str(&self) -> &'static str {
        match self {
            CommitKind::Hard => "hard",
            CommitKind::Soft => "soft",
        }
    }
}

/// Configuration of `nrt` (built by the command line from its options; see `transport-bench nrt --help`).
#[derive(Debug, Clone)]
pub struct NrtConfig {
    /// Documents preloaded before the measured phase (seed: 50,000 in the algorithm,
    /// 200,000 in the text).
    pub preload: usize,
    /// Preload tasks (seed: 4).
    pub preload_threads: usize,
    /// Documents per preload request (the seed added one per request; 100 keeps set-up short).
    pub preload_batch: usize,
    /// Measured phase, seconds (seed: 60).
    pub duration: f64,
    /// Commit kinds of the refresh loop, run one after the other and printed side by side.
    pub commit: Vec<CommitKind>,
    /// Pause between two commits of the refresh loop, ms (seed: 0, as fast as possible).
    pub commit_interval_ms: u64,
    /// Indexing tasks (seed: 2).
    pub index_threads: usize,
    /// Target adds per second of each indexing task, one document per request (seed: 100).
    pub rate: f64,
    /// Search tasks at full speed (seed: 4).
    pub search_threads: usize,
    /// Rows per search.
    pub rows: u64,
    /// Probe every Nth acknowledged add for its visibility lag (1 = every one).
    pub probe_every: usize,
    /// After the measured phase, how long the refresh loop keeps running until every probed
    /// document is visible, seconds.
    pub probe_timeout: f64,
    /// Longest wait for background merges after the preload commit, seconds.
    pub merge_wait: f64,
    /// Do not delete the whole index before each run (always the case with `--url`).
    pub no_clear: bool,
    /// Prefix of every document id this run writes (default `nrt-<unix time>-`).
    pub id_prefix: Option<String>,
    /// Workload seed.
    pub seed: u64,
    /// No progress bars.
    pub quiet: bool,
}

impl NrtConfig {
    /// Checks the values clap's parsers cannot (positive durations and rates, the id
    /// prefix); the error names the option.
    pub fn validate(&self) -> Result<()> {
        if !(self.duration.is_finite() && self.duration > 0.0) {
            bail!("--duration must be a positive number of seconds");
        }
        if !(self.rate.is_finite() && self.rate > 0.0) {
            bail!("--rate must be a positive number of docs/s");
        }
        if !(self.probe_timeout.is_finite() && self.probe_timeout >= 0.0) {
            bail!("--probe-timeout must be >= 0");
        }
        if !(self.merge_wait.is_finite() && self.merge_wait >= 0.0) {
            bail!("--merge-wait must be >= 0");
        }
        if self.commit.is_empty() {
            bail!("--commit needs at least one of hard, soft");
        }
        if self.preload_threads == 0 || self.index_threads == 0 || self.search_threads == 0 {
            bail!("--preload-threads, --index-threads and --search-threads must be >= 1");
        }
        if let Some(p) = &self.id_prefix {
            if p.is_empty() || p.chars().any(|c| c == ',' || c.is_whitespace()) {
                bail!("--id-prefix must be non-empty, without commas or spaces (the prober lists ids comma-separated)");
            }
        }
        if self.probe_every == 0 {
            bail!("--probe-every must be >= 1");
        }
        Ok(())
    }
}

/// Runs `nrt` against `target`: every commit kind, one after the other. A local Solr this
/// process started is cleared before each run (as the seed did) unless `no_clear`.
pub async fn run(a: &NrtConfig, target: &Target) -> Result<NrtReport> {
    a.validate()?;
    let clear = target.local.is_some() && !a.no_clear;
    run_all(a, target, clear).await
}

async fn run_all(a: &NrtConfig, target: &Target, clear: bool) -> Result<NrtReport> {
    let client = target.client(UpdateFormat::Json)?;
    client
        .ping()
        .await
        .with_context(|| format!("Solr at {} does not answer", target.url))?;
    let base = a
        .id_prefix
        .clone()
        .unwrap_or_else(|| format!("nrt-{}-", seedkit::unix_secs()));
    let mut runs = Vec::new();
    for kind in &a.commit {
        let prefix = format!("{base}{}-", kind.as_str());
        runs.push(run_one(a, &client, *kind, &prefix, clear).await?);
    }
    let mut warnings = Vec::new();
    for r in &runs {
        for g in &r.groups {
            if g.errors > 0 {
                warnings.push(format!(
                    "{} commits: {} {} requests failed",
                    r.commit, g.errors, g.name
                ));
            }
        }
        if r.visibility.unseen > 0 {
            warnings.push(format!(
                "{} commits: {} probed documents never became visible within {} s",
                r.commit, r.visibility.unseen, a.probe_timeout
            ));
        }
        if !r.check.ok {
            warnings.push(format!(
                "{} commits: indexed {} of {} acknowledged (preload {} of {})",
                r.commit,
                r.check.indexed_found,
                r.check.indexed_acknowledged,
                r.check.preload_found,
                r.check.preload_acknowledged
            ));
        }
    }
    let settings = serde_json::json!({
        "collection": target.collection,
        "preload": a.preload,
        "preload_threads": a.preload_threads,
        "preload_batch": a.preload_batch,
        "duration_s": a.duration,
        "commit": a.commit.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
        "commit_interval_ms": a.commit_interval_ms,
        "index_threads": a.index_threads,
        "rate_per_thread": a.rate,
        "search_threads": a.search_threads,
        "rows": a.rows,
        "probe_every": a.probe_every,
        "probe_timeout_s": a.probe_timeout,
        "cleared_index": clear,
        "transport": "pooled",
        "seed": a.seed,
    });
    let verdict = verdict(&runs, a.rate * a.index_threads as f64);
    Ok(NrtReport {
        url: target.url.clone(),
        settings,
        runs,
        warnings,
        verdict,
    })
}

/// Completed requests of one group: (end offset s, time ms).
#[derive(Debug, Default)]
struct Events {
    ok: Vec<(f64, f64)>,
    errors: u64,
}

type Shared<T> = Arc<Mutex<T>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

async fn preload(
    a: &NrtConfig,
    client: &SolrClient,
    prefix: &str,
    kind: CommitKind,
) -> Result<(u64, f64)> {
    let t0 = Instant::now();
    let pb = seedkit::progress(
        a.quiet,
        a.preload as u64,
        format!("preload ({} run)", kind.as_str()),
    );
    let next = Arc::new(AtomicU64::new(0));
    let acked = Arc::new(AtomicU64::new(0));
    let batch = a.preload_batch.max(1) as u64;
    let total = a.preload as u64;
    let mut tasks = Vec::new();
    for w in 0..a.preload_threads {
        let (c, next, acked, pb) = (client.clone(), next.clone(), acked.clone(), pb.clone());
        let prefix = format!("{prefix}pre-");
        let seed = a.seed ^ (w as u64 + 1);
        tasks.push(tokio::spawn(async move {
            let mut gen = Generator::new(seed, 0);
            loop {
                let start = next.fetch_add(batch, Ordering::Relaxed);
                if start >= total {
                    return Ok::<(), anyhow::Error>(());
                }
                let end = (start + batch).min(total);
                let docs: Vec<_> = (start..end).map(|i| gen.doc(&prefix, i as usize)).collect();
                let r = c
                    .add(&docs)
                    .await
                    .with_context(|| format!("preload batch at {start}"))?;
                acked.fetch_add(r.docs_sent as u64, Ordering::Relaxed);
                pb.inc(end - start);
            }
        }));
    }
    for t in tasks {
        t.await.context("preload task panicked")??;
    }
    client
        .commit(Commit::default())
        .await
        .context("preload commit")?;
    pb.finish_and_clear();
    Ok((acked.load(Ordering::Relaxed), t0.elapsed().as_secs_f64()))
}

async fn run_one(
    a: &NrtConfig,
    client: &SolrClient,
    kind: CommitKind,
    prefix: &str,
    clear: bool,
) -> Result<NrtRun> {
    if clear {
        client
            .delete_by_query("*:*")
            .await
            .context("clearing the index")?;
        client.commit(Commit::default()).await?;
    }
    let (preload_docs, preload_s) = if a.preload > 0 {
        preload(a, client, prefix, kind).await?
    } else {
        (0, 0.0)
    };
    let pb = seedkit::progress(a.quiet, 1, "waiting for merges");
    let (merge_wait_s, merge_gauges) = seedkit::wait_for_merges(
        client,
        Duration::from_secs_f64(a.merge_wait),
        Duration::from_secs(5),
    )
    .await?;
    pb.finish_and_clear();
    // Warm-up: 4 searches on one task, as the seed's "WarmupSearches".
    let mut gen = Generator::new(a.seed ^ 0x3A3A, 0);
    for _ in 0..4 {
        let (q, _) = gen.query();
        client
            .select(&Select::new(q).rows(a.rows))
            .await
            .context("warm-up search")?;
    }
    let merges_before = seedkit::merges(client).await?;

    let load_1m_before = seedkit::load_1m();
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(a.duration);
    let load_done = Arc::new(AtomicBool::new(false));
    let stop_refresh = Arc::new(AtomicBool::new(false));
    let pending: Shared<Vec<(String, Instant)>> = Arc::default();
    let commits: Shared<Events> = Arc::default();
    let adds: Shared<Events> = Arc::default();
    let searches: Shared<Events> = Arc::default();
    let probes: Shared<Events> = Arc::default();
    let lags: Shared<Vec<Duration>> = Arc::default();
    let probed = Arc::new(AtomicU64::new(0));
    let off = move |t: Instant| t.saturating_duration_since(start).as_secs_f64();

    let pb = seedkit::progress(
        a.quiet,
        a.duration.ceil() as u64,
        format!("measuring ({} commits)", kind.as_str()),
    );
    // UpdateIndexView: commit in a loop until told to stop.
    let refresh = {
        let (c, stop, ev) = (client.clone(), stop_refresh.clone(), commits.clone());
        let interval = Duration::from_millis(a.commit_interval_ms);
        let commit = Commit::default()
            .soft(kind == CommitKind::Soft)
            .wait_searcher(true);
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let t0 = Instant::now();
                let r = c.commit(commit).await;
                let t1 = Instant::now();
                let failed = r.is_err();
                {
                    let mut e = lock(&ev);
                    match r {
                        Ok(_) => e.ok.push((off(t1), (t1 - t0).as_secs_f64() * 1e3)),
                        Err(_) => e.errors += 1,
                    }
                }
                if failed {
                    // Do not spin on a failing Solr.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                if !interval.is_zero() {
                    tokio::time::sleep(interval).await;
                }
            }
        })
    };
    // Indexing: one document per request at the target rate (late adds catch up, as the
    // Lucene benchmark's rate limiter does).
    let mut load = Vec::new();
    for w in 0..a.index_threads {
        let (c, ev, pending, probed) = (
            client.clone(),
            adds.clone(),
            pending.clone(),
            probed.clone(),
        );
        let period = Duration::from_secs_f64(1.0 / a.rate);
        let doc_prefix = format!("{prefix}t{w}-");
        let (seed, every) = (a.seed ^ (0x100 + w as u64), a.probe_every as u64);
        load.push(tokio::spawn(async move {
            let mut gen = Generator::new(seed, 0);
            let mut next = Instant::now();
            let mut n = 0u64;
            let mut acked = 0u64;
            loop {
                if next > Instant::now() {
                    tokio::time::sleep_until(next.into()).await;
                }
                if Instant::now() >= deadline {
                    break;
                }
                let doc = gen.doc(&doc_prefix, n as usize);
                let id = format!("{doc_prefix}{n}");
                let t0 = Instant::now();
                let r = c.add(std::slice::from_ref(&doc)).await;
                let t1 = Instant::now();
                match r {
                    Ok(_) => {
                        lock(&ev).ok.push((off(t1), (t1 - t0).as_secs_f64() * 1e3));
                        if acked.is_multiple_of(every) {
                            probed.fetch_add(1, Ordering::Relaxed);
                            lock(&pending).push((id, t1));
                        }
                        acked += 1;
                    }
                    Err(_) => lock(&ev).errors += 1,
                }
                n += 1;
                next += period;
            }
        }));
    }
    // Searching: full speed.
    for w in 0..a.search_threads {
        let (c, ev) = (client.clone(), searches.clone());
        let (seed, rows) = (a.seed ^ (0x200 + w as u64), a.rows);
        load.push(tokio::spawn(async move {
            let mut gen = Generator::new(seed, 0);
            while Instant::now() < deadline {
                let (q, fq) = gen.query();
                let s = Select::new(q).rows(rows);
                let s = match fq {
                    Some(f) => s.fq(f),
                    None => s,
                };
                let t0 = Instant::now();
                let r = c.select(&s).await;
                let t1 = Instant::now();
                let mut e = lock(&ev);
                match r {
                    Ok(_) => e.ok.push((off(t1), (t1 - t0).as_secs_f64() * 1e3)),
                    Err(_) => e.errors += 1,
                }
            }
        }));
    }
    // Probing: the oldest pending ids in one `{!terms}` search; found ids leave the queue.
    let prober = {
        let (c, pending, ev, lags, done) = (
            client.clone(),
            pending.clone(),
            probes.clone(),
            lags.clone(),
            load_done.clone(),
        );
        tokio::spawn(async move {
            loop {
                let batch: Vec<(String, Instant)> =
                    lock(&pending).iter().take(500).cloned().collect();
                if batch.is_empty() {
                    if done.load(Ordering::Relaxed) {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    continue;
                }
                let ids: Vec<&str> = batch.iter().map(|(id, _)| id.as_str()).collect();
                let s = Select::new(format!("{{!terms f=id}}{}", ids.join(",")))
                    .fl("id")
                    .rows(batch.len() as u64)
                    .post(true);
                let sent = Instant::now();
                let r = c.select(&s).await;
                let t1 = Instant::now();
                match r {
                    Ok(resp) => {
                        lock(&ev)
                            .ok
                            .push((off(t1), (t1 - sent).as_secs_f64() * 1e3));
                        let found: HashSet<String> = resp
                            .docs()
                            .iter()
                            .filter_map(|d| {
                                d.get("id").and_then(|v| v.as_str()).map(str::to_string)
                            })
                            .collect();
                        if found.is_empty() {
                            continue;
                        }
                        {
                            let mut l = lock(&lags);
                            for (id, ack) in &batch {
                                if found.contains(id) {
                                    l.push(sent.saturating_duration_since(*ack));
                                }
                            }
                        }
                        lock(&pending).retain(|(id, _)| !found.contains(id));
                    }
                    Err(_) => {
                        lock(&ev).errors += 1;
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            }
        })
    };
    // Progress while the load runs.
    while Instant::now() < deadline {
        pb.set_position(start.elapsed().as_secs());
        tokio::time::sleep(
            Duration::from_millis(250).min(deadline.saturating_duration_since(Instant::now())),
        )
        .await;
    }
    for t in load {
        t.await.context("load task panicked")?;
    }
    let duration_s = start.elapsed().as_secs_f64();
    let load_1m_after = seedkit::load_1m();
    pb.finish_and_clear();
    // Keep refreshing until every probed document was seen (or the timeout).
    let wait_until = Instant::now() + Duration::from_secs_f64(a.probe_timeout);
    while !lock(&pending).is_empty() && Instant::now() < wait_until {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    load_done.store(true, Ordering::Relaxed);
    let unseen = {
        let mut p = lock(&pending);
        let n = p.len() as u64;
        p.clear();
        n
    };
    prober.await.context("prober panicked")?;
    stop_refresh.store(true, Ordering::Relaxed);
    refresh.await.context("refresh loop panicked")?;
    let merges_after = seedkit::merges(client).await?;

    // Exact counts after a final hard commit.
    client
        .commit(Commit::default())
        .await
        .context("final commit")?;
    let preload_found =
        seedkit::count(client, &seedkit::prefix_query(&format!("{prefix}pre-"))).await?;
    let indexed_found =
        seedkit::count(client, &seedkit::prefix_query(&format!("{prefix}t"))).await?;

    let commits = std::mem::take(&mut *lock(&commits));
    let adds = std::mem::take(&mut *lock(&adds));
    let searches = std::mem::take(&mut *lock(&searches));
    let probes = std::mem::take(&mut *lock(&probes));
    let lags = std::mem::take(&mut *lock(&lags));
    // Figures of the measured phase only (the refresh loop and prober ran a little longer).
    let within = |e: &Events| -> Vec<(f64, f64)> {
        e.ok.iter()
            .copied()
            .filter(|(at, _)| *at <= duration_s)
            .collect()
    };
    let group = |name: &str, threads: usize, e: &Events| {
        let ok = within(e);
        GroupSummary {
            name: name.into(),
            threads,
            count: ok.len() as u64,
            errors: e.errors,
            rate_per_s: ok.len() as f64 / duration_s,
            time: percentiles(ok.iter().map(|(_, ms)| Duration::from_secs_f64(ms / 1e3))),
        }
    };
    let groups = vec![
        group("UpdateIndexView", 1, &commits),
        group("Indexing", a.index_threads, &adds),
        group("Searching", a.search_threads, &searches),
        group("Probing", 1, &probes),
    ];
    let refreshes: Vec<Refresh> = within(&commits)
        .into_iter()
        .map(|(at_s, ms)| Refresh { at_s, ms })
        .collect();
    let secs = duration_s.round().max(1.0) as usize;
    let mut timeline: Vec<Second> = (0..secs)
        .map(|t| Second {
            t: t as u64,
            refreshes: 0,
            refresh_mean_ms: None,
            refresh_max_ms: None,
            docs: 0,
            searches: 0,
        })
        .collect();
    let bucket = |at: f64| (at.floor() as usize).min(secs - 1);
    for r in &refreshes {
        let s = &mut timeline[bucket(r.at_s)];
        let n = s.refreshes as f64;
        s.refresh_mean_ms = Some((s.refresh_mean_ms.unwrap_or(0.0) * n + r.ms) / (n + 1.0));
        s.refresh_max_ms = Some(s.refresh_max_ms.unwrap_or(0.0).max(r.ms));
        s.refreshes += 1;
    }
    for (at, _) in within(&adds) {
        timeline[bucket(at)].docs += 1;
    }
    for (at, _) in within(&searches) {
        timeline[bucket(at)].searches += 1;
    }
    let acknowledged = adds.ok.len() as u64;
    let probe_round_mean_ms = if probes.ok.is_empty() {
        0.0
    } else {
        probes.ok.iter().map(|(_, ms)| ms).sum::<f64>() / probes.ok.len() as f64
    };
    let probed = probed.load(Ordering::Relaxed);
    Ok(NrtRun {
        commit: kind.as_str().into(),
        id_prefix: prefix.into(),
        preload_docs,
        preload_s,
        merge_wait_s,
        merge_gauges,
        merges_during: match (merges_before, merges_after) {
            (Some(b), Some(a)) => Some(a.completed.saturating_sub(b.completed)),
            _ => None,
        },
        duration_s,
        refreshes_per_min: refreshes.len() as f64 / duration_s * 60.0,
        groups,
        indexing: IndexingSummary {
            target_docs_per_s: a.rate * a.index_threads as f64,
            achieved_docs_per_s: within(&adds).len() as f64 / duration_s,
            acknowledged,
        },
        visibility: VisibilitySummary {
            probed,
            seen: lags.len() as u64,
            unseen,
            lag: percentiles(lags),
            probe_rounds: probes.ok.len() as u64 + probes.errors,
            probe_round_mean_ms,
        },
        refreshes,
        timeline,
        check: CountCheck {
            preload_acknowledged: preload_docs,
            preload_found,
            indexed_acknowledged: acknowledged,
            indexed_found,
            ok: preload_found == preload_docs && indexed_found == acknowledged,
        },
        load_1m_before,
        load_1m_after,
    })
}
