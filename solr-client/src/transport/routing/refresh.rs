//! Loading the SolrCloud view: `CLUSTERSTATUS` from the first node that answers (known nodes
//! that are up first, then the seeds), one refresh at a time; a node the new view does not
//! list as live is marked down. Also the router's own admin requests: they carry the
//! router's provider ([`RoutingBuilder::auth`](super::RoutingBuilder::auth)), so the base
//! transport signs them as it signs a client call's, and a 401 renews it once.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use http::{HeaderMap, Method};
use url::Url;

use super::nodes::{node_key, NodeState};
use super::{Policy, Routing};
use crate::error::{Error, Result};
use crate::transport::cloud::ClusterView;
use crate::transport::{RequestKind, WireRequest, WireResponse};

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
        let mut last = Error::no_node("no node to ask for the cluster state");
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
            return Err(self.cluster_status_refused(&node.url, resp.status.as_u16(), &resp.body));
        }
        ClusterView::from_cluster_status(self.collection.as_deref(), &resp.body, &node.url)
    }

    /// The error for a CLUSTERSTATUS answer of `status` that is not 2xx: when Solr says the
    /// collection (or alias) the router serves does not exist (400, `Collection: NAME not
    /// found`), [`Error::NotFound`], as a standalone node's 404 for a missing core is, so a
    /// missing collection is one kind of error on every path; else what came, unexpected.
    fn cluster_status_refused(&self, node: &Url, status: u16, body: &[u8]) -> Error {
        let msg = serde_json::from_slice::<crate::types::ErrorEnvelope>(body)
            .map(|e| e.into_body().msg)
            .unwrap_or_default();
        match self.collection.as_deref() {
            Some(c) if status == 400 && msg == format!("Collection: {c} not found") => {
                Error::NotFound {
                    node: node_key(node).into(),
                    path: format!("{}/admin/collections", node.path().trim_end_matches('/')).into(),
                    hint: format!(
                        "SolrCloud has no collection or alias named \"{c}\" (CLUSTERSTATUS: \
                         {msg}): check .collection(...) against the cluster's collections \
                         (admin/collections?action=LIST) and aliases (LISTALIASES)"
                    )
                    .into(),
                }
            }
            _ => Error::UnexpectedResponse {
                node: node_key(node).into(),
                status,
                content_type: None,
                snippet: crate::snippet::snippet(body, 200).into(),
            },
        }
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

    /// A GET of `path` on `node` by the router itself, carrying the router's provider.
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
            auth: self.auth.clone(),
            streamed: false,
        }
    }

    /// Sends one of the router's own requests through the inner transport, read whole (and
    /// re-sent once with a renewed credential after a 401).
    pub(super) async fn send_own(&self, req: WireRequest) -> Result<WireResponse> {
        let limit = req.max_response_bytes;
        crate::transport::layer::auth::renewing(self.inner.as_ref(), req)
            .await?
            .into_whole(limit)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TransportKind;

    fn router(collection: &str) -> Routing {
        let inner = TransportKind::Pooled
            .build(&crate::TlsOptions::default(), false)
            .expect("builds");
        Routing::builder(inner)
            .cloud_seed("http://127.0.0.1:1/solr")
            .collection(collection)
            .build()
            .expect("builds")
    }

    fn refused(collection: &str, status: u16, msg: &str) -> Error {
        let body = serde_json::json!({
            "responseHeader": {"status": status, "QTime": 3},
            "error": {"metadata": ["CLUSTERSTATUS", "NOT_FOUND"], "msg": msg, "code": status},
        });
        let node = Url::parse("http://127.0.0.1:1/solr").expect("url");
        router(collection).cluster_status_refused(&node, status, body.to_string().as_bytes())
    }

    #[test]
    fn a_missing_collection_is_not_found_like_a_missing_core() {
        let e = refused("gone", 400, "Collection: gone not found");
        let Error::NotFound { node, path, hint } = &e else {
            panic!("{e:?}");
        };
        assert_eq!(node, "http://127.0.0.1:1/solr");
        assert_eq!(path, "/solr/admin/collections");
        assert!(
            hint.contains("no collection or alias named \"gone\""),
            "{hint}"
        );
        assert_eq!(e.status(), Some(404));
        // Another collection's absence, or another refusal, stays as it came.
        let other = refused("gone", 400, "Collection: other not found");
        assert!(
            matches!(other, Error::UnexpectedResponse { status: 400, .. }),
            "{other:?}"
        );
        let failed = refused("gone", 500, "Collection: gone not found");
        assert!(
            matches!(failed, Error::UnexpectedResponse { status: 500, .. }),
            "{failed:?}"
        );
    }
}

#[cfg(test)]
mod signed_tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;

    use http::header::AUTHORIZATION;
    use http::StatusCode;

    use super::*;
    use crate::auth::{Refreshing, Token};
    use crate::error::Result;
    use crate::transport::{BoxFuture, Reply, Routing, Transport, TransportStats, WireResponse};

    /// Answers CLUSTERSTATUS (one node, collection `c` of one shard) only to the bearer
    /// token `accepted`, 401 to anything else; records every `Authorization` it got.
    #[derive(Debug)]
    struct Gate {
        accepted: &'static str,
        seen: Mutex<Vec<Option<String>>>,
    }

    impl Transport for Gate {
        fn send(&self, mut req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
            Box::pin(async move {
                // A base transport signs what it writes.
                req.sign().await?;
                let auth = req.headers.get(AUTHORIZATION).map(|v| {
                    assert!(v.is_sensitive(), "a credential is marked sensitive");
                    v.to_str().expect("ascii").to_string()
                });
                let ok = auth.as_deref() == Some(self.accepted);
                self.seen.lock().expect("lock").push(auth);
                let body = serde_json::json!({"cluster":{
                    "live_nodes":["127.0.0.1:1_solr"],
                    "collections":{"c":{"router":{"name":"compositeId"},"shards":{
                        "shard1":{"range":"80000000-7fffffff","state":"active","replicas":{
                            "r1":{"core":"c_shard1_replica_n1","node_name":"127.0.0.1:1_solr",
                                  "state":"active","leader":"true"}}}}}}}});
                Ok(Reply::Whole(WireResponse {
                    status: if ok {
                        StatusCode::OK
                    } else {
                        StatusCode::UNAUTHORIZED
                    },
                    headers: HeaderMap::new(),
                    body: bytes::Bytes::from(body.to_string()),
                    timing: crate::Timing::default(),
                }))
            })
        }
        fn name(&self) -> String {
            "gate".into()
        }
        fn stats(&self) -> TransportStats {
            TransportStats::default()
        }
    }

    fn gate(accepted: &'static str) -> Arc<Gate> {
        Arc::new(Gate {
            accepted,
            seen: Mutex::new(Vec::new()),
        })
    }

    /// Tokens `t1`, `t2`, ... from a callback, each without expiry.
    fn numbered_tokens() -> Arc<Refreshing> {
        let n = Arc::new(AtomicU64::new(0));
        Arc::new(Refreshing::new(move || {
            let i = n.fetch_add(1, Ordering::Relaxed) + 1;
            async move { Ok(Token::without_expiry(format!("t{i}"))) }
        }))
    }

    /// The router's CLUSTERSTATUS (here outside any client call, as the background task
    /// runs) carries the configured provider, renewed once after a 401.
    #[tokio::test]
    async fn own_requests_outside_a_call_use_the_configured_provider_and_renew_once() {
        let inner = gate("Bearer t2");
        let tokens = numbered_tokens();
        let r = Routing::builder(inner.clone())
            .cloud_seed("http://127.0.0.1:1/solr")
            .collection("c")
            .auth(tokens.clone())
            .build()
            .expect("builds");
        r.refresh().await.expect("signed, renewed after the 401");
        assert_eq!(r.refreshes(), 1);
        assert_eq!(tokens.fetches(), 2);
        let seen = inner.seen.lock().expect("lock").clone();
        assert_eq!(
            seen,
            vec![Some("Bearer t1".to_string()), Some("Bearer t2".to_string())]
        );
        // The router's Debug output shows no token.
        let shown = format!("{:?}", r.auth);
        assert!(!shown.contains("t2") && shown.contains("***"), "{shown}");
    }
}
