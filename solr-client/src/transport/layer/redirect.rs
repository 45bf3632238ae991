//! `+redirect`: the one place that decides what a 3xx answer means, for every transport.
//!
//! No transport follows a redirect itself (hyper's connection-level clients never do; the
//! `reqwest` transport is built with `redirect::Policy::none()`): they hand the 3xx back as
//! a response, and this decorator, applied at the edge by [`crate::SolrClientBuilder`] over
//! any transport (a custom one or a [`crate::transport::Retry`] included), turns it into a decision. A
//! [`crate::transport::Routing`] picks the node of every request it is given, so it applies this same
//! decorator to its inner transport, per node (`RoutingBuilder::follow_redirects`); a 3xx
//! then never leaves the router. The decision:
//!
//! * a **write** is never redirected: a 3xx is [`Error::Redirect`] naming the status and
//!   the `Location` (so a batch is reported lost instead of "acknowledged" by a `GET` with
//!   an empty body on another host);
//! * a **read** or admin request follows only when the client opted in
//!   ([`Redirects::new`] with `max_hops > 0`, `SolrClientBuilder::follow_redirects`), for at
//!   most `max_hops` hops, never to another scheme (no https -> http downgrade, no http ->
//!   https surprise), keeping method and body (a read is idempotent, and a POSTed search
//!   keeps its parameters), and dropping the `Authorization` header once the origin
//!   (scheme, host, port) differs from the one the request was built for. The response's
//!   [`crate::Timing`] records the hops (`redirects`) and the URL that answered
//!   (`final_url`, without credentials).
//!
//! A `304 Not Modified` is not a redirect (the client never sends conditional requests) and
//! is passed on as it is. Credentials in a `Location` (`http://user:pw@host/`) are removed
//! before the URL is followed or shown.

use http::header::{AUTHORIZATION, LOCATION};
use http::StatusCode;
use url::Url;

use crate::error::{Error, Result};
use crate::transport::{BoxFuture, Decorator, Reply, RequestKind, Transport, WireRequest};

/// The redirect decorator. See the module docs.
#[derive(Debug)]
pub struct Redirects<T> {
    inner: T,
    max_hops: u32,
}

impl<T: Transport> Redirects<T> {
    /// Wraps `inner`. `max_hops == 0`: no redirect is followed (every 3xx is an error);
    /// otherwise reads follow up to `max_hops` redirects.
    pub fn new(inner: T, max_hops: u32) -> Self {
        Redirects { inner, max_hops }
    }

    /// The hop limit for reads (0: redirects are never followed).
    pub fn max_hops(&self) -> u32 {
        self.max_hops
    }

    /// Sends a request no redirect can be followed for (a write, or following is off: the
    /// default): it goes as it is, not copied; a 3xx is refused, its `Location` resolved
    /// against the request's node and path (kept before the request moved on). The inner
    /// future is made here and the returned one holds it with only those two: an `async
    /// fn` would hold the request twice, and this future is boxed per request.
    fn send_unfollowed(
        &self,
        mut req: WireRequest,
    ) -> impl std::future::Future<Output = Result<Reply>> + Send + '_ {
        req.start_deadline();
        let (node, path, kind) = (req.node.clone(), req.path.clone(), req.kind);
        let sent = self.inner.send(req);
        async move {
            let resp = sent.await?;
            if !is_redirect(resp.status()) {
                return Ok(resp);
            }
            let mut url = node.clone();
            let base = url.path().trim_end_matches('/').to_string();
            url.set_path(&format!("{base}/{}", path.trim_start_matches('/')));
            let reason = if kind == RequestKind::Write {
                "a write is never redirected"
            } else {
                "following redirects is off"
            };
            Err(refusal(&node, &url, &resp, reason))
        }
    }

    async fn send_inner(&self, mut req: WireRequest) -> Result<Reply> {
        // The request timeout bounds the whole call, every hop included: the deadline is set
        // here, before the first hop, and every hop's request carries it.
        req.start_deadline();
        let origin = req.node.origin();
        let mut hops = 0u32;
        loop {
            let resp = self.inner.send(req.clone()).await?;
            if !is_redirect(resp.status()) {
                if hops > 0 {
                    let mut resp = resp;
                    let timing = resp.timing_mut();
                    timing.redirects = hops;
                    timing.final_url = Some(without_credentials(req.url()).to_string());
                    return Ok(resp);
                }
                return Ok(resp);
            }
            let url = req.url();
            let target = location(&url, &resp);
            let refuse = |reason: &'static str| refusal(&req.node, &url, &resp, reason);
            if req.kind == RequestKind::Write {
                return Err(refuse("a write is never redirected"));
            }
            if self.max_hops == 0 {
                return Err(refuse("following redirects is off"));
            }
            let Some(target) = target.clone() else {
                return Err(refuse("no usable Location header"));
            };
            if hops >= self.max_hops {
                return Err(refuse("too many redirects"));
            }
            if target.scheme() != req.node.scheme() {
                return Err(refuse("it would change the scheme"));
            }
            hops += 1;
            if target.origin() != origin {
                // Another origin never gets the credential: nor the header, nor the
                // provider that would sign the request again.
                req.headers.remove(AUTHORIZATION);
                req.auth = None;
            }
            resp.discard().await;
            retarget(&mut req, &target);
        }
    }
}

/// The `Location` of a 3xx `resp` to a request for `url`, resolved against it, without
/// credentials.
fn location(url: &Url, resp: &Reply) -> Option<Url> {
    resp.headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|l| url.join(l.trim()).ok())
        .map(without_credentials)
}

/// The error for a 3xx `resp` to a request for `url` on `node` that is not followed.
fn refusal(node: &Url, url: &Url, resp: &Reply, reason: &'static str) -> Error {
    Error::Redirect {
        node: without_credentials(node.clone()).to_string().into(),
        status: resp.status().as_u16(),
        location: location(url, resp).as_ref().map(|l| l.as_str().into()),
        reason,
    }
}

/// 3xx, except 304 (a conditional-request answer, not a redirect).
fn is_redirect(status: StatusCode) -> bool {
    status.is_redirection() && status != StatusCode::NOT_MODIFIED
}

/// `url` without user name and password (and without a fragment).
fn without_credentials(mut url: Url) -> Url {
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    url
}

/// Points `req` at `target`: the node becomes the target's directory, the path its last
/// segment, the query its query pairs, so that `req.url()` is `target`.
fn retarget(req: &mut WireRequest, target: &Url) {
    let mut node = target.clone();
    node.set_query(None);
    let (dir, last) = match target.path().rsplit_once('/') {
        Some((dir, last)) => (dir.to_string(), last.to_string()),
        None => (String::new(), target.path().to_string()),
    };
    node.set_path(&dir);
    req.node = node;
    req.path = last;
    req.query = target
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
}

/// The name and the shard grouping are the inner transport's: the decorator is always
/// there, so it adds nothing to reports, and redirects change nothing about shards.
impl<T: Transport> Decorator for Redirects<T> {
    type Inner = T;

    fn inner(&self) -> &T {
        &self.inner
    }

    fn call(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        if self.max_hops == 0 || req.kind == RequestKind::Write {
            return Box::pin(self.send_unfollowed(req));
        }
        Box::pin(self.send_inner(req))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::transport::{ShardGroup, Timeouts, TransportStats};
    use bytes::Bytes;
    use http::{HeaderMap, Method};

    fn req(url: &str) -> WireRequest {
        WireRequest {
            method: Method::GET,
            node: Url::parse(url).unwrap(),
            path: "bench/select".into(),
            query: vec![("q".into(), "a b".into())],
            headers: HeaderMap::new(),
            body: Bytes::new(),
            kind: RequestKind::Read,
            timeouts: Timeouts::default(),
            max_response_bytes: 1,
            deadline: None,
            route: None,
            auth: None,
            streamed: false,
        }
    }

    #[test]
    fn retarget_makes_the_request_url_the_location() {
        let mut r = req("http://a:1/solr");
        let t = Url::parse("http://b:2/other/bench/select?q=a+b&rows=0").unwrap();
        retarget(&mut r, &t);
        assert_eq!(r.url(), t);
        let t = Url::parse("http://b:2/select").unwrap();
        retarget(&mut r, &t);
        assert_eq!(r.url(), t);
    }

    #[test]
    fn credentials_are_removed_from_locations() {
        let u = without_credentials(Url::parse("http://user:secret@h:1/p?x=1#f").unwrap());
        assert_eq!(u.as_str(), "http://h:1/p?x=1");
    }

    #[test]
    fn not_modified_is_not_a_redirect() {
        assert!(!is_redirect(StatusCode::NOT_MODIFIED));
        assert!(is_redirect(StatusCode::FOUND));
        assert!(is_redirect(StatusCode::PERMANENT_REDIRECT));
        assert!(!is_redirect(StatusCode::OK));
    }

    /// A transport that knows two shards and answers nothing.
    #[derive(Debug)]
    struct Sharded;

    impl Transport for Sharded {
        fn send(&self, _req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
            Box::pin(async { Err(Error::no_node("test")) })
        }
        fn name(&self) -> String {
            "sharded".into()
        }
        fn stats(&self) -> TransportStats {
            TransportStats::default()
        }
        fn shard_groups<'a>(
            &'a self,
            _req: &'a WireRequest,
            ids: &'a [String],
        ) -> BoxFuture<'a, Result<Option<Vec<ShardGroup>>>> {
            let n = ids.len();
            Box::pin(async move {
                Ok(Some(vec![ShardGroup {
                    shard: "shard1".into(),
                    members: (0..n).collect(),
                }]))
            })
        }
    }

    /// Every decorator the client or the bench stacks over a router passes its shard
    /// grouping through (a decorator that does not silently sends every batch whole).
    #[tokio::test]
    async fn every_decorator_forwards_the_shard_grouping() {
        let ids = vec!["a".to_string(), "b".to_string()];
        let r = req("http://a:1/solr");
        let stacks: Vec<(&str, Arc<dyn Transport>)> = vec![
            ("redirects", Arc::new(Redirects::new(Sharded, 0))),
            (
                "retry",
                Arc::new(crate::transport::Retry::new(
                    Sharded,
                    crate::transport::RetryPolicy::default(),
                )),
            ),
            #[cfg(feature = "gzip")]
            ("gzip", Arc::new(crate::transport::Gzip::new(Sharded))),
            (
                "redirects over retry over arc",
                Arc::new(Redirects::new(
                    crate::transport::Retry::new(
                        Arc::new(Sharded) as Arc<dyn Transport>,
                        crate::transport::RetryPolicy::default(),
                    ),
                    3,
                )),
            ),
        ];
        for (name, t) in stacks {
            let g = t.shard_groups(&r, &ids).await.expect("no error");
            assert_eq!(g.map(|g| g.len()), Some(1), "{name}");
        }
    }

    /// Answers 302 to the same origin twice, then 200; records each request's deadline.
    #[derive(Debug, Default)]
    struct Hopping {
        deadlines: std::sync::Mutex<Vec<Option<std::time::Instant>>>,
    }

    impl Transport for Hopping {
        fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
            let n = {
                let mut d = self.deadlines.lock().unwrap();
                d.push(req.deadline);
                d.len()
            };
            Box::pin(async move {
                let mut headers = http::HeaderMap::new();
                let status = if n <= 2 {
                    headers.insert(
                        LOCATION,
                        http::HeaderValue::from_static("/solr/bench/select?q=x"),
                    );
                    StatusCode::FOUND
                } else {
                    StatusCode::OK
                };
                Ok(Reply::Whole(crate::transport::WireResponse {
                    status,
                    headers,
                    body: Bytes::new(),
                    timing: crate::Timing::default(),
                }))
            })
        }
        fn name(&self) -> String {
            "hopping".into()
        }
        fn stats(&self) -> TransportStats {
            TransportStats::default()
        }
    }

    /// The request timeout is one deadline for the whole call: every hop carries the same one.
    #[tokio::test]
    async fn every_hop_carries_the_deadline_of_the_whole_call() {
        let r = Redirects::new(Hopping::default(), 5);
        let resp = r
            .send_whole(req("http://a:1/solr"))
            .await
            .expect("followed");
        assert_eq!((resp.status, resp.timing.redirects), (StatusCode::OK, 2));
        let d = r.inner.deadlines.lock().unwrap().clone();
        assert_eq!(d.len(), 3);
        assert!(d[0].is_some(), "set before the first hop");
        assert!(d.iter().all(|x| *x == d[0]), "{d:?}");
    }
}
