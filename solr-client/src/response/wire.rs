//! A transport's answer decoded: the parts [`crate::codec::decode()`] reads taken from a
//! [`WireResponse`], the parse time recorded in its timing.

use std::time::Instant;

use http::header::{CONTENT_ENCODING, CONTENT_TYPE};
use serde::de::DeserializeOwned;

use crate::codec::{decode_reply, Reply, ResponseFormat};
use crate::error::Result;
use crate::timing::Timing;
use crate::transport::WireResponse;

/// Decodes `resp`, sent with `wt=format`, into `T` (named `what` in errors); the decode
/// time goes into the returned timing.
pub(crate) fn decode_as<T: DeserializeOwned>(
    resp: WireResponse,
    what: &'static str,
    format: ResponseFormat,
) -> Result<(T, Timing)> {
    let header = |name| resp.headers.get(name).and_then(|v| v.to_str().ok());
    let reply = Reply {
        status: resp.status,
        content_type: header(CONTENT_TYPE),
        content_encoding: header(CONTENT_ENCODING),
        body: &resp.body,
        node: &resp.timing.node,
    };
    let t0 = Instant::now();
    let value = decode_reply(format, &reply, what)?;
    let mut timing = resp.timing;
    timing.parse = Some(t0.elapsed());
    Ok((value, timing))
}

/// [`decode_as`] of a JSON answer (admin, update and ping responses).
pub(crate) fn decode<T: DeserializeOwned>(
    resp: WireResponse,
    what: &'static str,
) -> Result<(T, Timing)> {
    decode_as(resp, what, ResponseFormat::Json)
}
