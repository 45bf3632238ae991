//! The client's error type: one variant per way a request can fail, each naming the node.
//!
//! Solr's own error body (`error.msg`, `error.code`) is decoded into [`SolrErrorBody`]
//! (see [`crate::response`]); everything else a server or proxy can send back (an HTML 502
//! page, truncated gzip, invalid JSON, a body over the size limit) is its own variant, so an
//! application can tell network trouble from Solr trouble.

use std::time::Duration;

use crate::response::SolrErrorBody;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The phase of a request in which a timeout fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeoutPhase {
    /// DNS + TCP connect + TLS handshake took longer than the connect timeout.
    Connect,
    /// No byte arrived for longer than the read-idle timeout (waiting for headers or body).
    ReadIdle,
    /// The whole request took longer than the request timeout.
    Request,
}

impl std::fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connect",
            TimeoutPhase::ReadIdle => "read idle",
            TimeoutPhase::Request => "request",
        })
    }
}

/// A document of a batch update that Solr did not index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FailedDoc {
    /// The document's `id` (uniqueKey) as sent.
    pub id: String,
    /// Why it was not indexed (Solr's message, or the transport error for a lost batch).
    pub message: String,
}

/// Everything that can go wrong with a Solr request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The builder was given something unusable (bad URL, unreadable CA file, no nodes).
    #[error("configuration: {0}")]
    Config(String),
    /// The caller's input cannot be encoded safely (for example an XML-invalid control
    /// character in a field). Nothing was sent.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// Name resolution failed.
    #[error("{node}: DNS lookup failed: {source}")]
    Dns {
        /// The node's base URL.
        node: String,
        /// The resolver's error.
        source: std::io::Error,
    },
    /// The TCP connection could not be made (refused, unreachable).
    #[error("{node}: connect failed: {source}")]
    Connect {
        /// The node's base URL.
        node: String,
        /// The socket error.
        source: std::io::Error,
    },
    /// The TLS handshake failed (unknown CA, wrong hostname, protocol mismatch).
    #[error("{node}: TLS handshake failed: {source}")]
    Tls {
        /// The node's base URL.
        node: String,
        /// The handshake error.
        source: std::io::Error,
    },
    /// A configured timeout fired.
    #[error("{node}: {phase} timeout after {after:?}")]
    Timeout {
        /// The node's base URL.
        node: String,
        /// Which timeout.
        phase: TimeoutPhase,
        /// The configured value that elapsed.
        after: Duration,
    },
    /// The connection broke after it was established (reset, closed mid-response).
    #[error("{node}: connection broken: {message}")]
    Io {
        /// The node's base URL.
        node: String,
        /// What broke, as the HTTP layer reported it.
        message: String,
        /// True when the request was certainly not sent (safe to retry, even a write).
        not_sent: bool,
    },
    /// Solr answered with an error status and its own JSON error body.
    #[error("{node}: Solr error {status}: {}", body.msg)]
    Solr {
        /// The node's base URL.
        node: String,
        /// HTTP status.
        status: u16,
        /// Solr's decoded error body.
        body: SolrErrorBody,
    },
    /// The response was not what Solr sends: an HTML error page from a proxy, an empty body,
    /// or a status without a Solr error body. `snippet` holds its first bytes.
    #[error(
        "{node}: unexpected response (HTTP {status}, content-type {content_type:?}): {snippet}"
    )]
    UnexpectedResponse {
        /// The node's base URL.
        node: String,
        /// HTTP status.
        status: u16,
        /// The Content-Type header, if any.
        content_type: Option<String>,
        /// The first bytes of the body, lossily decoded.
        snippet: String,
    },
    /// The body was JSON-like but did not decode into the expected shape.
    #[error("{node}: cannot decode {what}: {message}; body starts with: {snippet}")]
    Decode {
        /// The node's base URL.
        node: String,
        /// What was being decoded.
        what: &'static str,
        /// The decoder's message.
        message: String,
        /// The first bytes of the body.
        snippet: String,
    },
    /// The body was compressed and could not be decompressed (truncated or corrupt gzip).
    #[error("{node}: cannot decompress {encoding} body: {message}")]
    Decompress {
        /// The node's base URL.
        node: String,
        /// The Content-Encoding.
        encoding: String,
        /// The decompressor's message.
        message: String,
    },
    /// The response body (wire or decoded) is larger than the configured limit.
    #[error("{node}: response body larger than the limit of {limit} bytes")]
    TooLarge {
        /// The node's base URL.
        node: String,
        /// The configured limit in bytes.
        limit: u64,
    },
    /// The server kept answering 429/503 until the retry budget was spent.
    #[error("{node}: still {status} after {attempts} attempts (waited {waited:?} in total)")]
    RetriesExhausted {
        /// The last node tried.
        node: String,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// Total time spent waiting between attempts.
        waited: Duration,
    },
    /// The server answered with a redirect (3xx) that the client did not follow: every
    /// write (a redirected write is never re-sent, so nothing reached the other host), a read
    /// when following is off (the default; see `SolrClientBuilder::follow_redirects`), a
    /// read past the hop limit, or one that would change the scheme. `location` is the
    /// `Location` header with any user name and password removed.
    #[error("{node}: HTTP {status} redirect to {} not followed: {reason}", location.as_deref().unwrap_or("(no Location header)"))]
    Redirect {
        /// The node's base URL (the one that answered with the redirect).
        node: String,
        /// The 3xx status.
        status: u16,
        /// The `Location` header, without credentials; None when absent or unreadable.
        location: Option<String>,
        /// Why it was not followed.
        reason: &'static str,
    },
    /// No node can take the request: the routing decorator has no node of the needed role
    /// (for example a SolrCloud shard without a live leader during an election). Nothing
    /// was sent.
    #[error("no node available: {0}")]
    NoNode(String),
    /// A batch update in which some or all documents were not indexed. `failed` names every
    /// one of them; the others were acknowledged by Solr.
    #[error("update: {} of {sent} documents not indexed (first: {})", failed.len(), failed.first().map(|f| format!("{}: {}", f.id, f.message)).unwrap_or_default())]
    Update {
        /// Documents sent in the batch.
        sent: usize,
        /// The documents that were not indexed, with the reason.
        failed: Vec<FailedDoc>,
        /// When the whole batch was lost, the error that lost it.
        cause: Option<Box<Error>>,
    },
}

impl Error {
    /// True for a timeout of any phase.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Timeout { .. })
    }

    /// True when no connection could be made (DNS, TCP connect, TLS handshake).
    pub fn is_connect(&self) -> bool {
        matches!(
            self,
            Error::Dns { .. } | Error::Connect { .. } | Error::Tls { .. }
        ) || matches!(
            self,
            Error::Timeout {
                phase: TimeoutPhase::Connect,
                ..
            }
        )
    }

    /// The HTTP status of the response, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Solr { status, .. }
            | Error::UnexpectedResponse { status, .. }
            | Error::RetriesExhausted { status, .. }
            | Error::Redirect { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The node URL the error happened on, when it is known.
    pub fn node(&self) -> Option<&str> {
        match self {
            Error::Dns { node, .. }
            | Error::Connect { node, .. }
            | Error::Tls { node, .. }
            | Error::Timeout { node, .. }
            | Error::Io { node, .. }
            | Error::Solr { node, .. }
            | Error::UnexpectedResponse { node, .. }
            | Error::Decode { node, .. }
            | Error::Decompress { node, .. }
            | Error::TooLarge { node, .. }
            | Error::RetriesExhausted { node, .. }
            | Error::Redirect { node, .. } => Some(node),
            _ => None,
        }
    }

    /// True when the request certainly did not reach Solr, so retrying it (even a write)
    /// cannot apply it twice: connect failures, connections found closed before sending, and
    /// requests the routing decorator found no node for.
    pub fn is_not_sent(&self) -> bool {
        self.is_connect() || matches!(self, Error::Io { not_sent: true, .. } | Error::NoNode(_))
    }
}

/// First `max` bytes of a body as text, for error messages.
pub(crate) fn snippet(body: &[u8], max: usize) -> String {
    let cut = &body[..body.len().min(max)];
    let mut s = String::from_utf8_lossy(cut).replace(['\n', '\r'], " ");
    if body.len() > max {
        s.push('…');
    }
    s
}
