//! Planning: which node (and, for a SolrCloud update, which core) each attempt of a request
//! goes to. Writes go to the leader of the shard their route key names or hashes to (the
//! body is never read); reads go tier by tier through the replicas the [`ReplicaPreference`](super::ReplicaPreference)
//! prefers, each tier ordered by the [`Policy`](super::Policy). Also the shard lookups the
//! client asks before sending a batch ([`Routing::shard_of`], [`Routing::split_by_shard`],
//! [`Transport::shard_groups`](crate::transport::Transport::shard_groups)), which share one
//! grouping (`by_shard`).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use url::Url;

use super::nodes::{Availability, NodeState};
use super::Routing;
use crate::error::{Error, Result};
use crate::transport::cloud::{ClusterView, ReplicaInfo, ShardInfo};
use crate::transport::{ReplicaAddr, RequestKind, RouteKey, ShardGroup, WireRequest};
use crate::types::Document;

/// Where one attempt goes.
#[derive(Debug, Clone)]
pub(super) struct Target {
    pub(super) node: Arc<NodeState>,
    /// Core to put in the path instead of the collection (SolrCloud updates).
    pub(super) core: Option<String>,
}

impl Routing {
    /// The shard name of `doc` in the current view (SolrCloud compositeId hashing).
    pub fn shard_of(&self, doc: &Document) -> Result<String> {
        Ok(self.view().shard_for(doc)?.name.clone())
    }

    /// Splits a batch into one batch per shard (in shard order), so that each can be sent
    /// straight to its shard leader, as SolrJ's `CloudSolrClient` does.
    pub fn split_by_shard(&self, docs: Vec<Document>) -> Result<Vec<(String, Vec<Document>)>> {
        let view = self.view();
        by_shard(&view, docs, |d| view.shard_for(d))
    }

    /// The shard a write goes to, from its route key alone (the body is never read):
    /// [`RouteKey::Shard`] names it; [`RouteKey::Ids`] picks the shard holding most of the
    /// ids (compositeId hashing); without a key (commit, delete-by-query: Solr distributes
    /// them), or when the key names no active shard, the first active shard.
    pub(super) fn write_shard<'a>(
        &self,
        view: &'a ClusterView,
        req: &WireRequest,
    ) -> Result<&'a ShardInfo> {
        let active: Vec<&ShardInfo> = view.shards.iter().filter(|s| s.active).collect();
        let first = *active
            .first()
            .ok_or_else(|| Error::no_node(format!("{} has no active shard", view.collection)))?;
        if active.len() == 1 {
            return Ok(first);
        }
        let chosen = match &req.route {
            Some(RouteKey::Shard(name)) => active.iter().copied().find(|s| &s.name == name),
            Some(RouteKey::Ids(ids)) if hashes_ids(view) => {
                let mut counts: Vec<(usize, &ShardInfo)> = Vec::new();
                for id in ids {
                    if let Ok(s) = view.shard_for_key(id) {
                        match counts.iter_mut().find(|(_, x)| x.name == s.name) {
                            Some((c, _)) => *c += 1,
                            None => counts.push((1, s)),
                        }
                    }
                }
                // The first of the most-held shards (max_by_key would take the last).
                let most = counts.iter().map(|(c, _)| *c).max().unwrap_or(0);
                counts.into_iter().find(|(c, _)| *c == most).map(|(_, s)| s)
            }
            _ => None,
        };
        Ok(chosen.unwrap_or(first))
    }

    /// Groups route ids by shard in the current view (refreshed first when stale); `None`
    /// when the ids do not decide the shard (standalone, implicit router, `router.field`,
    /// a hash no active shard serves) or the view cannot be loaded: the request then goes
    /// as one, and Solr forwards what is not the receiving leader's.
    pub(super) async fn group_ids(&self, ids: &[String]) -> Option<Vec<ShardGroup>> {
        if !self.cloud || ids.is_empty() {
            return None;
        }
        if self.view_too_old() || self.stale.load(Ordering::Acquire) {
            let seen = self.refreshes();
            let _ = self.refresh_with(seen).await;
        }
        let view = self.view();
        if !hashes_ids(&view) {
            return None;
        }
        let groups = by_shard(&view, 0..ids.len(), |&i| view.shard_for_key(&ids[i])).ok()?;
        Some(
            groups
                .into_iter()
                .map(|(shard, members)| ShardGroup { shard, members })
                .collect(),
        )
    }

    /// The ordered attempts for `req`.
    pub(super) fn plan(&self, req: &WireRequest) -> Result<Vec<Target>> {
        let view = self.view();
        if req.kind == RequestKind::Write {
            return self.plan_write(&view, req);
        }
        if let Some(RouteKey::Replicas(replicas)) = &req.route {
            return self.plan_replicas(replicas);
        }
        let node_level = !req.path.starts_with(&format!("{}/", view.collection));
        if req.kind == RequestKind::Admin && (node_level || view.shards.is_empty()) {
            // Node-level admin (Collections API, system info): any node, up ones first.
            let mut nodes: Vec<Url> = view.nodes();
            nodes.extend(
                self.seeds
                    .iter()
                    .filter(|s| !nodes.contains(s))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
            return self.targets(vec![nodes]);
        }
        let replicas: Vec<&ReplicaInfo> = view.read_replicas().collect();
        let usable: Vec<&ReplicaInfo> = if replicas.iter().any(|r| r.usable) {
            replicas.into_iter().filter(|r| r.usable).collect()
        } else {
            replicas
        };
        let tiers = self
            .preference
            .tiers()
            .iter()
            .map(|pred| distinct_nodes(usable.iter().copied().filter(|r| pred(r))))
            .collect();
        self.targets(tiers)
            .map_err(|_| Error::no_node(format!("{} has no replica", view.collection)))
    }

    /// A write: the leader (node and core) of its shard.
    fn plan_write(&self, view: &ClusterView, req: &WireRequest) -> Result<Vec<Target>> {
        let shard = self.write_shard(view, req)?;
        let leader = shard.leader().ok_or_else(|| {
            Error::no_node(format!(
                "shard {} of {} has no live leader",
                shard.name, view.collection
            ))
        })?;
        Ok(vec![Target {
            node: self.pool.get(&leader.base_url),
            core: view.cloud.then(|| leader.core.clone()),
        }])
    }

    /// A read pinned to replicas: each in the order given, those on nodes that are not
    /// marked down first; none is [`Error::NoNode`].
    fn plan_replicas(&self, replicas: &[ReplicaAddr]) -> Result<Vec<Target>> {
        let now = std::time::Instant::now();
        let mut targets: Vec<Target> = replicas
            .iter()
            .map(|r| Target {
                node: self.pool.get(&r.base_url),
                core: Some(r.core.clone()),
            })
            .collect();
        targets.sort_by_key(|t| t.node.availability(now) == Availability::Down);
        if targets.is_empty() {
            return Err(Error::no_node("a pinned read names no replica"));
        }
        Ok(targets)
    }

    /// Targets tier by tier, each node once (in its first tier), each tier ordered by the
    /// policy. No node at all is [`Error::NoNode`].
    fn targets(&self, tiers: Vec<Vec<Url>>) -> Result<Vec<Target>> {
        let mut seen: Vec<Url> = Vec::new();
        let mut out = Vec::new();
        for tier in tiers {
            let mut fresh: Vec<Arc<NodeState>> = Vec::new();
            for u in tier {
                if !seen.contains(&u) {
                    fresh.push(self.pool.get(&u));
                    seen.push(u);
                }
            }
            let ordered = self.pool.order(fresh, self.policy);
            out.extend(ordered.into_iter().map(|node| Target { node, core: None }));
        }
        if out.is_empty() {
            return Err(Error::no_node("no node is known"));
        }
        Ok(out)
    }
}

/// The distinct node URLs of `replicas`, in order.
fn distinct_nodes<'a>(replicas: impl Iterator<Item = &'a ReplicaInfo>) -> Vec<Url> {
    let mut v: Vec<Url> = Vec::new();
    for r in replicas {
        if !v.contains(&r.base_url) {
            v.push(r.base_url.clone());
        }
    }
    v
}

/// True when a document's shard follows from its id: a compositeId collection hashing the
/// uniqueKey (no `router.field`).
fn hashes_ids(view: &ClusterView) -> bool {
    view.cloud && view.router == "compositeId" && view.route_field.is_none()
}

/// Groups `items` by the shard `shard_of` maps each to, groups in the view's shard order and
/// items in their own order within a group; the first lookup error is returned.
fn by_shard<'v, T>(
    view: &'v ClusterView,
    items: impl IntoIterator<Item = T>,
    shard_of: impl Fn(&T) -> Result<&'v ShardInfo>,
) -> Result<Vec<(String, Vec<T>)>> {
    let mut out: Vec<(String, Vec<T>)> = Vec::new();
    for item in items {
        let name = &shard_of(&item)?.name;
        match out.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => v.push(item),
            None => out.push((name.clone(), vec![item])),
        }
    }
    let order = |n: &str| view.shards.iter().position(|s| s.name == n);
    out.sort_by_key(|(n, _)| order(n));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::composite_id_hash;

    /// Two active shards: shard1 owns the negative hashes, shard2 the others.
    fn two_shards() -> ClusterView {
        let status = serde_json::json!({"cluster":{
        "live_nodes":["127.0.0.1:1_solr"],
        "collections":{"bench":{"router":{"name":"compositeId"},"shards":{
            "shard1":{"range":"80000000-ffffffff","state":"active","replicas":{
                "n1":{"core":"bench_shard1_replica_n1","node_name":"127.0.0.1:1_solr","type":"NRT","state":"active","leader":"true"}}},
            "shard2":{"range":"0-7fffffff","state":"active","replicas":{
                "n2":{"core":"bench_shard2_replica_n2","node_name":"127.0.0.1:1_solr","type":"NRT","state":"active","leader":"true"}}}
        }}}}});
        let seed = Url::parse("http://127.0.0.1:1/solr").expect("url");
        ClusterView::from_cluster_status(Some("bench"), status.to_string().as_bytes(), &seed)
            .expect("parses")
    }

    #[test]
    fn documents_and_ids_are_grouped_by_one_rule() {
        let view = two_shards();
        let ids: Vec<String> = (0..12).map(|i| format!("doc-{i}")).collect();
        let want = |id: &str| {
            if composite_id_hash(id) < 0 {
                "shard1"
            } else {
                "shard2"
            }
        };
        // Ids (as `shard_groups` groups them): shard order, input order inside a group.
        let by_index = by_shard(&view, 0..ids.len(), |&i| view.shard_for_key(&ids[i])).expect("ok");
        assert_eq!(by_index.len(), 2, "both shards are hit by 12 ids");
        assert_eq!(
            (by_index[0].0.as_str(), by_index[1].0.as_str()),
            ("shard1", "shard2")
        );
        for (shard, members) in &by_index {
            assert!(members.windows(2).all(|w| w[0] < w[1]));
            assert!(members.iter().all(|&i| want(&ids[i]) == shard));
        }
        assert_eq!(
            by_index.iter().map(|(_, m)| m.len()).sum::<usize>(),
            ids.len()
        );
        // Documents (as `split_by_shard` splits them): the same groups.
        let docs: Vec<Document> = ids
            .iter()
            .map(|id| {
                let mut d = Document::new();
                d.insert("id".into(), serde_json::json!(id));
                d
            })
            .collect();
        let by_doc = by_shard(&view, docs, |d| view.shard_for(d)).expect("ok");
        let doc_ids: Vec<(String, Vec<String>)> = by_doc
            .into_iter()
            .map(|(s, ds)| {
                (
                    s,
                    ds.iter()
                        .map(|d| d["id"].as_str().expect("id").to_string())
                        .collect(),
                )
            })
            .collect();
        let index_ids: Vec<(String, Vec<String>)> = by_index
            .into_iter()
            .map(|(s, m)| (s, m.into_iter().map(|i| ids[i].clone()).collect()))
            .collect();
        assert_eq!(doc_ids, index_ids);
        // The first lookup error is the result.
        let no_id = by_shard(&view, vec![Document::new()], |d| view.shard_for(d));
        assert!(no_id.is_err());
    }
}
