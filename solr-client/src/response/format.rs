//! Decoding a response in any [`ResponseFormat`]: JSON and javabin straight into the type,
//! XML and CBOR into the `wt=json` value shape first, then into the type, with the same
//! status, encoding and content-type checks.

use std::time::Instant;

use http::header::CONTENT_TYPE;
use serde::de::DeserializeOwned;

use super::decode;
use crate::codec::{content_type, reject_encoded, ResponseFormat};
use crate::error::{Error, Result};
use crate::snippet::snippet;
use crate::timing::Timing;
use crate::transport::WireResponse;
use crate::types::ErrorEnvelope;

/// Decodes `resp`, sent with `wt=format`, into `T`; the parse time (decode of the format
/// and into `T`) goes into the returned timing.
pub(crate) fn decode_as<T: DeserializeOwned>(
    resp: WireResponse,
    what: &'static str,
    format: ResponseFormat,
) -> Result<(T, Timing)> {
    // JSON answers (the default format, and any JSON error page) take the direct path.
    let json = || {
        resp.headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ResponseFormat::Json.accepts_content_type(ct))
    };
    if format == ResponseFormat::Json || json() {
        return decode(resp, what);
    }
    let content_type = content_type(&resp);
    reject_encoded(&resp)?;
    let matches = content_type
        .as_deref()
        .is_some_and(|ct| format.accepts_content_type(ct));
    if !matches {
        return Err(unexpected(&resp, content_type));
    }
    let t0 = Instant::now();
    #[cfg(feature = "javabin")]
    if format == ResponseFormat::Javabin && resp.status.is_success() {
        // Straight into `T`, no `Value` tree.
        let typed: T = crate::codec::javabin::from_slice(&resp.body)
            .map_err(|e| decode_error(&resp, what, format!("{format}: {e}")))?;
        let mut timing = resp.timing;
        timing.parse = Some(t0.elapsed());
        return Ok((typed, timing));
    }
    let typed: T = via_value(&resp, what, format, content_type)?;
    let mut timing = resp.timing;
    timing.parse = Some(t0.elapsed());
    Ok((typed, timing))
}

/// `resp`'s body decoded into the `wt=json` value shape, then into `T`; a failed status
/// is Solr's error when the body holds one.
fn via_value<T: DeserializeOwned>(
    resp: &WireResponse,
    what: &'static str,
    format: ResponseFormat,
    content_type: Option<String>,
) -> Result<T> {
    let decoded = format.decode_value(&resp.body);
    if !resp.status.is_success() {
        if let Ok(v) = decoded {
            if let Ok(env) = serde_json::from_value::<ErrorEnvelope>(v) {
                return Err(Error::Solr {
                    node: resp.timing.node.clone(),
                    status: resp.status.as_u16(),
                    body: env.into_body(),
                });
            }
        }
        return Err(unexpected(resp, content_type));
    }
    let value = decoded.map_err(|m| decode_error(resp, what, format!("{format}: {m}")))?;
    serde_json::from_value(value).map_err(|e| decode_error(resp, what, e.to_string()))
}

/// [`Error::UnexpectedResponse`] for `resp`, with its Content-Type and a snippet.
fn unexpected(resp: &WireResponse, content_type: Option<String>) -> Error {
    Error::UnexpectedResponse {
        node: resp.timing.node.clone(),
        status: resp.status.as_u16(),
        content_type,
        snippet: snippet(&resp.body, 200),
    }
}

/// [`Error::Decode`] of `what` in `resp`, with the decoder's `message` and a snippet.
fn decode_error(resp: &WireResponse, what: &'static str, message: String) -> Error {
    Error::Decode {
        node: resp.timing.node.clone(),
        what,
        message,
        snippet: snippet(&resp.body, 200),
    }
}

/// Decodes `body`, a response sent with `wt=format`, HTTP `status` and `content_type`,
/// into `T`, as the client does (without a transport: for fuzzing, and for bodies obtained
/// some other way). Never panics; every failure is a typed [`Error`]: a malformed,
/// truncated or HTML body is [`Error::Decode`] or [`Error::UnexpectedResponse`] with a
/// snippet.
///
/// ```
/// use solr_client::codec::ResponseFormat;
/// use solr_client::response::{decode_format_bytes, SelectResponse};
/// let err = decode_format_bytes::<SelectResponse>(
///     ResponseFormat::Xml, 200, Some("application/xml"), b"<response><lst name=",
/// ).unwrap_err();
/// assert!(matches!(err, solr_client::Error::Decode { .. }));
/// ```
pub fn decode_format_bytes<T: DeserializeOwned>(
    format: ResponseFormat,
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<T> {
    let status = http::StatusCode::from_u16(status)
        .map_err(|e| Error::InvalidInput(format!("bad HTTP status {status}: {e}")))?;
    let mut headers = http::HeaderMap::new();
    if let Some(ct) = content_type {
        let v = http::HeaderValue::from_str(ct)
            .map_err(|e| Error::InvalidInput(format!("bad Content-Type {ct:?}: {e}")))?;
        headers.insert(CONTENT_TYPE, v);
    }
    let resp = WireResponse {
        status,
        headers,
        body: bytes::Bytes::copy_from_slice(body),
        timing: Timing {
            node: "<bytes>".to_string(),
            ..Timing::default()
        },
    };
    decode_as::<T>(resp, "response bytes", format).map(|(v, _)| v)
}

#[cfg(all(test, feature = "javabin", feature = "cbor"))]
mod tests {
    use super::*;
    use crate::codec::javabin::Writer;
    use crate::response::SelectResponse;

    fn javabin_select() -> Vec<u8> {
        let mut w = Writer::new();
        w.ordered_map(2);
        w.extern_str("responseHeader");
        w.ordered_map(1);
        w.extern_str("QTime");
        w.int(7);
        w.extern_str("response");
        w.doc_list(1, 0, None, true);
        w.array(1);
        w.solr_doc(1);
        w.extern_str("id");
        w.str("a");
        w.finish()
    }

    const XML: &[u8] = br#"<response><lst name="responseHeader"><int name="QTime">7</int></lst><result name="response" numFound="1" start="0"><doc><str name="id">a</str></doc></result></response>"#;

    #[test]
    fn every_format_reads_qtime_and_documents() {
        for (f, ct, body) in [
            (
                ResponseFormat::Javabin,
                "application/octet-stream",
                javabin_select(),
            ),
            (
                ResponseFormat::Xml,
                "application/xml; charset=UTF-8",
                XML.to_vec(),
            ),
        ] {
            let r: SelectResponse = decode_format_bytes(f, 200, Some(ct), &body).expect("decodes");
            assert_eq!(r.header.qtime, Some(7), "{f}");
            assert_eq!(r.num_found(), 1, "{f}");
            assert_eq!(r.docs()[0]["id"], "a", "{f}");
        }
    }

    #[test]
    fn truncated_html_and_foreign_bodies_are_typed_errors_with_a_snippet() {
        for (f, ct, body) in [
            (
                ResponseFormat::Javabin,
                "application/octet-stream",
                javabin_select(),
            ),
            (ResponseFormat::Xml, "application/xml", XML.to_vec()),
            (
                ResponseFormat::Cbor,
                "application/octet-stream",
                vec![0xa1, 0x65],
            ),
        ] {
            // Every strict prefix is truncated.
            for cut in 0..body.len() {
                match decode_format_bytes::<SelectResponse>(f, 200, Some(ct), &body[..cut]) {
                    Err(Error::Decode { snippet: s, .. }) => {
                        assert_eq!(s, snippet(&body[..cut], 200), "{f} cut {cut}")
                    }
                    other => panic!("{f} cut {cut}: {other:?}"),
                }
            }
            // An HTML page labelled as the format: a decode error showing the page.
            let html = b"<html><body><h1>502 Bad Gateway</h1></body></html>";
            match decode_format_bytes::<SelectResponse>(f, 200, Some(ct), html) {
                Err(Error::Decode { snippet, .. }) => assert!(snippet.contains("502"), "{f}"),
                other => panic!("{f}: {other:?}"),
            }
            // A proxy's HTML error page: an unexpected response with its status and text.
            let err =
                decode_format_bytes::<SelectResponse>(f, 502, Some("text/html"), html).unwrap_err();
            assert!(
                matches!(&err, Error::UnexpectedResponse { status: 502, snippet, .. } if snippet.contains("502")),
                "{f}: {err:?}"
            );
        }
    }
}
