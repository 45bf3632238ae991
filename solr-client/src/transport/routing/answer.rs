//! How long one attempt of the router stays outstanding on its node. The attempt loop
//! ([`super::attempt`]) is written once over [`Reply`], so whole and streamed calls choose
//! nodes, fail over, back off and count on every node alike; only this is different.
//!
//! A streamed answer keeps its attempt outstanding on its node ([`NodeStats::outstanding`],
//! which the least-outstanding policy reads) until its body has been read to the end, failed
//! or been dropped, as a whole answer is outstanding until its body has arrived. Its body is
//! read by the router only where a rule looks into it: a SolrCloud 503 (does it name a
//! leader?) and a SolrCloud write (the `rf` sentinel); it is then handed out as one chunk.
//!
//! [`NodeStats::outstanding`]: super::NodeStats::outstanding

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;

use super::nodes::InFlight;
use crate::error::Result;
use crate::timing::Timing;
use crate::transport::{BodyStream, ChunkStream, Reply};

/// Keeps `flight` (the attempt, outstanding on its node) for as long as the body of
/// `reply` is being read: a whole answer has been read already and ends it at once.
pub(super) fn hold(reply: &mut Reply, flight: InFlight) {
    let Reply::Streamed(resp) = reply else {
        drop(flight);
        return;
    };
    let body = std::mem::replace(
        &mut resp.body,
        BodyStream::whole(Bytes::new(), Timing::default()),
    );
    resp.body = body.map_inner(|inner| {
        Box::pin(Held {
            inner,
            flight: Some(flight),
        })
    });
}

/// A body stream that keeps its attempt outstanding until the body ends (its last chunk, an
/// error, or the stream dropped unread).
struct Held {
    inner: ChunkStream,
    flight: Option<InFlight>,
}

impl Stream for Held {
    type Item = Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let out = self.inner.as_mut().poll_next(cx);
        if matches!(out, Poll::Ready(None) | Poll::Ready(Some(Err(_)))) {
            self.flight = None;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use futures::StreamExt;
    use tokio::sync::mpsc;

    use http::{HeaderMap, StatusCode};

    use super::*;
    use crate::error::Error;
    use crate::transport::{
        BoxFuture, Redirects, Retry, RetryPolicy, Routing, StreamingResponse, Transport,
        TransportStats, WireRequest, WireResponse,
    };

    const LEADER: &str = "http://127.0.0.1:1/solr";
    const REPLICA: &str = "http://127.0.0.1:2/solr";

    /// What the replica does with every request.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Replica {
        /// No connection (a stopped node).
        Refuses,
        /// Answers 503.
        Busy,
        /// Answers 200, then its connection breaks after the first body chunk.
        BreaksMidBody,
    }

    /// Two standalone nodes: the leader answers 200 with the body `ab` (streamed as `a`,
    /// `b`, or from `gate` when one is set: chunk by chunk as the test sends them), the
    /// replica as [`Replica`] says.
    #[derive(Debug)]
    struct Nodes {
        replica: Replica,
        gate: Mutex<Option<mpsc::UnboundedReceiver<Bytes>>>,
    }

    impl Nodes {
        fn new(replica: Replica) -> Self {
            Nodes {
                replica,
                gate: Mutex::new(None),
            }
        }

        fn is_leader(req: &WireRequest) -> bool {
            req.node.port() == Some(1)
        }

        fn answer(status: u16, body: &'static [u8]) -> WireResponse {
            WireResponse {
                status: StatusCode::from_u16(status).expect("status"),
                headers: HeaderMap::new(),
                body: Bytes::from_static(body),
                timing: Timing::default(),
            }
        }

        fn refused(req: &WireRequest) -> Error {
            Error::Connect {
                node: req.node.to_string().into(),
                source: std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
            }
        }

        fn broken(req: &WireRequest) -> Error {
            Error::Io {
                node: req.node.to_string().into(),
                message: "connection reset".into(),
                not_sent: false,
            }
        }
    }

    impl Nodes {
        fn whole(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
            Box::pin(async move {
                if Nodes::is_leader(&req) {
                    return Ok(Nodes::answer(200, b"ab"));
                }
                match self.replica {
                    Replica::Refuses => Err(Nodes::refused(&req)),
                    Replica::Busy => Ok(Nodes::answer(503, b"busy")),
                    Replica::BreaksMidBody => Err(Nodes::broken(&req)),
                }
            })
        }

        fn streamed(&self, req: WireRequest) -> BoxFuture<'_, Result<StreamingResponse>> {
            Box::pin(async move {
                let chunks: ChunkStream = if Nodes::is_leader(&req) {
                    match self.gate.lock().expect("lock").take() {
                        Some(mut rx) => Box::pin(futures::stream::poll_fn(move |cx| {
                            rx.poll_recv(cx).map(|c| c.map(Ok))
                        })),
                        None => Box::pin(futures::stream::iter(
                            [&b"a"[..], b"b"].map(|c| Ok(Bytes::from_static(c))),
                        )),
                    }
                } else {
                    match self.replica {
                        Replica::Refuses => return Err(Nodes::refused(&req)),
                        Replica::Busy => {
                            return Ok(StreamingResponse::buffered(Nodes::answer(503, b"busy")))
                        }
                        Replica::BreaksMidBody => Box::pin(futures::stream::iter([
                            Ok(Bytes::from_static(b"a")),
                            Err(Nodes::broken(&req)),
                        ])),
                    }
                };
                Ok(StreamingResponse {
                    status: StatusCode::OK,
                    headers: HeaderMap::new(),
                    body: BodyStream::new(chunks, Timing::default()),
                })
            })
        }
    }

    impl Transport for Nodes {
        fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
            use futures::FutureExt;
            if req.streamed {
                return Box::pin(self.streamed(req).map(|r| r.map(Reply::Streamed)));
            }
            Box::pin(self.whole(req).map(|r| r.map(Reply::Whole)))
        }

        fn name(&self) -> String {
            "nodes".into()
        }

        fn stats(&self) -> TransportStats {
            TransportStats::default()
        }
    }

    /// Reads go to the replica first, then the leader; backoff waits are a millisecond.
    fn router(nodes: Nodes) -> Arc<Routing> {
        Routing::builder(Arc::new(nodes))
            .leader(LEADER)
            .replica(REPLICA)
            .collection("c")
            .retry(
                RetryPolicy::default()
                    .base_backoff(Duration::from_millis(1))
                    .max_backoff(Duration::from_millis(1)),
            )
            .build_shared()
            .expect("builds")
    }

    fn export() -> WireRequest {
        WireRequest::test_get(LEADER, "c/export")
    }

    /// The counters of every node, without the service-time EWMA (a measured time).
    fn counters(r: &Routing) -> Vec<crate::transport::NodeStats> {
        r.node_stats()
            .into_iter()
            .map(|mut s| {
                s.ewma = None;
                s
            })
            .collect()
    }

    fn outstanding(r: &Routing, node: &str) -> u64 {
        r.stats_of(node).expect("known node").outstanding
    }

    /// Through the retry and redirect decorators on top of the router, after a failover
    /// from the refusing replica: the head and the first chunk are handed out while the
    /// leader's body is still open (the test has not sent its second chunk), and the
    /// attempt stays outstanding on the leader until the body ends.
    #[tokio::test]
    async fn a_routed_body_is_handed_out_as_it_arrives() {
        let nodes = Nodes::new(Replica::Refuses);
        let (tx, rx) = mpsc::unbounded_channel();
        *nodes.gate.lock().expect("lock") = Some(rx);
        let routing = router(nodes);
        let stack = Redirects::new(Retry::new(routing.clone(), RetryPolicy::default()), 0);
        tx.send(Bytes::from_static(b"first")).expect("gate open");
        // A hang guard only: a router that read the body whole would wait for the gate to
        // close, which happens below, after the first chunk.
        let guard = Duration::from_secs(30);
        let mut resp = tokio::time::timeout(guard, stack.send_streaming(export()))
            .await
            .expect("the head arrives while the body is open")
            .expect("answered");
        assert_eq!(resp.status, StatusCode::OK);
        let first = tokio::time::timeout(guard, resp.body.next())
            .await
            .expect("the first chunk arrives while the body is open");
        assert_eq!(first.expect("a chunk").expect("ok"), &b"first"[..]);
        assert!(!resp.body.is_ended());
        assert_eq!(outstanding(&routing, LEADER), 1, "the body is being read");
        tx.send(Bytes::from_static(b"second")).expect("gate open");
        drop(tx);
        let rest: Vec<Bytes> = (&mut resp.body).map(|c| c.expect("chunk")).collect().await;
        assert_eq!(rest, vec![Bytes::from_static(b"second")]);
        assert!(resp.body.is_ended());
        assert_eq!(outstanding(&routing, LEADER), 0, "ended with its body");
        assert_eq!(resp.timing().attempts, 2, "the replica, then the leader");
        assert_eq!(resp.timing().node, LEADER);
        assert_eq!(resp.timing().decoded_bytes, 11);
        let replica = routing.stats_of(REPLICA).expect("known");
        assert_eq!(
            (replica.up, replica.failed, replica.marked_down),
            (false, 1, 1)
        );
    }

    /// A refused connect and a 503 at the head move both paths to the leader, with the
    /// same answer, attempts and counters on every node.
    #[tokio::test]
    async fn whole_and_streamed_calls_choose_and_count_alike() {
        for replica in [Replica::Refuses, Replica::Busy] {
            let whole = router(Nodes::new(replica));
            let streamed = router(Nodes::new(replica));
            let a = whole.send_whole(export()).await.expect("answered");
            let b = streamed
                .send_streaming(export())
                .await
                .expect("answered")
                .into_buffered(1 << 20)
                .await
                .expect("read");
            assert_eq!((a.status, &a.body), (b.status, &b.body), "{replica:?}");
            assert_eq!(a.timing.attempts, 2, "{replica:?}");
            assert_eq!(
                (a.timing.attempts, &a.timing.node),
                (b.timing.attempts, &b.timing.node),
                "{replica:?}"
            );
            assert_eq!(counters(&whole), counters(&streamed), "{replica:?}");
            let leader = whole.stats_of(LEADER).expect("known");
            assert_eq!((leader.reads, leader.answered), (1, 1), "{replica:?}");
        }
    }

    /// Once the head has been accepted nothing is retried: a body that breaks is the
    /// reader's error, after the chunk before it, and the leader is never asked.
    #[tokio::test]
    async fn a_body_error_after_the_head_is_the_readers() {
        let routing = router(Nodes::new(Replica::BreaksMidBody));
        let resp = routing.send_streaming(export()).await.expect("a head");
        assert_eq!(resp.timing().attempts, 1);
        assert_eq!(resp.timing().node, REPLICA);
        let items: Vec<Result<Bytes>> = resp.body.collect().await;
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(items[0].as_ref().expect("first chunk"), &b"a"[..]);
        assert!(matches!(items[1], Err(Error::Io { .. })), "{items:?}");
        let replica = routing.stats_of(REPLICA).expect("known");
        assert_eq!(
            (
                replica.reads,
                replica.answered,
                replica.failed,
                replica.outstanding
            ),
            (1, 1, 0, 0)
        );
        assert_eq!(routing.stats_of(LEADER).expect("known").reads, 0);
    }

    /// A body a rule looks into is read whole, at most `limit` bytes, and handed out
    /// afterwards as one chunk.
    #[tokio::test]
    async fn a_streamed_body_read_for_a_rule_is_kept_whole() {
        let two = || {
            let chunks = [&b"no leader "[..], b"found"].map(|c| Ok(Bytes::from_static(c)));
            StreamingResponse {
                status: StatusCode::SERVICE_UNAVAILABLE,
                headers: HeaderMap::new(),
                body: BodyStream::new(Box::pin(futures::stream::iter(chunks)), Timing::default()),
            }
        };
        let resp = two();
        let mut resp = Reply::Streamed(resp);
        let body = resp.body_bytes(1024).await.expect("read");
        let resp = resp.into_streamed();
        assert_eq!(body, &b"no leader found"[..]);
        let again: Vec<Bytes> = resp.body.map(|c| c.expect("chunk")).collect().await;
        assert_eq!(again, vec![body]);
        let e = Reply::Streamed(two())
            .body_bytes(12)
            .await
            .expect_err("over the limit");
        assert!(matches!(e, Error::TooLarge { limit: 12, .. }), "{e:?}");
    }
}
