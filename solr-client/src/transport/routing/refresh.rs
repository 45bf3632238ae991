//! Loading the SolrCloud view: `CLUSTERSTATUS` from the first node that answers (known nodes
//! that are up first, then the seeds), one refresh at a time; a node the new view does not
//! list as live is marked down. Also the router's own admin requests (signed by
//! [`super::signer`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use http::{HeaderMap, Method};
use url::Url;

use super::nodes::{node_key, NodeState};
use super::{Policy, Routing};
use crate::error::{Error, Result};
use crate::transport::cloud::ClusterView;
use crate::transport::{RequestKind, WireRequest};

impl Routing {
    /// Reloads the SolrCloud view with CLUSTERSTATUS from the first node that answers
    /// (known nodes that are up first, then the seeds). A no-op for a standalone set.
    pub async fn refresh(&self) -> Result<()> {
        self.refresh_with(self.refreshes()).await
    }

    /// Reloads the view unless another refresh happened since `seen` (a request that waited
    /// for the lock gets the view the other one loaded).
    pub(super) async fn refresh_with(&self, seen: u64) -> Result<()> {
        if !self.cloud {
            return Ok(());
        }
        let _guard = self.refresh_lock.lock().await;
        if self.refreshes() != seen {
            return Ok(());
        }
        let mut candidates: Vec<Url> = self.view().nodes();
        for s in &self.seeds {
            if !candidates.contains(s) {
                candidates.push(s.clone());
            }
        }
        let nodes = candidates.iter().map(|u| self.pool.get(u)).collect();
        let mut last = Error::NoNode("no node to ask for the cluster state".into());
        for node in self.pool.order(nodes, Policy::RoundRobin) {
            match self.cluster_status(&node).await {
                Ok(view) => {
                    self.install(view);
                    return Ok(());
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// One CLUSTERSTATUS request to `node`, parsed.
    async fn cluster_status(&self, node: &Arc<NodeState>) -> Result<ClusterView> {
        let mut req = self.admin_request(&node.url, "admin/collections");
        req.query = vec![("action".into(), "CLUSTERSTATUS".into())];
        if let Some(c) = &self.collection {
            req.query.push(("collection".into(), c.clone()));
        }
        req.query.push(("wt".into(), "json".into()));
        let flight = node.begin(RequestKind::Admin);
        let res = self.send_own(req).await;
        let took = flight.elapsed();
        drop(flight);
        let resp = res.inspect_err(|e| node.failed(e.is_connect(), &self.health))?;
        let _ = node.answered(took);
        if !resp.status.is_success() {
            return Err(Error::UnexpectedResponse {
                node: node_key(&node.url),
                status: resp.status.as_u16(),
                content_type: None,
                snippet: crate::snippet::snippet(&resp.body, 200),
            });
        }
        ClusterView::from_cluster_status(self.collection.as_deref(), &resp.body, &node.url)
    }

    /// Makes `view` current; a node holding a replica that the view does not list as live
    /// is marked down.
    fn install(&self, view: ClusterView) {
        for u in view.nodes() {
            let node = self.pool.get(&u);
            let live = view.live_urls.iter().any(|l| node_key(l) == node_key(&u));
            if !live && node.is_up() {
                node.mark_down(&self.health);
            }
        }
        *self.view.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(view);
        self.stale.store(false, Ordering::Release);
        *self.refreshed_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        self.refreshes.fetch_add(1, Ordering::AcqRel);
    }

    /// A GET of `path` on `node` by the router itself, unsigned (see [`Routing::send_own`]).
    pub(super) fn admin_request(&self, node: &Url, path: &str) -> WireRequest {
        WireRequest {
            method: Method::GET,
            node: node.clone(),
            path: path.to_string(),
            query: vec![("wt".into(), "json".into())],
            headers: HeaderMap::new(),
            body: bytes::Bytes::new(),
            kind: RequestKind::Admin,
            timeouts: self.timeouts,
            max_response_bytes: 64 * 1024 * 1024,
            deadline: None,
            route: None,
        }
    }
}
