//! The leaf types every layer of the client shares: the request on the wire
//! ([`WireRequest`], which carries its signer), the reply ([`Reply`]: a whole
//! [`WireResponse`] or a [`StreamingResponse`] whose body is read as it arrives), the
//! [`AuthProvider`] seam, and the small types a request names ([`RequestKind`],
//! [`RouteKey`], [`Timeouts`]). They import nothing from the transports, the codecs or the
//! client: every module may use them, and they are re-exported from
//! [`crate::transport`] under their usual paths.

mod body;
mod reply;
mod signer;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use url::Url;

pub use body::{BodyStream, ChunkStream, StreamingResponse};
pub(crate) use body::{WireBytes, WireCount};
pub use reply::Reply;
pub use signer::AuthProvider;

use crate::error::Result;
use crate::timing::Timing;

/// A boxed, sendable future, as returned by
/// [`Transport::send`](crate::transport::Transport::send).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Whether a request reads or changes the index; routing and retry policies use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestKind {
    /// A search or any other request that does not change state: safe to retry anywhere.
    Read,
    /// An update: sent to the leader, retried only when it certainly was not sent.
    Write,
    /// Admin requests (ping, cluster status): idempotent, any node.
    Admin,
}

/// Timeouts of a request. Every transport honours all three, and every
/// [`Error::Timeout`](crate::Error::Timeout) names the phase that fired and the value
/// configured here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// DNS + TCP connect + TLS handshake, per connection opened. Default 10 s.
    pub connect: Duration,
    /// Longest gap without a byte while waiting for the response: the timer restarts on
    /// every byte received, in the header phase as in the body phase, so a slow but
    /// steady response is never cut by it, only by [`Timeouts::request`]. (HTTP/2: every
    /// byte of the request's stream, and every byte of a frame still arriving on the
    /// shared connection, but not the complete frames of other streams; reqwest: every
    /// body read, the head as a whole, see `ReqwestDefault`.) Default 30 s.
    pub read_idle: Duration,
    /// A deadline for the whole call, from the moment the outermost transport or decorator
    /// sees the request to the last body byte, every retry, backoff wait and failover of
    /// [`Retry`](crate::transport::Retry) and [`Routing`](crate::transport::Routing) included ([`WireRequest::deadline`]). Default 60 s.
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts::DEFAULT
    }
}

/// Setters, for code outside this crate (the struct is `#[non_exhaustive]`: build it
/// from [`Timeouts::default()`] and change what differs).
impl Timeouts {
    /// The defaults (connect 10 s, read idle 30 s, request 60 s), usable in a `const`.
    pub const DEFAULT: Timeouts = Timeouts {
        connect: Duration::from_secs(10),
        read_idle: Duration::from_secs(30),
        request: Duration::from_secs(60),
    };

    /// Sets [`Timeouts::connect`]; see there for the default.
    pub const fn connect(mut self, v: Duration) -> Self {
        self.connect = v;
        self
    }
    /// Sets [`Timeouts::read_idle`]; see there for the default.
    pub const fn read_idle(mut self, v: Duration) -> Self {
        self.read_idle = v;
        self
    }
    /// Sets [`Timeouts::request`]; see there for the default.
    pub const fn request(mut self, v: Duration) -> Self {
        self.request = v;
        self
    }
}

/// A request on the wire, before any transport touches it.
///
/// Its `Debug` output never shows a credential: the node URL is printed without user info,
/// and the values of `Authorization`, `Proxy-Authorization` and `Cookie` headers (and of any
/// header marked sensitive) as `***`.
#[derive(Clone)]
pub struct WireRequest {
    /// HTTP method.
    pub method: Method,
    /// The node's base URL, e.g. `http://127.0.0.1:8983/solr`.
    pub node: Url,
    /// Path below the node, e.g. `bench/select`.
    pub path: String,
    /// Query parameters, in order (repeats allowed).
    pub query: Vec<(String, String)>,
    /// Extra headers (Content-Type for bodies, Accept-Encoding from the gzip decorator...).
    pub headers: HeaderMap,
    /// The body (empty for GET).
    pub body: Bytes,
    /// Read, write or admin.
    pub kind: RequestKind,
    /// Timeouts for this request.
    pub timeouts: Timeouts,
    /// Largest response body accepted, wire or decoded, in bytes.
    pub max_response_bytes: u64,
    /// When the whole call must be over. `None` until the outermost transport or decorator
    /// sees the request and sets it to `now + timeouts.request`; every layer below (and every
    /// retry or failover attempt, which clones the request) keeps it, so the request timeout
    /// bounds the whole call, not each attempt.
    pub deadline: Option<Instant>,
    /// Which shard an update belongs to, set by the client from the document ids it knew
    /// before encoding the body (any format). Routing decorators read this, never the body.
    /// None for requests Solr distributes itself (reads, commits, delete-by-query); a
    /// per-shard read names its replicas ([`RouteKey::Replicas`]).
    pub route: Option<RouteKey>,
    /// Who signs this request: the base transport that writes it asks this provider for the
    /// `Authorization` value right before each write ([`WireRequest::sign`]), so every
    /// attempt, retry, redirect hop and failover is signed with the credential current at
    /// that moment, whatever decorator (a custom one included) sends it again. `None`: the
    /// request goes with the headers it has. The client sets it from its provider
    /// ([`crate::SolrClientBuilder::auth`]); a redirect to another origin clears it.
    pub auth: Option<Arc<dyn AuthProvider>>,
    /// How the reply's body is read: `false` (the default), whole, at most
    /// [`Self::max_response_bytes`] ([`Reply::Whole`]); `true`, as it arrives
    /// ([`Reply::Streamed`]; see [`StreamingResponse`] for the limits that apply). Set by
    /// [`Transport::send_whole`](crate::transport::Transport::send_whole) and
    /// [`Transport::send_streaming`](crate::transport::Transport::send_streaming); a
    /// transport that cannot stream may answer whole.
    pub streamed: bool,
}

impl fmt::Debug for WireRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Headers<'a>(&'a HeaderMap);
        impl fmt::Debug for Headers<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let secret = |name: &http::HeaderName, v: &http::HeaderValue| {
                    v.is_sensitive()
                        || name == http::header::AUTHORIZATION
                        || name == http::header::PROXY_AUTHORIZATION
                        || name == http::header::COOKIE
                };
                f.debug_map()
                    .entries(self.0.iter().map(|(k, v)| {
                        let shown: &dyn fmt::Debug = if secret(k, v) { &"***" } else { v };
                        (k, shown)
                    }))
                    .finish()
            }
        }
        f.debug_struct("WireRequest")
            .field("method", &self.method)
            .field("node", &crate::redact::node_label(&self.node))
            .field("path", &self.path)
            .field("query", &self.query)
            .field("headers", &Headers(&self.headers))
            .field("body", &self.body)
            .field("kind", &self.kind)
            .field("timeouts", &self.timeouts)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("deadline", &self.deadline)
            .field("route", &self.route)
            .field("auth", &self.auth.as_ref().map(|a| a.scheme()))
            .field("streamed", &self.streamed)
            .finish()
    }
}

/// The route of an update, known before its body was encoded (see [`WireRequest::route`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteKey {
    /// The route ids (the uniqueKey `id`, composite ids `a!b` included) of the documents
    /// the request adds or deletes, in order. A router sends the request to the leader of
    /// the shard holding most of them; Solr forwards the rest.
    Ids(Vec<String>),
    /// A shard by name, as grouped by
    /// [`Transport::shard_groups`](crate::transport::Transport::shard_groups): every document of the
    /// request belongs to it.
    Shard(String),
    /// A read pinned to these replicas of one shard (a per-shard `distrib=false` read such
    /// as one part of a cloud `/export`): a router tries them in this order (those of nodes
    /// marked down last), each on its node with its core in place of the path's first
    /// segment, failing over to the next as for any read. A transport without a router
    /// ignores it.
    Replicas(Vec<ReplicaAddr>),
}

/// One replica a [`RouteKey::Replicas`] read may go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaAddr {
    /// The base URL of the node holding it (`http://host:8983/solr`).
    pub base_url: url::Url,
    /// Its core name (`bench_shard1_replica_n1`).
    pub core: String,
}

/// The documents of one update that belong to one shard (see
/// [`Transport::shard_groups`](crate::transport::Transport::shard_groups)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardGroup {
    /// The shard name, e.g. `shard1`.
    pub shard: String,
    /// Positions of its documents in the ids given to
    /// [`Transport::shard_groups`](crate::transport::Transport::shard_groups),
    /// ascending.
    pub members: Vec<usize>,
}

impl WireRequest {
    /// Sets [`WireRequest::deadline`] to `now + timeouts.request` unless it is set already,
    /// and returns it.
    pub fn start_deadline(&mut self) -> Instant {
        let request = self.timeouts.request;
        *self
            .deadline
            .get_or_insert_with(|| far_or(Instant::now(), request))
    }

    /// Sets the `Authorization` header from [`Self::auth`], now (nothing without a
    /// provider; a provider that has no value removes the header). The built-in base
    /// transports call it right before they write the request; a custom base transport
    /// should too.
    pub async fn sign(&mut self) -> Result<()> {
        let Some(provider) = self.auth.clone() else {
            return Ok(());
        };
        match provider.authorization().await? {
            Some(v) => self.headers.insert(http::header::AUTHORIZATION, v),
            None => self.headers.remove(http::header::AUTHORIZATION),
        };
        Ok(())
    }

    /// The request timeout error for this request: phase `Request`, the configured value.
    pub(crate) fn request_timeout(&self) -> crate::Error {
        crate::Error::Timeout {
            node: crate::redact::node_label(&self.node).into(),
            phase: crate::TimeoutPhase::Request,
            after: self.timeouts.request,
        }
    }

    /// The full URL of the request on its node.
    pub fn url(&self) -> Url {
        let mut url = self.node.clone();
        {
            let base = url.path().trim_end_matches('/').to_string();
            url.set_path(&format!("{}/{}", base, self.path.trim_start_matches('/')));
        }
        if !self.query.is_empty() {
            url.query_pairs_mut().extend_pairs(self.query.iter());
        }
        url
    }

    /// Origin-form request target (`/solr/bench/select?q=...`): the path and query of
    /// [`Self::url`].
    pub fn path_and_query(&self) -> String {
        // The common case (a node URL without a query, a path of plain segments) is written
        // straight into one string: the same bytes `url()` gives, without a copy of the node
        // URL, a re-parse of its path and a second copy of the query.
        if self.node.query().is_none() && plain_path(&self.path) {
            let base = self.node.path().trim_end_matches('/');
            let path = self.path.trim_start_matches('/');
            // Room for the query as encoded, a quarter over its raw length (escapes), so
            // the string is not grown while it is written.
            let raw: usize = self.query.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
            let mut out = Vec::with_capacity(base.len() + path.len() + 2 + raw + raw / 4);
            out.extend_from_slice(base.as_bytes());
            out.push(b'/');
            out.extend_from_slice(path.as_bytes());
            for (i, (k, v)) in self.query.iter().enumerate() {
                out.push(if i == 0 { b'?' } else { b'&' });
                push_form_encoded(&mut out, k);
                out.push(b'=');
                push_form_encoded(&mut out, v);
            }
            // Valid UTF-8 by construction: the node's path and `path` are strings and the
            // encoded query is ASCII; the lossy arm is never taken.
            return String::from_utf8(out)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        }
        let url = self.url();
        match url.query() {
            Some(q) => format!("{}?{}", url.path(), q),
            None => url.path().to_string(),
        }
    }

    /// `host:port` for the Host header.
    pub(crate) fn authority(&self) -> String {
        let host = self.node.host_str().unwrap_or("localhost");
        match self.node.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        }
    }
}

/// The bytes form-urlencoding keeps as they are: `*-._`, ASCII letters and digits.
const FORM_KEPT: [bool; 256] = {
    let mut kept = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        kept[i] = b.is_ascii_alphanumeric() || matches!(b, b'*' | b'-' | b'.' | b'_');
        i += 1;
    }
    kept
};

/// Appends `s` form-urlencoded to `out`, byte for byte as `url::form_urlencoded` writes it
/// (the [`FORM_KEPT`] bytes kept, a space as `+`, every other byte of its UTF-8 as `%XX` in
/// upper case): one table look-up per byte, room for the common case reserved once.
fn push_form_encoded(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.reserve(s.len());
    for &b in s.as_bytes() {
        if FORM_KEPT[usize::from(b)] {
            out.push(b);
        } else if b == b' ' {
            out.push(b'+');
        } else {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        }
    }
}

/// True when `path` is made of characters a URL path keeps as they are and has no `.` or
/// `..` segment (which [`Url::set_path`] would resolve): appending it to a node's path gives
/// the bytes `set_path` would.
fn plain_path(path: &str) -> bool {
    path.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'/' | b'-'
                    | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            )
    }) && path.split('/').all(|seg| seg != "." && seg != "..")
}

/// A response as the transport delivered it: status, headers, the whole body (decompressed
/// when a decorator did so) and the timing record.
#[derive(Debug, Clone)]
pub struct WireResponse {
    /// HTTP status.
    pub status: StatusCode,
    /// Response headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Bytes,
    /// Phase timings, bytes, connection identity.
    pub timing: Timing,
}

/// Runs `fut` until `deadline`; then it is dropped and the result is `timeout`.
pub(crate) async fn until_deadline<T, F>(
    deadline: Instant,
    timeout: crate::Error,
    fut: F,
) -> Result<T>
where
    F: Future<Output = Result<T>>,
{
    tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), fut)
        .await
        .unwrap_or(Err(timeout))
}

/// `start + d`, or a point about thirty years on when that does not fit in an `Instant`.
pub(crate) fn far_or(start: Instant, d: Duration) -> Instant {
    start
        .checked_add(d)
        .or_else(|| start.checked_add(Duration::from_secs(30 * 365 * 86_400)))
        .unwrap_or(start)
}

#[cfg(test)]
impl WireRequest {
    /// A read: GET `path` on `node`, default timeouts, a 1 MiB response limit.
    pub(crate) fn test_get(node: &str, path: &str) -> WireRequest {
        WireRequest {
            method: Method::GET,
            node: Url::parse(node).expect("node"),
            path: path.into(),
            query: Vec::new(),
            headers: HeaderMap::new(),
            body: Bytes::new(),
            kind: RequestKind::Read,
            timeouts: Timeouts::default(),
            max_response_bytes: 1 << 20,
            deadline: None,
            route: None,
            auth: None,
            streamed: false,
        }
    }
}

#[cfg(test)]
mod path_and_query_tests {
    use super::*;

    fn req(node: &str, path: &str, query: &[(&str, &str)]) -> WireRequest {
        let mut r = WireRequest::test_get(node, path);
        r.query = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        r
    }

    /// The direct writer gives exactly the path and query of `url()`, for plain paths and
    /// for every path it hands to `url()` instead (dot segments, spaces, `?`, `#`, `%`,
    /// non-ASCII, backslashes), under nodes with and without a path.
    #[test]
    fn path_and_query_is_the_path_and_query_of_url() {
        let paths = [
            "bench/select",
            "/bench/select",
            "my.coll/select",
            "c/../x",
            "./c/select",
            "c/sel ect",
            "c/a?b",
            "c/a#b",
            "c/100%",
            "c/é",
            "c\\x",
            "",
            "c//select",
            "c/select/",
        ];
        let queries: [&[(&str, &str)]; 3] = [
            &[],
            &[
                ("q", "title:\"a b\" AND é&x=1"),
                ("fq", "+x:[1 TO *]"),
                ("wt", "json"),
            ],
            &[("", ""), ("a", "%/?#")],
        ];
        for node in [
            "http://127.0.0.1:8983/solr",
            "http://h/solr/",
            "http://h",
            "https://h:1/a/b",
        ] {
            for path in paths {
                for q in queries {
                    let r = req(node, path, q);
                    let url = r.url();
                    let expected = match url.query() {
                        Some(q) => format!("{}?{}", url.path(), q),
                        None => url.path().to_string(),
                    };
                    assert_eq!(r.path_and_query(), expected, "{node} {path:?} {q:?}");
                }
            }
        }
    }

    /// The query encoder writes what `form_urlencoded` writes: every ASCII character alone,
    /// at the start, middle and end of a value, and multi-byte characters among kept runs.
    #[test]
    fn the_query_encoder_matches_form_urlencoded() {
        let mut values: Vec<String> = (0u8..128)
            .map(char::from)
            .flat_map(|c| {
                [
                    c.to_string(),
                    format!("{c}ab"),
                    format!("ab{c}cd"),
                    format!("ab{c}"),
                ]
            })
            .collect();
        values.extend(["é", "aé", "éa", "a€b c", "日本語 q:x", "", "*-._~ +%"].map(String::from));
        for v in &values {
            let mut ours = Vec::new();
            push_form_encoded(&mut ours, v);
            let ours = String::from_utf8(ours).unwrap();
            let theirs: String = url::form_urlencoded::byte_serialize(v.as_bytes()).collect();
            assert_eq!(ours, theirs, "{v:?}");
        }
    }
}
