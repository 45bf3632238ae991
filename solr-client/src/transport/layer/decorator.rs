//! Decorators: transports that wrap another one, change how a request is sent, and forward
//! everything else to it. The forwarding is written once, here, for every decorator.
//!
//! Like tower's `Layer`/`Service` split: a decorator says what it changes ([`Decorator::call`],
//! [`Decorator::label`]) and the blanket `impl<D: Decorator> Transport for D` does the rest
//! (counters and shard grouping come from the inner transport).

use std::fmt;
use std::sync::Arc;

use crate::error::Result;
use crate::transport::{BoxFuture, Reply, ShardGroup, Transport, TransportStats, WireRequest};

/// A transport that wraps another ([`Decorator::Inner`]). Implementing it makes the type a
/// [`Transport`]: requests go through [`Decorator::call`], the name is [`Decorator::label`],
/// and [`Transport::stats`] and [`Transport::shard_groups`] are the inner transport's.
///
/// ```
/// use solr_client::transport::{Decorator, Transport};
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

    /// Sends one request ([`Transport::send`]): the reply's body whole or streamed, as the
    /// request asks ([`WireRequest::streamed`]), so a decorator handles both in one place.
    /// Default: the inner transport sends it unchanged.
    ///
    /// A decorator that sends a request again (now or later) needs no care for its
    /// credential: the request carries its provider ([`WireRequest::auth`]) and the base
    /// transport signs each write with the value current then.
    fn call(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        self.inner().send(req)
    }

    /// The name for reports ([`Transport::name`]). Default: the inner transport's, for a
    /// decorator that adds nothing worth naming.
    fn label(&self) -> String {
        self.inner().name()
    }
}

impl<D: Decorator> Transport for D {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        self.call(req)
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{Redirects, Retry, RetryPolicy};

    /// A base transport with a name and fixed counters; it sends nothing.
    #[derive(Debug)]
    struct Base;

    impl Transport for Base {
        fn send(&self, _req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
            Box::pin(async { Err(crate::Error::no_node("base")) })
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

    /// A custom transport that answers whole.
    #[derive(Debug)]
    struct Fixed;

    impl Transport for Fixed {
        fn send(&self, _req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
            Box::pin(async {
                Ok(Reply::Whole(crate::transport::WireResponse {
                    status: http::StatusCode::OK,
                    headers: http::HeaderMap::new(),
                    body: bytes::Bytes::from_static(b"{\"docs\":[]}"),
                    timing: crate::Timing {
                        node: "fixed".into(),
                        decoded_bytes: 11,
                        ..crate::Timing::default()
                    },
                }))
            })
        }
        fn name(&self) -> String {
            "fixed".into()
        }
        fn stats(&self) -> TransportStats {
            TransportStats::default()
        }
    }

    /// Through the retry and redirect decorators, a transport that only answers whole
    /// answers `send_streaming` with its body as one chunk; the timing counts the body
    /// once, when it has been read.
    #[tokio::test]
    async fn a_whole_answer_streams_as_one_chunk() {
        use futures::StreamExt;
        let t = Redirects::new(Retry::new(Fixed, RetryPolicy::default()), 0);
        let req = WireRequest::test_get("http://127.0.0.1:1/solr", "c/export");
        let mut resp = t.send_streaming(req).await.expect("answer");
        assert_eq!(resp.status, http::StatusCode::OK);
        assert_eq!(resp.timing().decoded_bytes, 0, "not read yet");
        let chunks: Vec<bytes::Bytes> = (&mut resp.body).map(|c| c.expect("chunk")).collect().await;
        assert_eq!(chunks, vec![bytes::Bytes::from_static(b"{\"docs\":[]}")]);
        assert!(resp.body.is_ended());
        assert_eq!(resp.timing().decoded_bytes, 11);
    }
}
