//! A tiny HTTP/2 (h2c, prior knowledge) server for the HTTP/2 faults real Solr cannot
//! produce on demand: a GOAWAY whose last-stream-id is below the request's stream,
//! `RST_STREAM(REFUSED_STREAM)`, a connection closed after the request was read, redirects,
//! a stream never answered, and a response trickled one byte at a time (then, optionally,
//! stalled).
//!
//! It speaks just enough HTTP/2 by hand (frames written byte by byte, responses HPACK-encoded
//! without the dynamic table or Huffman) to control exactly which frame goes out when,
//! which a full server library does not allow. Like [`super::fault_server`], it binds
//! `127.0.0.1:0`, plays a script (one [`H2Fault`] per request over all connections, the last
//! one repeating), counts connections and records every request (connection, stream id,
//! body). Request headers are not decoded (the client's HPACK uses Huffman and a dynamic
//! table); header behaviour is tested over HTTP/1.1, where the redirect logic is the same.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::script_server::{Script, ScriptServer};

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum H2Fault {
    /// `200 application/json` with `body`.
    Ok(&'static str),
    /// `status` with `Location: location` and no body.
    Redirect(u16, String),
    /// GOAWAY(NO_ERROR) with a last-stream-id below the request's stream (it was not
    /// processed), then the connection is closed once the client closes it (at most 5 s).
    GoAwayBelow,
    /// `RST_STREAM(REFUSED_STREAM)` on the request's stream; the connection stays open.
    Refuse,
    /// Closes the connection without answering (the request was read).
    CloseWithoutReply,
    /// Never answers the stream; the connection stays open and serves other streams.
    NoReply,
    /// `200 application/json` with `body` (a HEADERS frame, then one DATA frame), written
    /// one byte every `every`: both frames when `head`, else the HEADERS frame at once and
    /// the DATA frame byte by byte. With `stall_after: Some(n)` only the first `n` trickled
    /// bytes are sent, then the connection is held open without another byte.
    Trickle {
        /// The body.
        body: &'static str,
        /// The gap between two bytes.
        every: Duration,
        /// Trickle the HEADERS frame too (else only the DATA frame).
        head: bool,
        /// Stop after this many trickled bytes and hold the connection.
        stall_after: Option<usize>,
    },
}

/// One request as the server read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct H2Seen {
    /// Which accepted connection (0-based) carried it.
    pub conn: usize,
    /// Its stream id.
    pub stream: u32,
    /// The request body (DATA frames).
    pub body: Vec<u8>,
}

/// The running server. Dropping it stops it.
pub type H2FaultServer = ScriptServer<H2Fault, H2Seen>;

impl H2FaultServer {
    /// Starts a server on `127.0.0.1:0` playing `script` (must not be empty).
    pub async fn start(script: Vec<H2Fault>) -> H2FaultServer {
        ScriptServer::spawn(script, serve).await
    }
}

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const REFUSED_STREAM: u32 = 0x7;

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len() as u32;
    let mut out = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
    out.extend_from_slice(&(stream & 0x7fff_ffff).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// HPACK integer with an `n`-bit prefix, `flags` in the high bits of the first byte.
fn hpack_int(out: &mut Vec<u8>, flags: u8, n: u32, mut v: usize) {
    let max = (1usize << n) - 1;
    if v < max {
        out.push(flags | v as u8);
        return;
    }
    out.push(flags | max as u8);
    v -= max;
    while v >= 128 {
        out.push((v % 128) as u8 | 0x80);
        v /= 128;
    }
    out.push(v as u8);
}

/// "Literal header field without indexing, indexed name" (RFC 7541, 6.2.2), no Huffman.
fn hpack_literal(out: &mut Vec<u8>, static_index: usize, value: &str) {
    hpack_int(out, 0x00, 4, static_index);
    hpack_int(out, 0x00, 7, value.len());
    out.extend_from_slice(value.as_bytes());
}

/// Reads exactly `n` bytes; None on EOF or error.
async fn read_exact(sock: &mut TcpStream, n: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; n];
    sock.read_exact(&mut buf).await.ok()?;
    Some(buf)
}

/// The HEADERS frame (`:status 200`, `content-type: application/json`) and the DATA frame
/// (`body`, END_STREAM) of a 200 on `stream`.
fn ok(stream: u32, body: &str) -> [Vec<u8>; 2] {
    let mut block = vec![0x88]; // :status 200 (static table index 8)
    hpack_literal(&mut block, 31, "application/json"); // content-type
    [
        frame(HEADERS, END_HEADERS, stream, &block),
        frame(DATA, END_STREAM, stream, body.as_bytes()),
    ]
}

/// Writes `at_once`, then `rest` one byte every `every` (only `stall_after` bytes of it,
/// when given: then holds the connection, reading and discarding, until the client closes
/// it). False when the connection is to end.
async fn trickle(
    sock: &mut TcpStream,
    at_once: &[u8],
    rest: &[u8],
    every: Duration,
    stall_after: Option<usize>,
) -> bool {
    if sock.write_all(at_once).await.is_err() || sock.flush().await.is_err() {
        return false;
    }
    let n = stall_after.unwrap_or(rest.len()).min(rest.len());
    for b in &rest[..n] {
        tokio::time::sleep(every).await;
        if sock.write_all(std::slice::from_ref(b)).await.is_err() || sock.flush().await.is_err() {
            return false;
        }
    }
    if n == rest.len() {
        return true;
    }
    let mut sink = [0u8; 4096];
    while let Ok(n) = sock.read(&mut sink).await {
        if n == 0 {
            break;
        }
    }
    false
}

async fn serve(mut sock: TcpStream, conn: usize, st: Arc<Script<H2Fault, H2Seen>>) {
    if read_exact(&mut sock, PREFACE.len()).await.as_deref() != Some(PREFACE) {
        return;
    }
    if sock.write_all(&frame(SETTINGS, 0, 0, &[])).await.is_err() {
        return;
    }
    // Streams whose request body is still arriving.
    let mut open: Vec<(u32, Vec<u8>)> = Vec::new();
    loop {
        let Some(head) = read_exact(&mut sock, 9).await else {
            return;
        };
        let len = (usize::from(head[0]) << 16) | (usize::from(head[1]) << 8) | usize::from(head[2]);
        let (kind, flags) = (head[3], head[4]);
        let stream = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
        let Some(payload) = read_exact(&mut sock, len).await else {
            return;
        };
        let complete = match kind {
            SETTINGS if flags & ACK == 0 => {
                if sock.write_all(&frame(SETTINGS, ACK, 0, &[])).await.is_err() {
                    return;
                }
                None
            }
            PING if flags & ACK == 0 => {
                if sock
                    .write_all(&frame(PING, ACK, 0, &payload))
                    .await
                    .is_err()
                {
                    return;
                }
                None
            }
            HEADERS => {
                assert!(
                    flags & END_HEADERS != 0,
                    "CONTINUATION frames are not supported"
                );
                // The header block itself is not decoded (hyper sends no padding there).
                if flags & END_STREAM != 0 {
                    Some((stream, Vec::new()))
                } else {
                    open.push((stream, Vec::new()));
                    None
                }
            }
            DATA => {
                let pad = if flags & PADDED != 0 {
                    usize::from(payload[0]) + 1
                } else {
                    0
                };
                let data = &payload[pad.min(payload.len())..];
                let i = open.iter().position(|(s, _)| *s == stream);
                if let Some(i) = i {
                    open[i].1.extend_from_slice(data);
                    if flags & END_STREAM != 0 {
                        Some(open.remove(i))
                    } else {
                        None
                    }
                } else {
                    None
                }
            }
            _ => None, // WINDOW_UPDATE, PRIORITY, acks, the client's own GOAWAY...
        };
        let Some((stream, body)) = complete else {
            continue;
        };
        st.saw(H2Seen { conn, stream, body });
        let fault = st.next_fault();
        let out = match fault {
            H2Fault::Ok(body) => ok(stream, body).concat(),
            H2Fault::Redirect(code, location) => {
                let mut block = Vec::new();
                hpack_literal(&mut block, 8, &code.to_string()); // :status
                hpack_literal(&mut block, 46, &location); // location
                frame(HEADERS, END_HEADERS | END_STREAM, stream, &block)
            }
            H2Fault::Refuse => frame(RST_STREAM, 0, stream, &REFUSED_STREAM.to_be_bytes()),
            H2Fault::GoAwayBelow => {
                let mut p = stream.saturating_sub(2).to_be_bytes().to_vec();
                p.extend_from_slice(&0u32.to_be_bytes()); // NO_ERROR
                let _ = sock.write_all(&frame(GOAWAY, 0, 0, &p)).await;
                let _ = sock.flush().await;
                // Let the client read the GOAWAY and close; never answer anything.
                let mut sink = [0u8; 4096];
                let _ = tokio::time::timeout(Duration::from_secs(5), async {
                    while let Ok(n) = sock.read(&mut sink).await {
                        if n == 0 {
                            break;
                        }
                    }
                })
                .await;
                return;
            }
            H2Fault::CloseWithoutReply => return,
            H2Fault::NoReply => continue,
            H2Fault::Trickle {
                body,
                every,
                head,
                stall_after,
            } => {
                let [headers, data] = ok(stream, body);
                let (at_once, rest) = if head {
                    (Vec::new(), [headers, data].concat())
                } else {
                    (headers, data)
                };
                if !trickle(&mut sock, &at_once, &rest, every, stall_after).await {
                    return;
                }
                continue;
            }
        };
        if sock.write_all(&out).await.is_err() {
            return;
        }
        let _ = sock.flush().await;
    }
}
