//! `+gzip`: a decorator over any transport. It asks for gzip responses
//! (`Accept-Encoding: gzip`), gunzips them under the size limit, and times the gunzip as
//! the `decompress` phase; `bytes_in` stays the wire count, `decoded_bytes` is the size after.
//!
//! Gzip request bodies ([`Gzip::compress_requests`]) are off by default: Solr's Jetty only
//! inflates a `Content-Encoding: gzip` request body when its GzipHandler has an inflate
//! buffer configured, which the Solr distribution does not do (`inflateBufferSize` 0). This
//! project's launcher can switch it on (`--gzip-inflate`) to measure it.

use std::io::Read;
use std::time::Instant;

use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT_ENCODING, CONTENT_ENCODING};

use crate::error::{Error, Result};
use crate::transport::{
    BodyStream, BoxFuture, ChunkStream, Decorator, Reply, Transport, WireRequest,
};

/// Wraps a transport with gzip content coding.
#[derive(Debug)]
pub struct Gzip<T> {
    inner: T,
    compress_requests: bool,
}

impl<T: Transport> Gzip<T> {
    /// Wraps `inner`: responses are requested and decoded as gzip; request bodies are sent
    /// as they are.
    pub fn new(inner: T) -> Self {
        Gzip {
            inner,
            compress_requests: false,
        }
    }

    /// Also gzips non-empty request bodies (`Content-Encoding: gzip`). Default false: only a
    /// Solr whose Jetty inflates request bodies accepts them.
    pub fn compress_requests(mut self, yes: bool) -> Self {
        self.compress_requests = yes;
        self
    }
}

/// Gzips a byte slice (default level).
#[doc(hidden)]
pub fn gzip_bytes(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(data);
    enc.finish().unwrap_or_default()
}

/// Gunzips `data` exactly as the decorator does, refusing output larger than `limit` bytes
/// ([`Error::TooLarge`], as soon as the inflated size passes the limit: memory stays within
/// `limit` plus a 64 KiB step) and truncated or corrupt input ([`Error::Decompress`]). Public for
/// the fuzz targets and for callers that hold a gzip body from elsewhere.
pub fn gunzip_bytes(data: &[u8], limit: u64) -> Result<Vec<u8>> {
    gunzip_limited("<bytes>", data, limit)
}

/// Bytes inflated per step.
const INFLATE_CHUNK: usize = 64 * 1024;

/// Gunzips `data` (one or more gzip members) in steps of [`INFLATE_CHUNK`] bytes, refusing
/// output larger than `limit` bytes as soon as it passes the limit.
///
/// The output buffer grows by doubling, but never past `limit`, and the check comes before
/// the bytes are kept: however far a body would inflate (a decompression bomb), this holds
/// at most `limit` output bytes, one 64 KiB step, and the input.
pub(crate) fn gunzip_limited(node: &str, data: &[u8], limit: u64) -> Result<Vec<u8>> {
    let limit_usize = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut dec = flate2::read::MultiGzDecoder::new(data);
    let mut step = vec![0u8; INFLATE_CHUNK];
    let mut out: Vec<u8> = Vec::new();
    loop {
        let n = match dec.read(&mut step) {
            Ok(0) => return Ok(out),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Error::Decompress {
                    node: node.into(),
                    encoding: "gzip".into(),
                    message: e.to_string().into(),
                })
            }
        };
        let len = out.len() + n;
        if len > limit_usize {
            return Err(Error::TooLarge {
                node: node.into(),
                limit,
            });
        }
        if len > out.capacity() {
            let want = len.max(out.capacity().saturating_mul(2)).min(limit_usize);
            out.reserve_exact(want - out.len());
        }
        out.extend_from_slice(&step[..n]);
    }
}

impl<T> Gzip<T> {
    /// What every request gets, buffered or streamed: `Accept-Encoding: gzip`, and its body
    /// gzipped when [`Gzip::compress_requests`] is on.
    fn prepare(&self, req: &mut WireRequest) {
        req.headers
            .insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        if self.compress_requests && !req.body.is_empty() {
            req.body = Bytes::from(gzip_bytes(&req.body));
            req.headers
                .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
    }
}

/// Whether a response with `headers` from `node` is gzipped (true) or not encoded (false);
/// any other content coding is [`Error::Decompress`].
fn gzipped(headers: &http::HeaderMap, node: &str) -> Result<bool> {
    let encoding = headers
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_ascii_lowercase());
    match encoding.as_deref() {
        None | Some("identity") => Ok(false),
        Some("gzip") | Some("x-gzip") => Ok(true),
        Some(other) => Err(Error::Decompress {
            node: node.into(),
            encoding: other.into(),
            message: "unsupported content encoding".into(),
        }),
    }
}

impl<T: Transport> Decorator for Gzip<T> {
    type Inner = T;

    fn inner(&self) -> &T {
        &self.inner
    }

    /// A whole body is gunzipped at once (its output at most the request's
    /// `max_response_bytes`); a streamed body as it arrives: each wire chunk is inflated on
    /// its own (in steps of 1 KiB of input, its output at most `max_response_bytes`), so no
    /// more than one chunk's output is held.
    fn call(&self, mut req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        Box::pin(async move {
            self.prepare(&mut req);
            let limit = req.max_response_bytes;
            let mut reply = self.inner.send(req).await?;
            let node = reply.timing().node.clone();
            if !gzipped(reply.headers(), &node)? {
                return Ok(reply);
            }
            reply.headers_mut().remove(CONTENT_ENCODING);
            reply.timing_mut().content_encoding = Some("gzip".into());
            match &mut reply {
                Reply::Whole(resp) => {
                    let t0 = Instant::now();
                    let out = gunzip_limited(&node, &resp.body, limit)?;
                    resp.timing.decompress = Some(t0.elapsed());
                    resp.timing.decoded_bytes = out.len() as u64;
                    resp.body = Bytes::from(out);
                }
                Reply::Streamed(resp) => {
                    let body = std::mem::replace(
                        &mut resp.body,
                        BodyStream::whole(Bytes::new(), Default::default()),
                    );
                    resp.body = body.map_inner(|inner| Box::pin(gunzip_stream(inner, node, limit)));
                }
            }
            Ok(reply)
        })
    }

    fn label(&self) -> String {
        if self.compress_requests {
            format!("{}+gzip(req)", self.inner.name())
        } else {
            format!("{}+gzip", self.inner.name())
        }
    }
}

/// Input bytes inflated per step of the streaming gunzip.
const STREAM_STEP: usize = 1024;

/// The chunks of `inner` (a gzip body, one or more members) gunzipped chunk by chunk; a
/// chunk whose output passes `limit` is [`Error::TooLarge`], a body that ends inside a
/// member is [`Error::Decompress`].
fn gunzip_stream(
    inner: ChunkStream,
    node: String,
    limit: u64,
) -> impl futures::Stream<Item = Result<Bytes>> + Send {
    use futures::StreamExt;
    let decoder = flate2::write::MultiGzDecoder::new(Vec::new());
    let state = (inner, Some(decoder), node);
    futures::stream::unfold(state, move |(mut inner, mut dec, node)| async move {
        let decoder = dec.as_mut()?;
        let fail = |message: String| Error::Decompress {
            node: node.clone().into(),
            encoding: "gzip".into(),
            message: message.into(),
        };
        loop {
            let out = match inner.next().await {
                Some(Ok(chunk)) => inflate_chunk(decoder, &chunk, limit, &node, fail),
                Some(Err(e)) => Err(e),
                None => match decoder.try_finish() {
                    Ok(()) if decoder.get_ref().is_empty() => return None,
                    Ok(()) => Ok(Bytes::from(std::mem::take(decoder.get_mut()))),
                    Err(e) => Err(fail(e.to_string())),
                },
            };
            match out {
                Ok(b) if b.is_empty() => continue,
                Ok(b) => return Some((Ok(b), (inner, dec, node))),
                Err(e) => return Some((Err(e), (inner, None, node))),
            }
        }
    })
}

/// Feeds one wire chunk to `decoder` in steps, and takes what it inflated.
fn inflate_chunk(
    decoder: &mut flate2::write::MultiGzDecoder<Vec<u8>>,
    chunk: &[u8],
    limit: u64,
    node: &str,
    fail: impl Fn(String) -> Error,
) -> Result<Bytes> {
    use std::io::Write;
    for step in chunk.chunks(STREAM_STEP) {
        decoder.write_all(step).map_err(|e| fail(e.to_string()))?;
        if decoder.get_ref().len() as u64 > limit {
            return Err(Error::TooLarge {
                node: node.into(),
                limit,
            });
        }
    }
    Ok(Bytes::from(std::mem::take(decoder.get_mut())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflates_up_to_the_limit_exactly_and_refuses_one_byte_more() {
        let body = vec![b'x'; 3 * INFLATE_CHUNK + 17];
        let z = gzip_bytes(&body);
        let n = body.len() as u64;
        assert_eq!(gunzip_bytes(&z, n).expect("exactly the limit"), body);
        assert!(matches!(
            gunzip_bytes(&z, n - 1),
            Err(Error::TooLarge { limit, .. }) if limit == n - 1
        ));
        // Several members (a concatenated bomb) are all inflated, and counted together.
        let mut two = z.clone();
        two.extend_from_slice(&z);
        assert_eq!(
            gunzip_bytes(&two, 2 * n).expect("two members").len() as u64,
            2 * n
        );
        assert!(matches!(
            gunzip_bytes(&two, 2 * n - 1),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            gunzip_bytes(&z[..z.len() / 2], n),
            Err(Error::Decompress { .. })
        ));
        assert_eq!(gunzip_bytes(&gzip_bytes(b""), 0).expect("empty"), b"");
    }

    /// A gzip body cut into chunks at every size from 1 byte up inflates, chunk by chunk,
    /// to the original; cut short, it is a Decompress error after the bytes it had.
    #[tokio::test]
    async fn a_streamed_gzip_body_inflates_chunk_by_chunk() {
        use futures::StreamExt;
        let body: Vec<u8> = (0..20_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let z = gzip_bytes(&body);
        for size in [1, 7, 512, 4096, z.len()] {
            let chunks: Vec<Result<Bytes>> = z
                .chunks(size)
                .map(|c| Ok(Bytes::copy_from_slice(c)))
                .collect();
            let s = gunzip_stream(Box::pin(futures::stream::iter(chunks)), "n".into(), 1 << 30);
            let out: Vec<Result<Bytes>> = s.collect().await;
            let mut all = Vec::new();
            for c in out {
                all.extend_from_slice(&c.expect("chunk"));
            }
            assert_eq!(all, body, "chunk size {size}");
        }
        let cut = vec![Ok(Bytes::copy_from_slice(&z[..z.len() / 2]))];
        let s = gunzip_stream(Box::pin(futures::stream::iter(cut)), "n".into(), 1 << 30);
        let out: Vec<Result<Bytes>> = s.collect().await;
        assert!(matches!(out.last(), Some(Err(Error::Decompress { .. }))));
    }

    #[test]
    fn the_output_buffer_never_grows_past_the_limit() {
        let limit = 5 * INFLATE_CHUNK as u64 + 1;
        let out = gunzip_bytes(&gzip_bytes(&vec![b' '; limit as usize]), limit).expect("fits");
        assert!(out.capacity() as u64 <= limit, "{}", out.capacity());
    }
}
