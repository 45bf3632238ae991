//! `/export` through a SolrCloud client: `/export` answers from the one core it reaches,
//! never distributed, so a collection of several shards is exported as SolrJ's
//! `CloudSolrStream` does: one `/export` per shard, each on one active replica of it
//! (`<core>/export` with `distrib=false`, the replicas from the client's cluster view), the
//! streams merged by the sort ([`super::shard_merge`]).
//!
//! The shards are opened together and each one's first tuple is read before
//! [`SolrClient::export_as`] returns: a replica that fails until then (no connection, an
//! error answer other than Solr refusing the request, a body that breaks before its first
//! tuple) is replaced by the next replica of its shard. After that a shard's failure is an
//! [`Error::ExportIncomplete`] from the stream.

use std::sync::Arc;

use http::Method;
use serde::de::{DeserializeOwned, IgnoredAny};

use super::shard_merge::{decode_keyed, ShardMerge, ShardReader};
use super::sort_key::SortSpec;
use super::{Export, Tuples};
use crate::client::SolrClient;
use crate::error::{Error, Result};
use crate::transport::{routing_key as node_key, ReplicaAddr, RequestKind, RouteKey, Routing};
use crate::transport::{ReplicaInfo, ShardInfo};

/// One shard to export: its name and its active replicas, most preferred first.
struct ShardPlan {
    name: String,
    replicas: Vec<ReplicaAddr>,
}

impl SolrClient {
    /// The export merged from every shard, for a SolrCloud client exporting its own
    /// collection (or alias); None for any other name (a core, another collection: sent as
    /// one request).
    pub(super) async fn export_cloud<T: DeserializeOwned>(
        &self,
        router: &Arc<Routing>,
        export: &Export,
    ) -> Result<Option<Tuples<T>>> {
        let name = export.collection.as_deref().unwrap_or(self.collection());
        if router.collection() != Some(name) {
            return Ok(None);
        }
        let spec = SortSpec::parse(&export.sort)?;
        if router.refreshed_at().is_none() {
            router.refresh().await?;
        }
        // The view and the preference's tiers (closures that are not `Send`) are dropped
        // before the first await below: the future stays `Send`, so an application can
        // spawn it.
        let plans = {
            let view = router.view();
            let tiers = router.replica_preference().tiers();
            let tier = |r: &ReplicaInfo| tiers.iter().position(|t| t(r)).unwrap_or(usize::MAX);
            shard_plans(&view.shards, &view.alias_shards, name, &tier)?
        };
        let opened =
            futures::future::try_join_all(plans.iter().map(|p| self.open_shard(p, export, &spec)))
                .await?;
        Ok(Some(Tuples::merged(ShardMerge::new(spec, opened))))
    }

    /// Opens one shard's `/export` and reads its first tuple, on its replicas in turn until
    /// one gets that far.
    async fn open_shard(
        &self,
        plan: &ShardPlan,
        export: &Export,
        spec: &SortSpec,
    ) -> Result<ShardReader> {
        let mut order = plan.replicas.clone();
        let mut last = None;
        for _ in 0..order.len() {
            let mut params = export.params();
            params.push(("distrib".into(), "false".into()));
            let mut req = self.wire(Method::GET, "export", params, RequestKind::Read);
            // The router puts the replica's core in place of the collection.
            req.route = Some(RouteKey::Replicas(order.clone()));
            let failed_on = match self.tuples::<IgnoredAny>(req).await {
                Ok(mut t) => {
                    let node = t.timing().node.clone();
                    let decode = |b: &[u8], n: &str, s: u16| decode_keyed(spec, b, n, s);
                    let first = futures::future::poll_fn(|cx| t.poll_decoded(cx, &decode)).await;
                    match first.transpose() {
                        Ok(first) => {
                            return Ok(ShardReader::new(plan.name.clone(), node, t, first))
                        }
                        Err(e) if final_error(&e) => return Err(e),
                        Err(e) => {
                            last = Some(e);
                            node
                        }
                    }
                }
                Err(e) if final_error(&e) => return Err(e),
                Err(e) => {
                    let node = e.node().unwrap_or_default().to_string();
                    last = Some(e);
                    node
                }
            };
            // The replicas of the node that failed go last.
            order.sort_by_key(|r| node_key(&r.base_url) == node_key_of(&failed_on));
        }
        Err(last.unwrap_or_else(|| no_replica(&plan.name)))
    }
}

/// The base URL text `node` as the router keys it.
fn node_key_of(node: &str) -> String {
    url::Url::parse(node)
        .map(|u| node_key(&u))
        .unwrap_or_else(|_| node.trim_end_matches('/').to_string())
}

/// True for an error another replica would give too: Solr refusing the request itself
/// (a bad sort or field: 400), credentials, or the client's own configuration.
fn final_error(e: &Error) -> bool {
    matches!(
        e,
        Error::Config(_) | Error::InvalidInput(_) | Error::Auth(_) | Error::Unauthorized { .. }
    ) || matches!(e.status(), Some(400 | 401 | 403))
}

fn no_replica(shard: &str) -> Error {
    Error::no_node(format!(
        "shard {shard} has no active replica on a live node: an export would miss its documents"
    ))
}

/// Every active shard of the collection (and of the alias's other collections) with its
/// usable replicas, ordered by `tier` (the client's read preference: by default non-leaders
/// first). A shard without one is [`Error::NoNode`]: an export without it would be
/// incomplete.
fn shard_plans(
    shards: &[ShardInfo],
    alias_shards: &[ShardInfo],
    name: &str,
    tier: &dyn Fn(&ReplicaInfo) -> usize,
) -> Result<Vec<ShardPlan>> {
    let mut plans = Vec::new();
    for s in shards.iter().chain(alias_shards).filter(|s| s.active) {
        let mut usable: Vec<_> = s.replicas.iter().filter(|r| r.usable).collect();
        usable.sort_by_key(|r| tier(r));
        if usable.is_empty() {
            return Err(no_replica(&s.name));
        }
        plans.push(ShardPlan {
            name: s.name.clone(),
            replicas: usable
                .into_iter()
                .map(|r| ReplicaAddr {
                    base_url: r.base_url.clone(),
                    core: r.core.clone(),
                })
                .collect(),
        });
    }
    if plans.is_empty() {
        return Err(Error::no_node(format!("{name} has no active shard")));
    }
    Ok(plans)
}

#[cfg(test)]
mod tests {
    use crate::{Export, SolrClient};

    fn is_send<T: Send>(_: &T) {}

    /// An application spawns its calls (`tokio::spawn` needs `Send` futures): the streamed
    /// calls of a cloud client stay `Send`, the shard merge included.
    #[test]
    fn the_streamed_calls_of_a_cloud_client_are_send() {
        let c = SolrClient::cloud(["http://127.0.0.1:1/solr"])
            .collection("c")
            .build()
            .expect("builds");
        let export = Export::new("*:*");
        is_send(&c.export_as::<serde_json::Value>(&export));
        is_send(&c.stream_as::<serde_json::Value>("search(c)"));
        is_send(&c.sql_as::<serde_json::Value>("SELECT id FROM c"));
        is_send(&c.select(&crate::Select::new("*:*")));
    }
}
