//! The read-routing question: do reads sent to a replica pay once the primary
//! is under write pressure, and what do they cost in staleness?
//!
//! Against the project's leader/follower `pair` (or `--leader`/`--follower` URLs), the same
//! closed-loop read workload runs under each read preference while a paced (or unpaced)
//! indexer writes to the leader, with Solr soft-committing on a short interval (so the leader
//! keeps opening searchers and merging) and hard-committing so the follower's replication
//! poll has something to fetch. Per cell (write level x preference x repetition, interleaved):
//! read p50/p95/p99, QTime per node, reads per node counted three ways (the client's own tally
//! from each response, the [`Routing`] decorator's per-node counters, Solr's
//! `QUERY./select.requests` metric), docs/s achieved, the visibility lag of probe documents
//! read through the preference under test, and the CPU of each Solr JVM, of this process and
//! of the host (with its run queue).
//!
//! Preferences (`--topology pair`): `none` (the client knows only the primary: every read
//! goes to the leader), `leader` ([`ReadPreference::Leader`]: leader first, the follower only
//! as failover) and `follower` ([`ReadPreference::NonLeader`]).
//!
//! `--topology cloud`: a local SolrCloud (node1 + node2) whose collection has one shard with
//! one NRT, one TLOG and one PULL replica; writes go to the shard leader. Every read is sent to
//! node1 (the client's own routing for `client`) with `shortCircuit=false` (otherwise a node
//! hosting any replica of the single shard answers from a local core and ignores
//! `shards.preference`, measured), `distrib.singlePass=true` (one internal sub-request per
//! read) and `shards.info=true` (the response names the replica that served it). Preferences:
//! `none` (Solr picks any replica), `solr-nrt` / `solr-tlog` / `solr-pull`
//! (`shards.preference=replica.type:X`) and `client` (the [`Routing`] decorator with cluster
//! discovery and [`ReadPreference::NonLeader`]: it picks a NODE hosting a non-leader replica,
//! and Solr a replica local to that node, leader included when it shares the node). Reads are
//! counted per replica: the client's tally of `shards.info` against the core's
//! `QUERY./select[shard].requests` (the sub-request it served); the top-level request counts
//! in `QUERY./select.requests` of a core on the receiving node.

pub mod report;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use solr_client::transport::{ReadPreference, Routing};
use solr_client::{Commit, RequestKind, Select, SolrClient, TlsOptions, TransportKind};

use crate::local_solr::{LocalSolr, Mode};
use crate::scenario::knn::procstat::Sampler;
use crate::seedkit;
use crate::workload::Generator;

/// A read preference under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pref {
    /// No routing: the client knows only the leader (primary), every read goes there.
    None,
    /// Routing with [`ReadPreference::Leader`]: reads to the leader, the follower only when
    /// the leader is down.
    Leader,
    /// Routing with [`ReadPreference::NonLeader`]: reads to the follower (replica).
    Follower,
    /// Cloud: `shards.preference=replica.type:NRT`.
    SolrNrt,
    /// Cloud: `shards.preference=replica.type:TLOG`.
    SolrTlog,
    /// Cloud: `shards.preference=replica.type:PULL`.
    SolrPull,
    /// Cloud: the client's own routing (cluster discovery, [`ReadPreference::NonLeader`]).
    Client,
}

/// The topology under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Topology {
    /// Standalone leader/follower pair (user-managed replication).
    Pair,
    /// SolrCloud, one shard with one NRT, one TLOG and one PULL replica over two nodes.
    Cloud,
}

impl Pref {
    /// `none`, `leader` or `follower`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Pref::None => "none",
            Pref::Leader => "leader",
            Pref::Follower => "follower",
            Pref::SolrNrt => "solr-nrt",
            Pref::SolrTlog => "solr-tlog",
            Pref::SolrPull => "solr-pull",
            Pref::Client => "client",
        }
    }

    /// The replica type a `solr-*` preference names (`NRT`, `TLOG`, `PULL`).
    pub fn replica_type(&self) -> Option<&'static str> {
        match self {
            Pref::SolrNrt => Some("NRT"),
            Pref::SolrTlog => Some("TLOG"),
            Pref::SolrPull => Some("PULL"),
            _ => None,
        }
    }

    fn is_cloud(&self) -> bool {
        matches!(self, Pref::None | Pref::Client) || self.replica_type().is_some()
    }

    /// The name of the same setting in Websolr's read-routing header (the published reference).
    pub fn seed_name(&self) -> &'static str {
        match self {
            Pref::None => "none",
            Pref::Leader => "prefer-master",
            Pref::Follower => "prefer-replica",
            Pref::SolrNrt | Pref::SolrTlog | Pref::SolrPull => "shards.preference",
            Pref::Client => "client routing",
        }
    }
}

/// A write pressure level: a paced rate in docs/s (0 = no writes) or `max`, as fast as one
/// indexer goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WriteLevel {
    /// Target docs/s (0: no writes).
    Rate(f64),
    /// Back-to-back batches.
    Max,
}

impl WriteLevel {
    /// `0`, `200`, `max`.
    pub fn label(&self) -> String {
        match self {
            WriteLevel::Rate(r) => format!("{r}"),
            WriteLevel::Max => "max".into(),
        }
    }
}

/// Parses one `--write-rates` value: docs/s >= 0 or `max` (any case).
pub fn parse_level(s: &str) -> std::result::Result<WriteLevel, String> {
    if s.eq_ignore_ascii_case("max") {
        return Ok(WriteLevel::Max);
    }
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && r >= 0.0 => Ok(WriteLevel::Rate(r)),
        _ => Err(format!("a write level is docs/s >= 0 or `max`, not {s:?}")),
    }
}

/// Configuration of `routing` (built by the command line from its options; see `transport-bench routing --help`).
#[derive(Debug, Clone)]
pub struct RoutingConfig {
    /// `pair` (leader/follower) or `cloud` (SolrCloud with one NRT, one TLOG and one PULL
    /// replica; always the project's local cloud).
    pub topology: Topology,
    /// Leader (primary) base URL. Without `--leader`/`--follower` the project's local pair
    /// (instance `--instance`) is started with the commit and poll settings below, and
    /// stopped after.
    pub leader: Option<String>,
    /// Follower (replica) base URL.
    pub follower: Option<String>,
    /// Core on both nodes.
    pub collection: String,
    /// CA certificate (PEM) to trust for https.
    pub ca: Option<PathBuf>,
    /// Read preferences, comma-separated. Pair (default none,leader,follower): none (all
    /// reads to the leader, no routing), leader, follower. Cloud (default
    /// none,solr-nrt,solr-tlog,solr-pull,client): none, solr-nrt, solr-tlog, solr-pull, client.
    pub prefs: Vec<Pref>,
    /// Write pressure levels, comma-separated: docs/s (0 = none) or `max`.
    pub write_rates: Vec<WriteLevel>,
    /// Seconds per cell (one level x one preference).
    pub duration: f64,
    /// Repetitions; the order of levels and preferences rotates between them.
    pub reps: usize,
    /// Closed-loop read tasks.
    pub readers: usize,
    /// Documents per update request of the indexer.
    pub write_batch: usize,
    /// Documents indexed (and replicated) before the first cell.
    pub preload: usize,
    /// Rows per search.
    pub rows: u64,
    /// Local pair: the follower's replication poll interval, seconds.
    pub poll_interval: u64,
    /// Local Solr: autoCommit (hard, openSearcher=false) interval, ms; replication fetches
    /// what a hard commit made. Default 1000 (pair), 2000 (cloud: TLOG and PULL replicas poll
    /// every half of it in whole seconds, so below 2000 they never poll).
    pub hard_commit_ms: Option<u64>,
    /// Local pair: Solr's autoSoftCommit interval, ms (the leader reopens its searcher).
    pub soft_commit_ms: u64,
    /// Pause between two searches of the lag prober for the same probe document, ms.
    pub probe_poll_ms: u64,
    /// A probe document not seen this long after its add counts as unseen, seconds.
    pub probe_timeout: f64,
    /// Searches per cell before it is measured (through the cell's own router).
    pub warmup: usize,
    /// /proc sampling interval, ms.
    pub sample_ms: u64,
    /// Name of the local pair instance.
    pub instance: String,
    /// Prefix of every document id this run writes (default `routing-<unix time>-`).
    pub id_prefix: Option<String>,
    /// Workload seed.
    pub seed: u64,
    /// Keep the local pair running afterwards.
    pub keep_solr: bool,
    /// No progress bars.
    pub quiet: bool,
}

impl RoutingConfig {
    /// The preferences to run: `--prefs`, or the topology's default.
    pub fn prefs(&self) -> Vec<Pref> {
        if !self.prefs.is_empty() {
            return self.prefs.clone();
        }
        match self.topology {
            Topology::Pair => vec![Pref::None, Pref::Leader, Pref::Follower],
            Topology::Cloud => vec![
                Pref::None,
                Pref::SolrNrt,
                Pref::SolrTlog,
                Pref::SolrPull,
                Pref::Client,
            ],
        }
    }

    /// The hard commit interval, ms: `--hard-commit-ms` or the topology's default.
    pub fn hard_commit(&self) -> u64 {
        self.hard_commit_ms.unwrap_or(match self.topology {
            Topology::Pair => 1000,
            Topology::Cloud => 2000,
        })
    }

    /// Checks what clap's parsers cannot (preferences against the topology, durations, the
    /// id prefix); the error names the option.
    pub fn validate(&self) -> Result<()> {
        match self.topology {
            Topology::Pair => {
                if let Some(p) = self
                    .prefs()
                    .iter()
                    .find(|p| p.is_cloud() && **p != Pref::None)
                {
                    bail!("--prefs {} needs --topology cloud", p.as_str());
                }
            }
            Topology::Cloud => {
                if let Some(p) = self.prefs().iter().find(|p| !p.is_cloud()) {
                    bail!(
                        "--prefs {} is a pair preference (--topology pair)",
                        p.as_str()
                    );
                }
                if self.leader.is_some() {
                    bail!("--topology cloud runs on the project's local cloud (no --leader/--follower)");
                }
                if self.hard_commit() < 2000 {
                    bail!("--hard-commit-ms must be >= 2000 in the cloud: TLOG and PULL replicas poll every half of it in whole seconds, 0 s = never");
                }
            }
        }
        if !(self.duration.is_finite() && self.duration > 0.0) {
            bail!("--duration must be a positive number of seconds");
        }
        if !(self.probe_timeout.is_finite() && self.probe_timeout > 0.0) {
            bail!("--probe-timeout must be a positive number of seconds");
        }
        if self.write_rates.is_empty() {
            bail!("--write-rates needs at least one value");
        }
        if self.reps == 0 || self.readers == 0 || self.write_batch == 0 {
            bail!("--reps, --readers and --write-batch must be >= 1");
        }
        if self.sample_ms == 0 || self.poll_interval == 0 {
            bail!("--sample-ms and --poll-interval must be >= 1");
        }
        if let Some(p) = &self.id_prefix {
            if p.is_empty() || p.chars().any(|c| c == ',' || c.is_whitespace()) {
                bail!("--id-prefix must be non-empty, without commas or spaces");
            }
        }
        Ok(())
    }
}

/// Read latency (or lag) percentiles, ms. A percentile is None when the sample cannot support
/// it (p95 needs 20 values, p99 100).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Latency {
    /// Sample size.
    pub n: u64,
    /// Mean.
    pub mean_ms: f64,
    /// Median.
    pub p50_ms: Option<f64>,
    /// 95th percentile.
    pub p95_ms: Option<f64>,
    /// 99th percentile.
    pub p99_ms: Option<f64>,
    /// Maximum.
    pub max_ms: Option<f64>,
}

/// [`Latency`] of millisecond values (microsecond resolution).
pub fn latency(ms: &[f64]) -> Latency {
    let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3)
        .expect("valid histogram bounds");
    for v in ms {
        // 0 stays 0 (a QTime of 0 ms is common); negative or NaN values count as 0.
        let _ = h.record(((v.max(0.0) * 1000.0) as u64).min(3_600_000_000));
    }
    let n = h.len();
    if n == 0 {
        return Latency::default();
    }
    let q = |p: f64| h.value_at_quantile(p) as f64 / 1000.0;
    Latency {
        n,
        mean_ms: ms.iter().sum::<f64>() / ms.len() as f64,
        p50_ms: Some(q(0.5)),
        p95_ms: (n >= 20).then(|| q(0.95)),
        p99_ms: (n >= 100).then(|| q(0.99)),
        max_ms: Some(h.max() as f64 / 1000.0),
    }
}

/// Reads of one cell on one node, counted three ways, and their times.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NodeCell {
    /// `leader` or `follower`.
    pub node: String,
    /// Base URL.
    pub url: String,
    /// Read responses whose timing names this node (searches and probe reads).
    pub client_reads: u64,
    /// Read attempts the router's per-node counters saw (`NodeStats::reads`).
    pub router_reads: u64,
    /// Solr's own count: the change of `QUERY./select.requests` on the node (None when the
    /// metrics could not be read).
    pub solr_select_requests: Option<u64>,
    /// Measured searches this node answered.
    pub searches: u64,
    /// Wall time of those searches.
    pub wall: Latency,
    /// Solr's QTime of those searches.
    pub qtime: Latency,
}

/// A replica of the cloud topology's shard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Replica {
    /// Core name, e.g. `bench_shard1_replica_t1`.
    pub core: String,
    /// `NRT`, `TLOG` or `PULL`.
    pub kind: String,
    /// `node1` or `node2`.
    pub node: String,
    /// Base URL of its node.
    pub url: String,
    /// The shard leader (when the run started).
    pub leader: bool,
}

/// Reads of one cell served by one replica (cloud topology), counted two ways, plus the
/// top-level requests its core received.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplicaCell {
    /// Core name.
    pub core: String,
    /// `NRT`, `TLOG` or `PULL`.
    pub kind: String,
    /// `node1` or `node2`.
    pub node: String,
    /// Reads (searches and probe reads) whose `shards.info` names this core as the one that
    /// served the sub-request.
    pub client_served: u64,
    /// Solr's own count: the change of the core's `QUERY./select[shard].requests` (the
    /// internal `distrib=false` sub-requests it served). None when unreadable.
    pub solr_served: Option<u64>,
    /// The change of the core's `QUERY./select.requests`: top-level requests it received
    /// (on the node the client sent them to). None when unreadable.
    pub solr_received: Option<u64>,
}

/// Reads served by one replica over a row's repetitions.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplicaReads {
    /// Core name.
    pub core: String,
    /// `NRT`, `TLOG` or `PULL`.
    pub kind: String,
    /// Leader of the shard.
    pub leader: bool,
    /// Reads it served (client tally of `shards.info`).
    pub reads: u64,
}

/// Visibility lag of the probe documents of one cell: each is added through the leader, then
/// searched for through the preference under test until found.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LagProbe {
    /// Probe documents added (acknowledged).
    pub probes: u64,
    /// Seen through the preference.
    pub seen: u64,
    /// Not seen within `--probe-timeout`.
    pub unseen: u64,
    /// Ack -> send time of the first search that found it.
    pub lag: Latency,
    /// Searches the prober sent.
    pub reads: u64,
}

/// CPU during a cell: 100 % = one core for processes, all cores for the host.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cpu {
    /// Leader JVM (cloud: node1), mean % of one core (None: pid unknown).
    pub leader_pct: Option<f64>,
    /// Follower JVM (cloud: node2).
    pub follower_pct: Option<f64>,
    /// This benchmark process (client, indexer, prober).
    pub bench_pct: Option<f64>,
    /// Host busy, mean % of all cores.
    pub host_pct: Option<f64>,
    /// Mean runnable threads on the host (`procs_running`): above `cores`, threads wait for
    /// a CPU.
    pub runnable_mean: Option<f64>,
    /// CPUs available to this process.
    pub cores: usize,
}

/// One cell: one write level x one preference x one repetition.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cell {
    /// Repetition (0-based).
    pub rep: usize,
    /// Write level: docs/s or `max`.
    pub level: String,
    /// Target docs/s (None for `max`).
    pub target_docs_per_s: Option<f64>,
    /// `none`, `leader` or `follower`.
    pub pref: String,
    /// Measured seconds.
    pub duration_s: f64,
    /// Wall time of the measured searches.
    pub reads: Latency,
    /// Searches that failed.
    pub read_errors: u64,
    /// Searches per second.
    pub searches_per_s: f64,
    /// Documents the indexer got acknowledged.
    pub docs_acked: u64,
    /// Acknowledged docs per second.
    pub docs_per_s: f64,
    /// Update requests that failed.
    pub write_errors: u64,
    /// Per node: reads counted three ways, wall time, QTime.
    pub nodes: Vec<NodeCell>,
    /// Cloud: per replica, the reads it served (client tally and Solr's count). Empty (and
    /// absent) for the pair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<ReplicaCell>,
    /// Visibility lag through this preference.
    pub lag: LagProbe,
    /// CPU.
    pub cpu: Cpu,
}

/// One level x preference over every repetition (latencies pooled).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Row {
    /// Write level.
    pub level: String,
    /// Preference.
    pub pref: String,
    /// Mean achieved docs/s.
    pub docs_per_s: f64,
    /// Searches, pooled.
    pub reads: Latency,
    /// QTime of the searches, pooled over nodes.
    pub qtime: Latency,
    /// Reads on the leader, summed (client tally).
    pub leader_reads: u64,
    /// Reads on the follower, summed.
    pub follower_reads: u64,
    /// Cloud: reads served by each replica, summed. Absent for the pair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<ReplicaReads>,
    /// Probe lag, pooled.
    pub lag: Latency,
    /// Probes never seen.
    pub unseen: u64,
    /// CPU, mean over the cells.
    pub cpu: Cpu,
}

/// The published reference's column for one preference (it published charts, not figures).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SeedColumn {
    /// Our preference.
    pub pref: String,
    /// The seed's name for it.
    pub seed_name: String,
    /// What the seed reported.
    pub seed_result: String,
}

/// Exact count after the run.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CountCheck {
    /// Documents acknowledged (preload, indexer, probes).
    pub acknowledged: u64,
    /// `numFound` of the run's id prefix on the leader after a hard commit.
    pub found: u64,
    /// Equal.
    pub ok: bool,
}

/// The `routing` report (`summary.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RoutingReport {
    /// `pair` or `cloud`.
    pub topology: String,
    /// Leader base URL (cloud: node1, where reads are sent).
    pub leader: String,
    /// Follower base URL (cloud: node2).
    pub follower: String,
    /// Cloud: the shard's replicas. Absent for the pair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<Replica>,
    /// The options of the run.
    pub settings: serde_json::Value,
    /// Every cell in the order run.
    pub cells: Vec<Cell>,
    /// Level x preference, repetitions pooled.
    pub rows: Vec<Row>,
    /// The published reference's three columns.
    pub seed: Vec<SeedColumn>,
    /// Exact document count.
    pub check: CountCheck,
    /// Errors, unseen probes, count mismatches, disagreeing counters.
    pub warnings: Vec<String>,
    /// Where replica reads pay (if anywhere), their staleness, and whose contention it was.
    pub verdict: String,
}

/// Runs `routing`: starts the local pair (or cloud) unless URLs are given, runs every cell,
/// and stops what it started unless `keep_solr`.
pub async fn run(a: &RoutingConfig) -> Result<RoutingReport> {
    a.validate()?;
    let local = match (&a.leader, &a.follower) {
        (Some(_), Some(_)) => None,
        _ if a.topology == Topology::Cloud => {
            eprintln!(
                "starting the project's local SolrCloud with NRT, TLOG and PULL replicas \
                 (instance {})...",
                a.instance
            );
            let (hard, soft) = (a.hard_commit().to_string(), a.soft_commit_ms.to_string());
            Some(LocalSolr::start(
                Mode::Cloud,
                &a.instance,
                &[
                    "--replica-types",
                    "nrt,tlog,pull",
                    "--auto-commit-ms",
                    &hard,
                    "--auto-soft-commit-ms",
                    &soft,
                ],
            )?)
        }
        _ => {
            eprintln!(
                "starting the project's local leader/follower pair (instance {})...",
                a.instance
            );
            let (poll, hard, soft) = (
                a.poll_interval.to_string(),
                a.hard_commit().to_string(),
                a.soft_commit_ms.to_string(),
            );
            Some(LocalSolr::start(
                Mode::Pair,
                &a.instance,
                &[
                    "--poll-interval",
                    &poll,
                    "--auto-commit-ms",
                    &hard,
                    "--auto-soft-commit-ms",
                    &soft,
                ],
            )?)
        }
    };
    let result = match &local {
        Some(s) => {
            let (l, f) = match a.topology {
                Topology::Pair => ("leader", "follower"),
                Topology::Cloud => ("node1", "node2"),
            };
            let nodes = Nodes {
                leader: s.url(Some(l))?.to_string(),
                follower: s.url(Some(f))?.to_string(),
                leader_pid: s.pid(l),
                follower_pid: s.pid(f),
                ca: s.ca.clone().or(a.ca.clone()),
            };
            run_cells(a, &nodes, true).await
        }
        None => {
            let nodes = Nodes {
                leader: a.leader.clone().unwrap_or_default(),
                follower: a.follower.clone().unwrap_or_default(),
                leader_pid: None,
                follower_pid: None,
                ca: a.ca.clone(),
            };
            run_cells(a, &nodes, false).await
        }
    };
    if let (Some(s), false) = (&local, a.keep_solr) {
        if let Err(e) = s.stop() {
            eprintln!("warning: could not stop the local Solr: {e:#}");
        }
    }
    result
}

#[derive(Debug)]
struct Nodes {
    leader: String,
    follower: String,
    leader_pid: Option<u32>,
    follower_pid: Option<u32>,
    ca: Option<PathBuf>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn key(u: &str) -> String {
    u.trim_end_matches('/').to_string()
}

/// A client whose every request goes through `router`.
fn client_over(router: Arc<Routing>, collection: &str) -> Result<SolrClient> {
    Ok(
        crate::auth::apply(SolrClient::builder("http://127.0.0.1:9/solr"))?
            .collection(collection)
            .custom_transport(router)
            .build()?,
    )
}

/// Solr's `QUERY./select.requests` summed over the node's cores.
async fn select_requests(client: &SolrClient) -> Result<u64> {
    let cores = seedkit::core_metrics(client, "QUERY./select.requests").await?;
    let mut n = 0;
    let mut seen = false;
    for core in cores.values() {
        if let Some(x) = core.get("QUERY./select.requests") {
            let c = x
                .as_u64()
                .or_else(|| x.get("count").and_then(|c| c.as_u64()));
            if let Some(c) = c {
                n += c;
                seen = true;
            }
        }
    }
    if !seen {
        bail!("admin/metrics has no QUERY./select.requests");
    }
    Ok(n)
}

/// Per core: (`QUERY./select.requests`, `QUERY./select[shard].requests`), the top-level
/// requests it received and the internal sub-requests it served. The registry
/// `solr.core.bench.shard1.replica_t1` is core `bench_shard1_replica_t1`.
async fn core_counts(client: &SolrClient) -> Result<HashMap<String, (u64, u64)>> {
    let cores = seedkit::core_metrics(
        client,
        "QUERY./select.requests,QUERY./select[shard].requests",
    )
    .await?;
    let num = |x: Option<&serde_json::Value>| {
        x.and_then(|x| {
            x.as_u64()
                .or_else(|| x.get("count").and_then(|c| c.as_u64()))
        })
    };
    let mut out = HashMap::new();
    for (reg, m) in &cores {
        let Some(core) = reg.strip_prefix("solr.core.") else {
            continue;
        };
        let (Some(top), Some(sub)) = (
            num(m.get("QUERY./select.requests")),
            num(m.get("QUERY./select[shard].requests")),
        ) else {
            bail!("admin/metrics of {reg} lacks the /select request counts");
        };
        out.insert(core.replace('.', "_"), (top, sub));
    }
    Ok(out)
}

/// The cloud's replicas from `CLUSTERSTATUS` (one shard), node names from the node URLs.
async fn discover(client: &SolrClient, a: &RoutingConfig, nodes: &Nodes) -> Result<Vec<Replica>> {
    let mut req = client.wire(
        http::Method::GET,
        "admin",
        vec![
            ("action".into(), "CLUSTERSTATUS".into()),
            ("collection".into(), a.collection.clone()),
            ("wt".into(), "json".into()),
        ],
        RequestKind::Admin,
    );
    req.path = "admin/collections".into();
    let resp = client.send_raw(req).await.context("CLUSTERSTATUS")?;
    if !resp.status.is_success() {
        bail!("CLUSTERSTATUS answered HTTP {}", resp.status);
    }
    let v: serde_json::Value =
        serde_json::from_slice(&resp.body).context("decoding CLUSTERSTATUS")?;
    let shards = v["cluster"]["collections"][&a.collection]["shards"]
        .as_object()
        .context("CLUSTERSTATUS without shards")?;
    if shards.len() != 1 {
        bail!(
            "the cloud topology needs one shard, {} has {}",
            a.collection,
            shards.len()
        );
    }
    let mut out = Vec::new();
    for r in shards
        .values()
        .flat_map(|s| s["replicas"].as_object().into_iter().flatten())
        .map(|(_, r)| r)
    {
        let url = key(r["base_url"].as_str().unwrap_or_default());
        let node = if url == key(&nodes.leader) {
            "node1"
        } else if url == key(&nodes.follower) {
            "node2"
        } else {
            bail!("replica on an unknown node {url}")
        };
        out.push(Replica {
            core: r["core"].as_str().unwrap_or_default().into(),
            kind: r["type"].as_str().unwrap_or("NRT").into(),
            node: node.into(),
            url,
            leader: r["leader"].as_str() == Some("true") || r["leader"].as_bool() == Some(true),
        });
    }
    out.sort_by(|x, y| x.core.cmp(&y.core));
    if out.iter().filter(|r| r.leader).count() != 1 {
        bail!("the shard has no single leader: {out:?}");
    }
    Ok(out)
}

/// `numFound` of `q` on one core alone (`distrib=false`).
async fn core_count(client: &SolrClient, q: &str) -> Result<u64> {
    let r = client
        .select(&Select::new(q).rows(0).param("distrib", "false"))
        .await
        .with_context(|| format!("counting {q}"))?;
    Ok(r.num_found())
}

struct Ctx<'a> {
    a: &'a RoutingConfig,
    nodes: &'a Nodes,
    tls: TlsOptions,
    /// Cloud: the shard's replicas and a client on each core.
    replicas: Vec<(Replica, SolrClient)>,
    writer: SolrClient,
    /// Plain clients on each node, for Solr's metrics: (name, url, client).
    direct: Vec<(&'static str, String, SolrClient)>,
    samplers: [Sampler; 3],
    prefix: String,
    acked: AtomicU64,
}

/// Raw samples of one row (level, pref), pooled over repetitions.
#[derive(Default)]
struct Pool {
    reads: Vec<f64>,
    qtimes: Vec<f64>,
    lags: Vec<f64>,
}

async fn run_cells(a: &RoutingConfig, nodes: &Nodes, local: bool) -> Result<RoutingReport> {
    let mut tls = TlsOptions::new();
    if let Some(ca) = &nodes.ca {
        tls = tls.add_ca_pem_file(ca)?;
    }
    let cloud = a.topology == Topology::Cloud;
    let wb = Routing::builder(TransportKind::Pooled.build(&tls, false)?).collection(&a.collection);
    let wb = if cloud {
        wb.cloud_seed(&nodes.leader)
    } else {
        wb.leader(&nodes.leader).replica(&nodes.follower)
    };
    let write_router = Arc::new(wb.build()?);
    let writer = client_over(write_router, &a.collection)?;
    let client_on = |url: &str, collection: &str| -> Result<SolrClient> {
        Ok(crate::auth::apply(SolrClient::builder(url))?
            .collection(collection)
            .tls(tls.clone())
            .transport(TransportKind::Pooled)
            .build()?)
    };
    let direct_client = |url: &str| client_on(url, &a.collection);
    let (ln, fname) = if cloud {
        ("node1", "node2")
    } else {
        ("leader", "follower")
    };
    let direct = vec![
        (ln, key(&nodes.leader), direct_client(&nodes.leader)?),
        (fname, key(&nodes.follower), direct_client(&nodes.follower)?),
    ];
    let mut replicas = Vec::new();
    if cloud {
        for r in discover(&direct[0].2, a, nodes).await? {
            let c = client_on(&r.url, &r.core)?;
            replicas.push((r, c));
        }
    }
    for (name, url, c) in &direct {
        c.ping()
            .await
            .with_context(|| format!("the {name} at {url} does not answer"))?;
    }
    let interval = Duration::from_millis(a.sample_ms);
    let samplers = [
        Sampler::start(nodes.leader_pid, interval),
        Sampler::start(nodes.follower_pid, interval),
        Sampler::start(Some(std::process::id()), interval),
    ];
    let prefix = a
        .id_prefix
        .clone()
        .unwrap_or_else(|| format!("routing-{}-", seedkit::unix_secs()));
    let ctx = Ctx {
        a,
        nodes,
        tls,
        replicas,
        writer,
        direct,
        samplers,
        prefix,
        acked: AtomicU64::new(0),
    };
    if local {
        ctx.writer
            .delete_by_query("*:*")
            .await
            .context("clearing the leader")?;
        ctx.writer.commit(Commit::default()).await?;
    }
    preload(&ctx).await?;

    let levels = &a.write_rates;
    let prefs = &a.prefs();
    let mut cells = Vec::new();
    let mut pools: HashMap<(usize, usize), Pool> = HashMap::new();
    let total = (a.reps * levels.len() * prefs.len()) as u64;
    let pb = seedkit::progress(a.quiet, total, "routing cells");
    let mut n = 0usize;
    for rep in 0..a.reps {
        for li in 0..levels.len() {
            let li = (li + rep) % levels.len();
            for pi in 0..prefs.len() {
                let pi = (pi + rep + li) % prefs.len();
                let (cell, pool) = run_cell(&ctx, rep, n, levels[li], prefs[pi]).await?;
                let p = pools.entry((li, pi)).or_default();
                p.reads.extend(pool.reads);
                p.qtimes.extend(pool.qtimes);
                p.lags.extend(pool.lags);
                cells.push(cell);
                n += 1;
                pb.inc(1);
            }
        }
    }
    pb.finish_and_clear();

    // Exact count on the leader after a hard commit.
    ctx.writer
        .commit(Commit::default())
        .await
        .context("final commit")?;
    let q = seedkit::prefix_query(&ctx.prefix);
    let found = match ctx.replicas.iter().find(|(r, _)| r.leader) {
        Some((_, c)) => core_count(c, &q).await?,
        None => seedkit::count(&ctx.direct[0].2, &q).await?,
    };
    let acknowledged = ctx.acked.load(Ordering::Relaxed);
    let check = CountCheck {
        acknowledged,
        found,
        ok: found == acknowledged,
    };

    let mut rows = Vec::new();
    for (li, level) in levels.iter().enumerate() {
        for (pi, pref) in prefs.iter().enumerate() {
            let label = level.label();
            let mine: Vec<&Cell> = cells
                .iter()
                .filter(|c| c.level == label && c.pref == pref.as_str())
                .collect();
            let pool = pools.remove(&(li, pi)).unwrap_or_default();
            let mean = |f: &dyn Fn(&Cell) -> Option<f64>| {
                let v: Vec<f64> = mine.iter().filter_map(|c| f(c)).collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            };
            let reads_on = |node: &str| -> u64 {
                mine.iter()
                    .flat_map(|c| c.nodes.iter())
                    .filter(|nc| nc.node == node)
                    .map(|nc| nc.client_reads)
                    .sum()
            };
            rows.push(Row {
                level: label.clone(),
                pref: pref.as_str().into(),
                docs_per_s: mean(&|c| Some(c.docs_per_s)).unwrap_or(0.0),
                reads: latency(&pool.reads),
                qtime: latency(&pool.qtimes),
                leader_reads: reads_on(ctx.direct[0].0),
                follower_reads: reads_on(ctx.direct[1].0),
                replicas: ctx
                    .replicas
                    .iter()
                    .map(|(r, _)| ReplicaReads {
                        core: r.core.clone(),
                        kind: r.kind.clone(),
                        leader: r.leader,
                        reads: mine
                            .iter()
                            .flat_map(|c| c.replicas.iter())
                            .filter(|x| x.core == r.core)
                            .map(|x| x.client_served)
                            .sum(),
                    })
                    .collect(),
                lag: latency(&pool.lags),
                unseen: mine.iter().map(|c| c.lag.unseen).sum(),
                cpu: Cpu {
                    leader_pct: mean(&|c| c.cpu.leader_pct),
                    follower_pct: mean(&|c| c.cpu.follower_pct),
                    bench_pct: mean(&|c| c.cpu.bench_pct),
                    host_pct: mean(&|c| c.cpu.host_pct),
                    runnable_mean: mean(&|c| c.cpu.runnable_mean),
                    cores: mine.first().map(|c| c.cpu.cores).unwrap_or(0),
                },
            });
        }
    }

    let mut warnings = Vec::new();
    for c in &cells {
        let at = format!("rep {} level {} pref {}", c.rep, c.level, c.pref);
        if c.read_errors > 0 || c.write_errors > 0 {
            warnings.push(format!(
                "{at}: {} searches and {} update requests failed",
                c.read_errors, c.write_errors
            ));
        }
        if c.lag.unseen > 0 {
            warnings.push(format!(
                "{at}: {} probe documents never seen within {} s",
                c.lag.unseen, a.probe_timeout
            ));
        }
        for rc in &c.replicas {
            if rc.solr_served != Some(rc.client_served) {
                warnings.push(format!(
                    "{at}: reads served by {} disagree: client (shards.info) {}, Solr {:?}",
                    rc.core, rc.client_served, rc.solr_served
                ));
            }
            let named = prefs
                .iter()
                .find(|p| p.as_str() == c.pref)
                .and_then(|p| p.replica_type());
            if let Some(t) = named {
                if rc.kind != t && rc.client_served > 0 {
                    warnings.push(format!(
                        "{at}: {} reads served by {} ({}), not a {t} replica",
                        rc.client_served, rc.core, rc.kind
                    ));
                }
            }
        }
        for nc in &c.nodes {
            if nc.client_reads != nc.router_reads
                || nc.solr_select_requests != Some(nc.router_reads)
            {
                warnings.push(format!(
                    "{at}: {} reads disagree: client {}, router {}, Solr {:?}",
                    nc.node, nc.client_reads, nc.router_reads, nc.solr_select_requests
                ));
            }
        }
    }
    if !check.ok {
        warnings.push(format!(
            "{} documents found of {} acknowledged",
            check.found, check.acknowledged
        ));
    }
    let settings = serde_json::json!({
        "collection": a.collection,
        "prefs": prefs.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        "write_rates": levels.iter().map(|l| l.label()).collect::<Vec<_>>(),
        "duration_s": a.duration,
        "reps": a.reps,
        "readers": a.readers,
        "write_batch": a.write_batch,
        "preload": a.preload,
        "rows": a.rows,
        "poll_interval_s": (local && !cloud).then_some(a.poll_interval),
        "hard_commit_ms": local.then_some(a.hard_commit()),
        "soft_commit_ms": local.then_some(a.soft_commit_ms),
        "probe_poll_ms": a.probe_poll_ms,
        "probe_timeout_s": a.probe_timeout,
        "warmup": a.warmup,
        "transport": "pooled",
        "local_pair": local,
        "id_prefix": ctx.prefix,
        "seed": a.seed,
    });
    let seed = prefs
        .iter()
        .map(|p| SeedColumn {
            pref: p.as_str().into(),
            seed_name: p.seed_name().into(),
            seed_result: report::seed_result(*p).into(),
        })
        .collect();
    let mut settings = settings;
    if cloud {
        settings["topology"] = "cloud".into();
        settings["cloud_read_params"] =
            "shortCircuit=false&distrib.singlePass=true&shards.info=true".into();
    }
    let verdict = if cloud {
        report::verdict_cloud(&rows, a)
    } else {
        report::verdict(&rows, a)
    };
    Ok(RoutingReport {
        topology: if cloud { "cloud" } else { "pair" }.into(),
        leader: nodes.leader.clone(),
        follower: nodes.follower.clone(),
        replicas: ctx.replicas.iter().map(|(r, _)| r.clone()).collect(),
        settings,
        cells,
        rows,
        seed,
        check,
        warnings,
        verdict,
    })
}

/// Indexes `--preload` documents through the leader, hard-commits, and waits until the
/// follower has replicated them (so the first cell starts from the same index on both).
async fn preload(ctx: &Ctx<'_>) -> Result<()> {
    let a = ctx.a;
    if a.preload == 0 {
        return Ok(());
    }
    let pb = seedkit::progress(a.quiet, a.preload as u64, "preload");
    let mut gen = Generator::new(a.seed, 0);
    let prefix = format!("{}pre-", ctx.prefix);
    let mut i = 0;
    while i < a.preload {
        let end = (i + 500).min(a.preload);
        let docs: Vec<_> = (i..end).map(|n| gen.doc(&prefix, n)).collect();
        let r = ctx.writer.add(&docs).await.context("preload batch")?;
        ctx.acked.fetch_add(r.docs_sent as u64, Ordering::Relaxed);
        pb.inc((end - i) as u64);
        i = end;
    }
    ctx.writer.commit(Commit::default()).await?;
    pb.finish_and_clear();
    let follower = &ctx.direct[1].2;
    let q = seedkit::prefix_query(&prefix);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let done = if ctx.replicas.is_empty() {
            seedkit::count(follower, &q).await? == a.preload as u64
        } else {
            let mut all = true;
            for (_, c) in &ctx.replicas {
                all &= core_count(c, &q).await? == a.preload as u64;
            }
            all
        };
        if done {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the replicas did not replicate the preload within 120 s");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// What a cell's tasks collect.
#[derive(Default)]
struct Collected {
    /// Measured searches: (wall ms, QTime ms, node).
    searches: Vec<(f64, Option<f64>, String)>,
    read_errors: u64,
    /// Every successful read of the cell (searches and probes), by node.
    reads_by_node: HashMap<String, u64>,
    docs_acked: u64,
    write_errors: u64,
    lag: LagProbe,
    lags: Vec<f64>,
    /// Cloud: reads by the core `shards.info` names as the server.
    served_by_core: HashMap<String, u64>,
}

/// `s` with the cell's extra parameters.
fn with(mut s: Select, extra: &[(String, String)]) -> Select {
    for (k, v) in extra {
        s = s.param(k.clone(), v.clone());
    }
    s
}

/// Runs a search; in the cloud also returns the core `shards.info` names as the one that
/// served it (the only shard's `shardAddress`).
async fn search(
    client: &SolrClient,
    s: &Select,
    cloud: bool,
) -> Result<(solr_client::SelectResponse, Option<String>)> {
    if !cloud {
        return Ok((client.select(s).await?, None));
    }
    let req = client.wire(http::Method::GET, "select", s.params(), RequestKind::Read);
    let resp = client.send_raw(req).await?;
    if !resp.status.is_success() {
        bail!("select answered HTTP {}", resp.status);
    }
    let v: serde_json::Value = serde_json::from_slice(&resp.body).context("select body")?;
    let served = v
        .get("shards.info")
        .and_then(|i| i.as_object())
        .filter(|i| i.len() == 1)
        .and_then(|i| i.values().next())
        .and_then(|x| x.get("shardAddress"))
        .and_then(|x| x.as_str())
        .and_then(|u| u.trim_end_matches('/').rsplit('/').next())
        .map(String::from);
    let mut r: solr_client::SelectResponse =
        serde_json::from_value(v).context("select response")?;
    r.timing = resp.timing;
    Ok((r, served))
}

/// Cloud: per core (received, served) counts of both nodes; None when any is unreadable
/// (and for the pair).
async fn cloud_counts(ctx: &Ctx<'_>) -> Option<HashMap<String, (u64, u64)>> {
    if ctx.replicas.is_empty() {
        return None;
    }
    let mut all = HashMap::new();
    for (_, _, c) in &ctx.direct {
        all.extend(core_counts(c).await.ok()?);
    }
    Some(all)
}

async fn run_cell(
    ctx: &Ctx<'_>,
    rep: usize,
    n: usize,
    level: WriteLevel,
    pref: Pref,
) -> Result<(Cell, Pool)> {
    let a = ctx.a;
    let inner = TransportKind::Pooled.build(&ctx.tls, false)?;
    let cloud = !ctx.replicas.is_empty();
    let mut b = Routing::builder(inner).collection(&a.collection);
    if pref != Pref::Client {
        b = b.leader(&ctx.nodes.leader);
    }
    match pref {
        Pref::None | Pref::SolrNrt | Pref::SolrTlog | Pref::SolrPull => {}
        Pref::Client => {
            b = b
                .cloud_seed(&ctx.nodes.leader)
                .read_preference(ReadPreference::NonLeader)
        }
        Pref::Leader => {
            b = b
                .replica(&ctx.nodes.follower)
                .read_preference(ReadPreference::Leader)
        }
        Pref::Follower => {
            b = b
                .replica(&ctx.nodes.follower)
                .read_preference(ReadPreference::NonLeader)
        }
    }
    let router = Arc::new(b.build()?);
    let reader = client_over(router.clone(), &a.collection)?;
    // Cloud: the parameters that make a preference take effect and name the serving replica.
    let extra: Vec<(String, String)> = if cloud {
        let mut v: Vec<(String, String)> = vec![
            ("shortCircuit".into(), "false".into()),
            ("distrib.singlePass".into(), "true".into()),
            ("shards.info".into(), "true".into()),
        ];
        if let Some(t) = pref.replica_type() {
            v.push(("shards.preference".into(), format!("replica.type:{t}")));
        }
        v
    } else {
        Vec::new()
    };
    let extra = Arc::new(extra);
    let mut gen = Generator::new(a.seed ^ 0x5EED ^ n as u64, 0);
    for _ in 0..a.warmup {
        let (q, _) = gen.query();
        search(&reader, &with(Select::new(q).rows(a.rows), &extra), cloud)
            .await
            .context("warm-up search")?;
    }
    let router_before: HashMap<String, u64> = router
        .node_stats()
        .into_iter()
        .map(|s| (key(&s.node), s.reads))
        .collect();
    let mut solr_before = Vec::new();
    for (_, _, c) in &ctx.direct {
        solr_before.push(select_requests(c).await.ok());
    }
    let cores_before = cloud_counts(ctx).await;

    let col: Arc<Mutex<Collected>> = Arc::default();
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(a.duration);
    let cell_prefix = format!("{}c{n}-", ctx.prefix);
    let mut tasks = Vec::new();
    // The indexer.
    if level != WriteLevel::Rate(0.0) {
        let (w, col) = (ctx.writer.clone(), col.clone());
        let batch = a.write_batch;
        let period = match level {
            WriteLevel::Rate(r) => Some(Duration::from_secs_f64(batch as f64 / r)),
            WriteLevel::Max => None,
        };
        let (prefix, seed) = (format!("{cell_prefix}w-"), a.seed ^ 0x1D ^ n as u64);
        tasks.push(tokio::spawn(async move {
            let mut gen = Generator::new(seed, 0);
            let mut next = Instant::now();
            let mut i = 0;
            loop {
                if let Some(p) = period {
                    if next > Instant::now() {
                        tokio::time::sleep_until(next.into()).await;
                    }
                    next += p;
                }
                if Instant::now() >= deadline {
                    break;
                }
                let docs: Vec<_> = (i..i + batch).map(|k| gen.doc(&prefix, k)).collect();
                i += batch;
                match w.add(&docs).await {
                    Ok(r) => lock(&col).docs_acked += r.docs_sent as u64,
                    Err(_) => lock(&col).write_errors += 1,
                }
            }
        }));
    }
    // Readers (closed loop).
    for t in 0..a.readers {
        let (r, col, extra) = (reader.clone(), col.clone(), extra.clone());
        let (seed, rows) = (a.seed ^ ((n as u64) << 8) ^ t as u64, a.rows);
        tasks.push(tokio::spawn(async move {
            let mut gen = Generator::new(seed, 0);
            while Instant::now() < deadline {
                let (q, fq) = gen.query();
                let s = Select::new(q).rows(rows);
                let s = match fq {
                    Some(f) => s.fq(f),
                    None => s,
                };
                let s = with(s, &extra);
                let t0 = Instant::now();
                let res = search(&r, &s, cloud).await;
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                let mut c = lock(&col);
                match res {
                    Ok((resp, served)) => {
                        let node = key(&resp.timing.node);
                        *c.reads_by_node.entry(node.clone()).or_default() += 1;
                        if let Some(core) = served {
                            *c.served_by_core.entry(core).or_default() += 1;
                        }
                        c.searches
                            .push((ms, resp.header.qtime.map(f64::from), node));
                    }
                    Err(_) => c.read_errors += 1,
                }
            }
        }));
    }
    // The lag prober: add one document through the leader, search for it through the
    // preference under test until found; then the next one, until the deadline.
    {
        let (w, r, col) = (ctx.writer.clone(), reader.clone(), col.clone());
        let extra = extra.clone();
        let prefix = format!("{cell_prefix}p-");
        let poll = Duration::from_millis(a.probe_poll_ms);
        let timeout = Duration::from_secs_f64(a.probe_timeout);
        let seed = a.seed ^ 0x9B ^ n as u64;
        tasks.push(tokio::spawn(async move {
            let mut gen = Generator::new(seed, 0);
            let mut i = 0;
            while Instant::now() < deadline {
                let id = format!("{prefix}{i}");
                let doc = gen.doc(&prefix, i);
                i += 1;
                let acked_at = match w.add(std::slice::from_ref(&doc)).await {
                    Ok(_) => Instant::now(),
                    Err(_) => {
                        lock(&col).write_errors += 1;
                        tokio::time::sleep(poll).await;
                        continue;
                    }
                };
                lock(&col).lag.probes += 1;
                let s = with(
                    Select::new(format!("{{!terms f=id}}{id}")).fl("id").rows(1),
                    &extra,
                );
                loop {
                    let sent = Instant::now();
                    let res = search(&r, &s, cloud).await;
                    let done = {
                        let mut c = lock(&col);
                        c.lag.reads += 1;
                        let mut found = false;
                        match res {
                            Ok((resp, served)) => {
                                *c.reads_by_node.entry(key(&resp.timing.node)).or_default() += 1;
                                if let Some(core) = served {
                                    *c.served_by_core.entry(core).or_default() += 1;
                                }
                                if resp.num_found() > 0 {
                                    c.lag.seen += 1;
                                    let s = sent.saturating_duration_since(acked_at).as_secs_f64();
                                    c.lags.push(s * 1e3);
                                    found = true;
                                }
                            }
                            Err(_) => c.read_errors += 1,
                        }
                        if !found && acked_at.elapsed() > timeout {
                            c.lag.unseen += 1;
                            found = true;
                        }
                        found
                    };
                    if done {
                        break;
                    }
                    tokio::time::sleep(poll).await;
                }
            }
        }));
    }
    for t in tasks {
        t.await.context("a cell task panicked")?;
    }
    let end = Instant::now();
    let duration_s = a.duration;
    let c = std::mem::take(&mut *lock(&col));

    let mut solr_after = Vec::new();
    for (_, _, cl) in &ctx.direct {
        solr_after.push(select_requests(cl).await.ok());
    }
    let cores_after = cloud_counts(ctx).await;
    let replicas = ctx
        .replicas
        .iter()
        .map(|(r, _)| {
            let d = |f: fn(&(u64, u64)) -> u64| match (
                cores_before.as_ref().and_then(|m| m.get(&r.core)),
                cores_after.as_ref().and_then(|m| m.get(&r.core)),
            ) {
                (Some(b), Some(a)) => Some(f(a).saturating_sub(f(b))),
                _ => None,
            };
            ReplicaCell {
                core: r.core.clone(),
                kind: r.kind.clone(),
                node: r.node.clone(),
                client_served: c.served_by_core.get(&r.core).copied().unwrap_or(0),
                solr_served: d(|x| x.1),
                solr_received: d(|x| x.0),
            }
        })
        .collect();
    let router_after: HashMap<String, u64> = router
        .node_stats()
        .into_iter()
        .map(|s| (key(&s.node), s.reads))
        .collect();
    let mut nodes = Vec::new();
    for (i, (name, url, _)) in ctx.direct.iter().enumerate() {
        let mine: Vec<&(f64, Option<f64>, String)> =
            c.searches.iter().filter(|(_, _, n)| n == url).collect();
        let wall: Vec<f64> = mine.iter().map(|s| s.0).collect();
        let qt: Vec<f64> = mine.iter().filter_map(|s| s.1).collect();
        nodes.push(NodeCell {
            node: (*name).into(),
            url: url.clone(),
            client_reads: c.reads_by_node.get(url).copied().unwrap_or(0),
            router_reads: router_after.get(url).copied().unwrap_or(0)
                - router_before.get(url).copied().unwrap_or(0),
            solr_select_requests: match (solr_before[i], solr_after[i]) {
                (Some(b), Some(a)) => Some(a.saturating_sub(b)),
                _ => None,
            },
            searches: mine.len() as u64,
            wall: latency(&wall),
            qtime: latency(&qt),
        });
    }
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let [ls, fs, bs] = &ctx.samplers;
    let (lu, fu, bu) = (
        ls.usage(start, end),
        fs.usage(start, end),
        bs.usage(start, end),
    );
    let cpu = Cpu {
        leader_pct: lu.proc_cpu_mean,
        follower_pct: fu.proc_cpu_mean,
        bench_pct: bu.proc_cpu_mean,
        host_pct: bu.host_cpu_mean,
        runnable_mean: bu.host_runnable_mean,
        cores,
    };
    let acked = c.docs_acked + c.lag.probes;
    ctx.acked.fetch_add(acked, Ordering::Relaxed);
    let reads: Vec<f64> = c.searches.iter().map(|s| s.0).collect();
    let qtimes: Vec<f64> = c.searches.iter().filter_map(|s| s.1).collect();
    let mut lag = c.lag;
    lag.lag = latency(&c.lags);
    let cell = Cell {
        rep,
        level: level.label(),
        target_docs_per_s: match level {
            WriteLevel::Rate(r) => Some(r),
            WriteLevel::Max => None,
        },
        pref: pref.as_str().into(),
        duration_s,
        reads: latency(&reads),
        read_errors: c.read_errors,
        searches_per_s: reads.len() as f64 / duration_s,
        docs_acked: c.docs_acked,
        docs_per_s: c.docs_acked as f64 / duration_s,
        write_errors: c.write_errors,
        nodes,
        replicas,
        lag,
        cpu,
    };
    Ok((
        cell,
        Pool {
            reads,
            qtimes,
            lags: c.lags,
        },
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn latency_supports_percentiles_by_sample_size() {
        let l = super::latency(&[1.0; 19]);
        assert_eq!((l.n, l.p95_ms, l.p99_ms), (19, None, None));
        let l = super::latency(&(1..=100).map(f64::from).collect::<Vec<_>>());
        assert!(l.p99_ms.is_some() && l.p95_ms.is_some());
        assert!((l.mean_ms - 50.5).abs() < 1e-9);
        // QTime 0 is a value, not 1 microsecond.
        let l = super::latency(&[0.0, 0.0, 0.0, 2.0]);
        assert_eq!((l.n, l.p50_ms, l.max_ms), (4, Some(0.0), Some(2.0)));
    }
}
