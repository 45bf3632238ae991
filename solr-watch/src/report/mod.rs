//! The watch report: the model saved as `watch.json` (this file), built from a [`Tracker`]
//! ([`build`](mod@build), from the connection figures of `connections` and the
//! [`requests`](mod@requests) figures), its findings with their fixes and the one-line
//! verdict ([`findings`]), and the text tables ([`text`]);
//! it is saved as a run folder by `run_folder.rs` (`bench_report::RunReport`).
//!
//! [`Tracker`]: crate::wire::conn::Tracker

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::tls::Handshake;
use crate::tls::decrypt::TlsDecryption;
use crate::wire::http2::{H2Facts, Http2Summary};
use bench_report::stats::Percentiles;

pub mod build;
mod connections;
pub(crate) mod csv;
mod early_close;
pub mod findings;
pub mod requests;
mod run_folder;
mod server_first;
pub mod svg;
pub mod text;
mod wire;

pub mod tls;

pub use build::build;
pub use findings::Severity;
pub use requests::requests;
pub use text::print_text;

/// Responses at least this large (body bytes) should be compressed.
const GZIP_WORTH: u64 = 1024;

/// Everything `watch` reports (saved as `watch.json`; schema in `schema/watch.schema.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchReport {
    /// Interface or file watched.
    pub source: String,
    /// Server port watched.
    pub port: u16,
    /// From the first to the last packet, seconds.
    pub span_s: f64,
    /// Frames read.
    pub frames: u64,
    /// Frames that were not TCP over IPv4/IPv6 (or were cut before the TCP header).
    pub frames_undecoded: u64,
    /// TCP frames not to or from the port.
    pub frames_other_port: u64,
    /// Frames captured shorter than their payload (snap length).
    pub frames_cut_short: u64,
    /// The snap length that cut frames carrying payload (from the capture's header, else the
    /// longest cut frame); None when no frame was cut.
    pub snap_len: Option<u32>,
    /// Why request-level facts cannot be judged (frames cut by the snap length), when they
    /// cannot; `requests` is then None.
    pub requests_unknown: Option<String>,
    /// Packets the kernel dropped during a live capture.
    pub capture_dropped: u64,
    /// An error that ended reading the capture early (the rest was still analysed).
    pub capture_error: Option<String>,
    /// Connection figures.
    pub connections: ConnectionSummary,
    /// Request figures (cleartext HTTP/1.1 and HTTP/2, and HTTPS given a key log); None when they cannot be judged (see
    /// `requests_unknown`).
    pub requests: Option<RequestSummary>,
    /// TLS figures, when any connection spoke TLS.
    pub tls: Option<TlsSummary>,
    /// HTTP/2 figures, when any connection spoke HTTP/2 (its requests are in `requests`).
    #[serde(default)]
    pub http2: Option<Http2Summary>,
    /// What could not be decoded, counted and said.
    pub undecodable: Undecodable,
    /// Findings, most important first, each with its fix.
    pub findings: Vec<Finding>,
    /// One line.
    pub verdict: String,
    /// Every connection (also in `connections.csv`).
    pub connection_list: Vec<ConnectionRecord>,
}

/// Connection figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConnectionSummary {
    /// Connections seen.
    pub seen: u64,
    /// Of those, opened during the capture (SYN seen).
    pub opened: u64,
    /// Of those, already open when the capture started.
    pub already_open: u64,
    /// Retransmitted SYNs.
    pub syn_retransmits: u64,
    /// Cleartext HTTP/1.x connections.
    pub http1: u64,
    /// TLS connections.
    pub tls: u64,
    /// HTTP/2 connections (cleartext: prior knowledge or h2c upgrade).
    pub http2: u64,
    /// Connections with payload in no protocol known here.
    pub other: u64,
    /// Connections that carried no payload.
    pub empty: u64,
    /// Connections that carried at least one HTTP request (None: requests unknown).
    pub with_requests: Option<u64>,
    /// Requests per connection that carried requests: mean (None: requests unknown).
    pub requests_per_connection: Option<f64>,
    /// Most requests on one connection (None: requests unknown).
    pub max_requests_per_connection: Option<u64>,
    /// Lifetime (first to last packet) of connections that closed in the capture.
    pub lifetime: Percentiles,
    /// Idle gaps on reused connections: end of a response to the next request (empty when
    /// requests are unknown).
    pub idle_gap: Percentiles,
    /// The client sent the first FIN.
    pub closed_by_client: u64,
    /// The server sent the first FIN (e.g. its idle timeout).
    pub closed_by_server: u64,
    /// Of those, after the client's last request asked it to close (None: requests unknown).
    pub closed_by_server_as_asked: Option<u64>,
    /// Reset by the client.
    pub reset_by_client: u64,
    /// Reset by the server.
    pub reset_by_server: u64,
    /// Still open at the end of the capture.
    pub still_open: u64,
    /// New connections per second over the capture.
    pub new_per_second: f64,
    /// Most new connections in any one second.
    pub new_per_second_peak: u64,
    /// Sockets the closing side keeps in TIME_WAIT (60 s on Linux) in steady state at this
    /// rate of new connections.
    pub time_wait_estimate: u64,
    /// Connections closed with a FIN in the last 60 s of the capture: in TIME_WAIT on the
    /// closing side when it ended.
    pub time_wait_at_end: u64,
    /// Segments whose bytes had been seen already.
    pub retransmitted_segments: u64,
    /// Segments that arrived ahead of a hole.
    pub out_of_order_segments: u64,
}

/// Request figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RequestSummary {
    /// Requests parsed.
    pub requests: u64,
    /// Requests answered by a complete response.
    pub answered: u64,
    /// Requests without a (complete) response in the capture.
    pub unanswered: u64,
    /// Requests that sent `Accept-Encoding` with gzip.
    pub accept_gzip: u64,
    /// Responses with a `Content-Encoding` (gzip, deflate, ...).
    pub compressed_responses: u64,
    /// Responses with a body of at least 1 KB and no `Content-Encoding`.
    pub uncompressed_large_responses: u64,
    /// Median response size on the wire (bytes).
    pub response_bytes_median: u64,
    /// Responses whose QTime was decoded.
    pub qtime_decoded: u64,
    /// Wall time: first request byte to last response byte (packet timestamps).
    pub wall: Percentiles,
    /// QTime reported by Solr.
    pub qtime: Percentiles,
    /// Wall time minus QTime, where both are known.
    pub outside_solr: Percentiles,
    /// Status codes.
    pub statuses: BTreeMap<String, u64>,
    /// `wt` values (`(none)` when absent).
    pub wt: BTreeMap<String, u64>,
    /// Requests that sent `Connection: keep-alive`.
    pub keep_alive_header: u64,
    /// Requests that asked the server to close (`Connection: close`, or HTTP/1.0 without
    /// keep-alive).
    pub close_requested: u64,
    /// Update bodies by format.
    pub update_formats: Vec<FormatSummary>,
    /// Per method and path.
    pub endpoints: Vec<EndpointSummary>,
}

/// Update bodies of one format.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormatSummary {
    /// json, xml, javabin, cbor, csv, form, other.
    pub format: String,
    /// Requests.
    pub requests: u64,
    /// Body bytes (as sent, after de-chunking).
    pub body_bytes: u64,
}

/// One method and path.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EndpointSummary {
    /// Method.
    pub method: String,
    /// Path, without the query string.
    pub path: String,
    /// Requests.
    pub requests: u64,
    /// Mean request size on the wire (head + body).
    pub request_bytes_mean: f64,
    /// Mean response size on the wire.
    pub response_bytes_mean: f64,
    /// Requests sending `Accept-Encoding: gzip`.
    pub accept_gzip: u64,
    /// Responses with a `Content-Encoding`.
    pub compressed: u64,
    /// Wall time.
    pub wall: Percentiles,
    /// QTime.
    pub qtime: Percentiles,
}

/// TLS figures (connection level only).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TlsSummary {
    /// TLS connections.
    pub connections: u64,
    /// ClientHellos parsed.
    pub client_hellos: u64,
    /// ClientHellos offering a session ticket.
    pub offered_ticket: u64,
    /// ClientHellos offering a pre-shared key (TLS 1.3 resumption).
    pub offered_psk: u64,
    /// Full handshakes.
    pub full: u64,
    /// Resumed handshakes.
    pub resumed: u64,
    /// Handshakes not captured well enough to tell.
    pub unknown: u64,
    /// TLS 1.3 connections.
    pub tls13: u64,
    /// Frame bytes to the server over TLS connections.
    pub bytes_to_server: u64,
    /// Frame bytes from the server over TLS connections.
    pub bytes_from_server: u64,
    /// Connection lifetime.
    pub lifetime: Percentiles,
    /// What TLS hides.
    pub note: String,
    /// What a key log (`--keylog`) decrypted; absent without one.
    pub decryption: Option<TlsDecryption>,
}

/// What could not be decoded.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Undecodable {
    /// Bytes missing from the capture (holes, frames cut short).
    pub missing_bytes: u64,
    /// HTTP bytes the parser could not place in a message.
    pub http_bytes: u64,
    /// Payload bytes of TLS or unknown protocols (not decoded by design).
    pub opaque_bytes: u64,
    /// Connections whose HTTP parser lost sync.
    pub connections_out_of_sync: u64,
    /// Messages cut off by the end of the capture or a hole.
    pub incomplete_messages: u64,
    /// Answered requests whose response carried no readable QTime.
    pub qtime_missing: u64,
    /// Reasons, with how many connections each.
    pub reasons: BTreeMap<String, u64>,
}

/// One finding.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    /// high, medium or info.
    // A plain string in the published schema, as before the enum.
    #[schemars(with = "String")]
    pub severity: Severity,
    /// A short key: no-reuse, no-gzip, xml-updates, ...
    pub kind: String,
    /// What the wire shows.
    pub what: String,
    /// What to change.
    pub fix: String,
}

/// One connection.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConnectionRecord {
    /// Order of first appearance, from 1.
    pub id: usize,
    /// Client address and port.
    pub client: String,
    /// http1, tls, h2c (HTTP/2 prior knowledge), h2c-upgrade, h2 (TLS), other or none.
    pub protocol: String,
    /// SYN seen in the capture.
    pub opened_in_capture: bool,
    /// First packet, ms after the capture's first packet.
    pub start_ms: f64,
    /// Last packet, ms after the capture's first packet.
    pub end_ms: f64,
    /// Requests carried (None: frames of this connection were cut by the snap length).
    pub requests: Option<u64>,
    /// Request start times, ms after the capture's first packet.
    pub request_starts_ms: Vec<f64>,
    /// Frame bytes to the server.
    pub bytes_to_server: u64,
    /// Frame bytes from the server.
    pub bytes_from_server: u64,
    /// client_fin, server_fin, client_rst, server_rst or open.
    pub closed_by: String,
    /// Longest idle gap between a response and the next request, ms.
    pub max_idle_ms: Option<f64>,
    /// TLS handshake kind.
    pub handshake: Option<Handshake>,
    /// HTTP/2 facts (frames, streams, GOAWAY, RST_STREAM, flow-control stalls).
    #[serde(default)]
    pub h2: Option<H2Facts>,
}

/// One request (written to `requests.csv`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RequestRecord {
    /// Connection id.
    pub conn: usize,
    /// Method.
    pub method: String,
    /// Path.
    pub path: String,
    /// `wt` parameter.
    pub wt: String,
    /// Status (0: no response).
    pub status: u16,
    /// Request bytes on the wire.
    pub request_bytes: u64,
    /// Response bytes on the wire.
    pub response_bytes: u64,
    /// Accept-Encoding sent.
    pub accept_encoding: String,
    /// Content-Encoding received.
    pub content_encoding: String,
    /// Update body format.
    pub body_format: String,
    /// Start, ms after the capture's first packet.
    pub start_ms: f64,
    /// Wall time, ms.
    pub wall_ms: Option<f64>,
    /// QTime, ms.
    pub qtime_ms: Option<u64>,
    /// `status` of the response's `responseHeader` (0: Solr handled it).
    pub solr_status: Option<i64>,
}
