//! HTTP/2's side of the exchange: the response head awaited under the read-idle timeout
//! counted on the stream's own frames (the HTTP/1.1 exchange is [`super::exchange`]).

use std::future::Future;
use std::time::Instant;

use hyper::body::Incoming;

use super::exchange::{head_under, Head, Watch};
use crate::error::Result;
use crate::transport::WireRequest;

/// HTTP/2: waits for the response head `fut` under the read-idle timeout, counted from the
/// stream's last byte: its last frame, or the last wire byte of a frame still arriving on
/// the connection (`clock`, see [`crate::transport::http::h2_clock`]). The bytes of other streams' complete
/// frames do not keep a stalled stream alive. The body is the caller's: [`read_body`](super::exchange::read_body) with
/// `frames_restart`, or the streaming path's reader.
///
/// `timer` is this request's own (streams share the connection), made once per request by
/// the caller (and used again for the body) and re-armed only when the idle limit moves.
pub(crate) async fn h2_head<F>(
    node: &str,
    req: &WireRequest,
    clock: &crate::transport::http::h2_clock::FrameClock,
    timer: std::pin::Pin<&mut tokio::time::Sleep>,
    fut: F,
) -> Result<Head>
where
    F: Future<Output = std::result::Result<http::Response<Incoming>, hyper::Error>>,
{
    let start = Instant::now();
    let mut watch = Watch::on(clock, timer, req.timeouts.read_idle, start, None);
    head_under(node, req, &mut watch, fut).await
}
