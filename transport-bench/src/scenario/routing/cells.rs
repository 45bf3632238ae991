//! The routing grid: every (write level, read preference) cell in turn over shared clients and load.

use crate::scenario::knn::procstat::Sampler;
use crate::seedkit;
use crate::workload::Generator;
use anyhow::{bail, Context, Result};
use solr_client::transport::Routing;
use solr_client::{Commit, SolrClient, TlsOptions, TransportKind};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;

pub(super) struct Ctx<'a> {
    pub(super) a: &'a RoutingConfig,
    pub(super) nodes: &'a Nodes,
    pub(super) tls: TlsOptions,
    /// Cloud: the shard's replicas and a client on each core.
    pub(super) replicas: Vec<(Replica, SolrClient)>,
    pub(super) writer: SolrClient,
    /// Plain clients on each node, for Solr's metrics: (name, url, client).
    pub(super) direct: Vec<(&'static str, String, SolrClient)>,
    pub(super) samplers: [Sampler; 3],
    pub(super) prefix: String,
    pub(super) acked: AtomicU64,
}

/// Raw samples of one row (level, pref), pooled over repetitions.
#[derive(Default)]
pub(super) struct Pool {
    pub(super) reads: Vec<f64>,
    pub(super) qtimes: Vec<f64>,
    pub(super) lags: Vec<f64>,
}

pub(super) async fn run_cells(
    a: &RoutingConfig,
    nodes: &Nodes,
    local: bool,
) -> Result<RoutingReport> {
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
            seed_result: seed_result(*p).into(),
        })
        .collect();
    let mut settings = settings;
    if cloud {
        settings["topology"] = "cloud".into();
        settings["cloud_read_params"] =
            "shortCircuit=false&distrib.singlePass=true&shards.info=true".into();
    }
    let verdict = if cloud {
        verdict_cloud(&rows, a)
    } else {
        verdict(&rows, a)
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
pub(super) async fn preload(ctx: &Ctx<'_>) -> Result<()> {
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
