//! The client's error type: one variant per way a request can fail, each naming the node.
//!
//! Solr's own error body (`error.msg`, `error.code`) is decoded into [`SolrErrorBody`]
//! (see [`crate::response`]); everything else a server or proxy can send back (an HTML 502
//! page, truncated gzip, invalid JSON, a body over the size limit) is its own variant, so an
//! application can tell network trouble from Solr trouble.

use std::time::Duration;

use crate::batch::BatchReport;
use crate::node_url::NodeUrl;
use crate::redact::redact;
use crate::redacted::Redacted;
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
/// No `Display` or `Debug` output of an error shows the user info (`user:password@`) of a URL,
/// because no field holds one: node and proxy URLs are [`NodeUrl`]s and every text field
/// (messages, snippets, hints, Solr's error body) is [`Redacted`], both stripped of user info
/// when the error is made. The `source` of [`Error::Dns`], [`Error::Connect`] and
/// [`Error::Tls`] stays a `std::io::Error` (an application downcasts the `source()` chain to
/// it); one whose chain shows user info is replaced, when the error is made, by one of the
/// same kind with the redacted message. The one exception is the
/// [`BatchReport`] of [`Error::Update`], whose document ids stay exact (an application
/// re-sends documents by them): its `Debug` output and the error's message show them
/// redacted. (Node URLs with user info are refused anyway: see
/// [`SolrClientBuilder::credentials`](crate::SolrClientBuilder::credentials).)
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The builder was given something unusable (bad URL, unreadable CA file, no nodes).
    #[error("configuration: {0}")]
    Config(Redacted<String>),
    /// The caller's input cannot be encoded safely (for example an XML-invalid control
    /// character in a field). Nothing was sent.
    #[error("invalid input: {0}")]
    InvalidInput(Redacted<String>),
    /// A document the client refused before sending anything: it lacks the uniqueKey
    /// field, or a field holds a float Solr cannot index (see [`DocumentProblem`]). `index`
    /// is the document's position in the call's input (for [`crate::Indexer::push`], the
    /// number of documents it had accepted before). Nothing of the call was sent.
    #[error("document #{index}{}: {}", id_note(id.as_deref()), problem.describe(field))]
    #[non_exhaustive]
    InvalidDocument {
        /// The document's position in the call's input, from 0.
        index: usize,
        /// The document's uniqueKey value, when it has one.
        id: Option<Redacted<String>>,
        /// The field at fault: the uniqueKey field that is missing, or the field holding the
        /// float.
        field: Redacted<String>,
        /// What is wrong with it.
        problem: DocumentProblem,
    },
    /// Name resolution failed.
    #[error("{node}: DNS lookup failed: {source}")]
    #[non_exhaustive]
    Dns {
        /// The node's base URL.
        node: NodeUrl,
        /// The resolver's error.
        source: std::io::Error,
    },
    /// The TCP connection could not be made (refused, unreachable).
    #[error("{node}: connect failed: {source}")]
    #[non_exhaustive]
    Connect {
        /// The node's base URL.
        node: NodeUrl,
        /// The socket error.
        source: std::io::Error,
    },
    /// The TLS handshake failed (unknown CA, wrong hostname, protocol mismatch).
    #[error("{node}: TLS handshake failed: {source}")]
    #[non_exhaustive]
    Tls {
        /// The node's base URL.
        node: NodeUrl,
        /// The handshake error.
        source: std::io::Error,
    },
    /// The server refused the TLS handshake over the client certificate (mutual TLS): it
    /// asked for one and none is configured, or it did not accept the one sent.
    #[error("{node}: TLS client certificate: {problem}")]
    #[non_exhaustive]
    ClientCertificate {
        /// The node's base URL.
        node: NodeUrl,
        /// What the server refused.
        problem: crate::client_cert::ClientCertProblem,
    },
    /// The HTTP proxy refused to open a tunnel to the node: its answer to `CONNECT` was not
    /// a 2xx (407, asking for credentials, is [`Error::ProxyAuth`]).
    #[error("{node}: proxy {proxy} refused CONNECT: {status} {reason}")]
    #[non_exhaustive]
    ProxyRefused {
        /// The node's base URL.
        node: NodeUrl,
        /// The proxy's URL.
        proxy: NodeUrl,
        /// The proxy's status code.
        status: u16,
        /// The proxy's reason phrase.
        reason: Redacted<String>,
    },
    /// The proxy asked for credentials (an HTTP proxy's 407, or 401 to `CONNECT`; a SOCKS5
    /// proxy's refusal of the authentication method or of the username and password): none
    /// were configured (the proxy URL's user info or [`crate::Proxy::credentials`]) or it
    /// refused the ones sent. The message never shows them.
    #[error("{node}: proxy {proxy} requires authentication{}",
        if *credentials_sent { "; it refused the credentials sent" } else { "; no proxy credentials are configured" })]
    #[non_exhaustive]
    ProxyAuth {
        /// The node's base URL.
        node: NodeUrl,
        /// The proxy's URL.
        proxy: NodeUrl,
        /// Whether credentials were sent (and refused).
        credentials_sent: bool,
    },
    /// A configured timeout fired.
    #[error("{node}: {phase} timeout after {after:?}")]
    #[non_exhaustive]
    Timeout {
        /// The node's base URL.
        node: NodeUrl,
        /// Which timeout.
        phase: TimeoutPhase,
        /// The configured value that elapsed.
        after: Duration,
    },
    /// The connection broke after it was established (reset, closed mid-response).
    #[error("{node}: connection broken: {message}")]
    #[non_exhaustive]
    Io {
        /// The node's base URL.
        node: NodeUrl,
        /// What broke, as the HTTP layer reported it.
        message: Redacted<String>,
        /// True when the request was certainly not sent or provably not processed (safe to
        /// retry, even a write): a connection found closed before sending, or an HTTP/2
        /// stream the server refused (GOAWAY with a last-stream-id below it, REFUSED_STREAM).
        not_sent: bool,
    },
    /// Solr answered with an error status and its own JSON error body.
    #[error("{node}: Solr error {status}: {}", body.msg)]
    #[non_exhaustive]
    Solr {
        /// The node's base URL.
        node: NodeUrl,
        /// HTTP status.
        status: u16,
        /// Solr's decoded error body.
        body: Redacted<SolrErrorBody>,
    },
    /// Nothing answers at the URL tried (HTTP 404 without a Solr error body): a core or
    /// collection that does not exist on the node, a request handler the core lacks, or a
    /// base URL that is not Solr's (Solr's ends in `/solr`). `hint` says which it looks like
    /// and what to check.
    #[error("{node}: HTTP 404 Not Found for {path}: {hint}")]
    #[non_exhaustive]
    NotFound {
        /// The node's base URL.
        node: NodeUrl,
        /// The URL path tried, e.g. `/solr/bench/select`.
        path: Redacted<String>,
        /// What is probably wrong, and what to check.
        hint: Redacted<String>,
    },
    /// The response was not what Solr sends: an HTML error page from a proxy, an empty body,
    /// or a status without a Solr error body. `snippet` holds its first bytes.
    #[error(
        "{node}: unexpected response (HTTP {status}, content-type {:?}): {snippet}",
        content_type.as_deref()
    )]
    #[non_exhaustive]
    UnexpectedResponse {
        /// The node's base URL.
        node: NodeUrl,
        /// HTTP status.
        status: u16,
        /// The Content-Type header, if any.
        content_type: Option<Redacted<String>>,
        /// The first bytes of the body, lossily decoded.
        snippet: Redacted<String>,
    },
    /// The body was JSON-like but did not decode into the expected shape.
    #[error("{node}: cannot decode {what}: {message}; body starts with: {snippet}")]
    #[non_exhaustive]
    Decode {
        /// The node's base URL.
        node: NodeUrl,
        /// What was being decoded.
        what: &'static str,
        /// The decoder's message.
        message: Redacted<String>,
        /// The first bytes of the body.
        snippet: Redacted<String>,
    },
    /// The body was compressed and could not be decompressed (truncated or corrupt gzip).
    #[error("{node}: cannot decompress {encoding} body: {message}")]
    #[non_exhaustive]
    Decompress {
        /// The node's base URL.
        node: NodeUrl,
        /// The Content-Encoding.
        encoding: Redacted<String>,
        /// The decompressor's message.
        message: Redacted<String>,
    },
    /// The response body (wire or decoded) is larger than the configured limit.
    #[error("{node}: response body larger than the limit of {limit} bytes")]
    #[non_exhaustive]
    TooLarge {
        /// The node's base URL.
        node: NodeUrl,
        /// The configured limit in bytes.
        limit: u64,
    },
    /// The server kept answering 429/503 until the retry budget was spent. `solr` is
    /// Solr's own error of the last answer (`no active servers hosting shard: shard2`),
    /// when it carried one.
    #[error(
        "{node}: still {status} after {attempts} attempts (waited {waited:?} in total){}",
        solr.as_ref().map_or(String::new(), |b| format!("; Solr said (code {}): {}", b.code, b.msg))
    )]
    #[non_exhaustive]
    RetriesExhausted {
        /// The last node tried.
        node: NodeUrl,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// Total time spent waiting between attempts.
        waited: Duration,
        /// Solr's error body of the last answer, when it had one (a proxy's 503 page has
        /// none). Boxed: it would make every `Result` of this crate larger.
        solr: Option<Box<Redacted<SolrErrorBody>>>,
    },
    /// The server answered with a redirect (3xx) that the client did not follow: every
    /// write (a redirected write is never re-sent, so nothing reached the other host), a read
    /// when following is off (the default; see `SolrClientBuilder::follow_redirects`), a
    /// read past the hop limit, or one that would change the scheme. `location` is the
    /// `Location` header with any user name and password removed.
    #[error("{node}: HTTP {status} redirect to {} not followed: {reason}", location.as_deref().unwrap_or("(no Location header)"))]
    #[non_exhaustive]
    Redirect {
        /// The node's base URL (the one that answered with the redirect).
        node: NodeUrl,
        /// The 3xx status.
        status: u16,
        /// The `Location` header, without credentials; None when absent or unreadable.
        location: Option<Redacted<String>>,
        /// Why it was not followed.
        reason: &'static str,
    },
    /// HTTP 401: the server (Solr's authentication plugin, or a gateway in front of it)
    /// refused the request's credentials, or the client sent none. With a provider that
    /// renews its credential ([`crate::auth::Refreshing`]) the request was re-sent once
    /// first. `hint` says which case it is and what to check; no credential is ever shown.
    #[error(
        "{node}: HTTP 401 Unauthorized ({} rejected{}): {hint}",
        scheme.as_deref().map_or("no credentials sent".to_string(), |s| format!("{s} credentials")),
        challenge.as_deref().map_or(String::new(), |c| format!("; the server asks for {c}")),
    )]
    #[non_exhaustive]
    Unauthorized {
        /// The node's base URL.
        node: NodeUrl,
        /// The scheme of the credential sent (`Basic`, `Bearer`); None when none was sent.
        scheme: Option<Redacted<String>>,
        /// The server's `WWW-Authenticate` challenge (first 200 characters), if any.
        challenge: Option<Redacted<String>>,
        /// What is wrong and what to check.
        hint: Redacted<String>,
    },
    /// The client's [`AuthProvider`](crate::auth::AuthProvider) could not produce a
    /// credential (a token callback failed, or returned a token an HTTP header cannot
    /// carry). Nothing was sent.
    #[error("authentication: {0}")]
    Auth(Redacted<String>),
    /// No node can take the request: the routing decorator has no node of the needed role
    /// (for example a SolrCloud shard without a live leader during an election). Nothing
    /// was sent.
    #[error("no node available: {0}")]
    NoNode(Redacted<String>),
    /// An async admin command (Collections API with an `async` id) ended `failed`, or is
    /// unknown to Solr (`notfound`), or was still `state` when
    /// [`Collections::wait_for`](crate::admin::Collections::wait_for) stopped waiting
    /// (`waited` is its configured limit).
    #[error(
        "async admin request {id} {state}{}: {message}",
        waited.map_or(String::new(), |w| format!(" after waiting {w:?}")),
    )]
    #[non_exhaustive]
    AsyncCommand {
        /// The async request id.
        id: Redacted<String>,
        /// Its last state (`failed`, `notfound`, `submitted`, `running`).
        state: Redacted<String>,
        /// Solr's message for it.
        message: Redacted<String>,
        /// How long the caller waited, when the wait ended before the command did.
        waited: Option<Duration>,
    },
    /// Optimistic concurrency: the `_version_` sent with a call of one document did not
    /// match the stored document's (Solr's 409 "version conflict"; also a document that
    /// must exist, `_version_` 1 or more, and does not). Nothing was indexed. In a call of more
    /// documents (even when its shard's part is one document), the document is a failed
    /// one of [`Error::Update`] with Solr's message instead (see
    /// [`FailedDoc::is_version_conflict`]).
    #[error(
        "{node}: version conflict for {id}: expected _version_ {}, found {}",
        expected.map_or("(unknown)".to_string(), |v| v.to_string()),
        actual.map_or("no document".to_string(), |v| v.to_string())
    )]
    #[non_exhaustive]
    VersionConflict {
        /// The node's base URL.
        node: NodeUrl,
        /// The document's id.
        id: Redacted<String>,
        /// The `_version_` the update required, when Solr said it.
        expected: Option<i64>,
        /// The stored document's `_version_`; `None` when there is no such document.
        actual: Option<i64>,
    },
    /// An update in which not every document is known to be indexed, or in which Solr
    /// reported errors. `report` accounts for every document of the request
    /// (`acknowledged + failed + unknown + not_attempted == sent`, see [`BatchReport`]).
    #[error("update: {}", update_summary(report, cause.as_deref()))]
    #[non_exhaustive]
    Update {
        /// The account of the request's documents (boxed: it is the largest variant).
        report: Box<BatchReport>,
        /// When the whole request failed, the error that lost it; also its
        /// [`source`](std::error::Error::source), where it downcasts to `Box<Error>`.
        #[source]
        cause: Option<Box<Error>>,
    },
    /// A cloud export ([`SolrClient::export_as`](crate::SolrClient::export_as) through a
    /// SolrCloud client) lost one shard's stream after tuples had been handed out: the
    /// stream ends here, incomplete. It cannot go on from another replica without repeating
    /// or skipping tuples; run the export again.
    #[error(
        "export incomplete: shard {shard} ({node}) failed after {handed_out} tuples were handed out ({from_shard} read from it); the export stopped there: {cause}"
    )]
    #[non_exhaustive]
    ExportIncomplete {
        /// The shard whose stream failed.
        shard: Redacted<String>,
        /// The base URL of the node that served it.
        node: NodeUrl,
        /// Tuples handed out by the whole export before the failure.
        handed_out: u64,
        /// Tuples read from the failed shard before the failure.
        from_shard: u64,
        /// What ended the shard's stream; also its [`source`](std::error::Error::source).
        #[source]
        cause: Box<Error>,
    },
}

impl Error {
    /// [`Error::Config`] with `message`, redacted.
    pub(crate) fn config(message: impl Into<Redacted<String>>) -> Error {
        Error::Config(message.into())
    }

    /// [`Error::InvalidInput`] with `message`, redacted.
    pub(crate) fn invalid_input(message: impl Into<Redacted<String>>) -> Error {
        Error::InvalidInput(message.into())
    }

    /// [`Error::NoNode`] with `message`, redacted.
    pub(crate) fn no_node(message: impl Into<Redacted<String>>) -> Error {
        Error::NoNode(message.into())
    }

    /// [`Error::Auth`] with `message`, redacted.
    pub(crate) fn auth(message: impl Into<Redacted<String>>) -> Error {
        Error::Auth(message.into())
    }

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
            Error::AsyncCommand { .. } => "AsyncCommand",
            Error::InvalidDocument { .. } => "InvalidDocument",
            Error::VersionConflict { .. } => "VersionConflict",
            Error::Update { .. } => "Update",
            Error::ExportIncomplete { .. } => "ExportIncomplete",
            Error::NotFound { .. } => "NotFound",
            Error::Unauthorized { .. } => "Unauthorized",
            Error::Auth(_) => "Auth",
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
            Error::Unauthorized { .. } => Some(401),
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
            | Error::NotFound { node, .. }
            | Error::Unauthorized { node, .. }
            | Error::ExportIncomplete { node, .. } => Some(node.as_str()),
            Error::Update { cause: Some(c), .. } => c.node(),
            _ => None,
        }
    }

    /// True when the request certainly did not reach Solr, so retrying it (even a write)
    /// cannot apply it twice: connect failures, connections found closed before sending,
    /// HTTP/2 streams the server refused (GOAWAY below the stream, REFUSED_STREAM), and
    /// requests the routing decorator found no node for or the auth provider could not sign.
    pub fn is_not_sent(&self) -> bool {
        self.is_connect()
            || matches!(
                self,
                Error::Io { not_sent: true, .. } | Error::NoNode(_) | Error::Auth(_)
            )
    }
}

/// ` (id "x")` for a document that has an id, else nothing.
fn id_note(id: Option<&str>) -> String {
    id.map(|i| format!(" (id {i:?})")).unwrap_or_default()
}

/// One line about an update's account, for [`Error::Update`]'s message, redacted (the report
/// keeps document ids and Solr's messages exact).
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
    redact(&s).into_owned()
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
            Error::Config(text().into()),
            Error::InvalidInput(text().into()),
            Error::Dns {
                node: node().into(),
                source: crate::redact::redact_io(io()),
            },
            Error::Connect {
                node: node().into(),
                source: crate::redact::redact_io(io()),
            },
            Error::Tls {
                node: node().into(),
                source: crate::redact::redact_io(io()),
            },
            Error::Timeout {
                node: node().into(),
                phase: TimeoutPhase::ReadIdle,
                after: Duration::from_secs(1),
            },
            Error::Io {
                node: node().into(),
                message: text().into(),
                not_sent: false,
            },
            Error::Solr {
                node: node().into(),
                status: 500,
                body: SolrErrorBody {
                    msg: text(),
                    code: 500,
                    metadata: Some(serde_json::json!([text()])),
                    qtime_ms: None,
                }
                .into(),
            },
            Error::UnexpectedResponse {
                node: node().into(),
                status: 502,
                content_type: Some(text().into()),
                snippet: text().into(),
            },
            Error::Decode {
                node: node().into(),
                what: "select response",
                message: text().into(),
                snippet: text().into(),
            },
            Error::Decompress {
                node: node().into(),
                encoding: text().into(),
                message: text().into(),
            },
            Error::TooLarge {
                node: node().into(),
                limit: 1,
            },
            Error::RetriesExhausted {
                node: node().into(),
                status: 503,
                attempts: 3,
                waited: Duration::from_secs(1),
                solr: Some(Box::new(
                    SolrErrorBody {
                        msg: text(),
                        code: 503,
                        metadata: None,
                        qtime_ms: None,
                    }
                    .into(),
                )),
            },
            Error::Redirect {
                node: node().into(),
                status: 302,
                location: Some(format!("{URL}/elsewhere").into()),
                reason: "a write is never redirected",
            },
            Error::NoNode(text().into()),
            Error::Unauthorized {
                node: node().into(),
                scheme: Some("Bearer".into()),
                challenge: Some(text().into()),
                hint: text().into(),
            },
            Error::Auth(text().into()),
            Error::ClientCertificate {
                node: node().into(),
                problem: crate::client_cert::ClientCertProblem::NotConfigured {
                    alert: "CertificateRequired".into(),
                },
            },
            Error::ProxyRefused {
                node: node().into(),
                proxy: format!("{URL}/proxy").into(),
                status: 403,
                reason: text().into(),
            },
            Error::ProxyAuth {
                node: node().into(),
                proxy: format!("{URL}/proxy").into(),
                credentials_sent: true,
            },
            Error::AsyncCommand {
                id: "split-1".into(),
                state: "failed".into(),
                message: text().into(),
                waited: Some(Duration::from_secs(60)),
            },
            Error::InvalidDocument {
                index: 3,
                id: Some(text().into()),
                field: "price_f".into(),
                problem: crate::DocumentProblem::NotFinite,
            },
            Error::NotFound {
                node: node().into(),
                path: text().into(),
                hint: text().into(),
            },
            Error::VersionConflict {
                node: node().into(),
                id: text().into(),
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
                    node: node().into(),
                    message: text().into(),
                    not_sent: false,
                })),
            },
            Error::ExportIncomplete {
                shard: text().into(),
                node: node().into(),
                handed_out: 7,
                from_shard: 3,
                cause: Box::new(Error::Connect {
                    node: node().into(),
                    source: crate::redact::redact_io(io()),
                }),
            },
        ]
    }

    #[test]
    fn no_variant_shows_a_password_in_display_or_debug() {
        let all = every_variant();
        let names: std::collections::HashSet<&str> = all.iter().map(Error::kind).collect();
        assert_eq!(names.len(), all.len(), "each variant once");
        assert_eq!(names.len(), 26, "every variant: extend every_variant()");
        for e in &all {
            let mut chain = Vec::new();
            let mut next = std::error::Error::source(e);
            while let Some(s) = next {
                chain.push(s.to_string());
                next = s.source();
            }
            for shown in [e.to_string(), format!("{e:?}"), format!("{e:#?}")]
                .into_iter()
                .chain(chain)
            {
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
    fn an_update_keeps_document_ids_exact_and_shows_them_redacted() {
        let id = format!("{URL}/doc-1");
        let e = Error::Update {
            report: Box::new(BatchReport {
                sent: 1,
                failed: vec![FailedDoc::new(id.clone(), "bad".into())],
                requests: 1,
                ..BatchReport::default()
            }),
            cause: None,
        };
        let Error::Update { report, .. } = &e else {
            unreachable!()
        };
        assert_eq!(report.failed[0].id, id, "the id a retry needs, exact");
        for shown in [e.to_string(), format!("{e:?}"), format!("{report:?}")] {
            assert!(!shown.contains(PASSWORD), "{shown}");
            assert!(shown.contains("solr.example:8983/solr/doc-1"), "{shown}");
        }
    }

    #[test]
    fn debug_output_has_the_derived_shape() {
        let e = Error::Timeout {
            node: URL.into(),
            phase: TimeoutPhase::Connect,
            after: Duration::from_millis(1500),
        };
        assert_eq!(
            format!("{e:?}"),
            "Timeout { node: \"http://solr.example:8983/solr\", phase: Connect, after: 1.5s }"
        );
        let e = Error::NoNode(format!("no leader at {URL}").into());
        assert_eq!(
            format!("{e:?}"),
            "NoNode(\"no leader at http://solr.example:8983/solr\")"
        );
        let e = Error::Redirect {
            node: "n".into(),
            status: 301,
            location: None,
            reason: "off",
        };
        assert_eq!(
            format!("{e:#?}"),
            "Redirect {\n    node: \"n\",\n    status: 301,\n    location: None,\n    reason: \"off\",\n}"
        );
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
}
