//! Decorators: transports that wrap another one, change how a request is sent, and forward
//! everything else to it. The forwarding is written once, here, for every decorator.
//!
//! Like tower's `Layer`/`Service` split: a decorator says what it changes ([`Decorator::call`],
//! [`Decorator::label`]) and the blanket `impl<D: Decorator> Transport for D` does the rest
//! (counters and shard grouping come from the inner transport).

use std::fmt;
use std::sync::Arc;

use super::{
    BoxFuture, ShardGroup, StreamingResponse, Transport, TransportStats, WireRequest, WireResponse,
};
use crate::error::Result;

/// A transport that wraps another ([`Decorator::Inner`]). Implementing it makes the type a
/// [`Transport`]: requests go through [`Decorator::call`], the name is [`Decorator::label`],
/// and [`Transport::stats`] and [`Transport::shard_groups`] are the inner transport's.
///
/// ```
/// use solr_client::transport::{BoxFuture, Decorator, Transport, WireRequest, WireResponse};
///
/// /// Counts nothing, changes nothing: every method is forwarded.
/// #[derive(Debug)]
/// struct Passthrough<T>(T);
///
/// impl<T: Transport> Decorator for Passthrough<T> {
///     type Inner = T;
///     fn inner(&self) -> &T {
///         &self.0
///     }
/// }
/// ```
pub trait Decorator: Send + Sync + fmt::Debug {
    /// The wrapped transport.
    type Inner: Transport + ?Sized;

    /// The wrapped transport.
    fn inner(&self) -> &Self::Inner;

    /// Sends one request and reads the whole response ([`Transport::send`]). Default: the
    /// inner transport sends it unchanged.
    fn call(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
        self.inner().send(req)
    }

    /// Sends one request, its body read as it arrives ([`Transport::send_streaming`]).
    /// Default: through [`Self::call`], the body read whole and handed out as one chunk, so
    /// that a decorator that changes requests or answers in `call` keeps doing so; a
    /// decorator that can pass a body through as it arrives says so here.
    fn call_streaming(&self, req: WireRequest) -> BoxFuture<'_, Result<StreamingResponse>> {
        let sent = self.call(req);
        Box::pin(async move { sent.await.map(StreamingResponse::buffered) })
    }

    /// The name for reports ([`Transport::name`]). Default: the inner transport's, for a
    /// decorator that adds nothing worth naming.
    fn label(&self) -> String {
        self.inner().name()
    }
}

impl<D: Decorator> Transport for D {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
        self.call(req)
    }

    fn send_streaming(&self, req: WireRequest) -> BoxFuture<'_, Result<StreamingResponse>> {
        self.call_streaming(req)
    }

    fn name(&self) -> String {
        self.label()
    }

    fn stats(&self) -> TransportStats {
        self.inner().stats()
    }

    fn shard_groups<'a>(
        &'a self,
        req: &'a WireRequest,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Option<Vec<ShardGroup>>>> {
        self.inner().shard_groups(req, ids)
    }
}

/// A shared transport is the transport itself.
impl<T: Transport + ?Sized> Decorator for Arc<T> {
    type Inner = T;

    fn inner(&self) -> &T {
        self
    }

    fn call_streaming(&self, req: WireRequest) -> BoxFuture<'_, Result<StreamingResponse>> {
        (**self).send_streaming(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{Redirects, Retry, RetryPolicy};

    /// A base transport with a name and fixed counters; it sends nothing.
    #[derive(Debug)]
    struct Base;

    impl Transport for Base {
        fn send(&self, _req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
            Box::pin(async { Err(crate::Error::NoNode("base".into())) })
        }
        fn name(&self) -> String {
            "base".into()
        }
        fn stats(&self) -> TransportStats {
            TransportStats {
                connections_opened: 3,
                requests: 7,
            }
        }
    }

    #[test]
    fn stacked_decorators_name_themselves_and_report_the_base_counters() {
        let plain = Arc::new(Redirects::new(Retry::new(Base, RetryPolicy::default()), 2));
        assert_eq!(plain.name(), "base+retry");
        assert_eq!(plain.stats().requests, 7);
        assert_eq!(plain.stats().connections_opened, 3);
        #[cfg(feature = "gzip")]
        {
            let gz = Retry::new(crate::transport::Gzip::new(Base), RetryPolicy::default());
            assert_eq!(gz.name(), "base+gzip+retry");
            assert_eq!(gz.stats().requests, 7);
        }
        let shared: Arc<dyn Transport> = plain;
        assert_eq!(Arc::new(shared).name(), "base+retry");
    }
}
