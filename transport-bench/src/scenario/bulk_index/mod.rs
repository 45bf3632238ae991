//! Bulk indexing beside SolrJ: the same generated documents indexed in
//! interleaved rounds by SolrJ's `ConcurrentUpdateHttp2SolrClient` (queue size and threads
//! swept to its best setting), SolrJ's `Http2SolrClient` (batched adds), solr-client's
//! sequential [`SolrClient::add_batched`] and solr-client with batches in flight
//! concurrently ([`concurrent_rows`]). Every run deletes its own id prefix, indexes, commits
//! and checks that `numFound` of the prefix is exactly the number of documents.

pub mod cli;
pub mod docs;
mod model;
mod render;

pub use model::*;
pub use render::*;
pub mod solrj;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use solr_client::{BatchReport, Commit, SolrClient, UpdateFormat};

use solr_harness::seedkit::{self, Target};
use solrj::{Solrj, SolrjMode};

use crate::engine::cpu::process_cpu;
use crate::engine::procstat;

/// A row of the comparison: who indexes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    clap::ValueEnum,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum IndexRow {
    /// SolrJ `ConcurrentUpdateHttp2SolrClient` at its best swept setting (the reference).
    SolrjCusc,
    /// SolrJ `Http2SolrClient.add(collection, batch)`, one batch after the other.
    SolrjHttp2,
    /// solr-client `add_batched`: one batch after the other.
    Sequential,
    /// solr-client's `Indexer` with `in_flight` batches in flight.
    Concurrent,
}

impl IndexRow {
    /// Every row, in report order.
    pub const ALL: [IndexRow; 4] = [
        IndexRow::SolrjCusc,
        IndexRow::SolrjHttp2,
        IndexRow::Sequential,
        IndexRow::Concurrent,
    ];

    /// The name on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexRow::SolrjCusc => "solrj-cusc",
            IndexRow::SolrjHttp2 => "solrj-http2",
            IndexRow::Sequential => "sequential",
            IndexRow::Concurrent => "concurrent",
        }
    }

    fn is_java(self) -> bool {
        matches!(self, IndexRow::SolrjCusc | IndexRow::SolrjHttp2)
    }
}

/// What `bulk-index` runs.
#[derive(Debug, Clone)]
pub struct BulkIndexConfig {
    /// Documents per run.
    pub docs: usize,
    /// Interleaved rounds (each runs every row once; the order rotates by one per round).
    pub rounds: usize,
    /// Documents per request of the batched rows (SolrJ Http2SolrClient, sequential,
    /// concurrent).
    pub batch: usize,
    /// Batches in flight in the concurrent row.
    pub in_flight: usize,
    /// solr-client's update format.
    pub format: UpdateFormat,
    /// The rows, in report order.
    pub rows: Vec<IndexRow>,
    /// CUSC queue sizes to sweep.
    pub cusc_queue: Vec<usize>,
    /// CUSC thread counts to sweep.
    pub cusc_threads: Vec<usize>,
    /// Documents per sweep run (the sweep runs only with more than one setting).
    pub sweep_docs: usize,
    /// Documents of the untimed warm-up run of every row (0: none).
    pub warmup_docs: usize,
    /// Prefix of every id of this bench (runs add `{row}-{round}-`).
    pub tag: String,
    /// The SolrJ program's log file.
    pub solrj_log: PathBuf,
    /// No progress bars.
    pub quiet: bool,
}

impl BulkIndexConfig {
    /// Checks the settings; a bad one is a clear error.
    pub fn check(&self) -> Result<()> {
        if self.docs == 0 || self.rounds == 0 || self.batch == 0 || self.in_flight == 0 {
            bail!("--docs, --rounds, --batch and --in-flight must be >= 1");
        }
        if self.rows.is_empty() {
            bail!("--rows names no row");
        }
        if self.rows.contains(&IndexRow::SolrjCusc)
            && (self.cusc_queue.is_empty()
                || self.cusc_threads.is_empty()
                || self.cusc_queue.contains(&0)
                || self.cusc_threads.contains(&0))
        {
            bail!("--cusc-queue and --cusc-threads need values >= 1");
        }
        if self.tag.is_empty() || self.tag.chars().any(|c| c.is_whitespace()) {
            bail!("--tag must be non-empty without whitespace");
        }
        Ok(())
    }
}

/// The concurrent row: documents `0..docs` (ids `{prefix}{i}`) through
/// [`solr_client::Indexer`] in batches of `batch` (no byte limit below 64 MiB), with
/// `in_flight` batches in flight and a queue of `in_flight` more; its exact report.
pub async fn concurrent_rows(
    client: &SolrClient,
    prefix: &str,
    docs: usize,
    batch: usize,
    in_flight: usize,
) -> Result<BatchReport> {
    let mut indexer = solr_client::Indexer::builder(client.clone())
        .batch_docs(batch.max(1))
        .batch_bytes(64 << 20)
        .in_flight(in_flight.max(1))
        .queue(in_flight.max(1))
        .build()?;
    let pushed = indexer
        .index_iter((0..docs as u64).map(|i| docs::doc(prefix, i)))
        .await;
    let report = indexer.finish().await;
    pushed?;
    Ok(report)
}

/// The sequential row: documents `0..docs` generated, then [`SolrClient::add_batched`].
async fn sequential_row(
    client: &SolrClient,
    prefix: &str,
    docs: usize,
    batch: usize,
) -> Result<BatchReport> {
    let all: Vec<docs::BenchDoc> = (0..docs as u64).map(|i| docs::doc(prefix, i)).collect();
    Ok(client.add_batched(&all, batch).await?)
}

/// Runs the bench against `target`: warm-up, CUSC sweep, interleaved rounds.
pub async fn run(cfg: &BulkIndexConfig, target: &Target) -> Result<BulkIndexReport> {
    cfg.check()?;
    let client = target.client(cfg.format)?;
    client
        .ping()
        .await
        .with_context(|| format!("Solr at {} does not answer", target.url))?;
    let java = cfg.rows.iter().any(|r| r.is_java());
    if java && !target.url.starts_with("http://") {
        bail!("the SolrJ rows need an http:// Solr (leave them out with --rows sequential,concurrent)");
    }
    let mut solrj = if java {
        Some(Solrj::start(&cfg.solrj_log)?)
    } else {
        None
    };
    let mut bench = Bench {
        cfg,
        client: &client,
        target,
        solrj: solrj.as_mut(),
        cusc: (
            cfg.cusc_queue.first().copied().unwrap_or(1),
            cfg.cusc_threads.first().copied().unwrap_or(1),
        ),
    };
    let result = bench.all().await;
    if let Some(s) = solrj {
        s.finish().await?;
    }
    let (sweep, runs) = result?;
    // The last run's documents were deleted without a commit.
    client.commit(Commit::default()).await?;
    Ok(build(cfg, target, bench_cusc(&sweep, cfg), sweep, runs))
}

/// The CUSC setting the rounds used.
fn bench_cusc(sweep: &[SweepPoint], cfg: &BulkIndexConfig) -> (usize, usize) {
    best_setting(sweep).unwrap_or((
        cfg.cusc_queue.first().copied().unwrap_or(1),
        cfg.cusc_threads.first().copied().unwrap_or(1),
    ))
}

/// The (queue, threads) of the fastest sweep point.
fn best_setting(sweep: &[SweepPoint]) -> Option<(usize, usize)> {
    sweep
        .iter()
        .max_by(|a, b| a.docs_per_s.total_cmp(&b.docs_per_s))
        .map(|p| (p.queue, p.threads))
}

struct Bench<'a> {
    cfg: &'a BulkIndexConfig,
    client: &'a SolrClient,
    target: &'a Target,
    solrj: Option<&'a mut Solrj>,
    cusc: (usize, usize),
}

impl Bench<'_> {
    async fn all(&mut self) -> Result<(Vec<SweepPoint>, Vec<IndexRun>)> {
        let cfg = self.cfg;
        let sweep_points: Vec<(usize, usize)> = cfg
            .cusc_queue
            .iter()
            .flat_map(|&q| cfg.cusc_threads.iter().map(move |&t| (q, t)))
            .collect();
        let sweeping = cfg.rows.contains(&IndexRow::SolrjCusc) && sweep_points.len() > 1;
        let warm = if cfg.warmup_docs > 0 {
            cfg.rows.len()
        } else {
            0
        };
        let total =
            warm + if sweeping { sweep_points.len() } else { 0 } + cfg.rounds * cfg.rows.len();
        let pb = seedkit::progress(cfg.quiet, total as u64, "bulk-index");
        let mut runs = Vec::new();
        if cfg.warmup_docs > 0 {
            for &row in &cfg.rows {
                pb.set_message(format!("warm-up {}", row.as_str()));
                let prefix = format!("{}-warm-{}-", cfg.tag, row.as_str());
                runs.push(self.one(row, &prefix, cfg.warmup_docs, usize::MAX).await?);
                pb.inc(1);
            }
        }
        let mut sweep = Vec::new();
        if sweeping {
            for &(queue, threads) in &sweep_points {
                pb.set_message(format!("CUSC sweep q{queue} t{threads}"));
                self.cusc = (queue, threads);
                let prefix = format!("{}-sweep-q{queue}-t{threads}-", cfg.tag);
                let r = self
                    .one(IndexRow::SolrjCusc, &prefix, cfg.sweep_docs, usize::MAX)
                    .await?;
                sweep.push(SweepPoint {
                    queue,
                    threads,
                    docs_per_s: r.docs_per_s,
                    cpu_s: r.cpu_s,
                    exact: r.exact,
                });
                runs.push(r);
                pb.inc(1);
            }
        }
        self.cusc = bench_cusc(&sweep, cfg);
        for round in 0..cfg.rounds {
            let n = cfg.rows.len();
            for k in 0..n {
                // The order rotates every round, so a drift over the bench is spread over
                // the rows instead of always hitting the last one.
                let row = cfg.rows[(round + k) % n];
                pb.set_message(format!("round {} {}", round + 1, row.as_str()));
                let prefix = format!("{}-{}-{}-", cfg.tag, row.as_str(), round);
                runs.push(self.one(row, &prefix, cfg.docs, round).await?);
                pb.inc(1);
            }
        }
        pb.finish_and_clear();
        Ok((sweep, runs))
    }

    /// One run: delete the prefix, index, commit, count, delete again.
    async fn one(
        &mut self,
        row: IndexRow,
        prefix: &str,
        docs: usize,
        round: usize,
    ) -> Result<IndexRun> {
        let cfg = self.cfg;
        let q = seedkit::prefix_query(prefix);
        self.client
            .delete_by_query(&q)
            .await
            .context("deleting the run's id prefix")?;
        self.client.commit(Commit::default()).await?;
        let load_1m = seedkit::load_1m();
        let solr0 = self.solr_ticks();
        let (wall_s, cpu_s, errors, detail) = match row {
            IndexRow::SolrjCusc | IndexRow::SolrjHttp2 => {
                let mode = if row == IndexRow::SolrjCusc {
                    SolrjMode::Cusc {
                        queue: self.cusc.0,
                        threads: self.cusc.1,
                    }
                } else {
                    SolrjMode::Http2 { batch: cfg.batch }
                };
                let solrj = self
                    .solrj
                    .as_mut()
                    .context("the SolrJ program is not running")?;
                let r = solrj
                    .run(
                        &self.target.url,
                        &self.target.collection,
                        prefix,
                        docs,
                        mode,
                    )
                    .await?;
                let detail = r.first_error.clone();
                (r.wall_s, r.cpu_s, r.errors, detail)
            }
            IndexRow::Sequential | IndexRow::Concurrent => {
                let cpu0 = process_cpu();
                let t0 = Instant::now();
                let rep = if row == IndexRow::Sequential {
                    sequential_row(self.client, prefix, docs, cfg.batch).await?
                } else {
                    concurrent_rows(self.client, prefix, docs, cfg.batch, cfg.in_flight).await?
                };
                let wall = t0.elapsed().as_secs_f64();
                let cpu = (process_cpu().saturating_sub(cpu0)).as_secs_f64();
                let errors = (rep.failed.len() + rep.unknown.len()) as u64;
                let detail = rep.failed.first().map(|f| format!("{f:?}")).or_else(|| {
                    rep.unknown
                        .first()
                        .map(|id| format!("unknown outcome: {id}"))
                });
                (wall, cpu, errors, detail)
            }
        };
        let solr_cpu_s = match (solr0, self.solr_ticks()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / procstat::clk_tck()),
            _ => None,
        };
        let c0 = Instant::now();
        self.client
            .commit(Commit::default())
            .await
            .context("commit after the run")?;
        let commit_s = c0.elapsed().as_secs_f64();
        let num_found = seedkit::count(self.client, &q).await?;
        self.client
            .delete_by_query(&q)
            .await
            .context("deleting the run's documents")?;
        Ok(IndexRun {
            round: (round != usize::MAX).then_some(round),
            row,
            prefix: prefix.to_string(),
            docs: docs as u64,
            wall_s,
            docs_per_s: docs as f64 / wall_s.max(1e-9),
            cpu_s,
            cpu_us_per_doc: cpu_s * 1e6 / docs as f64,
            commit_s,
            num_found,
            exact: num_found == docs as u64,
            errors,
            first_error: detail,
            cusc: (row == IndexRow::SolrjCusc).then_some(self.cusc),
            load_1m,
            solr_cpu_s,
        })
    }

    /// utime + stime of the local Solr's JVM (its first node), in clock ticks; None for a
    /// Solr this process did not start.
    fn solr_ticks(&self) -> Option<u64> {
        let local = self.target.local.as_ref()?;
        let node = local.nodes.first()?.0.clone();
        procstat::proc_ticks(local.pid(&node)?)
    }
}
