//! The read-routing question: do reads sent to a replica pay once the primary
//! is under write pressure, and what do they cost in staleness?
//!
//! Against the project's leader/follower `pair` (or `--leader`/`--follower` URLs), the same
//! closed-loop read workload runs under each read preference while a paced (or unpaced)
//! indexer writes to the leader, with Solr soft-committing on a short interval (so the leader
//! keeps opening searchers and merging) and hard-committing so the follower's replication
//! poll has something to fetch. Per cell (write level x preference x repetition, interleaved):
//! read p50/p95/p99, QTime per node, reads per node counted three ways (the client's own tally
//! from each response, the [`Routing`](solr_client::transport::Routing) decorator's per-node counters, Solr's
//! `QUERY./select.requests` metric), docs/s achieved, the visibility lag of probe documents
//! read through the preference under test, and the CPU of each Solr JVM, of this process and
//! of the host (with its run queue).
//!
//! Preferences (`--topology pair`): `none` (the client knows only the primary: every read
//! goes to the leader), `leader` ([`ReadPreference::Leader`](solr_client::transport::ReadPreference::Leader): leader first, the follower only
//! as failover) and `follower` ([`ReadPreference::NonLeader`](solr_client::transport::ReadPreference::NonLeader)).
//!
//! `--topology cloud`: a local SolrCloud (node1 + node2) whose collection has one shard with
//! one NRT, one TLOG and one PULL replica; writes go to the shard leader. Every read is sent to
//! node1 (the client's own routing for `client`) with `shortCircuit=false` (otherwise a node
//! hosting any replica of the single shard answers from a local core and ignores
//! `shards.preference`, measured), `distrib.singlePass=true` (one internal sub-request per
//! read) and `shards.info=true` (the response names the replica that served it). Preferences:
//! `none` (Solr picks any replica), `solr-nrt` / `solr-tlog` / `solr-pull`
//! (`shards.preference=replica.type:X`) and `client` (the [`Routing`](solr_client::transport::Routing) decorator with cluster
//! discovery and [`ReadPreference::NonLeader`](solr_client::transport::ReadPreference::NonLeader): it picks a NODE hosting a non-leader replica,
//! and Solr a replica local to that node, leader included when it shares the node). Reads are
//! counted per replica: the client's tally of `shards.info` against the core's
//! `QUERY./select[shard].requests` (the sub-request it served); the top-level request counts
//! in `QUERY./select.requests` of a core on the receiving node.

mod cell;
mod cell_load;
mod cells;
pub mod cli;
mod model;
mod nodes;
mod render;
mod summary;

use cell::*;
use cell_load::*;
use cells::*;
pub use model::*;
use nodes::*;
pub use render::*;
use summary::*;

use std::path::PathBuf;

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use solr_harness::local_solr::Mode;

use crate::engine::local::LocalSolrs;

/// A read preference under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pref {
    /// No routing: the client knows only the leader (primary), every read goes there.
    None,
    /// Routing with [`ReadPreference::Leader`](solr_client::transport::ReadPreference::Leader): reads to the leader, the follower only when
    /// the leader is down.
    Leader,
    /// Routing with [`ReadPreference::NonLeader`](solr_client::transport::ReadPreference::NonLeader): reads to the follower (replica).
    Follower,
    /// Cloud: `shards.preference=replica.type:NRT`.
    SolrNrt,
    /// Cloud: `shards.preference=replica.type:TLOG`.
    SolrTlog,
    /// Cloud: `shards.preference=replica.type:PULL`.
    SolrPull,
    /// Cloud: the client's own routing (cluster discovery, [`ReadPreference::NonLeader`](solr_client::transport::ReadPreference::NonLeader)).
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

/// Runs `routing`: starts the local pair (or cloud) through `local` (which stops it when the
/// run ends) unless URLs are given, and runs every cell.
pub async fn run(a: &RoutingConfig, local_solr: &LocalSolrs) -> Result<RoutingReport> {
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
            Some(local_solr.start(
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
            Some(local_solr.start(
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
    match &local {
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
    }
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
