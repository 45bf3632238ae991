//! The per-request timing record attached to every response, and the one place where its
//! phases are defined.
//!
//! The phases follow k6 (`blocked`, `connecting`, `tls_handshaking`, `sending`, `waiting`,
//! `receiving`) and curl `-w`, and are measured *inside* the transport: the connector times
//! DNS, TCP connect and the TLS handshake, and a wrapped socket stamps the last byte written
//! and the first byte read. They are consecutive and do not overlap:
//!
//! ```text
//! start ─ blocked ─ dns ─ connect ─ tunnel ─ tls ─ write ─ server_wait ─ transfer ─ decompress ─ parse
//!   blocked      waiting for a pool slot / the shared HTTP/2 connection
//!   dns          name resolution                      (None when the connection was reused)
//!   connect      TCP three-way handshake              (None when reused)
//!   tunnel       proxy CONNECT exchange               (None unless tunnelled through a proxy)
//!   tls          TLS handshake                        (None when reused or plain http)
//!   write        request start -> last request byte handed to the kernel
//!   server_wait  last request byte written -> first response byte read
//!                (Solr's QTime is inside it, plus network round trip and response writing)
//!   transfer     first response byte -> last body byte read
//!   decompress   gunzip of the body                   (None without Content-Encoding)
//!   parse        JSON decode into the response type   (set by the client)
//! ```
//!
//! Behind a proxy ([`crate::Proxy`]) `dns` and `connect` are those of the proxy, `tunnel`
//! is the `CONNECT` request and the proxy's answer (which includes the proxy's own connect
//! to the node), and `tls` is the handshake with the node inside the tunnel. A plain
//! `http://` node forwarded in absolute form has no tunnel: the proxy's connect to the node
//! falls inside `server_wait`.
//!
//! `transport_total()` is the sum of the phases up to `decompress`; `total()` adds `parse`.
//! Overhead over Solr is `total() - qtime`.
//!
//! For HTTP/2 (many requests share one socket, and the client writes control frames while
//! waiting) `write` is zero, `server_wait` ends when the response headers were decoded, and
//! when streams overlap the byte counts are payload bytes, not socket bytes (`bytes_exact`).
//! For the `reqwest` transport, whose connection handling is opaque, the connection phases
//! are None, `write` is zero and `server_wait` covers everything up to the response headers.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// HTTP version of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum HttpVersion {
    /// HTTP/1.1
    #[default]
    Http11,
    /// HTTP/2
    Http2,
}

/// The timing record of one request. See the module docs for the phase definitions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Timing {
    /// Process-unique id of the connection that carried the request (0 when unknown).
    pub connection_id: u64,
    /// Whether the connection had served a request before this one.
    pub reused: bool,
    /// Waiting for a connection slot.
    pub blocked: Duration,
    /// Name resolution; None when the connection was reused.
    pub dns: Option<Duration>,
    /// TCP connect; None when the connection was reused.
    pub connect: Option<Duration>,
    /// Proxy `CONNECT` exchange; None unless the connection was tunnelled through a proxy
    /// (then also None when reused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tunnel: Option<Duration>,
    /// TLS handshake; None when reused or plain http.
    pub tls: Option<Duration>,
    /// Writing the request.
    pub write: Duration,
    /// Last request byte written -> first response byte.
    pub server_wait: Duration,
    /// First -> last response byte.
    pub transfer: Duration,
    /// Decompressing the body.
    pub decompress: Option<Duration>,
    /// Decoding the body into the response type.
    pub parse: Option<Duration>,
    /// Bytes written on the socket for this request (TLS records included; a new
    /// connection's handshake bytes are counted in the request that opened it).
    pub bytes_out: u64,
    /// Bytes read from the socket for this request, likewise.
    pub bytes_in: u64,
    /// Response body bytes after decompression.
    pub decoded_bytes: u64,
    /// True when `bytes_in`/`bytes_out` are exact socket counts; false when the connection
    /// was shared with other in-flight requests (HTTP/2) and the figures are payload bytes.
    pub bytes_exact: bool,
    /// HTTP version used.
    pub http_version: HttpVersion,
    /// The response's Content-Encoding, if any.
    pub content_encoding: Option<String>,
    /// Solr's QTime in milliseconds, when the response carried one.
    pub qtime_ms: Option<u32>,
    /// Attempts made (1 unless a retry or failover happened).
    pub attempts: u32,
    /// The node that answered.
    pub node: String,
    /// Redirects followed before this response (0 unless the client opted in with
    /// `SolrClientBuilder::follow_redirects` and the server redirected a read).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redirects: u32,
    /// After redirects, the URL that answered (without credentials); None when no redirect
    /// was followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Timing {
    /// Sum of the phases measured by the transport (blocked .. decompress).
    pub fn transport_total(&self) -> Duration {
        self.blocked
            + self.dns.unwrap_or_default()
            + self.connect.unwrap_or_default()
            + self.tunnel.unwrap_or_default()
            + self.tls.unwrap_or_default()
            + self.write
            + self.server_wait
            + self.transfer
            + self.decompress.unwrap_or_default()
    }

    /// Whole client-side time of the request: transport phases plus parse.
    pub fn total(&self) -> Duration {
        self.transport_total() + self.parse.unwrap_or_default()
    }

    /// Time spent outside Solr's QTime: `total() - QTime`, or `None` when the response
    /// carried no QTime (then the overhead is unknown, not the whole total).
    pub fn overhead(&self) -> Option<Duration> {
        let q = Duration::from_millis(u64::from(self.qtime_ms?));
        Some(self.total().saturating_sub(q))
    }

    /// Time to set the connection up (dns + connect + tunnel + tls), zero on reuse.
    pub fn connection_setup(&self) -> Duration {
        self.dns.unwrap_or_default()
            + self.connect.unwrap_or_default()
            + self.tunnel.unwrap_or_default()
            + self.tls.unwrap_or_default()
    }
}
