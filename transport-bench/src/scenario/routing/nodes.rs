//! The nodes a routing run reads from: the leader/follower pair or the cloud shard's replicas, their clients and per-core counts.

use anyhow::{bail, Context, Result};
use solr_client::transport::Routing;
use solr_client::{RequestKind, Select, SolrClient};
use solr_harness::seedkit;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::*;

#[derive(Debug)]
pub(super) struct Nodes {
    pub(super) leader: String,
    pub(super) follower: String,
    pub(super) leader_pid: Option<u32>,
    pub(super) follower_pid: Option<u32>,
    pub(super) ca: Option<PathBuf>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn key(u: &str) -> String {
    u.trim_end_matches('/').to_string()
}

/// A client whose every request goes through `router`.
pub(super) fn client_over(router: Arc<Routing>, collection: &str) -> Result<SolrClient> {
    Ok(
        solr_harness::auth::apply(SolrClient::builder("http://127.0.0.1:9/solr"))?
            .collection(collection)
            .custom_transport(router)
            .build()?,
    )
}

/// Solr's `QUERY./select.requests` summed over the node's cores.
pub(super) async fn select_requests(client: &SolrClient) -> Result<u64> {
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
pub(super) async fn core_counts(client: &SolrClient) -> Result<HashMap<String, (u64, u64)>> {
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
pub(super) async fn discover(
    client: &SolrClient,
    a: &RoutingConfig,
    nodes: &Nodes,
) -> Result<Vec<Replica>> {
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
pub(super) async fn core_count(client: &SolrClient, q: &str) -> Result<u64> {
    let r = client
        .select(&Select::new(q).rows(0).param("distrib", "false"))
        .await
        .with_context(|| format!("counting {q}"))?;
    Ok(r.num_found())
}

/// Cloud: per core (received, served) counts of both nodes; None when any is unreadable
/// (and for the pair).
pub(super) async fn cloud_counts(ctx: &Ctx<'_>) -> Option<HashMap<String, (u64, u64)>> {
    if ctx.replicas.is_empty() {
        return None;
    }
    let mut all = HashMap::new();
    for (_, _, c) in &ctx.direct {
        all.extend(core_counts(c).await.ok()?);
    }
    Some(all)
}
