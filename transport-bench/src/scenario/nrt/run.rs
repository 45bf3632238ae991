//! One nrt run: the index prepared (cleared, preloaded, merges settled, searches warmed), then
//! the refresh loop, the indexers, the searchers and the visibility prober side by side for the
//! configured duration, then the exact counts. [`super::summary`] turns what they recorded into
//! an [`NrtRun`].

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use solr_client::{Commit, Select, SolrClient};
use tokio::task::JoinHandle;

use super::summary::{summarize, Counts, Measured, Prepared};
use super::{lock, preload, CommitKind, Events, NrtConfig, NrtRun, Shared};
use crate::engine::workload::Generator;
use solr_harness::seedkit;

/// What the tasks of one run record into, shared between them.
#[derive(Clone, Default)]
pub(super) struct Recorders {
    /// Acknowledged adds not yet seen by the prober: (id, acknowledged at).
    pub(super) pending: Shared<Vec<(String, Instant)>>,
    /// The refresh loop's commits.
    pub(super) commits: Shared<Events>,
    /// The indexers' adds.
    pub(super) adds: Shared<Events>,
    /// The searchers' searches.
    pub(super) searches: Shared<Events>,
    /// The prober's searches.
    pub(super) probes: Shared<Events>,
    /// Visibility lags of the documents the prober found.
    pub(super) lags: Shared<Vec<Duration>>,
    /// Adds handed to the prober.
    pub(super) probed: Arc<AtomicU64>,
}

/// When the measured phase started and ends.
#[derive(Clone, Copy)]
struct Clock {
    start: Instant,
    deadline: Instant,
}

impl Clock {
    /// Seconds from the start to `t`.
    fn off(self, t: Instant) -> f64 {
        t.saturating_duration_since(self.start).as_secs_f64()
    }
}

/// Records one request that started at `t0` and ended now into `ev`; returns when it ended
/// if it succeeded.
fn record<T, E>(
    ev: &Shared<Events>,
    clock: Clock,
    t0: Instant,
    r: &Result<T, E>,
) -> Option<Instant> {
    let t1 = Instant::now();
    let mut e = lock(ev);
    match r {
        Ok(_) => e.ok.push((clock.off(t1), (t1 - t0).as_secs_f64() * 1e3)),
        Err(_) => e.errors += 1,
    }
    r.is_ok().then_some(t1)
}

/// Runs one commit kind: prepares the index, measures, counts, and summarizes.
pub(super) async fn run_one(
    a: &NrtConfig,
    client: &SolrClient,
    kind: CommitKind,
    prefix: &str,
    clear: bool,
) -> Result<NrtRun> {
    let prepared = prepare(a, client, kind, prefix, clear).await?;
    let rec = Recorders::default();
    let measured = measure(a, client, kind, prefix, &rec).await?;
    let counts = counts(client, prefix).await?;
    Ok(summarize(a, kind, prefix, prepared, measured, counts, &rec))
}

/// Clears the index when asked, preloads, waits for merges and runs the seed's 4 warm-up
/// searches.
async fn prepare(
    a: &NrtConfig,
    client: &SolrClient,
    kind: CommitKind,
    prefix: &str,
    clear: bool,
) -> Result<Prepared> {
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
    Ok(Prepared {
        preload_docs,
        preload_s,
        merge_wait_s,
        merge_gauges,
        merges_before: seedkit::merges(client).await?,
    })
}

/// The measured phase: every task runs until the deadline, then the prober until every
/// probed document was seen (or the probe timeout).
async fn measure(
    a: &NrtConfig,
    client: &SolrClient,
    kind: CommitKind,
    prefix: &str,
    rec: &Recorders,
) -> Result<Measured> {
    let load_1m_before = seedkit::load_1m();
    let start = Instant::now();
    let clock = Clock {
        start,
        deadline: start + Duration::from_secs_f64(a.duration),
    };
    let (load_done, stop_refresh) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let pb = seedkit::progress(
        a.quiet,
        a.duration.ceil() as u64,
        format!("measuring ({} commits)", kind.as_str()),
    );
    let refresh = spawn_refresh(a, client, kind, clock, &rec.commits, &stop_refresh);
    let mut load = spawn_indexers(a, client, prefix, clock, rec);
    load.extend(spawn_searchers(a, client, clock, &rec.searches));
    let prober = spawn_prober(client, clock, rec, &load_done);
    while Instant::now() < clock.deadline {
        pb.set_position(start.elapsed().as_secs());
        let left = clock.deadline.saturating_duration_since(Instant::now());
        tokio::time::sleep(Duration::from_millis(250).min(left)).await;
    }
    for t in load {
        t.await.context("load task panicked")?;
    }
    let duration_s = start.elapsed().as_secs_f64();
    let load_1m_after = seedkit::load_1m();
    pb.finish_and_clear();
    let unseen = drain_pending(a, rec).await;
    load_done.store(true, Ordering::Relaxed);
    prober.await.context("prober panicked")?;
    stop_refresh.store(true, Ordering::Relaxed);
    refresh.await.context("refresh loop panicked")?;
    Ok(Measured {
        duration_s,
        unseen,
        load_1m_before,
        load_1m_after,
        merges_after: seedkit::merges(client).await?,
    })
}

/// Keeps refreshing until every probed document was seen (or the probe timeout); returns how
/// many were never seen, and empties the queue.
async fn drain_pending(a: &NrtConfig, rec: &Recorders) -> u64 {
    let wait_until = Instant::now() + Duration::from_secs_f64(a.probe_timeout);
    while !lock(&rec.pending).is_empty() && Instant::now() < wait_until {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut p = lock(&rec.pending);
    let n = p.len() as u64;
    p.clear();
    n
}

/// The exact counts after a final hard commit: preloaded and indexed documents found.
async fn counts(client: &SolrClient, prefix: &str) -> Result<Counts> {
    client
        .commit(Commit::default())
        .await
        .context("final commit")?;
    Ok(Counts {
        preload_found: seedkit::count(client, &seedkit::prefix_query(&format!("{prefix}pre-")))
            .await?,
        indexed_found: seedkit::count(client, &seedkit::prefix_query(&format!("{prefix}t")))
            .await?,
    })
}

/// UpdateIndexView: commits in a loop until `stop`.
fn spawn_refresh(
    a: &NrtConfig,
    client: &SolrClient,
    kind: CommitKind,
    clock: Clock,
    ev: &Shared<Events>,
    stop: &Arc<AtomicBool>,
) -> JoinHandle<()> {
    let (c, stop, ev) = (client.clone(), stop.clone(), ev.clone());
    let interval = Duration::from_millis(a.commit_interval_ms);
    let commit = Commit::default()
        .soft(kind == CommitKind::Soft)
        .wait_searcher(true);
    tokio::spawn(async move {
        while !stop.load(Ordering::Relaxed) {
            let t0 = Instant::now();
            let r = c.commit(commit).await;
            if record(&ev, clock, t0, &r).is_none() {
                // Do not spin on a failing Solr.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            if !interval.is_zero() {
                tokio::time::sleep(interval).await;
            }
        }
    })
}

/// Indexing: one document per request at the target rate on each task (late adds catch up,
/// as the Lucene benchmark's rate limiter does); every `probe_every`-th acknowledged add goes
/// to the prober.
fn spawn_indexers(
    a: &NrtConfig,
    client: &SolrClient,
    prefix: &str,
    clock: Clock,
    rec: &Recorders,
) -> Vec<JoinHandle<()>> {
    (0..a.index_threads)
        .map(|w| {
            let (c, rec) = (client.clone(), rec.clone());
            let period = Duration::from_secs_f64(1.0 / a.rate);
            let doc_prefix = format!("{prefix}t{w}-");
            let (seed, every) = (a.seed ^ (0x100 + w as u64), a.probe_every as u64);
            tokio::spawn(async move {
                let mut gen = Generator::new(seed, 0);
                let (mut next, mut n, mut acked) = (Instant::now(), 0u64, 0u64);
                loop {
                    if next > Instant::now() {
                        tokio::time::sleep_until(next.into()).await;
                    }
                    if Instant::now() >= clock.deadline {
                        break;
                    }
                    let doc = gen.doc(&doc_prefix, n as usize);
                    let t0 = Instant::now();
                    let r = c.add(std::slice::from_ref(&doc)).await;
                    if let Some(t1) = record(&rec.adds, clock, t0, &r) {
                        if acked.is_multiple_of(every) {
                            rec.probed.fetch_add(1, Ordering::Relaxed);
                            lock(&rec.pending).push((format!("{doc_prefix}{n}"), t1));
                        }
                        acked += 1;
                    }
                    n += 1;
                    next += period;
                }
            })
        })
        .collect()
}

/// Searching: full speed on each task until the deadline.
fn spawn_searchers(
    a: &NrtConfig,
    client: &SolrClient,
    clock: Clock,
    ev: &Shared<Events>,
) -> Vec<JoinHandle<()>> {
    (0..a.search_threads)
        .map(|w| {
            let (c, ev) = (client.clone(), ev.clone());
            let (seed, rows) = (a.seed ^ (0x200 + w as u64), a.rows);
            tokio::spawn(async move {
                let mut gen = Generator::new(seed, 0);
                while Instant::now() < clock.deadline {
                    let (q, fq) = gen.query();
                    let s = Select::new(q).rows(rows);
                    let s = match fq {
                        Some(f) => s.fq(f),
                        None => s,
                    };
                    let t0 = Instant::now();
                    let r = c.select(&s).await;
                    record(&ev, clock, t0, &r);
                }
            })
        })
        .collect()
}

/// Probing: the oldest pending ids in one `{!terms}` search; found ids leave the queue and
/// their lag (acknowledged -> the search that found them was sent) is recorded. Stops when
/// the queue is empty and `done` is set.
fn spawn_prober(
    client: &SolrClient,
    clock: Clock,
    rec: &Recorders,
    done: &Arc<AtomicBool>,
) -> JoinHandle<()> {
    let (c, rec, done) = (client.clone(), rec.clone(), done.clone());
    tokio::spawn(async move {
        loop {
            let batch: Vec<(String, Instant)> =
                lock(&rec.pending).iter().take(500).cloned().collect();
            if batch.is_empty() {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
                continue;
            }
            probe(&c, clock, &rec, &batch).await;
        }
    })
}

/// One probe round over `batch`.
async fn probe(c: &SolrClient, clock: Clock, rec: &Recorders, batch: &[(String, Instant)]) {
    let ids: Vec<&str> = batch.iter().map(|(id, _)| id.as_str()).collect();
    let s = Select::new(format!("{{!terms f=id}}{}", ids.join(",")))
        .fl("id")
        .rows(batch.len() as u64)
        .post(true);
    let sent = Instant::now();
    let r = c.select(&s).await;
    if record(&rec.probes, clock, sent, &r).is_none() {
        tokio::time::sleep(Duration::from_millis(10)).await;
        return;
    }
    let Ok(resp) = r else { return };
    let found: HashSet<String> = resp
        .docs()
        .iter()
        .filter_map(|d| d.get("id").and_then(|v| v.as_str()).map(str::to_string))
        .collect();
    if found.is_empty() {
        return;
    }
    {
        let mut l = lock(&rec.lags);
        for (id, ack) in batch {
            if found.contains(id) {
                l.push(sent.saturating_duration_since(*ack));
            }
        }
    }
    lock(&rec.pending).retain(|(id, _)| !found.contains(id));
}
