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

pub mod cli;
mod model;
mod render;
mod run;
mod summary;

use run::run_one;

pub use model::*;
pub use render::*;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use solr_client::{Commit, SolrClient, UpdateFormat};

use crate::engine::workload::Generator;
use solr_harness::seedkit::{self, Target};

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
