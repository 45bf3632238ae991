//! Who signs the router's own requests (`CLUSTERSTATUS`, liveness checks): inside a client
//! call, that call's provider; outside one (the background task, [`Routing::refresh`] or
//! [`Routing::probe`] called directly), the provider given to
//! [`RoutingBuilder::auth`](super::RoutingBuilder::auth), else the provider of the latest
//! client call that went through the router, else the `Authorization` header of the latest
//! request (a request signed by hand). Each request asks the provider again, so a token
//! that expired meanwhile is renewed first, and a 401 renews it once, as for a client call.

use std::sync::{Arc, Mutex};

use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderValue};

use super::Routing;
use crate::auth::AuthProvider;
use crate::error::Result;
use crate::transport::{BoxFuture, WireRequest, WireResponse};
#[cfg(test)]
use url::Url;

/// The router's providers: the configured one, and the one seen last.
#[derive(Debug, Default)]
pub(super) struct Signer {
    configured: Option<Arc<dyn AuthProvider>>,
    seen: Mutex<Option<Arc<dyn AuthProvider>>>,
}

impl Signer {
    pub(super) fn new(configured: Option<Arc<dyn AuthProvider>>) -> Self {
        Signer {
            configured,
            seen: Mutex::new(None),
        }
    }

    /// Notes who signed a request entering the router (nothing when a provider was
    /// configured): the client call's provider, else the request's own `Authorization`.
    pub(super) fn observe(&self, headers: &HeaderMap) {
        if self.configured.is_some() {
            return;
        }
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = crate::auth::current_signer() {
            if !seen.as_ref().is_some_and(|s| Arc::ptr_eq(s, &p)) {
                *seen = Some(p);
            }
        } else if let Some(v) = headers.get(AUTHORIZATION) {
            if seen.as_ref().and_then(|s| s.cached()).as_ref() != Some(v) {
                *seen = Some(Arc::new(Remembered::new(v.clone())));
            }
        }
    }

    /// The provider of the router's own request now (see the module docs).
    pub(super) fn provider(&self) -> Option<Arc<dyn AuthProvider>> {
        crate::auth::current_signer()
            .or_else(|| self.configured.clone())
            .or_else(|| self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }
}

impl Routing {
    /// Sends one of the router's own requests through the inner transport, signed by
    /// [`Signer::provider`] (re-sent once with a renewed credential after a 401).
    pub(super) async fn send_own(&self, req: WireRequest) -> Result<WireResponse> {
        let provider = self.signer.provider();
        crate::auth::send::send_signed(&self.inner, provider.as_ref(), req).await
    }
}

/// The `Authorization` value of a request signed without a provider, kept for the router's
/// own requests. Marked sensitive: never shown.
struct Remembered {
    value: HeaderValue,
    scheme: &'static str,
}

impl Remembered {
    fn new(mut value: HeaderValue) -> Self {
        value.set_sensitive(true);
        let text = value.to_str().unwrap_or("").to_ascii_lowercase();
        let scheme = if text.starts_with("basic ") {
            "Basic"
        } else if text.starts_with("bearer ") {
            "Bearer"
        } else {
            "Authorization"
        };
        Remembered { value, scheme }
    }
}

impl std::fmt::Debug for Remembered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Remembered({} ***)", self.scheme)
    }
}

impl AuthProvider for Remembered {
    fn authorization(&self) -> BoxFuture<'_, Result<Option<HeaderValue>>> {
        let v = self.value.clone();
        Box::pin(async move { Ok(Some(v)) })
    }

    fn cached(&self) -> Option<HeaderValue> {
        Some(self.value.clone())
    }

    fn scheme(&self) -> &'static str {
        self.scheme
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use http::StatusCode;

    use super::*;
    use crate::auth::{Refreshing, Token};
    use crate::transport::{Routing, Transport, TransportStats};

    /// Answers CLUSTERSTATUS (one node, collection `c` of one shard) only to the bearer
    /// token `accepted`, 401 to anything else; records every `Authorization` it got.
    #[derive(Debug)]
    struct Gate {
        accepted: &'static str,
        seen: Mutex<Vec<Option<String>>>,
    }

    impl Transport for Gate {
        fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
            Box::pin(async move {
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
                Ok(WireResponse {
                    status: if ok {
                        StatusCode::OK
                    } else {
                        StatusCode::UNAUTHORIZED
                    },
                    headers: HeaderMap::new(),
                    body: bytes::Bytes::from(body.to_string()),
                    timing: crate::Timing::default(),
                })
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

    /// Outside any client call (as the background task runs), the router's CLUSTERSTATUS
    /// is signed by the configured provider, renewed once after a 401.
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
        let shown = format!("{:?}", r.signer);
        assert!(!shown.contains("t2") && shown.contains("***"), "{shown}");
    }

    /// Without a configured provider, the provider of the latest client call signs the
    /// router's own requests afterwards; a request signed by hand leaves its header.
    #[tokio::test]
    async fn without_one_the_latest_calls_provider_signs_them() {
        let inner = gate("Bearer t1");
        let r = Routing::builder(inner.clone())
            .cloud_seed("http://127.0.0.1:1/solr")
            .collection("c")
            .build()
            .expect("builds");
        assert!(r.refresh().await.is_err(), "nobody signed yet: 401");
        let tokens: Arc<dyn AuthProvider> = numbered_tokens();
        let mut req = r.admin_request(
            &Url::parse("http://127.0.0.1:1/solr").expect("url"),
            "c/select",
        );
        req.kind = crate::transport::RequestKind::Read;
        crate::auth::sign(tokens.as_ref(), &mut req)
            .await
            .expect("signs");
        crate::auth::with_signer(tokens.clone(), r.send(req))
            .await
            .expect("the call");
        r.refresh().await.expect("signed by the call's provider");
        let by_hand = gate("Basic aGFuZDp5");
        let r = Routing::builder(by_hand.clone())
            .cloud_seed("http://127.0.0.1:1/solr")
            .collection("c")
            .build()
            .expect("builds");
        let mut req = r.admin_request(
            &Url::parse("http://127.0.0.1:1/solr").expect("url"),
            "c/select",
        );
        let mut v = HeaderValue::from_static("Basic aGFuZDp5");
        v.set_sensitive(true);
        req.headers.insert(AUTHORIZATION, v);
        r.send(req).await.expect("the call");
        r.refresh().await.expect("signed with the header seen");
    }
}
