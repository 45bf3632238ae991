//! The routing grid: every (write level, read preference) cell in turn over shared clients and load.

use crate::engine::procstat::Sampler;
use crate::engine::workload::Generator;
use anyhow::{bail, Context, Result};
use solr_client::transport::Routing;
use solr_client::{Commit, SolrClient, TlsOptions, TransportKind};
use solr_harness::seedkit;
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

/// Runs the grid: clients and samplers set up, the leader cleared (`local`), the preload,
/// every cell of every repetition, the exact count, and the report.
pub(super) async fn run_cells(
    a: &RoutingConfig,
    nodes: &Nodes,
    local: bool,
) -> Result<RoutingReport> {
    let ctx = Ctx::new(a, nodes).await?;
    if local {
        ctx.writer
            .delete_by_query("*:*")
            .await
            .context("clearing the leader")?;
        ctx.writer.commit(Commit::default()).await?;
    }
    preload(&ctx).await?;
    let (cells, pools) = run_grid(&ctx).await?;
    let check = final_check(&ctx).await?;
    let rows = rows(&ctx, &cells, pools);
    let warnings = warnings(a, &cells, &check);
    let cloud = a.topology == Topology::Cloud;
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
        settings: settings(&ctx, local),
        cells,
        rows,
        seed: seed_columns(&a.prefs()),
        check,
        warnings,
        verdict,
    })
}

impl<'a> Ctx<'a> {
    /// The writer (routed to the leader), a plain client on each node, in the cloud one on
    /// each replica's core (every node answering a ping), and the CPU samplers.
    async fn new(a: &'a RoutingConfig, nodes: &'a Nodes) -> Result<Ctx<'a>> {
        let mut tls = TlsOptions::new();
        if let Some(ca) = &nodes.ca {
            tls = tls.add_ca_pem_file(ca)?;
        }
        let cloud = a.topology == Topology::Cloud;
        let wb =
            Routing::builder(TransportKind::Pooled.build(&tls, false)?).collection(&a.collection);
        let wb = if cloud {
            wb.cloud_seed(&nodes.leader)
        } else {
            wb.leader(&nodes.leader).replica(&nodes.follower)
        };
        let writer = client_over(Arc::new(wb.build()?), &a.collection)?;
        let client_on = |url: &str, collection: &str| -> Result<SolrClient> {
            Ok(solr_harness::auth::apply(SolrClient::builder(url))?
                .collection(collection)
                .tls(tls.clone())
                .transport(TransportKind::Pooled)
                .build()?)
        };
        let (ln, fname) = if cloud {
            ("node1", "node2")
        } else {
            ("leader", "follower")
        };
        let direct = vec![
            (
                ln,
                key(&nodes.leader),
                client_on(&nodes.leader, &a.collection)?,
            ),
            (
                fname,
                key(&nodes.follower),
                client_on(&nodes.follower, &a.collection)?,
            ),
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
        Ok(Ctx {
            a,
            nodes,
            tls,
            replicas,
            writer,
            direct,
            samplers,
            prefix,
            acked: AtomicU64::new(0),
        })
    }
}

/// Every cell of every repetition, levels and preferences rotated per repetition; the raw
/// samples pooled per (level, preference) index.
async fn run_grid(ctx: &Ctx<'_>) -> Result<(Vec<Cell>, HashMap<(usize, usize), Pool>)> {
    let a = ctx.a;
    let (levels, prefs) = (&a.write_rates, &a.prefs());
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
                let (cell, pool) = run_cell(ctx, rep, n, levels[li], prefs[pi]).await?;
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
    Ok((cells, pools))
}

/// The exact count on the leader after a hard commit, against the acknowledged documents.
async fn final_check(ctx: &Ctx<'_>) -> Result<CountCheck> {
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
    Ok(CountCheck {
        acknowledged,
        found,
        ok: found == acknowledged,
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
