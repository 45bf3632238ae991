//! CLUSTERSTATUS -> [`ClusterView`]: live nodes, aliases, and the shards and replicas of
//! the collection (or of every collection of the alias) the client names.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use url::Url;

use super::hash::HashRange;
use super::view::{ClusterView, ReplicaInfo, ReplicaType, ShardInfo};
use crate::error::{Error, Result};
use crate::snippet::snippet;

/// What a parse step needs: the node that answered and the body (for error messages).
struct Ctx<'a> {
    seed: &'a Url,
    body: &'a [u8],
    live_nodes: &'a [String],
}

impl Ctx<'_> {
    fn bad(&self, message: String) -> Error {
        Error::Decode {
            node: crate::redact::node_label(self.seed).into(),
            what: "CLUSTERSTATUS response",
            message: message.into(),
            snippet: snippet(self.body, 200).into(),
        }
    }
}

/// One collection's router and shards.
struct Parsed {
    router: String,
    route_field: Option<String>,
    shards: Vec<ShardInfo>,
}

impl ClusterView {
    /// Parses a CLUSTERSTATUS response for `name` (a collection or an alias; None for an
    /// admin-only view: live nodes and aliases only). `seed` (the node that answered) gives
    /// the URL scheme when a replica lacks `base_url`. A name the cluster does not hold is
    /// [`Error::Decode`].
    pub fn from_cluster_status(name: Option<&str>, body: &[u8], seed: &Url) -> Result<ClusterView> {
        let bad = |m: String| {
            Ctx {
                seed,
                body,
                live_nodes: &[],
            }
            .bad(m)
        };
        let v: Value = serde_json::from_slice(body).map_err(|e| bad(e.to_string()))?;
        let cluster = v
            .get("cluster")
            .ok_or_else(|| bad("no `cluster` object".into()))?;
        let live_nodes = strings(cluster.get("live_nodes"));
        let ctx = Ctx {
            seed,
            body,
            live_nodes: &live_nodes,
        };
        let aliases = parse_aliases(cluster.get("aliases"));
        let resolved: Vec<String> = match name {
            None => Vec::new(),
            Some(n) => aliases
                .get(n)
                .cloned()
                .unwrap_or_else(|| vec![n.to_string()]),
        };
        let collections = cluster.get("collections").and_then(Value::as_object);
        let mut parsed = Vec::with_capacity(resolved.len());
        for c in &resolved {
            let coll = collections
                .and_then(|m| m.get(c))
                .ok_or_else(|| ctx.bad(format!("collection {c:?} not in the cluster state")))?;
            parsed.push(parse_collection(&ctx, c, coll)?);
        }
        let live_urls = live_nodes
            .iter()
            .filter_map(|n| url_of_node_name(n, seed.scheme()))
            .collect();
        Ok(assemble(
            name, parsed, resolved, live_nodes, live_urls, aliases,
        ))
    }
}

/// The view from its parsed parts: the first collection is the one writes go to.
fn assemble(
    name: Option<&str>,
    parsed: Vec<Parsed>,
    resolved: Vec<String>,
    live_nodes: Vec<String>,
    live_urls: Vec<Url>,
    aliases: BTreeMap<String, Vec<String>>,
) -> ClusterView {
    let mut parsed = parsed.into_iter();
    let first = parsed.next().unwrap_or(Parsed {
        router: "compositeId".into(),
        route_field: None,
        shards: Vec::new(),
    });
    ClusterView {
        collection: name.unwrap_or_default().to_string(),
        cloud: true,
        router: first.router,
        route_field: first.route_field,
        shards: first.shards,
        live_nodes,
        live_urls,
        resolved,
        alias_shards: parsed.flat_map(|p| p.shards).collect(),
        aliases,
    }
}

/// `aliases`: `{"name": "c1,c2"}` (Solr sends a comma-separated string; a list is taken too).
fn parse_aliases(v: Option<&Value>) -> BTreeMap<String, Vec<String>> {
    let Some(map) = v.and_then(Value::as_object) else {
        return BTreeMap::new();
    };
    map.iter()
        .map(|(alias, cols)| {
            let list = match cols {
                Value::String(s) => s
                    .split(',')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect(),
                other => strings(Some(other)),
            };
            (alias.clone(), list)
        })
        .collect()
}

/// The strings of a JSON array (others skipped).
fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// One collection: router, `router.field`, shards.
fn parse_collection(ctx: &Ctx<'_>, name: &str, coll: &Value) -> Result<Parsed> {
    let router = coll.get("router");
    let field = |k: &str| router.and_then(|r| r.get(k)).and_then(Value::as_str);
    let shards_obj = coll
        .get("shards")
        .and_then(Value::as_object)
        .ok_or_else(|| ctx.bad(format!("{name}: no `shards` object")))?;
    let shards = shards_obj
        .iter()
        .map(|(s, v)| parse_shard(ctx, name, s, v))
        .collect::<Result<Vec<_>>>()?;
    Ok(Parsed {
        router: field("name").unwrap_or("compositeId").to_string(),
        route_field: field("field").map(str::to_string),
        shards,
    })
}

/// One shard: range, state, replicas.
fn parse_shard(ctx: &Ctx<'_>, collection: &str, name: &str, s: &Value) -> Result<ShardInfo> {
    let range = match s.get("range").and_then(Value::as_str) {
        Some(r) if !r.is_empty() => {
            Some(r.parse::<HashRange>().map_err(|e| ctx.bad(e.to_string()))?)
        }
        _ => None,
    };
    let empty = Map::new();
    let replicas = s
        .get("replicas")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    Ok(ShardInfo {
        name: name.to_string(),
        range,
        active: s.get("state").and_then(Value::as_str) == Some("active"),
        replicas: replicas
            .iter()
            .map(|(rname, r)| parse_replica(ctx, collection, rname, r))
            .collect::<Result<Vec<_>>>()?,
    })
}

/// One replica: core, node, type, leader flag, usable (active on a live node).
fn parse_replica(ctx: &Ctx<'_>, collection: &str, rname: &str, r: &Value) -> Result<ReplicaInfo> {
    let text = |k: &str| r.get(k).and_then(Value::as_str);
    let node_name = text("node_name").unwrap_or("");
    let base_url = match text("base_url") {
        Some(u) => {
            let mut url = Url::parse(u).map_err(|e| ctx.bad(format!("replica {rname}: {e}")))?;
            // User info is never taken from a cluster state (nor shown).
            let _ = url.set_password(None);
            let _ = url.set_username("");
            url
        }
        None => url_of_node_name(node_name, ctx.seed.scheme())
            .ok_or_else(|| ctx.bad(format!("replica {rname}: no base_url or node_name")))?,
    };
    let kind = match text("type") {
        Some("TLOG") => ReplicaType::Tlog,
        Some("PULL") => ReplicaType::Pull,
        _ => ReplicaType::Nrt,
    };
    let leader = text("leader") == Some("true") || r.get("leader") == Some(&Value::Bool(true));
    Ok(ReplicaInfo {
        name: rname.to_string(),
        core: text("core").unwrap_or(collection).to_string(),
        base_url,
        leader,
        usable: text("state") == Some("active") && ctx.live_nodes.iter().any(|n| n == node_name),
        kind,
    })
}

/// `127.0.0.1:8983_solr` -> `http://127.0.0.1:8983/solr`.
pub(crate) fn url_of_node_name(node_name: &str, scheme: &str) -> Option<Url> {
    let (host, ctx) = node_name.split_once('_')?;
    Url::parse(&format!("{scheme}://{host}/{}", ctx.replace("%2F", "/"))).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn status() -> Vec<u8> {
        json!({"cluster":{
            "live_nodes":["127.0.0.1:1_solr","127.0.0.1:2_solr"],
            "aliases":{"both":"new,old","one":"new"},
            "collections":{
                "old":{"router":{"name":"compositeId"},"shards":{"shard1":{"range":"80000000-7fffffff","state":"active","replicas":{
                    "r1":{"core":"old_shard1_replica_n1","node_name":"127.0.0.1:1_solr","state":"active","leader":"true"}}}}},
                "new":{"router":{"name":"implicit","field":"route_s"},"shards":{"a":{"state":"active","replicas":{
                    "r2":{"core":"new_a_replica_n1","node_name":"127.0.0.1:2_solr","state":"active","leader":"true","type":"TLOG"}}}}}
            }}})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn aliases_resolve_writes_to_the_first_collection_reads_to_all() {
        let seed = Url::parse("http://127.0.0.1:1/solr").expect("url");
        let v = ClusterView::from_cluster_status(Some("both"), &status(), &seed).expect("parses");
        assert!(v.is_alias());
        assert_eq!(v.resolved, vec!["new".to_string(), "old".to_string()]);
        assert_eq!(
            (v.router.as_str(), v.route_field.as_deref()),
            ("implicit", Some("route_s"))
        );
        assert_eq!(v.shards[0].replicas[0].core, "new_a_replica_n1");
        assert_eq!(v.shards[0].replicas[0].kind, ReplicaType::Tlog);
        let cores: Vec<&str> = v.read_replicas().map(|r| r.core.as_str()).collect();
        assert_eq!(cores, vec!["new_a_replica_n1", "old_shard1_replica_n1"]);
        let one = ClusterView::from_cluster_status(Some("one"), &status(), &seed).expect("parses");
        assert_eq!((one.resolved.len(), one.alias_shards.len()), (1, 0));
        let plain =
            ClusterView::from_cluster_status(Some("old"), &status(), &seed).expect("parses");
        assert!(!plain.is_alias());
        assert_eq!(
            plain.aliases["both"],
            vec!["new".to_string(), "old".to_string()]
        );
    }

    #[test]
    fn an_admin_only_view_has_live_nodes_and_no_shards() {
        let seed = Url::parse("https://127.0.0.1:1/solr").expect("url");
        let v = ClusterView::from_cluster_status(None, &status(), &seed).expect("parses");
        assert!(v.shards.is_empty() && v.resolved.is_empty());
        let urls: Vec<&str> = v.live_urls.iter().map(Url::as_str).collect();
        assert_eq!(
            urls,
            vec!["https://127.0.0.1:1/solr", "https://127.0.0.1:2/solr"]
        );
        assert_eq!(v.nodes().len(), 2);
        let missing = ClusterView::from_cluster_status(Some("gone"), &status(), &seed);
        assert!(matches!(missing, Err(Error::Decode { .. })));
    }
}
