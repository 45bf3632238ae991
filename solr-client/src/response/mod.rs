//! Solr's side of a response: the `responseHeader`, the `error` body, and the typed bodies
//! of select, update and ping. Responses are parsed as JSON, never evaluated.

use std::time::Instant;

use http::header::{CONTENT_ENCODING, CONTENT_TYPE};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod bytes;
mod format;

pub use bytes::{
    decode_ping_bytes, decode_response_bytes, decode_select_bytes, decode_update_bytes,
};
pub(crate) use format::decode_as;
pub use format::decode_format_bytes;

use crate::error::{snippet, Error, FailedDoc, Result};
use crate::timing::Timing;
use crate::transport::WireResponse;

/// Solr's `responseHeader`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResponseHeader {
    /// 0 on success.
    #[serde(default)]
    pub status: i32,
    /// Milliseconds Solr spent handling the request, measured before the response writer
    /// ran (so writing stored fields and gzip are outside it). `None` when the response
    /// carried no QTime (`omitHeader=true`, a proxy's error page): absent is not 0.
    #[serde(rename = "QTime", default, skip_serializing_if = "Option::is_none")]
    pub qtime: Option<u32>,
    /// SolrCloud's achieved replication factor of an update. `i32::MAX` is what Solr 9
    /// answers when the shard leader could not be reached and the tolerant chain swallowed
    /// the failure (status 0, no errors, nothing indexed): the client treats it as a failed
    /// update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rf: Option<i64>,
    /// Per-document errors reported by `TolerantUpdateProcessorFactory`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<TolerantError>>,
}

/// One document error as `TolerantUpdateProcessorFactory` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TolerantError {
    /// `ADD`, `DELID` or `DELQ`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The document id (or query).
    pub id: String,
    /// Solr's message.
    pub message: String,
}

/// Solr's `error` object, sent with non-2xx statuses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SolrErrorBody {
    /// The message.
    #[serde(default)]
    pub msg: String,
    /// Solr's error code (usually the HTTP status).
    #[serde(default)]
    pub code: i32,
    /// Extra metadata (`error-class`, `root-error-class`...), as Solr's flat list.
    #[serde(default)]
    pub metadata: Option<Value>,
}

#[derive(Deserialize)]
struct ErrorEnvelope {
    error: SolrErrorBody,
}

/// A Solr document: field name -> JSON value.
pub type Document = Map<String, Value>;

/// The `response` object of a select.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocList {
    /// Total hits.
    #[serde(rename = "numFound")]
    pub num_found: u64,
    /// Offset of the first doc.
    #[serde(default)]
    pub start: u64,
    /// Highest score, when requested.
    #[serde(rename = "maxScore", default, skip_serializing_if = "Option::is_none")]
    pub max_score: Option<f64>,
    /// The documents.
    #[serde(default)]
    pub docs: Vec<Document>,
}

/// A decoded select response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectResponse {
    /// Solr's header (QTime); empty, QTime `None`, when Solr omitted it (`omitHeader=true`).
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The hits.
    pub response: DocList,
    /// The cursor to continue from, when `cursorMark` was sent.
    #[serde(
        rename = "nextCursorMark",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_cursor_mark: Option<String>,
    /// Client-side timing of this request.
    #[serde(skip)]
    pub timing: Timing,
}

impl SelectResponse {
    /// The documents decoded into `T`.
    pub fn docs_as<T: DeserializeOwned>(&self) -> Result<Vec<T>> {
        self.response
            .docs
            .iter()
            .map(|d| {
                serde_json::from_value(Value::Object(d.clone())).map_err(|e| Error::Decode {
                    node: self.timing.node.clone(),
                    what: "document",
                    message: e.to_string(),
                    snippet: snippet(Value::Object(d.clone()).to_string().as_bytes(), 200),
                })
            })
            .collect()
    }
}

/// A decoded update (add, delete, commit) response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpdateResponse {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Documents in the request (0 for commit and deletes).
    #[serde(skip)]
    pub docs_sent: usize,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

/// A decoded ping response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PingResponse {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// `OK` when healthy.
    #[serde(default)]
    pub status: String,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

/// Checks status, encoding and content type, then decodes the JSON body into `T`; records
/// the parse time and QTime in the timing record (which is returned with the value).
pub(crate) fn decode<T: DeserializeOwned>(
    resp: WireResponse,
    what: &'static str,
) -> Result<(T, Timing)> {
    let node = resp.timing.node.clone();
    let content_type = resp
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let Some(enc) = resp
        .headers
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
    {
        if !enc.eq_ignore_ascii_case("identity") {
            return Err(Error::Decompress {
                node,
                encoding: enc.to_string(),
                message: "the body is encoded but no decoder is configured (enable gzip)".into(),
            });
        }
    }
    let looks_json = content_type
        .as_deref()
        .map(|ct| ct.contains("json") || ct.starts_with("text/plain"))
        .unwrap_or(false);
    if !resp.status.is_success() {
        if looks_json {
            if let Ok(env) = serde_json::from_slice::<ErrorEnvelope>(&resp.body) {
                return Err(Error::Solr {
                    node,
                    status: resp.status.as_u16(),
                    body: env.error,
                });
            }
        }
        return Err(Error::UnexpectedResponse {
            node,
            status: resp.status.as_u16(),
            content_type,
            snippet: snippet(&resp.body, 200),
        });
    }
    if !looks_json {
        return Err(Error::UnexpectedResponse {
            node,
            status: resp.status.as_u16(),
            content_type,
            snippet: snippet(&resp.body, 200),
        });
    }
    let t0 = Instant::now();
    let value: T = serde_json::from_slice(&resp.body).map_err(|e| Error::Decode {
        node: node.clone(),
        what,
        message: e.to_string(),
        snippet: snippet(&resp.body, 200),
    })?;
    let mut timing = resp.timing;
    timing.parse = Some(t0.elapsed());
    Ok((value, timing))
}

/// Turns Solr's per-document errors into [`FailedDoc`]s.
pub(crate) fn failed_docs(header: &ResponseHeader) -> Vec<FailedDoc> {
    header
        .errors
        .iter()
        .flatten()
        .map(|e| FailedDoc {
            id: e.id.clone(),
            message: e.message.clone(),
        })
        .collect()
}
