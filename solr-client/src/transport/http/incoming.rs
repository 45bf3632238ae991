//! A hyper response body read incrementally, for the streaming path of the hyper-based
//! transports (fresh, pooled, http2): each frame's data is a chunk, every wait for one is
//! bounded by the read-idle timeout (counted only while the reader waits, not while it
//! works on the previous chunk), and when the body has been read to its end the connection
//! is handed back ([`IncomingBody::on_end`]: the pooled transport returns it to its pool).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::Stream;
use hyper::body::Incoming;

use crate::error::{Error, Result, TimeoutPhase};
use crate::transport::connect::connector::Activity;
use crate::transport::http::exchange::{map_hyper, ConnTimer, Watch};

/// What runs when the body has been read to its end, given the connection's timer back and
/// the body's payload bytes (the data of its frames as they came, before any decoder).
pub(crate) type OnEnd = Box<dyn FnOnce(ConnTimer, u64) + Send>;

/// A hyper body as a stream of chunks (see the module docs).
pub(crate) struct IncomingBody<A: Activity + Send + Sync + ?Sized + 'static> {
    body: Incoming,
    activity: Arc<A>,
    timer: Option<ConnTimer>,
    idle: Duration,
    last: Instant,
    /// A chunk was handed out: the next wait counts from when the reader asks again.
    resume: bool,
    /// HTTP/2: each frame of the stream restarts the idle clock (the connection's bytes
    /// belong to other streams too).
    frames_restart: bool,
    node: String,
    on_end: Option<OnEnd>,
    done: bool,
    /// Payload bytes handed out so far.
    payload: u64,
}

impl<A: Activity + Send + Sync + ?Sized + 'static> IncomingBody<A> {
    /// The body `body` of a response from `node`, whose bytes `activity` reports, watched on
    /// `timer` with the `idle` limit.
    pub(crate) fn new(
        body: Incoming,
        activity: Arc<A>,
        timer: ConnTimer,
        idle: Duration,
        node: String,
    ) -> Self {
        IncomingBody {
            body,
            activity,
            timer: Some(timer),
            idle,
            last: Instant::now(),
            resume: false,
            frames_restart: false,
            node,
            on_end: None,
            done: false,
            payload: 0,
        }
    }

    /// Each frame restarts the idle clock (HTTP/2).
    #[cfg(feature = "http2")]
    pub(crate) fn frames_restart(mut self) -> Self {
        self.frames_restart = true;
        self
    }

    /// Runs `f` with the connection's timer and the payload byte count once the body has been
    /// read to its end, before the stream returns its `None`. A body dropped before its end
    /// never runs it (the connection is dropped: closed).
    pub(crate) fn on_end(mut self, f: OnEnd) -> Self {
        self.on_end = Some(f);
        self
    }

    fn idle_timeout(&self) -> Error {
        Error::Timeout {
            node: self.node.clone().into(),
            phase: TimeoutPhase::ReadIdle,
            after: self.idle,
        }
    }
}

impl<A: Activity + Send + Sync + ?Sized + 'static> Stream for IncomingBody<A> {
    type Item = Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            if this.resume {
                this.resume = false;
                this.last = this.last.max(Instant::now());
            }
            let Some(timer) = this.timer.as_mut() else {
                return Poll::Ready(None);
            };
            let mut watch = Watch::on(&*this.activity, timer.here(), this.idle, this.last, None);
            let body = &mut this.body;
            let polled = watch.poll(cx, |cx| hyper::body::Body::poll_frame(Pin::new(body), cx));
            this.last = watch.last();
            let frame = match polled {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(_)) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(this.idle_timeout())));
                }
                Poll::Ready(Ok(frame)) => frame,
            };
            match frame {
                None => {
                    this.done = true;
                    if let (Some(f), Some(t)) = (this.on_end.take(), this.timer.take()) {
                        f(t, this.payload);
                    }
                    return Poll::Ready(None);
                }
                Some(Err(e)) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(map_hyper(&this.node, e))));
                }
                Some(Ok(frame)) => {
                    if this.frames_restart {
                        this.last = Instant::now();
                    }
                    if let Ok(data) = frame.into_data() {
                        if !data.is_empty() {
                            this.resume = true;
                            this.payload += data.len() as u64;
                            return Poll::Ready(Some(Ok(data)));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::sync::atomic::{AtomicU64, Ordering};

    use futures::StreamExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use crate::transport::{
        Fresh, Pooled, PooledConfig, StreamingResponse, TlsOptions, Transport, WireRequest,
    };

    /// A chunked answer of 11 payload bytes (`hello world`).
    const CHUNKED: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\
        transfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";

    /// A local HTTP/1.1 server answering every request (a GET: a head without body) on each
    /// connection with `answer`, byte for byte; counts the request bytes it read.
    async fn serve(answer: Vec<u8>) -> (SocketAddr, std::sync::Arc<AtomicU64>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let read = std::sync::Arc::new(AtomicU64::new(0));
        let counted = read.clone();
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let (answer, counted) = (answer.clone(), counted.clone());
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while let Ok(n) = sock.read(&mut buf).await {
                        if n == 0 {
                            return;
                        }
                        counted.fetch_add(n as u64, Ordering::SeqCst);
                        head.extend_from_slice(&buf[..n]);
                        if head.windows(4).any(|w| w == b"\r\n\r\n") {
                            head.clear();
                            if sock.write_all(&answer).await.is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
        (addr, read)
    }

    fn get(addr: SocketAddr) -> WireRequest {
        let mut r = WireRequest::test_get(&format!("http://{addr}/solr"), "c/export");
        r.query = vec![("q".into(), "*:*".into())];
        r
    }

    /// Reads `resp`'s body to its end, checking the byte counts are zero until the end;
    /// returns the bytes it yielded.
    async fn drain(resp: &mut StreamingResponse) -> Vec<u8> {
        let mut got = Vec::new();
        while let Some(chunk) = resp.body.next().await {
            assert_eq!(resp.timing().bytes_in, 0, "not final before the end");
            got.extend_from_slice(&chunk.expect("chunk"));
        }
        assert!(resp.body.is_ended());
        got
    }

    /// A streamed body read to its end accounts exactly the bytes the server wrote
    /// (head and chunk framing included: socket bytes, as the buffered path counts) and
    /// exactly the request bytes the server read; on a reused pooled connection only its
    /// own exchange's.
    #[tokio::test]
    async fn a_streamed_body_accounts_its_wire_bytes_at_its_end() {
        let (addr, read) = serve(CHUNKED.to_vec()).await;
        let fresh = Fresh::new(&TlsOptions::default()).expect("fresh");
        let mut resp = fresh.send_streaming(get(addr)).await.expect("head");
        assert_eq!(drain(&mut resp).await, b"hello world");
        let t = resp.timing();
        assert_eq!(t.bytes_in, CHUNKED.len() as u64);
        assert_eq!(t.bytes_out, read.load(Ordering::SeqCst));
        assert_eq!(t.decoded_bytes, 11);
        assert!(t.bytes_exact);

        let pooled = Pooled::new(&TlsOptions::default(), PooledConfig::default()).expect("pool");
        for round in 1..=2u64 {
            let before = read.load(Ordering::SeqCst);
            let mut resp = pooled.send_streaming(get(addr)).await.expect("head");
            assert_eq!(drain(&mut resp).await, b"hello world");
            let t = resp.timing();
            assert_eq!(t.bytes_in, CHUNKED.len() as u64, "round {round}");
            assert_eq!(t.bytes_out, read.load(Ordering::SeqCst) - before);
            assert_eq!(t.decoded_bytes, 11);
            assert_eq!(pooled.stats().connections_opened, 1, "reused");
        }
        // The buffered path counts the same bytes for the same answer.
        let whole = pooled.send_whole(get(addr)).await.expect("buffered");
        assert_eq!(whole.timing.bytes_in, CHUNKED.len() as u64);
        assert_eq!(whole.body.as_ref(), b"hello world");
        // Given up before its end: nothing accounted.
        let mut resp = pooled.send_streaming(get(addr)).await.expect("head");
        drop(resp.body.next().await);
        assert_eq!(resp.timing().bytes_in, 0);
    }

    /// Through the gzip decorator the wire count is the compressed size (exact), the
    /// decoded size what the reader got, which is more.
    #[cfg(feature = "gzip")]
    #[tokio::test]
    async fn a_gzipped_streamed_body_accounts_the_compressed_bytes() {
        let payload = vec![b'a'; 50_000];
        let z = crate::transport::gzip_bytes(&payload);
        let mut answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: {}\r\n\r\n",
            z.len()
        )
        .into_bytes();
        answer.extend_from_slice(&z);
        let (addr, _) = serve(answer.clone()).await;
        let pooled = Pooled::new(&TlsOptions::default(), PooledConfig::default()).expect("pool");
        let gz = crate::transport::Gzip::new(pooled);
        let mut resp = gz.send_streaming(get(addr)).await.expect("head");
        assert_eq!(drain(&mut resp).await, payload);
        let t = resp.timing();
        assert_eq!(t.bytes_in, answer.len() as u64);
        assert_eq!(t.decoded_bytes, payload.len() as u64);
        assert!(t.bytes_in < t.decoded_bytes);
        assert_eq!(t.content_encoding.as_deref(), Some("gzip"));
    }
}
