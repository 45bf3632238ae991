//! [`CloudState`]: what a SolrCloud client knows of its cluster right now (the collections
//! its name resolves to, shard leaders, and the health of every node), from
//! [`SolrClient::cloud_state`].

use std::time::Duration;

use super::SolrClient;
use crate::transport::routing_key;

/// One node as the client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeHealth {
    /// The node's base URL.
    pub node: String,
    /// False while the client has it marked down (a failed connect or check, or absent
    /// from the live nodes): it is skipped, and checked every liveness interval.
    pub up: bool,
    /// True when the latest cluster state lists it among the live nodes.
    pub live: bool,
    /// How many times the client marked it down.
    pub marked_down: u64,
}

/// A snapshot of a SolrCloud client's view of its cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CloudState {
    /// The collection or alias of the client; None for an admin-only client.
    pub collection: Option<String>,
    /// The collections it resolves to (one, or the alias's list in order).
    pub resolved: Vec<String>,
    /// Each shard of the collection writes go to, with its leader's base URL (None while
    /// it has no live leader).
    pub leaders: Vec<(String, Option<String>)>,
    /// Every node seen, in the order first seen.
    pub nodes: Vec<NodeHealth>,
    /// How many times the cluster state was loaded.
    pub refreshes: u64,
    /// How old the cluster state is; None before the first load.
    pub age: Option<Duration>,
}

impl CloudState {
    /// The health of one node (base URL, trailing slash optional).
    pub fn node(&self, base_url: &str) -> Option<&NodeHealth> {
        let key = base_url.trim_end_matches('/');
        self.nodes.iter().find(|n| n.node == key)
    }
}

impl SolrClient {
    /// The cluster as this client sees it now (no request is sent); None unless the client
    /// was built by [`SolrClient::cloud`].
    pub fn cloud_state(&self) -> Option<CloudState> {
        let router = self.cloud_router()?;
        let view = router.view();
        let live = |node: &str| view.live_urls.iter().any(|u| routing_key(u) == node);
        let nodes = router
            .node_stats()
            .into_iter()
            .map(|s| {
                let node = s.node.trim_end_matches('/').to_string();
                NodeHealth {
                    live: live(&node),
                    up: s.up,
                    marked_down: s.marked_down,
                    node,
                }
            })
            .collect();
        let leaders = view
            .shards
            .iter()
            .map(|s| (s.name.clone(), s.leader().map(|r| routing_key(&r.base_url))))
            .collect();
        Some(CloudState {
            collection: router.collection().map(str::to_string),
            resolved: view.resolved.clone(),
            leaders,
            nodes,
            refreshes: router.refreshes(),
            age: router.refreshed_at().map(|t| t.elapsed()),
        })
    }
}
