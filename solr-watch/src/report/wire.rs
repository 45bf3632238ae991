//! Small readings of the wire shared by the figures and the findings: times in ms, the names
//! of protocols and closes, what a request asks of the server, and when a connection last
//! answered.

use crate::wire::conn::{Close, Conn, Proto};
use crate::wire::http::Message;

/// Microseconds as milliseconds.
pub(super) fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// How a connection ended, as written in `connections.csv`.
pub(super) fn close_name(c: Option<Close>) -> &'static str {
    match c {
        Some(Close::ClientFin) => "client_fin",
        Some(Close::ServerFin) => "server_fin",
        Some(Close::ClientRst) => "client_rst",
        Some(Close::ServerRst) => "server_rst",
        None => "open",
    }
}

/// The protocol of a connection, as written in `connections.csv`.
pub(super) fn proto_name(p: Proto) -> &'static str {
    match p {
        Proto::Http1 => "http1",
        Proto::Tls => "tls",
        Proto::Http2 => "http2",
        Proto::Other => "other",
        Proto::None => "none",
    }
}

/// The request accepts a gzip-encoded answer.
pub(super) fn gzip_asked(m: &Message) -> bool {
    m.header("accept-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("gzip"))
}

/// The request asks the server to close the connection after answering.
pub(super) fn asks_close(m: &Message) -> bool {
    let conn = m.header("connection").map(|v| v.to_ascii_lowercase());
    match conn.as_deref() {
        Some(v) if v.contains("close") => true,
        Some(v) if v.contains("keep-alive") => false,
        _ => m.version == "HTTP/1.0",
    }
}

/// A POST to an update handler.
pub(super) fn is_update(path: &str, method: &str) -> bool {
    method == "POST" && path.split('/').any(|s| s == "update")
}

/// When the last answer on `c` ended, if any request on it was answered.
pub(super) fn last_answer(c: &Conn) -> Option<u64> {
    c.responses
        .iter()
        .filter(|r| !r.incomplete)
        .map(|r| r.last_ts)
        .max()
}
