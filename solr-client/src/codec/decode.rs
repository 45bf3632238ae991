//! Decoding a response body: the status, content-type, encoding and shape checks the client
//! applies to every response, then the body straight into the caller's type. Generic over
//! the target type; the typed sections live in [`crate::response`].

use std::time::Instant;

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_ENCODING, CONTENT_TYPE};
use http::{HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::snippet::snippet;
use crate::timing::Timing;
use crate::transport::WireResponse;
use crate::types::ErrorEnvelope;

/// The node name errors from [`decode_response_bytes`] carry.
const NODE: &str = "<bytes>";

/// The response's `Content-Type`, when it has a readable one.
pub(crate) fn content_type(resp: &WireResponse) -> Option<String> {
    resp.headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// An [`Error::Decompress`] when the body still carries a `Content-Encoding` other than
/// `identity`: no decoder was configured to undo it (gzip off), so it cannot be parsed.
pub(crate) fn reject_encoded(resp: &WireResponse) -> Result<()> {
    match resp
        .headers
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
    {
        Some(enc) if !enc.eq_ignore_ascii_case("identity") => Err(Error::Decompress {
            node: resp.timing.node.clone(),
            encoding: enc.to_string(),
            message: "the body is encoded but no decoder is configured (enable gzip)".into(),
        }),
        _ => Ok(()),
    }
}

/// Checks status, encoding and content type, then decodes the JSON body into `T`; records
/// the parse time and QTime in the timing record (which is returned with the value).
pub(crate) fn decode<T: DeserializeOwned>(
    resp: WireResponse,
    what: &'static str,
) -> Result<(T, Timing)> {
    reject_encoded(&resp)?;
    // Borrowed: the success path copies nothing (the node label and content type are
    // copied into an error only).
    let content_type = resp.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let looks_json =
        content_type.is_some_and(|ct| ct.contains("json") || ct.starts_with("text/plain"));
    let unexpected = || Error::UnexpectedResponse {
        node: resp.timing.node.clone(),
        status: resp.status.as_u16(),
        content_type: content_type.map(str::to_string),
        snippet: snippet(&resp.body, 200),
    };
    if !resp.status.is_success() {
        if looks_json {
            if let Ok(env) = serde_json::from_slice::<ErrorEnvelope>(&resp.body) {
                return Err(Error::Solr {
                    node: resp.timing.node.clone(),
                    status: resp.status.as_u16(),
                    body: env.into_body(),
                });
            }
        }
        return Err(unexpected());
    }
    if !looks_json {
        return Err(unexpected());
    }
    let t0 = Instant::now();
    let value: T = serde_json::from_slice(&resp.body).map_err(|e| Error::Decode {
        node: resp.timing.node.clone(),
        what,
        message: e.to_string(),
        snippet: snippet(&resp.body, 200),
    })?;
    let mut timing = resp.timing;
    timing.parse = Some(t0.elapsed());
    Ok((value, timing))
}

/// Decodes `body` as a response with HTTP `status` and `content_type` into `T`.
///
/// ```
/// use solr_client::response::{decode_response_bytes, SelectResponse};
/// let err = decode_response_bytes::<SelectResponse>(502, Some("text/html"), b"<html>")
///     .unwrap_err();
/// assert_eq!(err.status(), Some(502));
/// ```
pub fn decode_response_bytes<T: DeserializeOwned>(
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<T> {
    let status = StatusCode::from_u16(status)
        .map_err(|e| Error::InvalidInput(format!("bad HTTP status {status}: {e}")))?;
    let mut headers = HeaderMap::new();
    if let Some(ct) = content_type {
        let v = HeaderValue::from_str(ct)
            .map_err(|e| Error::InvalidInput(format!("bad Content-Type {ct:?}: {e}")))?;
        headers.insert(CONTENT_TYPE, v);
    }
    let resp = WireResponse {
        status,
        headers,
        body: Bytes::copy_from_slice(body),
        timing: Timing {
            node: NODE.to_string(),
            ..Timing::default()
        },
    };
    decode::<T>(resp, "response bytes").map(|(v, _)| v)
}
