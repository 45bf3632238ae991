//! Passive HTTP/2 decoding (RFC 9113) of one TCP connection's two byte streams: frames,
//! header blocks through [`hpack`] (one dynamic table per direction), and
//! streams turned into the same request and response [`Message`]s the HTTP/1.1 parser yields,
//! so the report, findings and CSVs read them unchanged.
//!
//! How a connection becomes HTTP/2 ([`Start`]):
//! - prior knowledge: the client opens with the preface `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`;
//! - h2c upgrade: an HTTP/1.1 request with `Upgrade: h2c` answered by `101 Switching
//!   Protocols`; that request is stream 1 and its response arrives as HTTP/2 frames
//!   ([`H2Conn::upgraded`]);
//! - TLS with ALPN `h2`: whoever decrypts the records creates [`H2Conn::new`] with
//!   [`Start::Alpn`] and hands it the plaintext of each direction, in order, with
//!   [`H2Conn::feed`] (the client's bytes start with the preface, as with prior knowledge);
//!   [`Conn::h2_plaintext`](super::conn::Conn::h2_plaintext) does that on a connection.
//!
//! Per request the facts are those of HTTP/1: method and path (`:method`, `:path`), status
//! (`:status`; 1xx informational responses are skipped), headers, bytes on the wire (the
//! stream's HEADERS, CONTINUATION and DATA frames, 9-byte frame headers and padding
//! included), the body (for format, `wt` and QTime), and timestamps from the request HEADERS
//! to the response END_STREAM. GOAWAY and RST_STREAM are counted with their error codes, and
//! flow control is followed: a sender whose connection or stream window reaches zero with a
//! stream still open is stalled until the WINDOW_UPDATE that opens it again.
//!
//! Malformed frames or header blocks stop decoding that direction (the bytes are counted and
//! the reason kept), never a panic. Header values of `authorization`, `proxy-authorization`,
//! `cookie`, `set-cookie` and fields sent never-indexed are replaced by `(redacted)`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::hpack::{self, Field};
use super::http::Message;

/// The client connection preface (RFC 9113 3.4).
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Body bytes kept per message (as the HTTP/1 parser keeps).
const BODY_KEEP: usize = 1024 * 1024;
/// The default initial flow-control window (RFC 9113 6.9.2).
const DEFAULT_WINDOW: i64 = 65_535;

/// How the connection came to speak HTTP/2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Cleartext, the client sent the preface first.
    PriorKnowledge,
    /// Cleartext, after an HTTP/1.1 `Upgrade: h2c` and `101 Switching Protocols`.
    Upgrade,
    /// Inside TLS, negotiated with ALPN `h2`.
    Alpn,
}

impl Start {
    /// The connection's protocol name in the report: `h2c`, `h2c-upgrade` or `h2`.
    pub fn name(self) -> &'static str {
        match self {
            Start::PriorKnowledge => "h2c",
            Start::Upgrade => "h2c-upgrade",
            Start::Alpn => "h2",
        }
    }
}

/// The name of an HTTP/2 error code (RFC 9113 7).
pub fn error_name(code: u32) -> String {
    const NAMES: [&str; 14] = [
        "NO_ERROR",
        "PROTOCOL_ERROR",
        "INTERNAL_ERROR",
        "FLOW_CONTROL_ERROR",
        "SETTINGS_TIMEOUT",
        "STREAM_CLOSED",
        "FRAME_SIZE_ERROR",
        "REFUSED_STREAM",
        "CANCEL",
        "COMPRESSION_ERROR",
        "CONNECT_ERROR",
        "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY",
        "HTTP_1_1_REQUIRED",
    ];
    NAMES
        .get(code as usize)
        .map_or_else(|| format!("0x{code:x}"), |n| (*n).to_string())
}

/// HTTP/2 control frames and flow-control stalls, of one connection or summed over many:
/// the figures [`H2Facts`] and [`Http2Summary`] share (flattened into both).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct H2Control {
    /// PUSH_PROMISE frames from the server.
    pub push_promises: u64,
    /// GOAWAY frames, counted by sender and error code (`server NO_ERROR`, ...).
    pub goaway: BTreeMap<String, u64>,
    /// RST_STREAM frames, counted by sender and error code (`client CANCEL`, ...).
    pub rst_stream: BTreeMap<String, u64>,
    /// Flow-control stalls of the server: times its send window (connection or stream)
    /// reached zero with a response still open, until a WINDOW_UPDATE (or the end of the
    /// capture).
    pub server_stalls: u64,
    /// Time the server spent stalled, ms.
    pub server_stalled_ms: f64,
    /// Flow-control stalls of the client (request bodies).
    pub client_stalls: u64,
    /// Time the client spent stalled, ms.
    pub client_stalled_ms: f64,
    /// Longest single stall, ms (either side).
    pub max_stall_ms: Option<f64>,
}

impl H2Control {
    /// Counts one stall of `ms` milliseconds, of the server or of the client.
    pub fn stall(&mut self, server: bool, ms: f64) {
        if server {
            self.server_stalls += 1;
            self.server_stalled_ms += ms;
        } else {
            self.client_stalls += 1;
            self.client_stalled_ms += ms;
        }
        self.max_stall(ms);
    }

    /// Adds another connection's (or summary's) figures to these.
    pub fn add(&mut self, other: &H2Control) {
        self.push_promises += other.push_promises;
        for (k, v) in &other.goaway {
            *self.goaway.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.rst_stream {
            *self.rst_stream.entry(k.clone()).or_default() += v;
        }
        self.server_stalls += other.server_stalls;
        self.server_stalled_ms += other.server_stalled_ms;
        self.client_stalls += other.client_stalls;
        self.client_stalled_ms += other.client_stalled_ms;
        if let Some(m) = other.max_stall_ms {
            self.max_stall(m);
        }
    }

    fn max_stall(&mut self, ms: f64) {
        self.max_stall_ms = Some(self.max_stall_ms.map_or(ms, |m| m.max(ms)));
    }

    /// RST_STREAM and GOAWAY frames carrying an error (not NO_ERROR or CANCEL).
    pub fn errors(&self) -> u64 {
        let bad = |k: &String| !(k.ends_with(" NO_ERROR") || k.ends_with(" CANCEL"));
        self.goaway
            .iter()
            .chain(self.rst_stream.iter())
            .filter(|(k, _)| bad(k))
            .map(|(_, v)| v)
            .sum()
    }
}

/// HTTP/2 facts of one connection (beyond its requests).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct H2Facts {
    /// `h2c` (prior knowledge), `h2c-upgrade` or `h2` (TLS, ALPN).
    pub start: String,
    /// Frames decoded, both directions.
    pub frames: u64,
    /// Streams opened by a request HEADERS (the upgraded request counts as stream 1).
    pub streams: u64,
    /// Control frames and stalls.
    #[serde(flatten)]
    pub control: H2Control,
    /// Why decoding stopped in a direction, if it did.
    pub lost: Vec<String>,
}

/// HTTP/2 figures over every HTTP/2 connection of a capture.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Http2Summary {
    /// HTTP/2 connections.
    pub connections: u64,
    /// Of those, cleartext with prior knowledge (`h2c`).
    pub prior_knowledge: u64,
    /// Of those, upgraded from HTTP/1.1 (`h2c-upgrade`).
    pub upgraded: u64,
    /// Of those, inside TLS with ALPN `h2`.
    pub tls: u64,
    /// Streams opened (requests, and pushed responses).
    pub streams: u64,
    /// Frames decoded.
    pub frames: u64,
    /// Control frames and stalls, summed over the connections.
    #[serde(flatten)]
    pub control: H2Control,
    /// Connections on which HTTP/2 decoding stopped in a direction.
    pub connections_lost: u64,
}

impl Http2Summary {
    /// Adds one connection's facts.
    pub fn add(&mut self, f: &H2Facts) {
        self.connections += 1;
        match f.start.as_str() {
            "h2c" => self.prior_knowledge += 1,
            "h2c-upgrade" => self.upgraded += 1,
            _ => self.tls += 1,
        }
        self.streams += f.streams;
        self.frames += f.frames;
        self.control.add(&f.control);
        self.connections_lost += u64::from(!f.lost.is_empty());
    }

    /// RST_STREAM and GOAWAY frames carrying an error (not NO_ERROR or CANCEL).
    pub fn errors(&self) -> u64 {
        self.control.errors()
    }
}

/// A header block being assembled from HEADERS or PUSH_PROMISE and CONTINUATION frames.
#[derive(Debug)]
struct Block {
    stream: u32,
    /// Some(promised stream) for a PUSH_PROMISE.
    promised: Option<u32>,
    end_stream: bool,
    bytes: Vec<u8>,
    wire: u64,
    ts: u64,
}

/// One direction: its frame buffer, header decoding context and send windows.
#[derive(Debug)]
struct Dir {
    buf: Vec<u8>,
    need_preface: bool,
    hpack: hpack::Decoder,
    block: Option<Block>,
    lost: Option<String>,
    undecoded: u64,
    /// This side's send window on the connection.
    conn_window: i64,
    /// Initial stream window this side may send into (set by the peer's SETTINGS).
    initial_window: i64,
    /// Since when this side's connection window is exhausted with a stream open.
    conn_stall: Option<u64>,
}

impl Dir {
    fn new(need_preface: bool) -> Self {
        Dir {
            buf: Vec::new(),
            need_preface,
            hpack: hpack::Decoder::new(),
            block: None,
            lost: None,
            undecoded: 0,
            conn_window: DEFAULT_WINDOW,
            initial_window: DEFAULT_WINDOW,
            conn_stall: None,
        }
    }
}

#[derive(Debug, Default)]
struct Stream {
    req: Message,
    resp: Message,
    req_started: bool,
    req_ended: bool,
    resp_started: bool,
    resp_ended: bool,
    /// Send windows: [client, server].
    window: [i64; 2],
    /// Since when each side's stream window is exhausted.
    stall: [Option<u64>; 2],
}

/// The HTTP/2 state of one connection.
#[derive(Debug)]
pub struct H2Conn {
    /// [client to server, server to client].
    dirs: [Dir; 2],
    streams: BTreeMap<u32, Stream>,
    /// Streams finished (response ended or stream reset), as (request, response) pairs in
    /// the order they finished; the connection takes them. A message not received whole is
    /// marked `incomplete`.
    pub done: Vec<(Message, Message)>,
    facts: H2Facts,
    last_ts: u64,
}

const CLIENT: usize = 0;
const SERVER: usize = 1;

fn side_name(d: usize) -> &'static str {
    if d == CLIENT {
        "client"
    } else {
        "server"
    }
}

fn redact(f: Field) -> (String, String) {
    let sensitive = f.never_indexed
        || matches!(
            f.name.as_str(),
            "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
        );
    let value = if sensitive {
        "(redacted)".to_string()
    } else {
        f.value
    };
    (f.name, value)
}

/// Decodes base64url without padding (the `HTTP2-Settings` header); None if malformed.
fn base64url(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.trim().trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;

/// One frame as it is decoded: its side, time, flags, stream and payload.
struct Frame<'a> {
    /// The sending side (`CLIENT` or `SERVER`).
    d: usize,
    ts: u64,
    flags: u8,
    sid: u32,
    p: &'a [u8],
    /// Bytes on the wire, header included.
    wire: u64,
}

impl Frame<'_> {
    /// Where the data of a padded frame begins and ends.
    fn unpad(&self) -> Result<(usize, usize), String> {
        let p = self.p;
        if self.flags & PADDED == 0 {
            return Ok((0, p.len()));
        }
        let pad = usize::from(*p.first().ok_or("padded frame without a pad length")?);
        if pad + 1 > p.len() {
            return Err("padding longer than the frame".into());
        }
        Ok((1, p.len() - pad))
    }

    /// The header block this frame opens.
    fn block(&self, promised: Option<u32>, end_stream: bool, bytes: &[u8]) -> Block {
        Block {
            stream: self.sid,
            promised,
            end_stream,
            bytes: bytes.to_vec(),
            wire: self.wire,
            ts: self.ts,
        }
    }
}

impl H2Conn {
    /// A connection that starts HTTP/2 now: the client's first bytes are the preface.
    pub fn new(start: Start) -> Self {
        H2Conn {
            dirs: [Dir::new(true), Dir::new(false)],
            streams: BTreeMap::new(),
            done: Vec::new(),
            facts: H2Facts {
                start: start.name().into(),
                ..Default::default()
            },
            last_ts: 0,
        }
    }

    /// A connection upgraded from HTTP/1.1: `request` (complete, with `Upgrade: h2c`) is
    /// stream 1 and the `101` head of `head_bytes` bytes at `ts` opens its response.
    pub fn upgraded(mut request: Message, head_bytes: u64, ts: u64) -> Self {
        let mut c = H2Conn::new(Start::Upgrade);
        request.version = "HTTP/2".into();
        let s = Stream {
            req: request,
            req_started: true,
            req_ended: true,
            resp: Message {
                version: "HTTP/2".into(),
                wire_bytes: head_bytes,
                first_ts: ts,
                last_ts: ts,
                ..Default::default()
            },
            window: [DEFAULT_WINDOW; 2],
            ..Default::default()
        };
        let settings = s.req.header("http2-settings").and_then(base64url);
        c.streams.insert(1, s);
        c.facts.streams = 1;
        // The client's settings travel in the upgrade request (RFC 7540 3.2.1).
        if let Some(p) = settings {
            let _ = c.settings(CLIENT, &p);
        }
        c
    }

    /// Feeds in-order bytes of one direction received at `ts` (for TLS: decrypted bytes).
    pub fn feed(&mut self, from_client: bool, ts: u64, data: &[u8]) {
        let d = if from_client { CLIENT } else { SERVER };
        self.last_ts = self.last_ts.max(ts);
        if self.dirs[d].lost.is_some() {
            self.dirs[d].undecoded += data.len() as u64;
            return;
        }
        self.dirs[d].buf.extend_from_slice(data);
        if self.dirs[d].need_preface {
            let dir = &mut self.dirs[d];
            let n = dir.buf.len().min(PREFACE.len());
            if dir.buf[..n] != PREFACE[..n] {
                return self.lose(d, "no HTTP/2 client preface".into());
            }
            if n < PREFACE.len() {
                return;
            }
            dir.buf.drain(..PREFACE.len());
            dir.need_preface = false;
        }
        let mut pos = 0;
        loop {
            let buf = &self.dirs[d].buf;
            if buf.len() - pos < 9 {
                break;
            }
            let h = &buf[pos..pos + 9];
            let len = (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
            if buf.len() - pos < 9 + len {
                break;
            }
            let (kind, flags) = (h[3], h[4]);
            let sid = u32_at(h, 5) & 0x7fff_ffff;
            let payload = buf[pos + 9..pos + 9 + len].to_vec();
            pos += 9 + len;
            if let Err(e) = self.frame(d, ts, kind, flags, sid, &payload) {
                self.dirs[d].buf.drain(..pos);
                return self.lose(d, e);
            }
        }
        self.dirs[d].buf.drain(..pos);
    }

    /// `n` bytes of one direction are missing from the capture: that direction stops.
    pub fn gap(&mut self, from_client: bool, n: u64) {
        let d = if from_client { CLIENT } else { SERVER };
        if self.dirs[d].lost.is_some() {
            self.dirs[d].undecoded += n;
        } else {
            self.dirs[d].undecoded += n;
            self.lose(d, format!("{n} bytes missing from the capture"));
        }
    }

    fn lose(&mut self, d: usize, why: String) {
        let dir = &mut self.dirs[d];
        dir.undecoded += dir.buf.len() as u64;
        dir.buf.clear();
        dir.block = None;
        self.facts
            .lost
            .push(format!("HTTP/2 {}: {why}", side_name(d)));
        dir.lost = Some(why);
    }

    /// Bytes that could not be placed in a frame (after a loss of sync, or left over).
    pub fn undecoded_bytes(&self) -> u64 {
        self.dirs.iter().map(|d| d.undecoded).sum()
    }

    /// The connection's HTTP/2 facts so far.
    pub fn facts(&self) -> &H2Facts {
        &self.facts
    }

    /// End of the connection or capture: streams still open are finished (what was not
    /// received whole is marked incomplete), stalls still running end now.
    pub fn finish(&mut self) {
        let end = self.last_ts;
        for d in [CLIENT, SERVER] {
            let left = self.dirs[d].buf.len() as u64;
            self.dirs[d].undecoded += left;
            self.dirs[d].buf.clear();
            if let Some(since) = self.dirs[d].conn_stall.take() {
                self.stalled(d, since, end);
            }
        }
        let ids: Vec<u32> = self.streams.keys().copied().collect();
        for id in ids {
            for d in [CLIENT, SERVER] {
                if let Some(since) = self.streams.get_mut(&id).and_then(|s| s.stall[d].take()) {
                    self.stalled(d, since, end);
                }
            }
            self.close(id);
        }
    }

    fn stalled(&mut self, d: usize, since: u64, until: u64) {
        let ms = until.saturating_sub(since) as f64 / 1000.0;
        self.facts.control.stall(d == SERVER, ms);
    }

    /// Moves stream `id` to `done`.
    fn close(&mut self, id: u32) {
        if let Some(mut s) = self.streams.remove(&id) {
            s.req.incomplete |= !s.req_ended;
            s.resp.incomplete |= !s.resp_ended;
            self.done.push((s.req, s.resp));
        }
    }

    fn stream(&mut self, id: u32) -> &mut Stream {
        let init = [
            self.dirs[CLIENT].initial_window,
            self.dirs[SERVER].initial_window,
        ];
        self.streams.entry(id).or_insert_with(|| Stream {
            window: init,
            ..Default::default()
        })
    }

    fn frame(
        &mut self,
        d: usize,
        ts: u64,
        kind: u8,
        flags: u8,
        sid: u32,
        p: &[u8],
    ) -> Result<(), String> {
        self.facts.frames += 1;
        if self.dirs[d].block.is_some() && kind != 9 {
            return Err("a frame inside a header block (CONTINUATION expected)".into());
        }
        let f = Frame {
            d,
            ts,
            flags,
            sid,
            p,
            wire: 9 + p.len() as u64,
        };
        match kind {
            0 => self.data(&f),
            1 => self.headers(&f),
            // PRIORITY, PING, unknown types: nothing to follow.
            2 | 6 => Ok(()),
            3 => self.rst_stream(&f),
            // SETTINGS, unless an ACK.
            4 if flags & ACK != 0 => Ok(()),
            4 => self.settings(d, p),
            5 => self.push_promise(&f),
            7 => self.goaway(&f),
            8 => self.window_update(&f),
            9 => self.continuation(&f),
            _ => Ok(()),
        }
    }

    /// DATA: counts the bytes against the windows and keeps the body's head.
    fn data(&mut self, f: &Frame) -> Result<(), String> {
        let (d, p) = (f.d, f.p);
        if f.sid == 0 {
            return Err("DATA on stream 0".into());
        }
        let (a, b) = f.unpad()?;
        let data = &p[a..b];
        let end = f.flags & END_STREAM != 0;
        self.dirs[d].conn_window -= p.len() as i64;
        let conn_exhausted = self.dirs[d].conn_window <= 0;
        let Some(s) = self.streams.get_mut(&f.sid) else {
            // A stream already finished (e.g. reset): bytes counted, nothing more.
            return Ok(());
        };
        s.window[d] -= p.len() as i64;
        if s.window[d] <= 0 && !end && s.stall[d].is_none() {
            s.stall[d] = Some(f.ts);
        }
        let m = if d == CLIENT { &mut s.req } else { &mut s.resp };
        m.wire_bytes += f.wire;
        m.body_len += data.len() as u64;
        let room = BODY_KEEP.saturating_sub(m.body.len()).min(data.len());
        m.body.extend_from_slice(&data[..room]);
        m.last_ts = f.ts;
        if end {
            self.end_message(d, f.sid);
        }
        if conn_exhausted && self.dirs[d].conn_stall.is_none() && self.sending(d) {
            self.dirs[d].conn_stall = Some(f.ts);
        }
        Ok(())
    }

    /// HEADERS: opens a header block.
    fn headers(&mut self, f: &Frame) -> Result<(), String> {
        if f.sid == 0 {
            return Err("HEADERS on stream 0".into());
        }
        let (mut a, b) = f.unpad()?;
        if f.flags & PRIORITY != 0 {
            a += 5;
        }
        if a > b {
            return Err("HEADERS too short for its priority fields".into());
        }
        let block = f.block(None, f.flags & END_STREAM != 0, &f.p[a..b]);
        self.open_block(f, block)
    }

    /// PUSH_PROMISE: opens a header block holding the pushed request.
    fn push_promise(&mut self, f: &Frame) -> Result<(), String> {
        let (a, b) = f.unpad()?;
        if b < a + 4 {
            return Err("PUSH_PROMISE too short".into());
        }
        self.facts.control.push_promises += 1;
        let promised = u32_at(f.p, a) & 0x7fff_ffff;
        let block = f.block(Some(promised), false, &f.p[a + 4..b]);
        self.open_block(f, block)
    }

    /// CONTINUATION: adds to the open header block.
    fn continuation(&mut self, f: &Frame) -> Result<(), String> {
        let Some(b) = self.dirs[f.d].block.as_mut() else {
            return Err("CONTINUATION without a header block".into());
        };
        if b.stream != f.sid {
            return Err("CONTINUATION on another stream".into());
        }
        b.bytes.extend_from_slice(f.p);
        b.wire += f.wire;
        self.end_block_if_done(f)
    }

    fn open_block(&mut self, f: &Frame, block: Block) -> Result<(), String> {
        self.dirs[f.d].block = Some(block);
        self.end_block_if_done(f)
    }

    fn end_block_if_done(&mut self, f: &Frame) -> Result<(), String> {
        if f.flags & END_HEADERS != 0 {
            self.end_block(f.d)?;
        }
        Ok(())
    }

    /// RST_STREAM: counts the error, ends the stream's stalls and the stream.
    fn rst_stream(&mut self, f: &Frame) -> Result<(), String> {
        if f.p.len() != 4 {
            return Err("RST_STREAM not 4 bytes".into());
        }
        let key = format!("{} {}", side_name(f.d), error_name(u32_at(f.p, 0)));
        *self.facts.control.rst_stream.entry(key).or_default() += 1;
        for side in [CLIENT, SERVER] {
            if let Some(since) = self
                .streams
                .get_mut(&f.sid)
                .and_then(|s| s.stall[side].take())
            {
                self.stalled(side, since, f.ts);
            }
        }
        self.close(f.sid);
        Ok(())
    }

    /// GOAWAY: counts the error.
    fn goaway(&mut self, f: &Frame) -> Result<(), String> {
        if f.p.len() < 8 {
            return Err("GOAWAY shorter than 8 bytes".into());
        }
        let key = format!("{} {}", side_name(f.d), error_name(u32_at(f.p, 4)));
        *self.facts.control.goaway.entry(key).or_default() += 1;
        Ok(())
    }

    /// WINDOW_UPDATE: opens the peer's send window, ending its stall.
    fn window_update(&mut self, f: &Frame) -> Result<(), String> {
        if f.p.len() != 4 {
            return Err("WINDOW_UPDATE not 4 bytes".into());
        }
        let inc = i64::from(u32_at(f.p, 0) & 0x7fff_ffff);
        let peer = 1 - f.d;
        let since = if f.sid == 0 {
            let dir = &mut self.dirs[peer];
            dir.conn_window += inc;
            (dir.conn_window > 0)
                .then(|| dir.conn_stall.take())
                .flatten()
        } else if let Some(s) = self.streams.get_mut(&f.sid) {
            s.window[peer] += inc;
            (s.window[peer] > 0).then(|| s.stall[peer].take()).flatten()
        } else {
            None
        };
        if let Some(since) = since {
            self.stalled(peer, since, f.ts);
        }
        Ok(())
    }

    /// Applies a SETTINGS payload sent by side `d`.
    fn settings(&mut self, d: usize, p: &[u8]) -> Result<(), String> {
        if !p.len().is_multiple_of(6) {
            return Err("SETTINGS length not a multiple of 6".into());
        }
        let peer = 1 - d;
        for kv in p.chunks(6) {
            let id = u16::from_be_bytes([kv[0], kv[1]]);
            let v = u32_at(kv, 2);
            match id {
                // The sender's decoder limit binds the peer's encoder.
                1 => self.dirs[peer].hpack.set_limit(v as usize),
                // The sender's receive window: what the peer may send on each stream.
                4 => {
                    let delta = i64::from(v) - self.dirs[peer].initial_window;
                    self.dirs[peer].initial_window = i64::from(v);
                    for s in self.streams.values_mut() {
                        s.window[peer] += delta;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether side `d` still has a stream it has not ended (data it may want to send).
    fn sending(&self, d: usize) -> bool {
        self.streams.values().any(|s| {
            if d == CLIENT {
                s.req_started && !s.req_ended
            } else {
                s.resp_started && !s.resp_ended
            }
        })
    }

    fn end_message(&mut self, d: usize, sid: u32) {
        let Some(s) = self.streams.get_mut(&sid) else {
            return;
        };
        if d == CLIENT {
            s.req_ended = true;
        } else {
            s.resp_ended = true;
        }
        if let Some(since) = s.stall[d].take() {
            let ts = if d == CLIENT {
                s.req.last_ts
            } else {
                s.resp.last_ts
            };
            self.stalled(d, since, ts);
        }
        let s = &self.streams[&sid];
        if s.resp_ended && s.req_ended {
            self.close(sid);
        }
    }

    fn end_block(&mut self, d: usize) -> Result<(), String> {
        let Some(b) = self.dirs[d].block.take() else {
            return Ok(());
        };
        let fields = self.dirs[d]
            .hpack
            .decode(&b.bytes)
            .map_err(|e| e.to_string())?;
        let head = Head::from_fields(fields);
        if let Some(promised) = b.promised {
            // A pushed response: the promise holds its request.
            self.facts.streams += 1;
            let s = self.stream(promised);
            s.req = head.request(b.ts);
            s.req.last_ts = b.ts;
            s.req_started = true;
            s.req_ended = true;
            return Ok(());
        }
        let new = !self.streams.contains_key(&b.stream);
        if d == CLIENT && new {
            self.facts.streams += 1;
        }
        if d == SERVER && new {
            // Headers for a stream already finished (e.g. after a reset): nothing to add.
            return Ok(());
        }
        let s = self.stream(b.stream);
        if d == CLIENT {
            s.request_head(head, &b);
        } else {
            s.response_head(head, &b);
        }
        if b.end_stream {
            self.end_message(d, b.stream);
        }
        Ok(())
    }
}

/// The fields of a decoded header block: pseudo-headers apart, the rest redacted.
struct Head {
    method: String,
    path: String,
    status: Option<u16>,
    headers: Vec<(String, String)>,
}

impl Head {
    fn from_fields(fields: Vec<Field>) -> Self {
        let mut head = Head {
            method: String::new(),
            path: String::new(),
            status: None,
            headers: Vec::new(),
        };
        for f in fields {
            match f.name.as_str() {
                ":method" => head.method = f.value,
                ":path" => head.path = f.value,
                ":status" => head.status = f.value.parse::<u16>().ok(),
                n if n.starts_with(':') => {}
                _ => head.headers.push(redact(f)),
            }
        }
        head
    }

    /// The request these fields open, at `ts`.
    fn request(self, ts: u64) -> Message {
        Message {
            method: self.method,
            target: self.path,
            version: "HTTP/2".into(),
            headers: self.headers,
            first_ts: ts,
            ..Default::default()
        }
    }
}

impl Stream {
    /// A header block from the client: the request's head, or its trailers.
    fn request_head(&mut self, head: Head, b: &Block) {
        if !self.req_started {
            self.req_started = true;
            self.req = head.request(b.ts);
        }
        self.req.wire_bytes += b.wire;
        self.req.last_ts = b.ts;
    }

    /// A header block from the server: the response's head (not an informational one), or
    /// its trailers.
    fn response_head(&mut self, head: Head, b: &Block) {
        let m = &mut self.resp;
        let informational = head.status.is_some_and(|c| (100..200).contains(&c));
        if !self.resp_started && !informational {
            self.resp_started = true;
            let first = if m.first_ts > 0 { m.first_ts } else { b.ts };
            *m = Message {
                status: head.status.unwrap_or(0),
                version: "HTTP/2".into(),
                headers: head.headers,
                first_ts: first,
                wire_bytes: m.wire_bytes,
                ..Default::default()
            };
        }
        m.wire_bytes += b.wire;
        m.last_ts = b.ts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame: type, flags, stream, payload.
    fn frame(kind: u8, flags: u8, sid: u32, p: &[u8]) -> Vec<u8> {
        let mut v = vec![
            (p.len() >> 16) as u8,
            (p.len() >> 8) as u8,
            p.len() as u8,
            kind,
            flags,
        ];
        v.extend_from_slice(&sid.to_be_bytes());
        v.extend_from_slice(p);
        v
    }

    /// A header block of literal fields without indexing, new names, no Huffman.
    fn block(fields: &[(&str, &str)]) -> Vec<u8> {
        let mut v = Vec::new();
        for (n, val) in fields {
            v.push(0x00);
            v.push(n.len() as u8);
            v.extend_from_slice(n.as_bytes());
            v.push(val.len() as u8);
            v.extend_from_slice(val.as_bytes());
        }
        v
    }

    fn settings(kv: &[(u16, u32)]) -> Vec<u8> {
        let mut p = Vec::new();
        for (k, v) in kv {
            p.extend_from_slice(&k.to_be_bytes());
            p.extend_from_slice(&v.to_be_bytes());
        }
        frame(4, 0, 0, &p)
    }

    #[test]
    fn prior_knowledge_streams_padding_priority_continuation_split_anywhere() {
        let req1 = block(&[
            (":method", "GET"),
            (":path", "/solr/bench/select?q=*:*&wt=json"),
            ("accept-encoding", "gzip"),
            ("authorization", "Basic c2VjcmV0"),
        ]);
        let (h1, h2) = req1.split_at(10);
        let mut c2s = PREFACE.to_vec();
        c2s.extend(settings(&[(4, 1 << 20)]));
        // HEADERS with PRIORITY, no END_HEADERS, then CONTINUATION.
        let mut p = vec![0, 0, 0, 0, 16];
        p.extend_from_slice(h1);
        c2s.extend(frame(1, 0x1 | 0x20, 1, &p));
        c2s.extend(frame(9, 0x4, 1, h2));
        // Stream 3: a POST with a padded HEADERS and a padded DATA.
        let mut p = vec![3];
        p.extend(block(&[
            (":method", "POST"),
            (":path", "/solr/bench/update"),
        ]));
        p.extend([0, 0, 0]);
        c2s.extend(frame(1, 0x4 | 0x8, 3, &p));
        c2s.extend(frame(0, 0x1 | 0x8, 3, &[2, b'[', b']', 0, 0]));
        c2s.extend(frame(6, 0, 0, &[0; 8]));
        c2s.extend(frame(2, 0, 3, &[0, 0, 0, 0, 1]));
        let mut s2c = settings(&[(1, 8192)]);
        s2c.extend(frame(4, 1, 0, &[]));
        let r3 = block(&[(":status", "200"), ("content-type", "application/json")]);
        s2c.extend(frame(1, 0x4, 3, &r3));
        s2c.extend(frame(0, 0x1, 3, br#"{"responseHeader":{"QTime":0}}"#));
        let r1a = block(&[(":status", "100")]);
        s2c.extend(frame(1, 0x4, 1, &r1a));
        let r1b = block(&[(":status", "200")]);
        s2c.extend(frame(1, 0x4, 1, &r1b));
        s2c.extend(frame(0, 0, 1, br#"{"responseHeader":{"#));
        s2c.extend(frame(0, 0x1, 1, br#""QTime":7}}"#));
        s2c.extend(frame(7, 0, 0, &[0, 0, 0, 3, 0, 0, 0, 0]));
        for split in [1, 7, 24, 30, 50, c2s.len() - 1] {
            let mut h = H2Conn::new(Start::PriorKnowledge);
            h.feed(true, 1, &c2s[..split]);
            h.feed(true, 2, &c2s[split..]);
            h.feed(false, 3, &s2c[..split.min(s2c.len())]);
            h.feed(false, 4, &s2c[split.min(s2c.len())..]);
            h.finish();
            assert!(h.facts().lost.is_empty(), "{:?}", h.facts().lost);
            assert_eq!(h.undecoded_bytes(), 0);
            assert_eq!(h.done.len(), 2, "split {split}");
            let (q3, r3) = &h.done[0];
            assert_eq!(
                (q3.method.as_str(), q3.target.as_str()),
                ("POST", "/solr/bench/update")
            );
            assert_eq!(q3.body, b"[]");
            assert_eq!(r3.status, 200);
            let (q1, r1) = &h.done[1];
            assert_eq!(q1.method, "GET");
            assert_eq!(q1.header("accept-encoding"), Some("gzip"));
            assert_eq!(q1.header("authorization"), Some("(redacted)"));
            assert!(!format!("{:?}", h.done).contains("c2VjcmV0"));
            assert_eq!(r1.status, 200);
            assert_eq!(r1.body, br#"{"responseHeader":{"QTime":7}}"#);
            assert!(!q1.incomplete && !r1.incomplete);
            // Bytes: every frame of the stream, headers included.
            assert_eq!(q1.wire_bytes, (9 + 5 + 10 + 9 + req1.len() - 10) as u64);
            assert_eq!(
                r1.wire_bytes,
                (9 + r1a.len() + 9 + r1b.len() + 9 + 19 + 9 + 11) as u64,
                "the 100 and 200 HEADERS and both DATA frames"
            );
            assert_eq!(h.facts().streams, 2);
            assert_eq!(h.facts().control.goaway.get("server NO_ERROR"), Some(&1));
        }
    }

    #[test]
    fn reset_streams_and_errors_are_counted_and_garbage_stops_a_direction() {
        let mut h = H2Conn::new(Start::PriorKnowledge);
        let mut c2s = PREFACE.to_vec();
        c2s.extend(frame(
            1,
            0x5,
            1,
            &block(&[(":method", "GET"), (":path", "/a")]),
        ));
        c2s.extend(frame(3, 0, 1, &8u32.to_be_bytes()));
        h.feed(true, 1, &c2s);
        h.feed(false, 2, &frame(1, 0x4, 1, &block(&[(":status", "200")])));
        h.feed(false, 3, &frame(3, 0, 5, &7u32.to_be_bytes()));
        assert_eq!(h.done.len(), 1);
        assert!(h.done[0].1.incomplete, "reset before the response ended");
        assert_eq!(h.facts().control.rst_stream.get("client CANCEL"), Some(&1));
        assert_eq!(
            h.facts().control.rst_stream.get("server REFUSED_STREAM"),
            Some(&1)
        );
        // A bad HPACK block and a non-preface both stop their direction, counted.
        h.feed(false, 4, &frame(1, 0x4, 7, &[0x80]));
        assert!(h.facts().lost[0].contains("HPACK"), "{:?}", h.facts().lost);
        h.feed(false, 5, b"more");
        let mut g = H2Conn::new(Start::Alpn);
        g.feed(true, 1, b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(g.undecoded_bytes(), 18);
        assert!(g.facts().lost[0].contains("preface"));
    }

    #[test]
    fn mutated_and_random_input_never_panics() {
        // A valid exchange, then thousands of mutations of it (bytes flipped, cut, split and
        // gaps anywhere): nothing may panic and every stream ends as a pair.
        let mut c2s = PREFACE.to_vec();
        c2s.extend(settings(&[(4, 100), (1, 0)]));
        let mut p = vec![2];
        p.extend(block(&[(":method", "POST"), (":path", "/u")]));
        p.extend([0, 0]);
        c2s.extend(frame(1, 0x4 | 0x8 | 0x20, 1, &[&[0u8; 5][..], &p].concat()));
        c2s.extend(frame(0, 0x1, 1, b"[{}]"));
        c2s.extend(frame(8, 0, 0, &100u32.to_be_bytes()));
        let mut s2c = settings(&[(4, 10)]);
        s2c.extend(frame(
            5,
            0x4,
            1,
            &[&2u32.to_be_bytes()[..], &block(&[(":path", "/p")])].concat(),
        ));
        s2c.extend(frame(1, 0x4, 1, &block(&[(":status", "200")])));
        s2c.extend(frame(0, 0x1, 1, b"{\"QTime\":1}"));
        s2c.extend(frame(3, 0, 2, &0u32.to_be_bytes()));
        s2c.extend(frame(7, 0, 0, &[0; 8]));
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..4000 {
            let (mut a, mut b) = (c2s.clone(), s2c.clone());
            for _ in 0..(next() % 4) {
                let v = if next() % 2 == 0 { &mut a } else { &mut b };
                let i = (next() as usize) % v.len();
                v[i] = next() as u8;
            }
            if round % 7 == 0 {
                let n = (next() as usize) % b.len();
                b.truncate(n);
            }
            let start = [Start::PriorKnowledge, Start::Alpn][round % 2];
            let mut h = H2Conn::new(start);
            let (sa, sb) = (
                (next() as usize) % a.len(),
                (next() as usize) % b.len().max(1),
            );
            h.feed(true, 1, &a[..sa]);
            h.feed(false, 2, &b[..sb.min(b.len())]);
            if round % 5 == 0 {
                h.gap(round % 2 == 0, next() % 9);
            }
            h.feed(true, 3, &a[sa..]);
            h.feed(false, 4, &b[sb.min(b.len())..]);
            h.finish();
            let _ = hpack::Decoder::new().decode(&a);
            assert!(h.streams.is_empty(), "round {round}: every stream finished");
        }
    }

    #[test]
    fn zero_window_stalls_are_timed_until_window_update() {
        let mut h = H2Conn::new(Start::PriorKnowledge);
        let mut c2s = PREFACE.to_vec();
        // The client allows 10 bytes per stream.
        c2s.extend(settings(&[(4, 10)]));
        c2s.extend(frame(
            1,
            0x5,
            1,
            &block(&[(":method", "GET"), (":path", "/a")]),
        ));
        h.feed(true, 1_000, &c2s);
        h.feed(
            false,
            2_000,
            &frame(1, 0x4, 1, &block(&[(":status", "200")])),
        );
        h.feed(false, 3_000, &frame(0, 0, 1, &[b'x'; 10]));
        // 5 ms with a zero window, then the update and the rest.
        h.feed(true, 8_000, &frame(8, 0, 1, &100u32.to_be_bytes()));
        h.feed(false, 9_000, &frame(0, 0x1, 1, &[b'y'; 10]));
        h.finish();
        let f = h.facts();
        assert_eq!(f.control.server_stalls, 1);
        assert_eq!(f.control.server_stalled_ms, 5.0);
        assert_eq!(f.control.max_stall_ms, Some(5.0));
        assert_eq!(f.control.client_stalls, 0);
        assert_eq!(h.done[0].1.body_len, 20);
        assert_eq!(h.done[0].1.last_ts - h.done[0].0.first_ts, 8_000);
    }

    #[test]
    fn upgraded_request_is_stream_one() {
        let req = Message {
            method: "GET".into(),
            target: "/solr/x/select".into(),
            wire_bytes: 120,
            first_ts: 10,
            last_ts: 10,
            ..Default::default()
        };
        let mut req = req;
        // SETTINGS_INITIAL_WINDOW_SIZE 4 and SETTINGS_MAX_CONCURRENT_STREAMS 100, base64url.
        assert_eq!(
            base64url("AAQAAAAEAAMAAABk"),
            Some(vec![0, 4, 0, 0, 0, 4, 0, 3, 0, 0, 0, 100])
        );
        req.headers
            .push(("http2-settings".into(), "AAQAAAAEAAMAAABk".into()));
        let mut h = H2Conn::upgraded(req, 71, 20);
        let mut c2s = PREFACE.to_vec();
        c2s.extend(settings(&[]));
        h.feed(true, 30, &c2s);
        let mut s2c = settings(&[]);
        let head = block(&[(":status", "200")]);
        s2c.extend(frame(1, 0x4, 1, &head));
        // The upgrade's settings gave stream 1 a 4-byte window: "{}" leaves 2.
        s2c.extend(frame(0, 0x1, 1, b"{}"));
        h.feed(false, 40, &s2c);
        assert_eq!(h.dirs[SERVER].initial_window, 4);
        assert_eq!(h.done.len(), 1);
        let (q, r) = &h.done[0];
        assert_eq!((q.wire_bytes, r.status), (120, 200));
        assert_eq!(r.wire_bytes, 71 + 9 + head.len() as u64 + 9 + 2);
        assert_eq!((r.first_ts, r.last_ts), (20, 40));
        assert_eq!(h.facts().start, "h2c-upgrade");
    }
}
