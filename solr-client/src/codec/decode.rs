//! The one way a response body becomes a value: the status, content-type, encoding and shape
//! checks the client applies to every answer, then the body straight into the caller's type
//! (JSON through `serde_json`, javabin through its `Deserializer`, XML and CBOR through the
//! `wt=json` value shape). Generic over the target type; the typed sections live in
//! [`crate::response`]. It takes the parts of an answer it reads ([`Reply`]), not the
//! transport's response type, so the codec stands below the transport.

use http::StatusCode;
use serde::de::DeserializeOwned;

use super::ResponseFormat;
use crate::error::{Error, Result};
use crate::snippet::snippet;
use crate::types::ErrorEnvelope;

/// The parts of an HTTP answer a decode reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reply<'a> {
    /// The HTTP status.
    pub(crate) status: StatusCode,
    /// The `Content-Type` header, when it has a readable one.
    pub(crate) content_type: Option<&'a str>,
    /// The `Content-Encoding` header still on the body (none once a decoder undid it).
    pub(crate) content_encoding: Option<&'a str>,
    /// The whole body.
    pub(crate) body: &'a [u8],
    /// The node that answered, for errors.
    pub(crate) node: &'a str,
}

/// Decodes `body`, an answer to a request sent with `wt=format`, with HTTP `status` and
/// `content_type`, into `T`, as the client does (without a transport: for fuzzing, and for
/// bodies obtained some other way). A JSON answer is read as JSON whatever `format` says
/// (Solr's error pages are JSON). Never panics; every failure is a typed [`Error`]: Solr's
/// error body is [`Error::Solr`], an answer of another content type (a proxy's HTML page)
/// [`Error::UnexpectedResponse`], and a malformed or truncated body [`Error::Decode`], each
/// with a snippet of the body; a status outside 100..=999 or an unreadable content type is
/// [`Error::InvalidInput`].
///
/// ```
/// use solr_client::codec::{decode, ResponseFormat};
/// use solr_client::response::{SelectResponse, UpdateResponse};
/// let r: SelectResponse = decode(
///     ResponseFormat::Json, 200, Some("application/json"),
///     br#"{"responseHeader":{"status":0,"QTime":3},"response":{"numFound":0,"docs":[]}}"#,
/// ).unwrap();
/// assert_eq!(r.header.qtime, Some(3));
/// let err = decode::<UpdateResponse>(ResponseFormat::Json, 502, Some("text/html"), b"<html>")
///     .unwrap_err();
/// assert_eq!(err.status(), Some(502));
/// let err = decode::<SelectResponse>(
///     ResponseFormat::Xml, 200, Some("application/xml"), b"<response><lst name=",
/// ).unwrap_err();
/// assert!(matches!(err, solr_client::Error::Decode { .. }));
/// ```
pub fn decode<T: DeserializeOwned>(
    format: ResponseFormat,
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<T> {
    let status = StatusCode::from_u16(status)
        .map_err(|e| Error::invalid_input(format!("bad HTTP status {status}: {e}")))?;
    if let Some(ct) = content_type {
        http::HeaderValue::from_str(ct)
            .map_err(|e| Error::invalid_input(format!("bad Content-Type {ct:?}: {e}")))?;
    }
    let reply = Reply {
        status,
        content_type,
        content_encoding: None,
        body,
        node: "<bytes>",
    };
    decode_reply(format, &reply, "response bytes")
}

/// [`decode()`] of an answer's parts; errors name `what` and the reply's node.
pub(crate) fn decode_reply<T: DeserializeOwned>(
    format: ResponseFormat,
    reply: &Reply<'_>,
    what: &'static str,
) -> Result<T> {
    reject_encoding(reply.content_encoding, reply.node)?;
    // JSON answers (the default format, and any JSON error page) are read as JSON.
    let format = match reply.content_type {
        Some(ct) if ResponseFormat::Json.accepts_content_type(ct) => ResponseFormat::Json,
        Some(ct) if format.accepts_content_type(ct) => format,
        _ => return Err(unexpected(reply)),
    };
    if !reply.status.is_success() {
        return Err(solr_error(format, reply).unwrap_or_else(|| unexpected(reply)));
    }
    typed(format, reply.body).map_err(|message| Error::Decode {
        node: reply.node.into(),
        what,
        message: message.into(),
        snippet: snippet(reply.body, 200).into(),
    })
}

/// `body` of `format` into `T`: JSON and javabin straight, XML and CBOR through the value
/// `wt=json` gives.
fn typed<T: DeserializeOwned>(
    format: ResponseFormat,
    body: &[u8],
) -> std::result::Result<T, String> {
    match format {
        ResponseFormat::Json => serde_json::from_slice(body).map_err(|e| e.to_string()),
        #[cfg(feature = "javabin")]
        ResponseFormat::Javabin => {
            super::javabin::from_slice(body).map_err(|e| format!("{format}: {e}"))
        }
        _ => {
            let value = format
                .decode_value(body)
                .map_err(|m| format!("{format}: {m}"))?;
            serde_json::from_value(value).map_err(|e| e.to_string())
        }
    }
}

/// Solr's error, when the body of a failed answer holds one.
fn solr_error(format: ResponseFormat, reply: &Reply<'_>) -> Option<Error> {
    let envelope: ErrorEnvelope = match format {
        ResponseFormat::Json => serde_json::from_slice(reply.body).ok()?,
        _ => serde_json::from_value(format.decode_value(reply.body).ok()?).ok()?,
    };
    Some(Error::Solr {
        node: reply.node.into(),
        status: reply.status.as_u16(),
        body: envelope.into_body().into(),
    })
}

/// [`Error::UnexpectedResponse`] for `reply`, with its Content-Type and a snippet.
fn unexpected(reply: &Reply<'_>) -> Error {
    Error::UnexpectedResponse {
        node: reply.node.into(),
        status: reply.status.as_u16(),
        content_type: reply.content_type.map(Into::into),
        snippet: snippet(reply.body, 200).into(),
    }
}

/// An [`Error::Decompress`] when the body still carries a `Content-Encoding` other than
/// `identity`: no decoder was configured to undo it (gzip off), so it cannot be parsed.
pub(crate) fn reject_encoding(content_encoding: Option<&str>, node: &str) -> Result<()> {
    match content_encoding {
        Some(enc) if !enc.eq_ignore_ascii_case("identity") => Err(Error::Decompress {
            node: node.into(),
            encoding: enc.into(),
            message: "the body is encoded but no decoder is configured (enable gzip)".into(),
        }),
        _ => Ok(()),
    }
}
