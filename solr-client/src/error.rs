//! The client's error type: one variant per way a request can fail, each naming the node.
//!
//! Solr's own error body (`error.msg`, `error.code`) is decoded into [`SolrErrorBody`]
//! (see [`crate::response`]); everything else a server or proxy can send back (an HTML 502
//! page, truncated gzip, invalid JSON, a body over the size limit) is its own variant, so an
//! application can tell network trouble from Solr trouble.

use std::time::Duration;

use crate::batch::BatchReport;
use crate::types::SolrErrorBody;

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

pub use crate::types::{DocumentProblem, FailedDoc};

/// Everything that can go wrong with a Solr request.
///
/// No `Display` or `Debug` output of an error shows the user info (`user:password@`) of a URL:
/// node URLs, and any URL inside a message, are printed with it removed. (URLs with user
/// info are refused anyway: see [`SolrClientBuilder::credentials`](crate::SolrClientBuilder::credentials).)
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The builder was given something unusable (bad URL, unreadable CA file, no nodes).
    #[error("configuration: {}", redact(_0))]
    Config(String),
    /// The caller's input cannot be encoded safely (for example an XML-invalid control
    /// character in a field). Nothing was sent.
    #[error("invalid input: {}", redact(_0))]
    InvalidInput(String),
    /// A document the client refused before sending anything: it lacks the uniqueKey
    /// field, or a field holds a float Solr cannot index (see [`DocumentProblem`]). `index`
    /// is the document's position in the call's input (for [`crate::Indexer::push`], the
    /// number of documents it had accepted before). Nothing of the call was sent.
    #[error("document #{index}{}: {}", redact(&id_note(id.as_deref())), problem.describe(field))]
    InvalidDocument {
        /// The document's position in the call's input, from 0.
        index: usize,
        /// The document's uniqueKey value, when it has one.
        id: Option<String>,
        /// The field at fault: the uniqueKey field that is missing, or the field holding the
        /// float.
        field: String,
        /// What is wrong with it.
        problem: DocumentProblem,
    },
    /// Name resolution failed.
    #[error("{}: DNS lookup failed: {}", redact(node), redact(&source.to_string()))]
    Dns {
        /// The node's base URL.
        node: String,
        /// The resolver's error.
        source: std::io::Error,
    },
    /// The TCP connection could not be made (refused, unreachable).
    #[error("{}: connect failed: {}", redact(node), redact(&source.to_string()))]
    Connect {
        /// The node's base URL.
        node: String,
        /// The socket error.
        source: std::io::Error,
    },
    /// The TLS handshake failed (unknown CA, wrong hostname, protocol mismatch).
    #[error("{}: TLS handshake failed: {}", redact(node), redact(&source.to_string()))]
    Tls {
        /// The node's base URL.
        node: String,
        /// The handshake error.
        source: std::io::Error,
    },
    /// The server refused the TLS handshake over the client certificate (mutual TLS): it
    /// asked for one and none is configured, or it did not accept the one sent.
    #[error("{}: TLS client certificate: {problem}", redact(node))]
    ClientCertificate {
        /// The node's base URL.
        node: String,
        /// What the server refused.
        problem: crate::transport::ClientCertProblem,
    },
    /// The HTTP proxy refused to open a tunnel to the node: its answer to `CONNECT` was not
    /// a 2xx (407, asking for credentials, is [`Error::ProxyAuth`]).
    #[error(
        "{}: proxy {} refused CONNECT: {status} {}",
        redact(node),
        redact(proxy),
        redact(reason)
    )]
    ProxyRefused {
        /// The node's base URL.
        node: String,
        /// The proxy's URL.
        proxy: String,
        /// The proxy's status code.
        status: u16,
        /// The proxy's reason phrase.
        reason: String,
    },
    /// The HTTP proxy asked for credentials (407, or 401 to `CONNECT`): none were configured
    /// ([`crate::Proxy::credentials`]) or it refused the ones sent. The message never shows them.
    #[error("{}: proxy {} requires authentication (407){}", redact(node), redact(proxy),
        if *credentials_sent { "; it refused the credentials sent" } else { "; no proxy credentials are configured" })]
    ProxyAuth {
        /// The node's base URL.
        node: String,
        /// The proxy's URL.
        proxy: String,
        /// Whether credentials were sent (and refused).
        credentials_sent: bool,
    },
    /// A configured timeout fired.
    #[error("{}: {phase} timeout after {after:?}", redact(node))]
    Timeout {
        /// The node's base URL.
        node: String,
        /// Which timeout.
        phase: TimeoutPhase,
        /// The configured value that elapsed.
        after: Duration,
    },
    /// The connection broke after it was established (reset, closed mid-response).
    #[error("{}: connection broken: {}", redact(node), redact(message))]
    Io {
        /// The node's base URL.
        node: String,
        /// What broke, as the HTTP layer reported it.
        message: String,
        /// True when the request was certainly not sent or provably not processed (safe to
        /// retry, even a write): a connection found closed before sending, or an HTTP/2
        /// stream the server refused (GOAWAY with a last-stream-id below it, REFUSED_STREAM).
        not_sent: bool,
    },
    /// Solr answered with an error status and its own JSON error body.
    #[error("{}: Solr error {status}: {}", redact(node), redact(&body.msg))]
    Solr {
        /// The node's base URL.
        node: String,
        /// HTTP status.
        status: u16,
        /// Solr's decoded error body.
        body: SolrErrorBody,
    },
    /// Nothing answers at the URL tried (HTTP 404 without a Solr error body): a core or
    /// collection that does not exist on the node, a request handler the core lacks, or a
    /// base URL that is not Solr's (Solr's ends in `/solr`). `hint` says which it looks like
    /// and what to check.
    #[error(
        "{}: HTTP 404 Not Found for {}: {}",
        redact(node),
        redact(path),
        redact(hint)
    )]
    NotFound {
        /// The node's base URL.
        node: String,
        /// The URL path tried, e.g. `/solr/bench/select`.
        path: String,
        /// What is probably wrong, and what to check.
        hint: String,
    },
    /// The response was not what Solr sends: an HTML error page from a proxy, an empty body,
    /// or a status without a Solr error body. `snippet` holds its first bytes.
    #[error(
        "{}: unexpected response (HTTP {status}, content-type {:?}): {}",
        redact(node),
        content_type.as_deref().map(redact),
        redact(snippet)
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
    #[error(
        "{}: cannot decode {what}: {}; body starts with: {}",
        redact(node),
        redact(message),
        redact(snippet)
    )]
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
    #[error(
        "{}: cannot decompress {} body: {}",
        redact(node),
        redact(encoding),
        redact(message)
    )]
    Decompress {
        /// The node's base URL.
        node: String,
        /// The Content-Encoding.
        encoding: String,
        /// The decompressor's message.
        message: String,
    },
    /// The response body (wire or decoded) is larger than the configured limit.
    #[error(
        "{}: response body larger than the limit of {limit} bytes",
        redact(node)
    )]
    TooLarge {
        /// The node's base URL.
        node: String,
        /// The configured limit in bytes.
        limit: u64,
    },
    /// The server kept answering 429/503 until the retry budget was spent.
    #[error(
        "{}: still {status} after {attempts} attempts (waited {waited:?} in total)",
        redact(node)
    )]
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
    #[error("{}: HTTP {status} redirect to {} not followed: {reason}", redact(node), redact(location.as_deref().unwrap_or("(no Location header)")))]
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
    #[error("no node available: {}", redact(_0))]
    NoNode(String),
    /// Optimistic concurrency: the `_version_` sent with a one-document update did not match
    /// the stored document's (Solr's 409 "version conflict"; also a document that must
    /// exist, `_version_` > 1, and does not). Nothing was indexed. In a batch, the document
    /// is a failed one of [`Error::Update`] with Solr's message instead (see
    /// [`FailedDoc::is_version_conflict`]).
    #[error(
        "{}: version conflict for {}: expected _version_ {}, found {}",
        redact(node),
        redact(id),
        expected.map_or("(unknown)".to_string(), |v| v.to_string()),
        actual.map_or("no document".to_string(), |v| v.to_string())
    )]
    VersionConflict {
        /// The node's base URL.
        node: String,
        /// The document's id.
        id: String,
        /// The `_version_` the update required, when Solr said it.
        expected: Option<i64>,
        /// The stored document's `_version_`; `None` when there is no such document.
        actual: Option<i64>,
    },
    /// An update in which not every document is known to be indexed, or in which Solr
    /// reported errors. `report` accounts for every document of the request
    /// (`acknowledged + failed + unknown + not_attempted == sent`, see [`BatchReport`]).
    #[error("update: {}", redact(&update_summary(report, cause.as_deref())))]
    Update {
        /// The account of the request's documents (boxed: it is the largest variant).
        report: Box<BatchReport>,
        /// When the whole request failed, the error that lost it; also its
        /// [`source`](std::error::Error::source), where it downcasts to `Box<Error>`.
        #[source]
        cause: Option<Box<Error>>,
    },
}

impl Error {
    /// The variant's name (`"Solr"`, `"Timeout"`, `"Connect"`, ...): the `kind` field of the
    /// `solr.error` tracing event (see [`crate::observe`]), stable for metrics labels.
    pub fn kind(&self) -> &'static str {
        // No wildcard: a new variant does not compile until it is named here.
        match self {
            Error::Config(_) => "Config",
            Error::InvalidInput(_) => "InvalidInput",
            Error::Dns { .. } => "Dns",
            Error::Connect { .. } => "Connect",
            Error::Tls { .. } => "Tls",
            Error::ClientCertificate { .. } => "ClientCertificate",
            Error::ProxyRefused { .. } => "ProxyRefused",
            Error::ProxyAuth { .. } => "ProxyAuth",
            Error::Timeout { .. } => "Timeout",
            Error::Io { .. } => "Io",
            Error::Solr { .. } => "Solr",
            Error::UnexpectedResponse { .. } => "UnexpectedResponse",
            Error::Decode { .. } => "Decode",
            Error::Decompress { .. } => "Decompress",
            Error::TooLarge { .. } => "TooLarge",
            Error::RetriesExhausted { .. } => "RetriesExhausted",
            Error::Redirect { .. } => "Redirect",
            Error::NoNode(_) => "NoNode",
            Error::InvalidDocument { .. } => "InvalidDocument",
            Error::VersionConflict { .. } => "VersionConflict",
            Error::Update { .. } => "Update",
            Error::NotFound { .. } => "NotFound",
        }
    }

    /// True for a timeout of any phase.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Timeout { .. })
    }

    /// True when no connection could be made (DNS, TCP connect, TLS handshake, a client
    /// certificate the server refused, a proxy that refused or wanted credentials).
    pub fn is_connect(&self) -> bool {
        matches!(
            self,
            Error::Dns { .. }
                | Error::Connect { .. }
                | Error::Tls { .. }
                | Error::ClientCertificate { .. }
                | Error::ProxyRefused { .. }
                | Error::ProxyAuth { .. }
        ) || matches!(
            self,
            Error::Timeout {
                phase: TimeoutPhase::Connect,
                ..
            }
        )
    }

    /// The HTTP status of the response, when there was one. For [`Error::Update`], the status
    /// of the error that lost the request ([`Error::Update::cause`]), if any.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Solr { status, .. }
            | Error::UnexpectedResponse { status, .. }
            | Error::RetriesExhausted { status, .. }
            | Error::Redirect { status, .. } => Some(*status),
            Error::VersionConflict { .. } => Some(409),
            Error::NotFound { .. } => Some(404),
            Error::Update { cause: Some(c), .. } => c.status(),
            _ => None,
        }
    }

    /// The node URL the error happened on, when it is known. For [`Error::Update`], the node
    /// of the error that lost the request, if any.
    pub fn node(&self) -> Option<&str> {
        match self {
            Error::Dns { node, .. }
            | Error::Connect { node, .. }
            | Error::Tls { node, .. }
            | Error::ClientCertificate { node, .. }
            | Error::ProxyRefused { node, .. }
            | Error::ProxyAuth { node, .. }
            | Error::Timeout { node, .. }
            | Error::Io { node, .. }
            | Error::Solr { node, .. }
            | Error::UnexpectedResponse { node, .. }
            | Error::Decode { node, .. }
            | Error::Decompress { node, .. }
            | Error::TooLarge { node, .. }
            | Error::RetriesExhausted { node, .. }
            | Error::Redirect { node, .. }
            | Error::VersionConflict { node, .. }
            | Error::NotFound { node, .. } => Some(node),
            Error::Update { cause: Some(c), .. } => c.node(),
            _ => None,
        }
    }

    /// True when the request certainly did not reach Solr, so retrying it (even a write)
    /// cannot apply it twice: connect failures, connections found closed before sending,
    /// HTTP/2 streams the server refused (GOAWAY below the stream, REFUSED_STREAM), and
    /// requests the routing decorator found no node for.
    pub fn is_not_sent(&self) -> bool {
        self.is_connect() || matches!(self, Error::Io { not_sent: true, .. } | Error::NoNode(_))
    }
}

/// ` (id "x")` for a document that has an id, else nothing.
fn id_note(id: Option<&str>) -> String {
    id.map(|i| format!(" (id {i:?})")).unwrap_or_default()
}

/// One line about an update's account, for [`Error::Update`]'s message.
fn update_summary(r: &BatchReport, cause: Option<&Error>) -> String {
    let mut s = format!(
        "{} of {} documents acknowledged, {} not indexed, {} unknown",
        r.acknowledged,
        r.sent,
        r.failed.len(),
        r.unknown.len()
    );
    if !r.not_attempted.is_empty() {
        s.push_str(&format!(", {} not attempted", r.not_attempted.len()));
    }
    if !r.other_errors.is_empty() {
        s.push_str(&format!(", {} other errors", r.other_errors.len()));
    }
    if let Some(c) = cause {
        s.push_str(&format!(" ({c})"));
    } else if let Some(f) = r.failed.first() {
        s.push_str(&format!(" (first not indexed: {}: {})", f.id, f.message));
    } else if let Some(o) = r.other_errors.first() {
        s.push_str(&format!(" (first error: {o})"));
    }
    s
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

/// `text` with the user info (`user:password@`) of every URL in it removed:
/// `http://u:p@host/solr` becomes `http://host/solr`. Text without such a URL is returned as
/// it is.
pub(crate) fn redact(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("://") || !text.contains('@') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => out.push_str(&authority[at + 1..]),
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A node URL as errors, timings and statistics show it: without user info.
pub(crate) fn node_label(url: &url::Url) -> String {
    if url.username().is_empty() && url.password().is_none() {
        return url.to_string();
    }
    let mut u = url.clone();
    let _ = u.set_password(None);
    let _ = u.set_username("");
    u.to_string()
}

/// Parses a node base URL the way every part of the client accepts one: http or https, and
/// no user info (credentials in a URL leak into logs, errors and reports; they go to
/// [`SolrClientBuilder::credentials`](crate::SolrClientBuilder::credentials)). The errors
/// never echo a password.
pub(crate) fn parse_node_url(raw: &str) -> Result<url::Url> {
    let url = url::Url::parse(raw.trim_end_matches('/')).map_err(|e| {
        let shown = redact(raw);
        if shown.contains('@') {
            Error::Config(format!(
                "bad node URL (not shown: it contains '@', maybe credentials): {e}"
            ))
        } else {
            Error::Config(format!("bad node URL {shown:?}: {e}"))
        }
    })?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::Config(format!(
            "node URL {} carries user info (user:password@), which is not accepted: it would \
             leak into logs, errors and reports; give the URL without it and the credentials \
             with .credentials(Credentials::basic(user, password))",
            node_label(&url)
        )));
    }
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::Config(format!(
            "node URL must be http or https: {url}"
        )));
    }
    Ok(url)
}

/// Debug output of a string, redacted and quoted.
struct Quoted<'a>(&'a str);

impl std::fmt::Debug for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", redact(self.0))
    }
}

/// Debug output of a value, rendered then redacted.
struct Scrubbed(String);

impl std::fmt::Debug for Scrubbed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&redact(&self.0))
    }
}

/// A value's Debug output, redacted.
fn scrub(v: &dyn std::fmt::Debug) -> Scrubbed {
    Scrubbed(format!("{v:?}"))
}

impl std::fmt::Debug for Error {
    /// The derived shape (`Variant { field: value }`), with every URL's user info removed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Config(m) => f.debug_tuple("Config").field(&Quoted(m)).finish(),
            Error::InvalidInput(m) => f.debug_tuple("InvalidInput").field(&Quoted(m)).finish(),
            Error::NoNode(m) => f.debug_tuple("NoNode").field(&Quoted(m)).finish(),
            Error::InvalidDocument {
                index,
                id,
                field,
                problem,
            } => f
                .debug_struct("InvalidDocument")
                .field("index", index)
                .field("id", &id.as_deref().map(Quoted))
                .field("field", &Quoted(field))
                .field("problem", problem)
                .finish(),
            Error::Dns { node, source } => f
                .debug_struct("Dns")
                .field("node", &Quoted(node))
                .field("source", &scrub(source))
                .finish(),
            Error::Connect { node, source } => f
                .debug_struct("Connect")
                .field("node", &Quoted(node))
                .field("source", &scrub(source))
                .finish(),
            Error::Tls { node, source } => f
                .debug_struct("Tls")
                .field("node", &Quoted(node))
                .field("source", &scrub(source))
                .finish(),
            Error::ClientCertificate { node, problem } => f
                .debug_struct("ClientCertificate")
                .field("node", &Quoted(node))
                .field("problem", problem)
                .finish(),
            Error::ProxyRefused {
                node,
                proxy,
                status,
                reason,
            } => f
                .debug_struct("ProxyRefused")
                .field("node", &Quoted(node))
                .field("proxy", &Quoted(proxy))
                .field("status", status)
                .field("reason", &Quoted(reason))
                .finish(),
            Error::ProxyAuth {
                node,
                proxy,
                credentials_sent,
            } => f
                .debug_struct("ProxyAuth")
                .field("node", &Quoted(node))
                .field("proxy", &Quoted(proxy))
                .field("credentials_sent", credentials_sent)
                .finish(),
            Error::Timeout { node, phase, after } => f
                .debug_struct("Timeout")
                .field("node", &Quoted(node))
                .field("phase", phase)
                .field("after", after)
                .finish(),
            Error::Io {
                node,
                message,
                not_sent,
            } => f
                .debug_struct("Io")
                .field("node", &Quoted(node))
                .field("message", &Quoted(message))
                .field("not_sent", not_sent)
                .finish(),
            Error::Solr { node, status, body } => f
                .debug_struct("Solr")
                .field("node", &Quoted(node))
                .field("status", status)
                .field("body", &scrub(body))
                .finish(),
            Error::NotFound { node, path, hint } => f
                .debug_struct("NotFound")
                .field("node", &Quoted(node))
                .field("path", &Quoted(path))
                .field("hint", &Quoted(hint))
                .finish(),
            Error::UnexpectedResponse {
                node,
                status,
                content_type,
                snippet,
            } => f
                .debug_struct("UnexpectedResponse")
                .field("node", &Quoted(node))
                .field("status", status)
                .field("content_type", &scrub(content_type))
                .field("snippet", &Quoted(snippet))
                .finish(),
            Error::Decode {
                node,
                what,
                message,
                snippet,
            } => f
                .debug_struct("Decode")
                .field("node", &Quoted(node))
                .field("what", what)
                .field("message", &Quoted(message))
                .field("snippet", &Quoted(snippet))
                .finish(),
            Error::Decompress {
                node,
                encoding,
                message,
            } => f
                .debug_struct("Decompress")
                .field("node", &Quoted(node))
                .field("encoding", &Quoted(encoding))
                .field("message", &Quoted(message))
                .finish(),
            Error::TooLarge { node, limit } => f
                .debug_struct("TooLarge")
                .field("node", &Quoted(node))
                .field("limit", limit)
                .finish(),
            Error::RetriesExhausted {
                node,
                status,
                attempts,
                waited,
            } => f
                .debug_struct("RetriesExhausted")
                .field("node", &Quoted(node))
                .field("status", status)
                .field("attempts", attempts)
                .field("waited", waited)
                .finish(),
            Error::Redirect {
                node,
                status,
                location,
                reason,
            } => f
                .debug_struct("Redirect")
                .field("node", &Quoted(node))
                .field("status", status)
                .field("location", &location.as_deref().map(Quoted))
                .field("reason", reason)
                .finish(),
            Error::VersionConflict {
                node,
                id,
                expected,
                actual,
            } => f
                .debug_struct("VersionConflict")
                .field("node", &Quoted(node))
                .field("id", &Quoted(id))
                .field("expected", expected)
                .field("actual", actual)
                .finish(),
            Error::Update { report, cause } => f
                .debug_struct("Update")
                .field("report", &scrub(report))
                .field("cause", cause)
                .finish(),
        }
    }
}

/// `e` with a "wrong scheme?" hint when it looks like https spoken to a plain-http port (the
/// TLS handshake read an HTTP answer) or http spoken to a TLS port (the answer was a TLS
/// record). `https` is the scheme of the node the request went to. Other errors as they are.
pub(crate) fn scheme_hint(https: bool, e: Error) -> Error {
    match e {
        Error::Tls { node, source } if https && plain_http_seen(&source.to_string()) => {
            let source = hinted_http(&node, source);
            Error::Tls { node, source }
        }
        // reqwest reports its TLS handshake as part of connecting.
        Error::Connect { node, source } if https && plain_http_seen(&source.to_string()) => {
            let source = hinted_http(&node, source);
            Error::Connect { node, source }
        }
        Error::Io {
            node,
            message,
            not_sent,
        } if !https && tls_seen(&message) => {
            let message = format!(
                "{message} (wrong scheme? the node answered with TLS: use https:// for {})",
                redact(&node)
            );
            Error::Io {
                node,
                message,
                not_sent,
            }
        }
        e => e,
    }
}

/// `source`, with the hint that the node at `node` speaks plain HTTP.
fn hinted_http(node: &str, source: std::io::Error) -> std::io::Error {
    let hint = format!(
        "wrong scheme? the node answered plain HTTP to a TLS handshake: use http:// for {}",
        redact(node)
    );
    std::io::Error::new(source.kind(), Hinted { hint, source })
}

/// A TLS error message that says the peer sent something other than TLS: rustls reports an
/// HTTP answer as a record of an invalid content type.
fn plain_http_seen(msg: &str) -> bool {
    msg.contains("InvalidContentType") || msg.contains("corrupt message")
}

/// An HTTP parse error that says the answer was not HTTP: a TLS alert record (bytes
/// `15 03 03 ...`) fails HTTP/1.1's status line ("invalid HTTP version parsed") and, read
/// as an HTTP/2 frame header, announces a frame far over the size limit. (With HTTP/2 the
/// connection may also be found closed before the alert is read: then there is no hint.)
fn tls_seen(msg: &str) -> bool {
    msg.contains("invalid HTTP version") || msg.contains("frame with invalid size")
}

/// An error with a hint in front of its source, which stays reachable through `source()`.
#[derive(Debug)]
struct Hinted {
    hint: String,
    source: std::io::Error,
}

impl std::fmt::Display for Hinted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.source, self.hint)
    }
}

impl std::error::Error for Hinted {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// `e`, turned into [`Error::NotFound`] when it is a 404 answer without a Solr error body
/// to a request for `path` below the node at `base`; any other error as it is.
pub(crate) fn not_found(e: Error, base: &url::Url, path: &str) -> Error {
    let Error::UnexpectedResponse {
        status: 404,
        node,
        snippet,
        ..
    } = &e
    else {
        return e;
    };
    let base_path = base.path().trim_end_matches('/');
    let tried = format!("{base_path}/{}", path.trim_start_matches('/'));
    let collection = path.trim_start_matches('/').split('/').next().unwrap_or("");
    let after_solr = base_path
        .rsplit_once("/solr")
        .map(|(_, rest)| rest.trim_matches('/'))
        .filter(|rest| !rest.is_empty());
    let hint = if let Some(extra) = after_solr {
        format!(
            "the base URL goes past /solr (\"{extra}\"): give the base URL ending in /solr and the \
             collection with .collection(\"{extra}\")"
        )
    } else if snippet.contains("Can not find") {
        // Solr's own dispatcher answered: the base URL reaches Solr, the core does not.
        format!(
            "Solr answered but has no core or collection named \"{collection}\" (or no such \
             request handler in it): check .collection(...) against the node's cores \
             (admin/cores) or collections (admin/collections?action=LIST)"
        )
    } else if !base_path.ends_with("/solr") {
        "the server has no Solr at this base URL: Solr's base URL ends in /solr (e.g. \
         http://127.0.0.1:8983/solr), with the collection given by .collection(...)"
            .to_string()
    } else {
        "the server has nothing at this path: check the base URL (e.g. \
         http://127.0.0.1:8983/solr) and .collection(...)"
            .to_string()
    };
    Error::NotFound {
        node: node.clone(),
        path: tried,
        hint,
    }
}

/// A URL as the caller typed it, kept for parsing later: its Debug output is redacted (so a
/// builder's Debug never shows a password, even before the URL is refused).
#[derive(Clone)]
pub(crate) struct UrlText(pub(crate) String);

impl std::fmt::Debug for UrlText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Quoted(&self.0).fmt(f)
    }
}

impl BatchReport {
    /// The account of one update request that failed with `cause` instead of a readable
    /// answer. Solr's default chain stopped the batch at a document it names (400 or 409,
    /// `[doc=ID]`): see [`BatchReport::stopped_at`]. A 400 that names no document (a
    /// document without a uniqueKey, a body Solr could not parse part way) stopped the
    /// batch somewhere: the documents before that point may be indexed, so every document
    /// of a batch of two or more is unknown (a batch of one is failed: it is the document
    /// Solr refused). Otherwise every document failed when the cause proves nothing was
    /// indexed (the request was not sent, or Solr refused it with another 4xx status), else
    /// every document's outcome is unknown.
    pub(crate) fn lost(sent_ids: Vec<String>, cause: &Error) -> BatchReport {
        let mut unnamed_400 = false;
        if let Error::Solr {
            status: status @ (400 | 409),
            body,
            ..
        } = cause
        {
            if let Some(r) = BatchReport::stopped_at(&sent_ids, &body.msg) {
                return r;
            }
            unnamed_400 = *status == 400 && sent_ids.len() > 1;
        }
        if nothing_indexed(cause) && !unnamed_400 {
            BatchReport::all_failed(sent_ids, &cause.to_string())
        } else {
            BatchReport {
                sent: sent_ids.len(),
                unknown: sent_ids,
                requests: 1,
                ..BatchReport::default()
            }
        }
    }
}

/// True when `cause` proves an update request indexed nothing: it was certainly not sent, or
/// the server refused it as a whole with a 3xx (a redirect is never followed by a write, and
/// Solr itself never redirects an update: whoever answered did not index), a 4xx or a 503
/// status (with the tolerant chain, per-document problems come back in a 200 answer; 503 is
/// refused before processing, the same reading that lets
/// [`crate::transport::retries_status`] re-send writes after it). Another 5xx, a broken
/// connection after sending, a timeout or an unreadable 2xx answer leave the outcome unknown.
fn nothing_indexed(cause: &Error) -> bool {
    cause.is_not_sent() || matches!(cause.status(), Some(300..=499 | 503))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::batch::BatchReport;
    use crate::types::SolrErrorBody;

    const PASSWORD: &str = "s3cret-P4ss";
    const URL: &str = "http://solr:s3cret-P4ss@solr.example:8983/solr";

    /// Every variant, each string field carrying a URL with credentials.
    fn every_variant() -> Vec<Error> {
        let node = || URL.to_string();
        let text = || format!("failed talking to {URL}/bench/select?q=x");
        let io = || std::io::Error::other(text());
        vec![
            Error::Config(text()),
            Error::InvalidInput(text()),
            Error::Dns {
                node: node(),
                source: io(),
            },
            Error::Connect {
                node: node(),
                source: io(),
            },
            Error::Tls {
                node: node(),
                source: io(),
            },
            Error::Timeout {
                node: node(),
                phase: TimeoutPhase::ReadIdle,
                after: Duration::from_secs(1),
            },
            Error::Io {
                node: node(),
                message: text(),
                not_sent: false,
            },
            Error::Solr {
                node: node(),
                status: 500,
                body: SolrErrorBody {
                    msg: text(),
                    code: 500,
                    metadata: Some(serde_json::json!([text()])),
                    qtime_ms: None,
                },
            },
            Error::UnexpectedResponse {
                node: node(),
                status: 502,
                content_type: Some(text()),
                snippet: text(),
            },
            Error::Decode {
                node: node(),
                what: "select response",
                message: text(),
                snippet: text(),
            },
            Error::Decompress {
                node: node(),
                encoding: text(),
                message: text(),
            },
            Error::TooLarge {
                node: node(),
                limit: 1,
            },
            Error::RetriesExhausted {
                node: node(),
                status: 503,
                attempts: 3,
                waited: Duration::from_secs(1),
            },
            Error::Redirect {
                node: node(),
                status: 302,
                location: Some(format!("{URL}/elsewhere")),
                reason: "a write is never redirected",
            },
            Error::NoNode(text()),
            Error::InvalidDocument {
                index: 3,
                id: Some(text()),
                field: "price_f".into(),
                problem: crate::DocumentProblem::NotFinite,
            },
            Error::NotFound {
                node: node(),
                path: text(),
                hint: text(),
            },
            Error::VersionConflict {
                node: node(),
                id: text(),
                expected: Some(1),
                actual: None,
            },
            Error::Update {
                report: Box::new(BatchReport {
                    sent: 2,
                    acknowledged: 0,
                    failed: vec![FailedDoc::new(text(), text())],
                    unknown: vec![text()],
                    not_attempted: vec![text()],
                    other_errors: vec![text()],
                    requests: 1,
                }),
                cause: Some(Box::new(Error::Io {
                    node: node(),
                    message: text(),
                    not_sent: false,
                })),
            },
        ]
    }

    #[test]
    fn no_variant_shows_a_password_in_display_or_debug() {
        let all = every_variant();
        let names: std::collections::HashSet<&str> = all.iter().map(Error::kind).collect();
        assert_eq!(names.len(), all.len(), "each variant once");
        assert_eq!(names.len(), 19, "every variant: extend every_variant()");
        for e in &all {
            for shown in [e.to_string(), format!("{e:?}"), format!("{e:#?}")] {
                assert!(!shown.contains(PASSWORD), "{}: {shown}", e.kind());
                assert!(
                    !shown.contains('@'),
                    "{}: no user info at all: {shown}",
                    e.kind()
                );
                assert!(
                    shown.contains("solr.example"),
                    "{}: host kept: {shown}",
                    e.kind()
                );
            }
        }
    }

    #[test]
    fn redact_removes_user_info_of_every_url() {
        assert_eq!(redact("http://h:1/solr"), "http://h:1/solr");
        assert_eq!(
            redact("a http://u:p@h:1/solr and https://x@y/z?q=a@b, end"),
            "a http://h:1/solr and https://y/z?q=a@b, end"
        );
        assert_eq!(redact("\"http://u:p@h\""), "\"http://h\"");
        assert_eq!(redact("mail me@x"), "mail me@x");
    }

    #[test]
    fn node_urls_with_user_info_are_refused_without_echo() {
        for raw in [
            URL,
            "ftp://solr:s3cret-P4ss@solr.example/solr",
            "http://solr:s3cret-P4ss@solr.example:notaport/solr",
            "http://solr:s3cret-P4ss@solr.example:8983/solr/",
        ] {
            let err = parse_node_url(raw).expect_err(raw);
            assert!(matches!(err, Error::Config(_)), "{raw}");
            for shown in [err.to_string(), format!("{err:?}")] {
                assert!(!shown.contains(PASSWORD), "{shown}");
            }
        }
        let msg = parse_node_url(URL).expect_err("userinfo").to_string();
        assert!(msg.contains("http://solr.example:8983/solr"), "{msg}");
        assert!(msg.contains(".credentials("), "{msg}");
        let msg = parse_node_url("ftp://solr.example/solr")
            .expect_err("ftp")
            .to_string();
        assert!(msg.contains("http or https"), "{msg}");
        assert!(parse_node_url("https://solr.example:8983/solr/").is_ok());
    }

    fn html_404(body: &str) -> Error {
        Error::UnexpectedResponse {
            node: "http://h:1/solr".into(),
            status: 404,
            content_type: Some("text/html".into()),
            snippet: body.into(),
        }
    }

    #[test]
    fn a_404_without_solr_body_becomes_not_found_with_a_hint() {
        let solr = url::Url::parse("http://h:1/solr").expect("url");
        let e = not_found(
            html_404("Error 404 Can not find: /solr/nope/select"),
            &solr,
            "nope/select",
        );
        let Error::NotFound { path, hint, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(path, "/solr/nope/select");
        assert!(
            hint.contains("\"nope\"") && hint.contains(".collection("),
            "{hint}"
        );
        assert_eq!((e.status(), e.node()), (Some(404), Some("http://h:1/solr")));

        let root = url::Url::parse("http://h:1/").expect("url");
        let e = not_found(html_404("HTTP ERROR 404 Not Found"), &root, "bench/select");
        let Error::NotFound { path, hint, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(path, "/bench/select");
        assert!(hint.contains("ends in /solr"), "{hint}");

        let deep = url::Url::parse("http://h:1/solr/bench").expect("url");
        let e = not_found(html_404("Can not find"), &deep, "bench/select");
        assert!(e.to_string().contains(".collection(\"bench\")"), "{e}");

        // Anything else stays as it is: a Solr error body, another status.
        let other = not_found(
            Error::UnexpectedResponse {
                node: "n".into(),
                status: 502,
                content_type: None,
                snippet: "bad gateway".into(),
            },
            &solr,
            "bench/select",
        );
        assert!(matches!(
            other,
            Error::UnexpectedResponse { status: 502, .. }
        ));
    }

    #[test]
    fn status_and_node_look_into_an_updates_cause() {
        let cause = Error::Solr {
            node: "http://h:1/solr".into(),
            status: 400,
            body: Default::default(),
        };
        let e = Error::Update {
            report: Box::new(BatchReport::lost(ids(2), &cause)),
            cause: Some(Box::new(cause)),
        };
        assert_eq!(e.status(), Some(400));
        assert_eq!(e.node(), Some("http://h:1/solr"));
        let no_cause = Error::Update {
            report: Box::new(BatchReport::account(&ids(2), &[add_err("d1")])),
            cause: None,
        };
        assert_eq!((no_cause.status(), no_cause.node()), (None, None));
    }

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("d{i}")).collect()
    }

    fn add_err(id: &str) -> crate::types::TolerantError {
        crate::types::TolerantError {
            kind: "ADD".into(),
            id: id.into(),
            message: format!("bad {id}"),
        }
    }

    #[test]
    fn lost_requests_fail_or_stay_unknown_by_cause_and_merge_keeps_the_sum() {
        let io = Error::Io {
            node: "http://h/solr".into(),
            message: "closed".into(),
            not_sent: false,
        };
        let unsent = Error::Io {
            node: "http://h/solr".into(),
            message: "closed".into(),
            not_sent: true,
        };
        let solr = |status| Error::Solr {
            node: "http://h/solr".into(),
            status,
            body: Default::default(),
        };
        let r = BatchReport::lost(ids(4), &io);
        assert_eq!((r.failed.len(), r.unknown.len()), (0, 4));
        assert_eq!(BatchReport::lost(ids(4), &unsent).failed.len(), 4);
        // A 400 that names no document: the batch stopped somewhere, the ones before may be
        // indexed. A batch of one is the refused document itself.
        assert_eq!(BatchReport::lost(ids(4), &solr(400)).unknown.len(), 4);
        assert_eq!(BatchReport::lost(ids(1), &solr(400)).failed.len(), 1);
        assert_eq!(BatchReport::lost(ids(4), &solr(403)).failed.len(), 4);
        assert_eq!(BatchReport::lost(ids(4), &solr(500)).unknown.len(), 4);
        assert_eq!(BatchReport::lost(ids(4), &solr(503)).failed.len(), 4);
        // Solr's default chain stopped the batch at d1 (its own message, as Solr 9 sends it).
        let stopped = |status, msg: &str| Error::Solr {
            node: "http://h/solr".into(),
            status,
            body: crate::types::SolrErrorBody {
                msg: msg.into(),
                code: i32::from(status),
                metadata: None,
                qtime_ms: None,
            },
        };
        let msg =
            "ERROR: [doc=d1] Error adding field 'popularity'='abc' msg=For input string: \"abc\"";
        let st = BatchReport::lost(ids(4), &stopped(400, msg));
        assert_eq!(st.acknowledged, 1);
        assert_eq!(st.failed.len(), 1);
        assert_eq!(
            (st.failed[0].id.as_str(), st.failed[0].message.as_str()),
            ("d1", msg)
        );
        assert_eq!(st.not_attempted, ["d2", "d3"]);
        assert!(st.unknown.is_empty() && st.is_balanced());
        let st = BatchReport::lost(
            ids(3),
            &stopped(409, "version conflict for d2 expected=5 actual=6"),
        );
        assert_eq!((st.acknowledged, st.failed[0].id.as_str()), (2, "d2"));
        assert!(st.not_attempted.is_empty() && st.is_balanced());
        // A 400 naming no document of the batch, or a 500 naming one: no per-document account.
        let st = BatchReport::lost(ids(3), &stopped(400, "ERROR: [doc=zz] unknown field 'x'"));
        assert_eq!((st.failed.len(), st.unknown.len()), (0, 3));
        let uk = "Document is missing mandatory uniqueKey field: id";
        assert_eq!(
            BatchReport::lost(ids(3), &stopped(400, uk)).unknown.len(),
            3
        );
        assert_eq!(
            BatchReport::lost(ids(3), &stopped(500, msg)).unknown.len(),
            3
        );
        let redirect = Error::Redirect {
            node: "http://h:1/solr".into(),
            status: 302,
            location: None,
            reason: "a write is never redirected",
        };
        assert_eq!(BatchReport::lost(ids(4), &redirect).failed.len(), 4);
        let mut total = BatchReport::default();
        total.merge(r);
        total.merge(BatchReport::account(&ids(5), &[add_err("d2")]));
        total.merge(BatchReport::lost(ids(2), &unsent));
        assert_eq!(
            (
                total.sent,
                total.acknowledged,
                total.failed.len(),
                total.unknown.len()
            ),
            (11, 4, 3, 4)
        );
        assert_eq!(total.requests, 3);
        assert!(total.is_balanced());
    }
}
