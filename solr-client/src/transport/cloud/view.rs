//! [`ClusterView`]: who holds what, as the [`Routing`](crate::transport::Routing) decorator sees it.
//!
//! For SolrCloud the view comes from the Collections API over plain HTTP
//! (`admin/collections?action=CLUSTERSTATUS`, any live node answers; parsed in
//! [`super::parse`]); no ZooKeeper client is needed. It lists live nodes, the aliases, the
//! router of the client's collection (`compositeId` or `implicit`, with an optional
//! `router.field`), its shards with their hash ranges and state, and each shard's replicas
//! with core name, node, type, state and the leader flag. A replica counts only while it is
//! `active` and its node is live. When the client's name is an alias, writes go to the
//! alias's first collection (as Solr writes to it) and reads may reach every collection of
//! the alias.
//!
//! A standalone leader/follower pair is the same picture with one shard: the leader is the
//! shard leader and the follower a replica; both hold the core the router was given, so
//! requests keep their path and only the node changes.

use serde_json::Value;
use url::Url;

use super::hash::{composite_id_hash, HashRange};
use crate::error::{Error, Result};
use crate::types::Document;

/// A replica's type in SolrCloud.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplicaType {
    /// NRT: indexes every update itself; can be leader.
    Nrt,
    /// TLOG: keeps a transaction log, copies segments from the leader; can be leader.
    Tlog,
    /// PULL: only copies segments from the leader; serves reads, never leader.
    Pull,
}

/// One copy of a shard.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaInfo {
    /// The replica's name (`core_node3`), or the node name for a standalone pair.
    pub name: String,
    /// The core name (`bench_shard1_replica_n1`; `bench` in the standalone pair).
    pub core: String,
    /// The base URL of the node holding it.
    pub base_url: Url,
    /// True for the shard leader (or the standalone pair's leader).
    pub leader: bool,
    /// True when the replica is `active` and its node is live.
    pub usable: bool,
    /// NRT, TLOG or PULL.
    pub kind: ReplicaType,
}

/// One shard (slice) of a collection.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardInfo {
    /// Shard name, e.g. `shard1`.
    pub name: String,
    /// Its hash range; None for the implicit router and the standalone pair.
    pub range: Option<HashRange>,
    /// True when the shard is `active` (a split parent or a new sub-shard is not).
    pub active: bool,
    /// Its replicas.
    pub replicas: Vec<ReplicaInfo>,
}

impl ShardInfo {
    /// The shard's leader, if it has a usable one.
    pub fn leader(&self) -> Option<&ReplicaInfo> {
        self.replicas.iter().find(|r| r.leader && r.usable)
    }
}

/// A collection's layout.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterView {
    /// The collection (or core) name.
    pub collection: String,
    /// True when the view came from SolrCloud's CLUSTERSTATUS.
    pub cloud: bool,
    /// The router name (`compositeId`, `implicit`); `standalone` for a pair.
    pub router: String,
    /// `router.field`: the field hashed instead of `id`, if configured.
    pub route_field: Option<String>,
    /// The shards, in the order Solr listed them.
    pub shards: Vec<ShardInfo>,
    /// Live node names (`127.0.0.1:8983_solr`).
    pub live_nodes: Vec<String>,
    /// Base URLs of the live nodes (from their names, with the scheme of the node asked).
    pub live_urls: Vec<Url>,
    /// The collections the name resolves to: itself for a collection, the alias's list for
    /// an alias, none for an admin-only view (no collection) or a standalone pair.
    pub resolved: Vec<String>,
    /// The shards of the alias's other collections (reads only; empty unless an alias of
    /// several collections).
    pub alias_shards: Vec<ShardInfo>,
    /// Every alias of the cluster, with its collections in order.
    pub aliases: std::collections::BTreeMap<String, Vec<String>>,
}

impl ClusterView {
    /// A standalone leader with followers: one shard, no hashing, cores named `core`.
    pub fn standalone(collection: &str, leader: Url, followers: Vec<Url>) -> ClusterView {
        let replica = |url: Url, leader: bool| ReplicaInfo {
            name: crate::redact::node_label(&url),
            core: collection.to_string(),
            base_url: url,
            leader,
            usable: true,
            kind: ReplicaType::Nrt,
        };
        let mut replicas = vec![replica(leader, true)];
        replicas.extend(followers.into_iter().map(|u| replica(u, false)));
        ClusterView {
            collection: collection.to_string(),
            cloud: false,
            router: "standalone".into(),
            route_field: None,
            shards: vec![ShardInfo {
                name: "shard1".into(),
                range: None,
                active: true,
                replicas,
            }],
            live_nodes: Vec::new(),
            live_urls: Vec::new(),
            resolved: Vec::new(),
            alias_shards: Vec::new(),
            aliases: Default::default(),
        }
    }

    /// True when the name the view was loaded for is an alias.
    pub fn is_alias(&self) -> bool {
        self.aliases.contains_key(&self.collection)
    }

    /// The replicas a read may reach: those of the collection, and of every other
    /// collection of an alias.
    pub fn read_replicas(&self) -> impl Iterator<Item = &ReplicaInfo> {
        self.shards
            .iter()
            .chain(&self.alias_shards)
            .filter(|s| s.active)
            .flat_map(|s| &s.replicas)
    }

    /// The shard a document belongs to (compositeId: the active shard whose range holds
    /// the hash of its id or `router.field`; a single-shard or standalone view: that shard).
    pub fn shard_for(&self, doc: &Document) -> Result<&ShardInfo> {
        let active: Vec<&ShardInfo> = self.shards.iter().filter(|s| s.active).collect();
        if active.len() == 1 && (active[0].range.is_none() || self.router != "compositeId") {
            return Ok(active[0]);
        }
        if self.router != "compositeId" {
            return Err(Error::invalid_input(format!(
                "router {:?} of {} needs an explicit shard; only compositeId is hashed",
                self.router, self.collection
            )));
        }
        let field = self.route_field.as_deref().unwrap_or("id");
        let key = match doc.get(field) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => {
                return Err(Error::invalid_input(format!(
                    "document has no {field:?}: cannot pick its shard"
                )))
            }
            Some(v) => v.to_string(),
        };
        self.shard_for_key(&key)
    }

    /// The active shard whose hash range holds `composite_id_hash(key)`.
    pub fn shard_for_key(&self, key: &str) -> Result<&ShardInfo> {
        let hash = composite_id_hash(key);
        self.shards
            .iter()
            .filter(|s| s.active)
            .find(|s| s.range.is_some_and(|r| r.includes(hash)))
            .ok_or_else(|| {
                Error::invalid_input(format!(
                    "no active shard of {} serves hash {:x} (id {key:?})",
                    self.collection, hash as u32
                ))
            })
    }

    /// Every distinct node base URL holding a replica (of any collection of an alias),
    /// then the live nodes holding none.
    pub fn nodes(&self) -> Vec<Url> {
        let mut out: Vec<Url> = Vec::new();
        let replicas = self.shards.iter().chain(&self.alias_shards);
        let urls = replicas.flat_map(|s| &s.replicas).map(|r| &r.base_url);
        for u in urls.chain(&self.live_urls) {
            if !out.contains(u) {
                out.push(u.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn status(leader_on_1: bool) -> Vec<u8> {
        json!({"responseHeader":{"status":0,"QTime":1},"cluster":{
            "live_nodes":["127.0.0.1:1_solr","127.0.0.1:2_solr"],
            "collections":{"bench":{"router":{"name":"compositeId"},"shards":{
                "shard1":{"range":"80000000-ffffffff","state":"active","replicas":{
                    "core_node1":{"core":"bench_shard1_replica_n1","node_name":"127.0.0.1:1_solr","type":"NRT","state":"active","leader": if leader_on_1 {"true"} else {"false"}},
                    "core_node2":{"core":"bench_shard1_replica_n2","node_name":"127.0.0.1:2_solr","type":"NRT","state":"active","base_url":"http://127.0.0.1:2/solr"}}},
                "shard2":{"range":"0-7fffffff","state":"active","replicas":{
                    "core_node3":{"core":"bench_shard2_replica_n3","node_name":"127.0.0.1:3_solr","type":"PULL","state":"active"},
                    "core_node4":{"core":"bench_shard2_replica_n4","node_name":"127.0.0.1:2_solr","type":"NRT","state":"active","leader":"true"}}}
            }}}}})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn parses_cluster_status_and_routes_by_hash() {
        let seed = Url::parse("http://127.0.0.1:1/solr").expect("url");
        let v =
            ClusterView::from_cluster_status(Some("bench"), &status(true), &seed).expect("parses");
        assert_eq!(v.shards.len(), 2);
        let s1 = &v.shards[0];
        assert_eq!(
            s1.leader().map(|r| r.core.as_str()),
            Some("bench_shard1_replica_n1")
        );
        assert_eq!(s1.replicas[0].base_url.as_str(), "http://127.0.0.1:1/solr");
        // Node 3 is not live: its replica is not usable.
        assert!(!v.shards[1].replicas[0].usable);
        assert_eq!(v.shards[1].replicas[0].kind, ReplicaType::Pull);
        for id in ["a", "b", "doc-1", "doc-2", "x!y", "tenant/3!doc"] {
            let h = composite_id_hash(id);
            let want = if h < 0 { "shard1" } else { "shard2" };
            let mut doc = Document::new();
            doc.insert("id".into(), json!(id));
            assert_eq!(v.shard_for(&doc).expect("routed").name, want, "id {id}");
        }
        let no_leader =
            ClusterView::from_cluster_status(Some("bench"), &status(false), &seed).expect("parses");
        assert!(no_leader.shards[0].leader().is_none());
        assert!(ClusterView::from_cluster_status(Some("other"), &status(true), &seed).is_err());
        assert!(ClusterView::from_cluster_status(Some("bench"), b"<html>", &seed).is_err());
    }

    #[test]
    fn standalone_is_one_shard() {
        let l = Url::parse("http://127.0.0.1:1/solr").expect("url");
        let f = Url::parse("http://127.0.0.1:2/solr").expect("url");
        let v = ClusterView::standalone("bench", l.clone(), vec![f]);
        let doc = Document::new();
        assert_eq!(
            v.shard_for(&doc)
                .expect("one shard")
                .leader()
                .map(|r| &r.base_url),
            Some(&l)
        );
        assert_eq!(v.nodes().len(), 2);
    }
}
