//! The routing report types: latencies, per-node and per-replica cells, lag probes, per-JVM CPU, rows and the report.

use serde::{Deserialize, Serialize};

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
