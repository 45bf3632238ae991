//! Watching requests from the application: a metrics hook called once per response
//! ([`ResponseEvent`], set with [`SolrClientBuilder::on_response`]) and, with the `tracing`
//! feature, one `tracing` span per attempt.
//!
//! # The hook
//! The hook is called once for every HTTP response that reaches a [`SolrClient`] call, after
//! the body was decoded (or failed to decode): a success, a Solr error (4xx/5xx with Solr's
//! error body), or any other answer (an HTML 404 page, a proxy's 502). It is not called when
//! no response came back (connect refused, timeout, broken connection). It sees the **final**
//! response of a call only: an attempt answered with 429/503 and retried, or a failover to
//! another node, is not reported separately; [`Timing::attempts`] says how many attempts the
//! call took, and the tracing spans below show each one. A call whose retries were exhausted
//! ([`Error::RetriesExhausted`]) ends without a response and
//! without a hook call. [`SolrClient::send_raw`] reports its response too, with no QTime and
//! no decode phase (it decodes nothing).
//!
//! The hook runs on the task that made the request, before the call returns: keep it short
//! (update a histogram, increment a counter).
//!
//! ```no_run
//! # fn run() -> solr_client::Result<()> {
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use std::sync::Arc;
//! use solr_client::SolrClient;
//! let slow = Arc::new(AtomicU64::new(0));
//! let seen = slow.clone();
//! let client = SolrClient::builder("http://127.0.0.1:8983/solr")
//!     .collection("bench")
//!     .on_response(Arc::new(move |e: &solr_client::ResponseEvent<'_>| {
//!         if e.timing.total().as_millis() > 100 {
//!             seen.fetch_add(1, Ordering::Relaxed);
//!         }
//!     }))
//!     .build()?;
//! # let _ = client; Ok(()) }
//! ```
//!
//! # Spans (feature `tracing`)
//! Each client call opens a `solr.request` span (level DEBUG, target `solr_client`) with
//! `method`, `path`, `status`, `attempts`, `qtime_ms` and `total_ms`. Inside it, every HTTP
//! exchange the transports make (the first try, each retry, each failover, each redirect
//! hop, each re-send on a stale pooled connection, and a SolrCloud router's own
//! CLUSTERSTATUS refreshes) is a `solr.attempt` span with:
//!
//! | field | meaning |
//! |---|---|
//! | `node`, `method`, `path` | where it went (the node URL without user info, the path below it) |
//! | `attempt` | 1, 2, ... within the call |
//! | `status`, `reused`, `connection_id` | the answer, and whether the connection had served before |
//! | `blocked_ms`, `dns_ms`, `connect_ms`, `tls_ms`, `write_ms`, `wait_ms`, `body_ms` | the phases of [`crate::timing`] (`wait` is `server_wait`, `body` is `transfer`); the connection phases only when a connection was opened |
//! | `decompress_ms`, `decode_ms`, `qtime_ms` | on the attempt whose response was decoded, when known |
//! | `error` | the error of a failed attempt (its `Display`: no credentials) |
//!
//! A retry (429/503) or failover is also an INFO event (`solr.retry`) with the node, the
//! reason and the wait. Headers, query strings and bodies are never recorded.
//!
//! [`SolrClient`]: crate::SolrClient
//! [`SolrClient::send_raw`]: crate::SolrClient::send_raw
//! [`SolrClientBuilder::on_response`]: crate::SolrClientBuilder::on_response

use std::sync::Arc;

use http::Method;

use crate::client::SolrClient;
use crate::error::{Error, Result};
use crate::timing::Timing;
use crate::transport::{WireRequest, WireResponse};

/// One response, as the metrics hook sees it (see the [module docs](self)).
#[derive(Debug)]
#[non_exhaustive]
pub struct ResponseEvent<'a> {
    /// The HTTP method.
    pub method: &'a Method,
    /// The path below the node, e.g. `bench/select`.
    pub path: &'a str,
    /// The node that answered (its base URL without user info).
    pub node: &'a str,
    /// The HTTP status.
    pub status: u16,
    /// Solr's QTime, when the response was decoded and carried one.
    pub qtime_ms: Option<u32>,
    /// The phases of the call's final attempt ([`Timing::parse`] is the decode phase, None
    /// when the body was not decoded), with [`Timing::attempts`].
    pub timing: &'a Timing,
    /// The error the call returns, when the response was not a success (a Solr error, an
    /// unexpected answer, a body that did not decode).
    pub error: Option<&'a Error>,
}

/// The metrics hook: see [`SolrClientBuilder::on_response`](crate::SolrClientBuilder::on_response).
pub type ResponseHook = Arc<dyn Fn(&ResponseEvent<'_>) + Send + Sync>;

/// The observers of a client; its `Debug` shows whether a hook is set.
#[derive(Clone, Default)]
pub(crate) struct Observer {
    pub(crate) hook: Option<ResponseHook>,
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("hook", &self.hook.as_ref().map(|_| "Fn(&ResponseEvent)"))
            .finish()
    }
}

impl SolrClient {
    /// Sends `req`, decodes the response with `decode`, sets QTime from `qtime`, calls the
    /// hook, records the spans, and turns a 404 that is not Solr's into [`Error::NotFound`].
    pub(crate) async fn exchange<T>(
        &self,
        req: WireRequest,
        decode: impl FnOnce(WireResponse) -> Result<(T, Timing)>,
        qtime: impl FnOnce(&T) -> Option<u32>,
    ) -> Result<(T, Timing)> {
        let method = req.method.clone();
        let path = req.path.clone();
        let node = req.node.clone();
        let (resp, trace) = self.traced_send(req).await;
        let resp = resp?;
        let status = resp.status.as_u16();
        let keep = self.observer.hook.is_some() || cfg!(feature = "tracing");
        let kept = keep.then(|| resp.timing.clone());
        let out = match decode(resp) {
            Ok((v, mut timing)) => {
                timing.qtime_ms = qtime(&v);
                Ok((v, timing))
            }
            Err(e) => Err(crate::error::not_found(e, &node, &path)),
        };
        let timing = match (&out, &kept) {
            (Ok((_, t)), _) => Some(t),
            (Err(_), Some(t)) => Some(t),
            (Err(_), None) => None,
        };
        if let (Some(hook), Some(timing)) = (&self.observer.hook, timing) {
            hook(&ResponseEvent {
                method: &method,
                path: &path,
                node: &timing.node,
                status,
                qtime_ms: timing.qtime_ms,
                timing,
                error: out.as_ref().err(),
            });
        }
        trace.finish(status, timing);
        out
    }

    /// [`SolrClient::send_raw`]: sends `req` as it is, reporting the response to the hook.
    pub(crate) async fn exchange_raw(&self, req: WireRequest) -> Result<WireResponse> {
        let method = req.method.clone();
        let path = req.path.clone();
        let (resp, trace) = self.traced_send(req).await;
        let resp = resp?;
        if let Some(hook) = &self.observer.hook {
            hook(&ResponseEvent {
                method: &method,
                path: &path,
                node: &resp.timing.node,
                status: resp.status.as_u16(),
                qtime_ms: None,
                timing: &resp.timing,
                error: None,
            });
        }
        trace.finish(resp.status.as_u16(), Some(&resp.timing));
        Ok(resp)
    }

    #[cfg(not(feature = "tracing"))]
    async fn traced_send(&self, req: WireRequest) -> (Result<WireResponse>, CallTrace) {
        (self.transport.send(req).await, CallTrace)
    }

    #[cfg(feature = "tracing")]
    async fn traced_send(&self, req: WireRequest) -> (Result<WireResponse>, CallTrace) {
        use tracing::Instrument;
        let span = tracing::debug_span!(
            target: "solr_client",
            "solr.request",
            method = %req.method,
            path = %req.path,
            status = tracing::field::Empty,
            attempts = tracing::field::Empty,
            qtime_ms = tracing::field::Empty,
            total_ms = tracing::field::Empty,
        );
        let transport = self.transport.clone();
        let state = std::cell::RefCell::new(tracing_impl::CallState::default());
        let (resp, last) = tracing_impl::CALL
            .scope(state, async move {
                let resp = transport.send(req).await;
                let last = tracing_impl::CALL
                    .try_with(|c| c.borrow_mut().last.take())
                    .ok()
                    .flatten();
                (resp, last)
            })
            .instrument(span.clone())
            .await;
        (resp, CallTrace { span, last })
    }
}

/// What a call leaves to record once its response is decoded.
#[cfg(not(feature = "tracing"))]
struct CallTrace;

#[cfg(not(feature = "tracing"))]
impl CallTrace {
    fn finish(self, _status: u16, _timing: Option<&Timing>) {}
}

/// What a call leaves to record once its response is decoded: its span and the span of the
/// attempt whose response it decoded.
#[cfg(feature = "tracing")]
struct CallTrace {
    span: tracing::Span,
    last: Option<tracing::Span>,
}

#[cfg(feature = "tracing")]
impl CallTrace {
    fn finish(self, status: u16, timing: Option<&Timing>) {
        self.span.record("status", status);
        let Some(t) = timing else { return };
        self.span.record("attempts", t.attempts.max(1));
        if let Some(q) = t.qtime_ms {
            self.span.record("qtime_ms", q);
        }
        self.span.record("total_ms", ms(t.total()));
        if let Some(last) = self.last {
            if let Some(q) = t.qtime_ms {
                last.record("qtime_ms", q);
            }
            if let Some(d) = t.decompress {
                last.record("decompress_ms", ms(d));
            }
            if let Some(d) = t.parse {
                last.record("decode_ms", ms(d));
            }
        }
    }
}

/// Milliseconds, to the microsecond.
#[cfg(feature = "tracing")]
fn ms(d: std::time::Duration) -> f64 {
    d.as_micros() as f64 / 1e3
}

/// One HTTP exchange of a base transport, in its `solr.attempt` span (no span without the
/// `tracing` feature). Every base transport sends through this (`Counted::send` in
/// [`crate::transport`]), so each attempt of every stack is one span.
pub(crate) struct Attempt {
    #[cfg(feature = "tracing")]
    labels: (String, Method, String),
}

impl Attempt {
    /// The attempt of `req` (its labels are taken now: the request moves on).
    pub(crate) fn new(req: &WireRequest) -> Self {
        #[cfg(not(feature = "tracing"))]
        let _ = req;
        Attempt {
            #[cfg(feature = "tracing")]
            labels: (
                crate::error::node_label(&req.node),
                req.method.clone(),
                req.path.clone(),
            ),
        }
    }

    /// Runs `fut`, the exchange.
    #[cfg(not(feature = "tracing"))]
    pub(crate) async fn run<F>(self, fut: F) -> Result<WireResponse>
    where
        F: std::future::Future<Output = Result<WireResponse>>,
    {
        fut.await
    }

    /// Runs `fut`, the exchange, in its span, and records the answer's fields on it.
    #[cfg(feature = "tracing")]
    pub(crate) async fn run<F>(self, fut: F) -> Result<WireResponse>
    where
        F: std::future::Future<Output = Result<WireResponse>>,
    {
        use tracing::Instrument;
        let (node, method, path) = self.labels;
        let n = tracing_impl::CALL
            .try_with(|c| {
                let mut c = c.borrow_mut();
                c.attempts += 1;
                c.attempts
            })
            .unwrap_or(1);
        let span = tracing::debug_span!(
            target: "solr_client",
            "solr.attempt",
            node = %node,
            method = %method,
            path = %path,
            attempt = n,
            status = tracing::field::Empty,
            reused = tracing::field::Empty,
            connection_id = tracing::field::Empty,
            blocked_ms = tracing::field::Empty,
            dns_ms = tracing::field::Empty,
            connect_ms = tracing::field::Empty,
            tls_ms = tracing::field::Empty,
            write_ms = tracing::field::Empty,
            wait_ms = tracing::field::Empty,
            body_ms = tracing::field::Empty,
            decompress_ms = tracing::field::Empty,
            decode_ms = tracing::field::Empty,
            qtime_ms = tracing::field::Empty,
            error = tracing::field::Empty,
        );
        let res = fut.instrument(span.clone()).await;
        match &res {
            Ok(r) => {
                let t = &r.timing;
                span.record("status", r.status.as_u16());
                span.record("reused", t.reused);
                span.record("connection_id", t.connection_id);
                span.record("blocked_ms", ms(t.blocked));
                for (name, d) in [
                    ("dns_ms", t.dns),
                    ("connect_ms", t.connect),
                    ("tls_ms", t.tls),
                ] {
                    if let Some(d) = d {
                        span.record(name, ms(d));
                    }
                }
                span.record("write_ms", ms(t.write));
                span.record("wait_ms", ms(t.server_wait));
                span.record("body_ms", ms(t.transfer));
            }
            Err(e) => {
                span.record("error", tracing::field::display(e));
            }
        }
        let _ = tracing_impl::CALL.try_with(|c| c.borrow_mut().last = Some(span));
        res
    }
}

/// A retry or failover is about to happen: the INFO event `solr.retry` (a no-op without
/// the `tracing` feature). `reason` is a status or an error's `Display`.
pub(crate) fn retrying(
    node: &str,
    attempt: u32,
    reason: &dyn std::fmt::Display,
    wait: std::time::Duration,
) {
    #[cfg(feature = "tracing")]
    tracing::info!(
        target: "solr_client",
        node = %node,
        attempt,
        reason = %reason,
        wait_ms = ms(wait),
        "solr.retry"
    );
    #[cfg(not(feature = "tracing"))]
    let _ = (node, attempt, reason, wait);
}

#[cfg(feature = "tracing")]
mod tracing_impl {
    use std::cell::RefCell;

    /// The attempt counter and last attempt span of one client call.
    #[derive(Default)]
    pub(super) struct CallState {
        pub(super) attempts: u32,
        pub(super) last: Option<tracing::Span>,
    }

    tokio::task_local! {
        pub(super) static CALL: RefCell<CallState>;
    }
}
