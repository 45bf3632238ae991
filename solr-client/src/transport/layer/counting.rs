//! `counting`: what the four base transports share, written once: each request counted,
//! signed from its provider right before the write, run in its attempt span until the
//! call's deadline, and the transport's name and counters ([`Counted`]); and the
//! [`Transport`] impl of the bases built on their own connector ([`connector_base!`]).

use std::future::Future;
use std::time::Instant;

use crate::error::Result;
use crate::transport::{
    span, BoxFuture, Reply, StreamingResponse, TransportStats, WireRequest, WireResponse,
};
#[cfg(doc)]
use crate::transport::{Connector, Transport};

/// The [`Transport`] impl of a base transport built on its own [`Connector`] (`fresh`,
/// `http2`): a `counted: Counted`, a `connector: Connector`, and two exchanges,
/// `send_inner` (the body whole) and `stream_inner` (the body as it arrives).
macro_rules! connector_base {
    ($ty:ty) => {
        impl $crate::transport::Transport for $ty {
            fn send(
                &self,
                req: $crate::transport::WireRequest,
            ) -> $crate::transport::BoxFuture<'_, $crate::Result<$crate::transport::Reply>> {
                use futures::FutureExt;
                self.counted.send_either(
                    req,
                    false,
                    |req| self.send_inner(req).map(|r| self.connector.settle(r)),
                    |req| self.stream_inner(req).map(|r| self.connector.settle(r)),
                )
            }

            fn name(&self) -> String {
                self.counted.name()
            }

            fn stats(&self) -> $crate::transport::TransportStats {
                self.counted.stats(self.connector.opened())
            }
        }
    };
}
pub(crate) use connector_base;

/// What the four base transports share: their name, whether certificate checks are off (it
/// shows in the name, so no report hides it), and the count of requests sent.
#[derive(Debug)]
pub(crate) struct Counted {
    label: &'static str,
    insecure: bool,
    requests: std::sync::atomic::AtomicU64,
}

impl Counted {
    pub(crate) fn new(label: &'static str, insecure: bool) -> Self {
        Self {
            label,
            insecure,
            requests: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// What every request starts with: it is counted and its deadline set
    /// ([`WireRequest::start_deadline`]); with whether it goes over https (for the scheme
    /// hint).
    fn start(&self, req: &mut WireRequest) -> (Instant, bool) {
        self.requests
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let deadline = req.start_deadline();
        (deadline, req.node.scheme() == "https")
    }

    /// Counts `req`, signs it ([`WireRequest::sign`], when it has a provider) and runs
    /// `inner(req)`, the exchange, in its attempt span, until the call's deadline
    /// ([`WireRequest::start_deadline`]): bounded here by a timer (for a streamed reply, up
    /// to its head), or, with `own_deadline`, by the transport itself.
    ///
    /// The exchange's future is made inside the one boxed future and moved once, into the
    /// deadline's `Timeout`: each `async fn` layer that takes a made future as an argument
    /// holds it twice (the argument and the awaited value), so three such layers here made
    /// a 31 KB future (debug build) that was copied layer by layer on every request.
    ///
    /// With `own_deadline` the transport enforces the deadline itself: no timer of its own
    /// per request, and no wrapper future around the exchange beyond the scheme hint (a
    /// `map`, which holds the exchange once). The pooled transport checks the deadline on
    /// the connection's timer, which stays registered between requests: a new timer per
    /// request takes the timer wheel's lock twice, and the wrapper made the boxed future
    /// larger than glibc's per-thread cache serves (1,032 bytes), so every request paid for
    /// a large allocation.
    pub(crate) fn send<'a, F>(
        &self,
        req: WireRequest,
        own_deadline: bool,
        inner: impl FnOnce(WireRequest) -> F + Send + 'a,
    ) -> BoxFuture<'a, Result<Reply>>
    where
        F: Future<Output = Result<Reply>> + Send + 'a,
    {
        if req.auth.is_none() {
            return self.run(req, own_deadline, inner);
        }
        let signed = move |mut req: WireRequest| async move {
            req.sign().await?;
            inner(req).await
        };
        self.run(req, own_deadline, signed)
    }

    /// [`Self::send`] for a base transport with one exchange per way of reading a body:
    /// `whole` reads it whole, `streamed` returns at the head ([`WireRequest::streamed`]
    /// chooses; `own_deadline` applies to `whole` only).
    pub(crate) fn send_either<'a, W, S>(
        &self,
        req: WireRequest,
        own_deadline: bool,
        whole: impl FnOnce(WireRequest) -> W + Send + 'a,
        streamed: impl FnOnce(WireRequest) -> S + Send + 'a,
    ) -> BoxFuture<'a, Result<Reply>>
    where
        W: Future<Output = Result<WireResponse>> + Send + 'a,
        S: Future<Output = Result<StreamingResponse>> + Send + 'a,
    {
        use futures::FutureExt;
        if req.streamed {
            return self.send(req, false, |req| {
                streamed(req).map(|r| r.map(Reply::Streamed))
            });
        }
        // A combinator, not an async block: the block would hold the request twice.
        self.send(req, own_deadline, |req| {
            whole(req).map(|r| r.map(Reply::Whole))
        })
    }

    fn run<'a, F>(
        &self,
        mut req: WireRequest,
        own_deadline: bool,
        inner: impl FnOnce(WireRequest) -> F + Send + 'a,
    ) -> BoxFuture<'a, Result<Reply>>
    where
        F: Future<Output = Result<Reply>> + Send + 'a,
    {
        use futures::FutureExt;
        let (deadline, https) = self.start(&mut req);
        let attempt = span::Attempt::new(&mut req);
        if own_deadline {
            return Box::pin(
                attempt.run(
                    inner(req).map(move |r| r.map_err(|e| crate::hint::scheme_hint(https, e))),
                ),
            );
        }
        let deadline = tokio::time::Instant::from_std(deadline);
        let timeout = req.request_timeout();
        Box::pin(attempt.run(async move {
            tokio::time::timeout_at(deadline, inner(req))
                .await
                .unwrap_or(Err(timeout))
                .map_err(|e| crate::hint::scheme_hint(https, e))
        }))
    }

    /// `label`, or `label(insecure-tls)`.
    pub(crate) fn name(&self) -> String {
        if self.insecure {
            format!("{}(insecure-tls)", self.label)
        } else {
            self.label.to_string()
        }
    }

    /// The stats, given how many connections the transport opened.
    pub(crate) fn stats(&self, connections_opened: u64) -> TransportStats {
        TransportStats {
            connections_opened,
            requests: self.requests.load(std::sync::atomic::Ordering::Relaxed),
        }
    }
}
