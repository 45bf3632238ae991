//! A response whose body is read as it arrives ([`StreamingResponse`], from
//! [`Transport::send_streaming`](crate::transport::Transport::send_streaming)): the head at once, the
//! body as a stream of byte chunks ([`BodyStream`]).
//!
//! The body of a streamed response is not bounded by
//! [`WireRequest::max_response_bytes`](super::WireRequest::max_response_bytes) (an export may
//! be many gigabytes; what reads it holds one chunk at a time) and not by the request
//! timeout once the head has arrived (the reader sets the pace): only the read-idle timeout
//! watches it, and it counts only while the reader waits for the next chunk.
//!
//! # Byte counts
//! The timing's `bytes_in` and `bytes_out` of a streamed response are those of the buffered
//! path for the same transport (socket bytes of the exchange for `fresh` and `pooled`; for
//! `http2`, socket bytes when the stream was alone on its connection throughout, else the
//! payload; for `reqwest`, the payload), counted as the body is read from the wire (before
//! any decoder: with gzip, `bytes_in` is the compressed size, `decoded_bytes` what the reader
//! got). They are final, and set, at one moment: when the [`BodyStream`] has returned its
//! last item, `None` ([`BodyStream::is_ended`] is true and no item was an error). Until then
//! both are zero, and they stay zero for a body given up (dropped) or failed before its end.

use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use futures::Stream;
use http::{HeaderMap, StatusCode};

use super::WireResponse;
use crate::error::{Error, Result};
use crate::timing::Timing;

/// The wire byte counts of a streamed exchange, set by the transport when it has read the
/// body from the connection to its end, and taken into the [`BodyStream`]'s timing when the
/// stream ends (after any decoder between the two has ended too).
#[derive(Debug, Clone, Default)]
pub(crate) struct WireCount(Arc<OnceLock<WireBytes>>);

/// What [`WireCount`] carries: the counts and whether they are socket counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WireBytes {
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// As [`Timing::bytes_exact`].
    pub exact: bool,
}

impl WireCount {
    /// Records the counts (the first call wins: a body ends once).
    pub(crate) fn set(&self, bytes: WireBytes) {
        let _ = self.0.set(bytes);
    }

    fn get(&self) -> Option<WireBytes> {
        self.0.get().copied()
    }
}

/// A boxed stream of body chunks, as a transport produces it.
pub type ChunkStream = Pin<Box<dyn Stream<Item = Result<Bytes>> + Send>>;

/// A response head and its body, still to be read.
#[derive(Debug)]
pub struct StreamingResponse {
    /// HTTP status.
    pub status: StatusCode,
    /// Response headers.
    pub headers: HeaderMap,
    /// The body, read chunk by chunk; its [`BodyStream::timing`] is the request's timing.
    pub body: BodyStream,
}

impl StreamingResponse {
    /// A response whose body a transport reads as it arrives: `wire` gets the body's wire
    /// byte counts once the transport has read it to its end ([`BodyStream::counted`]).
    pub(crate) fn counted(
        status: StatusCode,
        headers: HeaderMap,
        body: ChunkStream,
        timing: Timing,
        wire: WireCount,
    ) -> Self {
        StreamingResponse {
            status,
            headers,
            body: BodyStream::new(body, timing).counted(wire),
        }
    }

    /// A streaming response over a body that is already whole (the fallback of a transport
    /// that only reads whole bodies).
    pub fn buffered(resp: WireResponse) -> Self {
        let body = BodyStream::whole(resp.body, resp.timing);
        StreamingResponse {
            status: resp.status,
            headers: resp.headers,
            body,
        }
    }

    /// The timing record: the phases up to the response head, and the body's transfer time
    /// and byte counts once it has been read to its end (see the module docs for when
    /// `bytes_in` is final).
    pub fn timing(&self) -> &Timing {
        &self.body.timing
    }

    /// Reads the rest of the body (at most `limit` bytes, else [`Error::TooLarge`]) into a
    /// whole response.
    pub async fn into_buffered(self, limit: u64) -> Result<WireResponse> {
        use futures::StreamExt;
        let mut body = self.body;
        let mut buf = BytesMut::new();
        while let Some(chunk) = body.next().await {
            let chunk = chunk?;
            if (buf.len() + chunk.len()) as u64 > limit {
                return Err(Error::TooLarge {
                    node: body.timing.node.clone().into(),
                    limit,
                });
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(WireResponse {
            status: self.status,
            headers: self.headers,
            body: buf.freeze(),
            timing: body.timing,
        })
    }
}

/// The body of a [`StreamingResponse`]: a `Stream` of byte chunks. When it ends, its
/// [`timing`](Self::timing) gets the body's transfer time and decoded size.
pub struct BodyStream {
    inner: ChunkStream,
    timing: Timing,
    headers_at: Instant,
    bytes: u64,
    ended: bool,
    wire: Option<WireCount>,
}

impl std::fmt::Debug for BodyStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BodyStream")
            .field("bytes", &self.bytes)
            .field("ended", &self.ended)
            .finish()
    }
}

impl BodyStream {
    /// A body read from `inner`, whose head arrived now, with the timing of the exchange up
    /// to the head.
    pub fn new(inner: ChunkStream, timing: Timing) -> Self {
        BodyStream {
            inner,
            timing,
            headers_at: Instant::now(),
            bytes: 0,
            ended: false,
            wire: None,
        }
    }

    /// This body, whose wire byte counts the transport sets in `wire` when it has read the
    /// body to its end; they go into the timing when this stream ends (see the module docs).
    pub(crate) fn counted(mut self, wire: WireCount) -> Self {
        self.timing.bytes_in = 0;
        self.timing.bytes_out = 0;
        self.wire = Some(wire);
        self
    }

    /// A body that is already whole: one chunk (none when empty).
    pub fn whole(body: Bytes, timing: Timing) -> Self {
        let chunks = (!body.is_empty()).then_some(Ok(body));
        let mut s = BodyStream::new(Box::pin(futures::stream::iter(chunks)), timing);
        s.timing.decoded_bytes = 0;
        s
    }

    /// The request's timing: up to the head until the body ends, then with the body's
    /// `transfer` time, `decoded_bytes`, and the wire byte counts of the built-in
    /// transports (`bytes_in`, `bytes_out`: final at the end, zero before; see the module
    /// docs).
    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    /// True once the body has been read to its end (or failed).
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// This body with its chunks passed through `f` (a decoder: the gzip decorator's
    /// inflater), keeping its timing.
    pub fn map_inner(self, f: impl FnOnce(ChunkStream) -> ChunkStream) -> Self {
        BodyStream {
            inner: f(self.inner),
            ..self
        }
    }

    /// The timing record, for a decorator to add its fields (the gzip decorator its
    /// content encoding).
    pub fn timing_mut(&mut self) -> &mut Timing {
        &mut self.timing
    }
}

impl Stream for BodyStream {
    type Item = Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        let out = self.inner.as_mut().poll_next(cx);
        match &out {
            Poll::Ready(Some(Ok(chunk))) => self.bytes += chunk.len() as u64,
            Poll::Ready(None) => {
                self.ended = true;
                let transfer = self.headers_at.elapsed();
                self.timing.transfer += transfer;
                self.timing.decoded_bytes += self.bytes;
                if let Some(w) = self.wire.as_ref().and_then(WireCount::get) {
                    self.timing.bytes_in = w.bytes_in;
                    self.timing.bytes_out = w.bytes_out;
                    self.timing.bytes_exact = w.exact;
                }
            }
            Poll::Ready(Some(Err(_))) => self.ended = true,
            Poll::Pending => {}
        }
        out
    }
}
