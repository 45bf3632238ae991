//! One routing cell: reads under one preference while indexing runs at one level, with counts, lag probes and CPU.

use crate::engine::workload::Generator;
use anyhow::{bail, Context, Result};
use solr_client::transport::{ReadPreference, Routing};
use solr_client::{RequestKind, Select, SolrClient, TransportKind};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::*;

/// What a cell's tasks collect.
#[derive(Default)]
pub(super) struct Collected {
    /// Measured searches: (wall ms, QTime ms, node).
    pub(super) searches: Vec<(f64, Option<f64>, String)>,
    pub(super) read_errors: u64,
    /// Every successful read of the cell (searches and probes), by node.
    pub(super) reads_by_node: HashMap<String, u64>,
    pub(super) docs_acked: u64,
    pub(super) write_errors: u64,
    pub(super) lag: LagProbe,
    pub(super) lags: Vec<f64>,
    /// Cloud: reads by the core `shards.info` names as the server.
    pub(super) served_by_core: HashMap<String, u64>,
}

/// `s` with the cell's extra parameters.
pub(super) fn with(mut s: Select, extra: &[(String, String)]) -> Select {
    for (k, v) in extra {
        s = s.param(k.clone(), v.clone());
    }
    s
}

/// Runs a search; in the cloud also returns the core `shards.info` names as the one that
/// served it (the only shard's `shardAddress`).
pub(super) async fn search(
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

/// What one cell runs with: its reader (routed by the preference under test), its router,
/// the extra parameters of its searches, and its deadline.
pub(super) struct CellRun {
    pub(super) router: Arc<Routing>,
    pub(super) reader: SolrClient,
    pub(super) extra: Arc<Vec<(String, String)>>,
    pub(super) cloud: bool,
    pub(super) deadline: Instant,
    pub(super) col: Arc<Mutex<Collected>>,
}

/// Counters read before and after a cell: per node, the router's reads and Solr's select
/// requests; in the cloud, each core's (received, served) counts.
struct Counters {
    router: HashMap<String, u64>,
    solr: Vec<Option<u64>>,
    cores: Option<HashMap<String, (u64, u64)>>,
}

impl Counters {
    async fn read(ctx: &Ctx<'_>, router: &Routing) -> Counters {
        let mut solr = Vec::new();
        for (_, _, c) in &ctx.direct {
            solr.push(select_requests(c).await.ok());
        }
        Counters {
            router: router
                .node_stats()
                .into_iter()
                .map(|s| (key(&s.node), s.reads))
                .collect(),
            solr,
            cores: cloud_counts(ctx).await,
        }
    }
}

/// Runs one cell: reads under `pref` while the indexer writes at `level` and the prober
/// measures the visibility lag, for the configured duration.
pub(super) async fn run_cell(
    ctx: &Ctx<'_>,
    rep: usize,
    n: usize,
    level: WriteLevel,
    pref: Pref,
) -> Result<(Cell, Pool)> {
    let a = ctx.a;
    let router = Arc::new(router_for(ctx, pref)?);
    let reader = client_over(router.clone(), &a.collection)?;
    let cloud = !ctx.replicas.is_empty();
    let extra = Arc::new(extra_params(cloud, pref));
    let mut gen = Generator::new(a.seed ^ 0x5EED ^ n as u64, 0);
    for _ in 0..a.warmup {
        let (q, _) = gen.query();
        search(&reader, &with(Select::new(q).rows(a.rows), &extra), cloud)
            .await
            .context("warm-up search")?;
    }
    let before = Counters::read(ctx, &router).await;
    let start = Instant::now();
    let run = CellRun {
        router,
        reader,
        extra,
        cloud,
        deadline: start + Duration::from_secs_f64(a.duration),
        col: Arc::default(),
    };
    let cell_prefix = format!("{}c{n}-", ctx.prefix);
    let mut tasks = Vec::new();
    if level != WriteLevel::Rate(0.0) {
        tasks.push(spawn_indexer(ctx, level, n, &cell_prefix, &run));
    }
    tasks.extend(spawn_readers(a, n, &run));
    tasks.push(spawn_prober(ctx, n, &cell_prefix, &run));
    for t in tasks {
        t.await.context("a cell task panicked")?;
    }
    let end = Instant::now();
    let c = std::mem::take(&mut *lock(&run.col));
    let after = Counters::read(ctx, &run.router).await;
    ctx.acked
        .fetch_add(c.docs_acked + c.lag.probes, Ordering::Relaxed);
    let replicas = replica_cells(ctx, &c, &before, &after);
    let nodes = node_cells(ctx, &c, &before, &after);
    let cpu = cpu(ctx, start, end);
    Ok(cell(a, (rep, level, pref), c, nodes, replicas, cpu))
}

/// The router of a cell: reads routed by `pref` (the client's own choice among the cloud's
/// replicas, the leader, the follower, or as Solr's `shards.preference` decides).
fn router_for(ctx: &Ctx<'_>, pref: Pref) -> Result<Routing> {
    let inner = TransportKind::Pooled.build(&ctx.tls, false)?;
    let mut b = Routing::builder(inner).collection(&ctx.a.collection);
    if pref != Pref::Client {
        b = b.leader(&ctx.nodes.leader);
    }
    b = match pref {
        Pref::None | Pref::SolrNrt | Pref::SolrTlog | Pref::SolrPull => b,
        Pref::Client => b
            .cloud_seed(&ctx.nodes.leader)
            .read_preference(ReadPreference::NonLeader),
        Pref::Leader => b
            .replica(&ctx.nodes.follower)
            .read_preference(ReadPreference::Leader),
        Pref::Follower => b
            .replica(&ctx.nodes.follower)
            .read_preference(ReadPreference::NonLeader),
    };
    Ok(b.build()?)
}

/// Cloud: the parameters that make a preference take effect and name the serving replica.
fn extra_params(cloud: bool, pref: Pref) -> Vec<(String, String)> {
    if !cloud {
        return Vec::new();
    }
    let mut v: Vec<(String, String)> = vec![
        ("shortCircuit".into(), "false".into()),
        ("distrib.singlePass".into(), "true".into()),
        ("shards.info".into(), "true".into()),
    ];
    if let Some(t) = pref.replica_type() {
        v.push(("shards.preference".into(), format!("replica.type:{t}")));
    }
    v
}

/// Each replica's reads in the cell: by `shards.info` (client) and by Solr's counters.
fn replica_cells(
    ctx: &Ctx<'_>,
    c: &Collected,
    before: &Counters,
    after: &Counters,
) -> Vec<ReplicaCell> {
    ctx.replicas
        .iter()
        .map(|(r, _)| {
            let d = |f: fn(&(u64, u64)) -> u64| match (
                before.cores.as_ref().and_then(|m| m.get(&r.core)),
                after.cores.as_ref().and_then(|m| m.get(&r.core)),
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
        .collect()
}

/// Each node's reads in the cell: by the client, the router and Solr, with latencies.
fn node_cells(ctx: &Ctx<'_>, c: &Collected, before: &Counters, after: &Counters) -> Vec<NodeCell> {
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
            router_reads: after.router.get(url).copied().unwrap_or(0)
                - before.router.get(url).copied().unwrap_or(0),
            solr_select_requests: match (before.solr[i], after.solr[i]) {
                (Some(b), Some(a)) => Some(a.saturating_sub(b)),
                _ => None,
            },
            searches: mine.len() as u64,
            wall: latency(&wall),
            qtime: latency(&qt),
        });
    }
    nodes
}

/// CPU of the leader, the follower, this process and the host between `start` and `end`.
fn cpu(ctx: &Ctx<'_>, start: Instant, end: Instant) -> Cpu {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let [ls, fs, bs] = &ctx.samplers;
    let (lu, fu, bu) = (
        ls.usage(start, end),
        fs.usage(start, end),
        bs.usage(start, end),
    );
    Cpu {
        leader_pct: lu.proc_cpu_mean,
        follower_pct: fu.proc_cpu_mean,
        bench_pct: bu.proc_cpu_mean,
        host_pct: bu.host_cpu_mean,
        runnable_mean: bu.host_runnable_mean,
        cores,
    }
}

/// The cell (of repetition, level and preference `at`) and its raw samples.
fn cell(
    a: &RoutingConfig,
    (rep, level, pref): (usize, WriteLevel, Pref),
    c: Collected,
    nodes: Vec<NodeCell>,
    replicas: Vec<ReplicaCell>,
    cpu: Cpu,
) -> (Cell, Pool) {
    let duration_s = a.duration;
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
    let pool = Pool {
        reads,
        qtimes,
        lags: c.lags,
    };
    (cell, pool)
}
