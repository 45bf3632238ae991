//! [`Reply`]: what one send returns, its body whole or still arriving. Every layer (retry,
//! redirects, the 401 renewal, gzip, routing) handles this one type, so each is written
//! once for both ways of reading a body; callers that want one shape ask for it
//! ([`Reply::into_whole`], [`Reply::into_streamed`]).

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use http::{HeaderMap, StatusCode};

use super::{BodyStream, StreamingResponse, WireResponse};
use crate::error::{Error, Result};
use crate::timing::Timing;

/// The most of a rejected streamed answer's body read before the request is re-sent (a 401
/// renewed, a 429/503 retried); a longer one is dropped unread (its connection closed).
pub(crate) const REJECTED_BODY_LIMIT: u64 = 64 * 1024;

/// The answer to one [`Transport::send`](crate::transport::Transport::send): the head, the
/// timing, and the body, whole or to be read as it arrives (as the request's
/// [`WireRequest::streamed`](super::WireRequest::streamed) asked; a transport that cannot
/// stream answers whole).
#[derive(Debug)]
pub enum Reply {
    /// The body has been read whole (and decoded by any decorator that decodes).
    Whole(WireResponse),
    /// The head has arrived; the body is read as it arrives.
    Streamed(StreamingResponse),
}

impl From<WireResponse> for Reply {
    fn from(r: WireResponse) -> Self {
        Reply::Whole(r)
    }
}

impl From<StreamingResponse> for Reply {
    fn from(r: StreamingResponse) -> Self {
        Reply::Streamed(r)
    }
}

impl Reply {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            Reply::Whole(r) => r.status,
            Reply::Streamed(r) => r.status,
        }
    }

    /// The response headers.
    pub fn headers(&self) -> &HeaderMap {
        match self {
            Reply::Whole(r) => &r.headers,
            Reply::Streamed(r) => &r.headers,
        }
    }

    /// The response headers, for a decorator that changes them.
    pub fn headers_mut(&mut self) -> &mut HeaderMap {
        match self {
            Reply::Whole(r) => &mut r.headers,
            Reply::Streamed(r) => &mut r.headers,
        }
    }

    /// The timing record (of a streamed body: up to the head until the body ends).
    pub fn timing(&self) -> &Timing {
        match self {
            Reply::Whole(r) => &r.timing,
            Reply::Streamed(r) => r.timing(),
        }
    }

    /// The timing record, for a decorator that adds to it (attempts, redirects, encoding).
    pub fn timing_mut(&mut self) -> &mut Timing {
        match self {
            Reply::Whole(r) => &mut r.timing,
            Reply::Streamed(r) => r.body.timing_mut(),
        }
    }

    /// The whole answer: a streamed body is read to its end, at most `limit` bytes (else
    /// [`Error::TooLarge`]).
    pub async fn into_whole(self, limit: u64) -> Result<WireResponse> {
        match self {
            Reply::Whole(r) => Ok(r),
            Reply::Streamed(r) => r.into_buffered(limit).await,
        }
    }

    /// The answer as a stream: a whole body is handed out as one chunk.
    pub fn into_streamed(self) -> StreamingResponse {
        match self {
            Reply::Whole(r) => StreamingResponse::buffered(r),
            Reply::Streamed(r) => r,
        }
    }

    /// The whole body, for a rule that looks into it (Solr's error in a 503, the `rf` of a
    /// cloud write). A streamed body is read here (more than `limit` bytes is
    /// [`Error::TooLarge`]) and kept, to be handed out afterwards as one chunk.
    pub async fn body_bytes(&mut self, limit: u64) -> Result<Bytes> {
        let stream = match self {
            Reply::Whole(r) => return Ok(r.body.clone()),
            Reply::Streamed(r) => &mut r.body,
        };
        let mut buf = BytesMut::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk?;
            if (buf.len() + chunk.len()) as u64 > limit {
                return Err(Error::TooLarge {
                    node: stream.timing().node.clone().into(),
                    limit,
                });
            }
            buf.extend_from_slice(&chunk);
        }
        let body = buf.freeze();
        let timing = stream.timing().clone();
        *stream = BodyStream::whole(body.clone(), timing);
        Ok(body)
    }

    /// Lets go of a rejected answer before its request is sent again: a streamed body is
    /// read first (at most [`REJECTED_BODY_LIMIT`] bytes) so that its connection can serve
    /// the next send; an error reading it only closes that connection.
    pub(crate) async fn discard(self) {
        if let Reply::Streamed(r) = self {
            let _ = r.into_buffered(REJECTED_BODY_LIMIT).await;
        }
    }
}
