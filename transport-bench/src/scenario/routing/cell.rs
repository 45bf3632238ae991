//! One routing cell: reads under one preference while indexing runs at one level, with counts, lag probes and CPU.

use crate::workload::Generator;
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

pub(super) async fn run_cell(
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
