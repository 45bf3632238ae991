//! `reqwest`: reqwest's default client as it comes (connection pool, HTTP/1.1 with h2 by
//! ALPN, rustls), the choice most Rust applications make.
//!
//! reqwest hides its connections, so this transport measures less: a tower layer on
//! reqwest's connector counts the connections it opens (the transport's own witness), and
//! the timing record has `server_wait` (send -> response headers, which here includes any
//! connection set-up and the request write) and `transfer`; the connection phases are None.
//! Its automatic gzip is off (reqwest's default), so the [`super::Gzip`] decorator applies
//! to it like to the others. Redirects are not followed here (`redirect::Policy::none()`;
//! see [`super::Redirects`]). A read lost because the server closed a pooled connection after
//! reading the request is resent once, as `pooled` does; a write never is.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::BytesMut;

use super::h1::{closed_unanswered, proves_unprocessed, USER_AGENT_VALUE};
use super::tls::TlsOptions;
use super::{BoxFuture, RequestKind, Transport, TransportStats, WireRequest, WireResponse};
use crate::error::{Error, Result, TimeoutPhase};
use crate::timing::{HttpVersion, Timing};

/// Counts every connection reqwest's connector opens.
#[derive(Clone)]
struct CountLayer(Arc<AtomicU64>);

impl<S> tower_layer::Layer<S> for CountLayer {
    type Service = CountService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        CountService {
            inner,
            count: self.0.clone(),
        }
    }
}

#[derive(Clone)]
struct CountService<S> {
    inner: S,
    count: Arc<AtomicU64>,
}

impl<S, R> tower_service::Service<R> for CountService<S>
where
    S: tower_service::Service<R>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, std::result::Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<std::result::Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: R) -> Self::Future {
        let fut = self.inner.call(req);
        let count = self.count.clone();
        Box::pin(async move {
            let r = fut.await;
            if r.is_ok() {
                count.fetch_add(1, Ordering::Relaxed);
            }
            r
        })
    }
}

/// True when a hyper error in `e`'s chain says the request was cancelled before it was sent.
fn hyper_canceled(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(h) = err.downcast_ref::<hyper::Error>() {
            return h.is_canceled();
        }
        cur = err.source();
    }
    false
}

/// reqwest's default client behind the [`Transport`] trait.
#[derive(Debug)]
pub struct ReqwestDefault {
    client: reqwest::Client,
    opened: Arc<AtomicU64>,
    counted: super::Counted,
}

impl ReqwestDefault {
    /// Builds reqwest's default client, adding only the configured CAs (and the explicit
    /// opt-out of verification, if the caller asked for it).
    pub fn new(tls: &TlsOptions) -> Result<Self> {
        let opened = Arc::new(AtomicU64::new(0));
        let mut builder = reqwest::Client::builder()
            .user_agent(USER_AGENT_VALUE)
            // A 3xx is handed back as it is: `Redirects` decides (reqwest's default policy
            // would turn a redirected POST /update into a GET with an empty body).
            .redirect(reqwest::redirect::Policy::none())
            .connector_layer(CountLayer(opened.clone()));
        for pem in tls.extra_roots_pem() {
            let certs = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| Error::Config(format!("bad CA PEM: {e}")))?;
            builder = builder.tls_certs_merge(certs);
        }
        if tls.is_insecure() {
            builder = builder.tls_danger_accept_invalid_certs(true);
        }
        let client = builder
            .build()
            .map_err(|e| Error::Config(format!("cannot build reqwest client: {e}")))?;
        Ok(ReqwestDefault {
            client,
            opened,
            counted: super::Counted::new("reqwest", tls.is_insecure()),
        })
    }

    async fn send_inner(&self, req: WireRequest) -> Result<WireResponse> {
        let node = req.node.to_string();
        let map = |e: reqwest::Error| {
            let mut message = e.to_string();
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                message.push_str(": ");
                message.push_str(&s.to_string());
                src = s.source();
            }
            if e.is_connect() {
                Error::Connect {
                    node: node.clone(),
                    source: std::io::Error::other(message),
                }
            } else {
                Error::Io {
                    node: node.clone(),
                    message,
                    // hyper cancelled it before writing, or an HTTP/2 server refused it.
                    not_sent: hyper_canceled(&e) || proves_unprocessed(&e),
                }
            }
        };
        let idle = req.timeouts.read_idle;
        let idle_err = || Error::Timeout {
            node: node.clone(),
            phase: TimeoutPhase::ReadIdle,
            after: idle,
        };
        let start = Instant::now();
        let mut attempt = 1;
        let mut resp = loop {
            let builder = self
                .client
                .request(req.method.clone(), req.url())
                .headers(req.headers.clone())
                .body(req.body.clone());
            let send = tokio::time::timeout(req.timeouts.connect + idle, builder.send());
            match send.await.map_err(|_| idle_err())? {
                Ok(resp) => break resp,
                // The server closed the connection after reading the request, without
                // answering (a pooled connection its idle timeout ended): an idempotent read
                // is resent once, as `pooled` does; a write never is. reqwest's pool has
                // dropped the dead connection.
                Err(e)
                    if attempt == 1
                        && req.kind != RequestKind::Write
                        && !e.is_connect()
                        && closed_unanswered(&e) =>
                {
                    attempt += 1;
                }
                Err(e) => return Err(map(e)),
            }
        };
        let headers_at = Instant::now();
        let status = resp.status();
        let version = if resp.version() == http::Version::HTTP_2 {
            HttpVersion::Http2
        } else {
            HttpVersion::Http11
        };
        let headers = resp.headers().clone();
        let limit = req.max_response_bytes;
        if resp.content_length().is_some_and(|l| l > limit) {
            return Err(Error::TooLarge { node, limit });
        }
        let mut buf = BytesMut::new();
        while let Some(chunk) = tokio::time::timeout(idle, resp.chunk())
            .await
            .map_err(|_| idle_err())?
            .map_err(map)?
        {
            if (buf.len() + chunk.len()) as u64 > limit {
                return Err(Error::TooLarge { node, limit });
            }
            buf.extend_from_slice(&chunk);
        }
        let done = Instant::now();
        let body = buf.freeze();
        let timing = Timing {
            server_wait: headers_at - start,
            transfer: done - headers_at,
            bytes_in: body.len() as u64,
            bytes_out: req.body.len() as u64,
            bytes_exact: false,
            decoded_bytes: body.len() as u64,
            http_version: version,
            attempts: attempt,
            node,
            ..Timing::default()
        };
        Ok(WireResponse {
            status,
            headers,
            body,
            timing,
        })
    }
}

impl Transport for ReqwestDefault {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
        self.counted.send(req, |req| self.send_inner(req))
    }

    fn name(&self) -> String {
        self.counted.name()
    }

    fn stats(&self) -> TransportStats {
        self.counted.stats(self.opened.load(Ordering::Relaxed))
    }
}
