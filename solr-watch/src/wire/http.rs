//! An incremental HTTP/1.1 message reader for one direction of a reassembled connection:
//! requests (client to server) or responses (server to client), pipelined or split across
//! any number of segments, bodies by `Content-Length`, `chunked` or (responses) until close.
//! Anything that is not HTTP/1.x puts the parser out of sync; from then on its bytes are only
//! counted, with the reason kept. Message heads are parsed by `httparse`; the body, chunk and
//! pipelining state machine is this file's.

/// Longest message head accepted.
const MAX_HEAD: usize = 64 * 1024;
/// Body bytes kept per message (for QTime decoding and format sniffing); the rest is counted.
const BODY_KEEP: usize = 1024 * 1024;

/// Which side this parser reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Client to server.
    Request,
    /// Server to client.
    Response,
}

/// One parsed message.
#[derive(Debug, Clone, Default)]
pub struct Message {
    /// Request method (requests).
    pub method: String,
    /// Request target (requests).
    pub target: String,
    /// Status code (responses).
    pub status: u16,
    /// `HTTP/1.0` or `HTTP/1.1`.
    pub version: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Bytes on the wire (head, body and chunk framing).
    pub wire_bytes: u64,
    /// Body bytes after de-chunking (still content-encoded).
    pub body_len: u64,
    /// The first 1 MB of the body.
    pub body: Vec<u8>,
    /// Timestamp (µs) of the first byte.
    pub first_ts: u64,
    /// Timestamp (µs) of the last byte.
    pub last_ts: u64,
    /// The stream ended (or lost sync) before the message was complete.
    pub incomplete: bool,
    /// What the body said, read once the message is complete (the body is then dropped).
    pub facts: crate::wire::facts::Facts,
}

impl Message {
    /// The value of header `name` (lower case), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    Body(u64),
    ChunkSize,
    ChunkData(u64),
    ChunkCrlf,
    Trailers,
    UntilClose,
    Lost,
    /// The protocol may switch (a request asking `Upgrade: h2c`, a `101` response): later
    /// bytes wait in the buffer for [`Parser::take_switched`] or [`Parser::resume`].
    Switched,
}

/// What one step of [`Parser::feed`] did.
enum Step {
    /// Read up to here; go on.
    To(usize),
    /// Read up to here; wait for more bytes.
    Wait(usize),
    /// Sync lost: nothing more to read.
    Stop,
}

/// Parser for one direction.
#[derive(Debug)]
pub struct Parser {
    side: Side,
    buf: Vec<u8>,
    state: State,
    cur: Message,
    started: bool,
    /// Final (non-1xx) responses completed, to match HEAD requests.
    finals: usize,
    /// Why the parser lost sync, if it did.
    pub lost: Option<String>,
    /// Bytes received after losing sync (or in a gap).
    pub undecoded_bytes: u64,
    /// Interim (1xx) responses skipped.
    pub interim: u64,
    /// A `101 Switching Protocols` head: its bytes and timestamp (responses).
    pub switch_head: Option<(u64, u64)>,
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

/// Headers read per message head; a head with more loses sync.
const MAX_HEADERS: usize = 256;

/// A message head as `httparse` read it.
struct Head {
    /// Bytes of the head, its blank line included.
    len: usize,
    method: String,
    target: String,
    status: u16,
    version: String,
    /// Names lower-cased, values trimmed.
    headers: Vec<(String, String)>,
}

/// Reads the head at the start of `hay` with `httparse`: `Ok(None)` until its blank line has
/// come, an error (with the reason) when it is not an HTTP/1.x head. Lenient where servers
/// and proxies are (obsolete folded header lines, a space before a header's colon, an
/// invalid header line skipped), strict on the start line.
fn parse_head(side: Side, hay: &[u8]) -> Result<Option<Head>, String> {
    let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut config = httparse::ParserConfig::default();
    config
        .allow_spaces_after_header_name_in_responses(true)
        .allow_obsolete_multiline_headers_in_responses(true)
        .ignore_invalid_headers_in_responses(true)
        .ignore_invalid_headers_in_requests(true);
    let (len, method, target, status, version, headers) = match side {
        Side::Request => {
            let mut req = httparse::Request::new(&mut slots);
            let parsed = config.parse_request(&mut req, hay);
            let httparse::Status::Complete(len) =
                parsed.map_err(|e| format!("bad request head ({e}): {:?}", preview(hay)))?
            else {
                return Ok(None);
            };
            let (method, target) = (req.method.unwrap_or(""), req.path.unwrap_or(""));
            (len, method, target, 0, req.version, req.headers)
        }
        Side::Response => {
            let mut resp = httparse::Response::new(&mut slots);
            let parsed = config.parse_response(&mut resp, hay);
            let httparse::Status::Complete(len) =
                parsed.map_err(|e| format!("bad response head ({e}): {:?}", preview(hay)))?
            else {
                return Ok(None);
            };
            let status = resp.code.filter(|c| (100..600).contains(c));
            let status = status.ok_or_else(|| format!("bad status line {:?}", preview(hay)))?;
            (len, "", "", status, resp.version, resp.headers)
        }
    };
    let headers = headers
        .iter()
        .map(|h| {
            let value = String::from_utf8_lossy(h.value).trim().to_string();
            (h.name.to_ascii_lowercase(), value)
        })
        .collect();
    Ok(Some(Head {
        len,
        method: method.to_string(),
        target: target.to_string(),
        status,
        version: format!("HTTP/1.{}", version.unwrap_or(1)),
        headers,
    }))
}

impl Parser {
    /// A parser for `side`.
    pub fn new(side: Side) -> Self {
        Parser {
            side,
            buf: Vec::new(),
            state: State::Head,
            cur: Message::default(),
            started: false,
            finals: 0,
            lost: None,
            undecoded_bytes: 0,
            interim: 0,
            switch_head: None,
        }
    }

    /// True when the parser stopped at a possible protocol switch: after a request asking
    /// `Upgrade: h2c` (until its response says whether it happened), or after a `101`.
    pub fn switched(&self) -> bool {
        self.state == State::Switched
    }

    /// The bytes received after the switch point (the new protocol's first bytes); every later
    /// byte fed is kept the same way.
    pub fn take_switched(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    /// The switch did not happen (the server answered the upgrade request without `101`):
    /// parses the bytes held since as HTTP/1.1 again.
    pub fn resume(&mut self, ts: u64, is_head: &dyn Fn(usize) -> bool, out: &mut Vec<Message>) {
        if self.state == State::Switched {
            self.state = State::Head;
            let held = std::mem::take(&mut self.buf);
            self.feed(ts, &held, is_head, out);
        }
    }

    /// The protocol switched to one not decoded here: the rest is counted, with `why`.
    pub fn give_up(&mut self, why: String) {
        self.lose(why);
    }

    fn lose(&mut self, why: String) {
        if self.lost.is_none() {
            self.lost = Some(why);
        }
        self.state = State::Lost;
        self.undecoded_bytes += self.buf.len() as u64;
        self.buf.clear();
    }

    /// Bytes are missing from the stream: the parser cannot know where messages start any
    /// more (a gap inside a counted body is skipped over instead).
    pub fn gap(&mut self, n: u64, out: &mut Vec<Message>) {
        match self.state {
            State::Body(rem) if self.buf.is_empty() && n <= rem => {
                self.cur.wire_bytes += n;
                self.cur.body_len += n;
                self.undecoded_bytes += n;
                self.state = State::Body(rem - n);
                if rem == n {
                    self.complete(out);
                }
            }
            State::UntilClose => {
                self.cur.wire_bytes += n;
                self.undecoded_bytes += n;
            }
            State::Lost => self.undecoded_bytes += n,
            _ => {
                self.undecoded_bytes += n;
                if self.started {
                    self.cur.incomplete = true;
                    out.push(std::mem::take(&mut self.cur));
                    self.started = false;
                }
                self.lose(format!("{n} bytes missing from the capture"));
            }
        }
    }

    /// Feeds in-order bytes received at `ts`; `is_head(i)` says whether the i-th request on
    /// the connection was a HEAD (responses only). Completed messages are appended to `out`.
    pub fn feed(
        &mut self,
        ts: u64,
        data: &[u8],
        is_head: &dyn Fn(usize) -> bool,
        out: &mut Vec<Message>,
    ) {
        if self.state == State::Lost {
            self.undecoded_bytes += data.len() as u64;
            return;
        }
        if self.state == State::Switched {
            self.buf.extend_from_slice(data);
            return;
        }
        if data.is_empty() {
            return;
        }
        self.buf.extend_from_slice(data);
        let mut pos = 0;
        while pos < self.buf.len() && self.state != State::Switched {
            match self.step(pos, ts, is_head, out) {
                Step::To(p) => pos = p,
                Step::Wait(p) => {
                    pos = p;
                    break;
                }
                Step::Stop => return,
            }
        }
        self.buf.drain(..pos.min(self.buf.len()));
    }

    /// Reads what the state expects at `pos` of the buffer.
    fn step(
        &mut self,
        pos: usize,
        ts: u64,
        is_head: &dyn Fn(usize) -> bool,
        out: &mut Vec<Message>,
    ) -> Step {
        let pos = if self.started {
            pos
        } else {
            match self.start(pos, ts) {
                Step::To(p) => p,
                other => return other,
            }
        };
        self.cur.last_ts = ts;
        let avail = self.buf.len() - pos;
        match self.state {
            State::Head => self.read_head(pos, is_head, out),
            State::Body(rem) => {
                let n = (avail as u64).min(rem) as usize;
                self.body(pos, n);
                self.state = State::Body(rem - n as u64);
                if rem == n as u64 {
                    self.complete(out);
                }
                Step::To(pos + n)
            }
            State::UntilClose => {
                self.body(pos, avail);
                Step::To(pos + avail)
            }
            State::ChunkSize => self.chunk_size(pos),
            State::ChunkData(rem) => {
                let n = (avail as u64).min(rem) as usize;
                self.body(pos, n);
                self.state = if rem == n as u64 {
                    State::ChunkCrlf
                } else {
                    State::ChunkData(rem - n as u64)
                };
                Step::To(pos + n)
            }
            State::ChunkCrlf => self.chunk_crlf(pos),
            State::Trailers => self.trailer(pos, out),
            State::Lost | State::Switched => Step::Wait(pos),
        }
    }

    /// Begins a message at `pos`, after any stray CRLFs between messages (RFC 9112 2.2).
    fn start(&mut self, mut pos: usize, ts: u64) -> Step {
        if self.state == State::Head {
            while pos < self.buf.len() && matches!(self.buf[pos], b'\r' | b'\n') {
                pos += 1;
            }
            if pos == self.buf.len() {
                return Step::Wait(pos);
            }
        }
        self.started = true;
        self.cur = Message {
            first_ts: ts,
            ..Default::default()
        };
        Step::To(pos)
    }

    /// Drops the bytes before `pos` and loses sync with `why`.
    fn stop(&mut self, pos: usize, why: String) -> Step {
        self.buf.drain(..pos);
        self.lose(why);
        Step::Stop
    }

    /// A message head at `pos`, once its blank line has come.
    fn read_head(
        &mut self,
        pos: usize,
        is_head: &dyn Fn(usize) -> bool,
        out: &mut Vec<Message>,
    ) -> Step {
        let hay = &self.buf[pos..];
        let parsed = self.sanity(hay).and_then(|()| parse_head(self.side, hay));
        let head = match parsed {
            Ok(Some(head)) => head,
            Ok(None) if hay.len() <= MAX_HEAD => return Step::Wait(pos),
            Ok(None) => {
                self.started = false;
                return self.stop(pos, format!("message head over {MAX_HEAD} bytes"));
            }
            Err(e) => {
                self.cur.incomplete = true;
                self.started = false;
                return self.stop(pos, e);
            }
        };
        let pos = pos + head.len;
        self.cur.wire_bytes += head.len as u64;
        if let Err(e) = self.head(head, is_head, out) {
            self.started = false;
            return self.stop(pos, e);
        }
        Step::To(pos)
    }

    /// A chunk-size line at `pos`.
    fn chunk_size(&mut self, pos: usize) -> Step {
        let Some(eol) = find(&self.buf[pos..], b"\r\n") else {
            if self.buf.len() - pos > 1024 {
                self.lose("chunk size line over 1 KB".into());
                return Step::Stop;
            }
            return Step::Wait(pos);
        };
        let line = String::from_utf8_lossy(&self.buf[pos..pos + eol]).to_string();
        let hex = line.split(';').next().unwrap_or("").trim();
        let Ok(size) = u64::from_str_radix(hex, 16) else {
            return self.stop(pos, format!("bad chunk size {line:?}"));
        };
        self.cur.wire_bytes += (eol + 2) as u64;
        self.state = if size == 0 {
            State::Trailers
        } else {
            State::ChunkData(size)
        };
        Step::To(pos + eol + 2)
    }

    /// The CRLF after a chunk's data, at `pos`.
    fn chunk_crlf(&mut self, pos: usize) -> Step {
        if self.buf.len() - pos < 2 {
            return Step::Wait(pos);
        }
        if &self.buf[pos..pos + 2] != b"\r\n" {
            return self.stop(pos, "chunk not followed by CRLF".into());
        }
        self.cur.wire_bytes += 2;
        self.state = State::ChunkSize;
        Step::To(pos + 2)
    }

    /// A trailer line at `pos`; the empty one ends the message.
    fn trailer(&mut self, pos: usize, out: &mut Vec<Message>) -> Step {
        let Some(eol) = find(&self.buf[pos..], b"\r\n") else {
            return Step::Wait(pos);
        };
        self.cur.wire_bytes += (eol + 2) as u64;
        if eol == 0 {
            self.complete(out);
        }
        Step::To(pos + eol + 2)
    }

    /// Cheap early check that this looks like HTTP/1.x at all (TLS, HTTP/2 or garbage would
    /// otherwise wait for a CRLFCRLF that never comes).
    fn sanity(&self, hay: &[u8]) -> Result<(), String> {
        let n = hay.len().min(8);
        let p = &hay[..n];
        match self.side {
            Side::Request => {
                if p.starts_with(b"PRI * HT") {
                    return Err("HTTP/2 (prior knowledge), not HTTP/1.1".into());
                }
                if let Some(&b) = p.first() {
                    if b == 0x16 {
                        return Err("TLS, not cleartext HTTP".into());
                    }
                }
                let token = p.iter().take_while(|b| b.is_ascii_uppercase()).count();
                if token == 0 || (token < n && p[token] != b' ') {
                    return Err(format!("not an HTTP/1.x request line: {:?}", preview(hay)));
                }
            }
            Side::Response => {
                if !b"HTTP/1.".starts_with(&p[..n.min(7)]) {
                    return Err(format!("not an HTTP/1.x status line: {:?}", preview(hay)));
                }
            }
        }
        Ok(())
    }

    fn body(&mut self, pos: usize, n: usize) {
        self.cur.wire_bytes += n as u64;
        self.cur.body_len += n as u64;
        let room = BODY_KEEP.saturating_sub(self.cur.body.len()).min(n);
        self.cur.body.extend_from_slice(&self.buf[pos..pos + room]);
    }

    fn complete(&mut self, out: &mut Vec<Message>) {
        self.started = false;
        let h2c = self.side == Side::Request
            && self
                .cur
                .header("upgrade")
                .is_some_and(|v| v.to_ascii_lowercase().contains("h2c"));
        self.state = if h2c { State::Switched } else { State::Head };
        out.push(std::mem::take(&mut self.cur));
    }

    /// Takes in a parsed head: the message's start line and headers, then how its body is
    /// delimited.
    fn head(
        &mut self,
        head: Head,
        is_head: &dyn Fn(usize) -> bool,
        out: &mut Vec<Message>,
    ) -> Result<(), String> {
        self.cur.method = head.method;
        self.cur.target = head.target;
        self.cur.status = head.status;
        self.cur.version = head.version;
        self.cur.headers = head.headers;
        let chunked = self
            .cur
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let length = match self.cur.header("content-length") {
            Some(v) => Some(
                v.parse::<u64>()
                    .map_err(|_| format!("bad Content-Length {v:?}"))?,
            ),
            None => None,
        };
        if self.side == Side::Response && self.status_decides(is_head, out) {
            return Ok(());
        }
        self.body_state(chunked, length, out);
        Ok(())
    }

    /// What a response's status alone decides: an interim response (`100 Continue`), a
    /// protocol switch (`101`) or an answer without a body. True when the head is all.
    fn status_decides(&mut self, is_head: &dyn Fn(usize) -> bool, out: &mut Vec<Message>) -> bool {
        let status = self.cur.status;
        if (100..200).contains(&status) {
            // Not the answer to the request.
            self.interim += 1;
            self.started = false;
            self.state = if status == 101 {
                // The connection decides (h2c or not); later bytes wait for it.
                self.switch_head = Some((self.cur.wire_bytes, self.cur.first_ts));
                State::Switched
            } else {
                State::Head
            };
            self.cur = Message::default();
            return true;
        }
        let head_req = is_head(self.finals);
        self.finals += 1;
        if head_req || status == 204 || status == 304 {
            self.complete(out);
            return true;
        }
        false
    }

    /// How the body after the head is delimited; a message without one is complete.
    fn body_state(&mut self, chunked: bool, length: Option<u64>, out: &mut Vec<Message>) {
        self.state = if chunked {
            State::ChunkSize
        } else {
            match (length, self.side) {
                (Some(0), _) | (None, Side::Request) => {
                    self.complete(out);
                    return;
                }
                (Some(n), _) => State::Body(n),
                (None, Side::Response) => State::UntilClose,
            }
        };
    }

    /// The stream ended: a body read until close is complete, anything else half-received is
    /// returned marked incomplete.
    pub fn finish(&mut self, out: &mut Vec<Message>) {
        if self.started {
            if self.state != State::UntilClose {
                self.cur.incomplete = true;
            }
            self.undecoded_bytes += self.buf.len() as u64;
            self.buf.clear();
            self.started = false;
            out.push(std::mem::take(&mut self.cur));
        } else if !self.buf.is_empty() && self.state != State::Lost {
            self.undecoded_bytes += self.buf.len() as u64;
            self.buf.clear();
        }
        if self.state != State::Lost {
            self.state = State::Head;
        }
    }
}

fn preview(b: &[u8]) -> String {
    String::from_utf8_lossy(&b[..b.len().min(24)]).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_head(_: usize) -> bool {
        false
    }

    #[test]
    fn pipelined_requests_split_anywhere() {
        let wire = b"GET /solr/bench/select?q=a HTTP/1.1\r\nHost: x\r\n\r\nPOST /solr/bench/update HTTP/1.1\r\nContent-Length: 5\r\nContent-Type: application/json\r\n\r\n[{}]\nGET /b HTTP/1.1\r\n\r\n";
        for split in 0..wire.len() {
            let mut p = Parser::new(Side::Request);
            let mut out = Vec::new();
            p.feed(1, &wire[..split], &no_head, &mut out);
            p.feed(2, &wire[split..], &no_head, &mut out);
            assert_eq!(out.len(), 3, "split at {split}");
            assert_eq!(out[1].method, "POST");
            assert_eq!(out[1].body, b"[{}]\n");
            assert_eq!(out[2].target, "/b");
            let total: u64 = out.iter().map(|m| m.wire_bytes).sum();
            assert_eq!(total, wire.len() as u64);
            assert!(p.lost.is_none());
        }
    }

    #[test]
    fn heads_read_by_httparse_leniently_where_servers_are() {
        // A folded header line, a space before a colon and a line without one, split anywhere.
        let wire = b"HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\nContent-Type : text/plain\r\nno colon here\r\nContent-Length: 2\r\n\r\nok";
        for split in 0..wire.len() {
            let mut p = Parser::new(Side::Response);
            let mut out = Vec::new();
            p.feed(1, &wire[..split], &no_head, &mut out);
            p.feed(2, &wire[split..], &no_head, &mut out);
            assert_eq!(out.len(), 1, "split at {split}");
            assert_eq!(out[0].header("content-type"), Some("text/plain"));
            assert_eq!(out[0].body, b"ok");
            assert_eq!(out[0].wire_bytes, wire.len() as u64);
            assert!(p.lost.is_none(), "{:?}", p.lost);
        }
    }

    #[test]
    fn a_head_httparse_refuses_loses_sync_with_the_reason() {
        let mut out = Vec::new();
        let mut p = Parser::new(Side::Request);
        p.feed(
            1,
            b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET  HTTP/1.1\r\n\r\n",
            &no_head,
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert!(
            p.lost
                .as_deref()
                .is_some_and(|w| w.starts_with("bad request head")),
            "{:?}",
            p.lost
        );
        let mut p = Parser::new(Side::Response);
        let mut many = b"HTTP/1.1 200 OK\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            many.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
        }
        many.extend_from_slice(b"\r\n");
        p.feed(1, &many, &no_head, &mut out);
        assert!(
            p.lost
                .as_deref()
                .is_some_and(|w| w.contains("too many headers")),
            "{:?}",
            p.lost
        );
        let mut p = Parser::new(Side::Response);
        p.feed(1, b"HTTP/1.1 999 Odd\r\n\r\n", &no_head, &mut out);
        assert!(
            p.lost
                .as_deref()
                .is_some_and(|w| w.starts_with("bad status line")),
            "{:?}",
            p.lost
        );
    }

    #[test]
    fn chunked_response_with_interim_100() {
        let wire = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n3;x=y\r\nefg\r\n0\r\n\r\n";
        let mut p = Parser::new(Side::Response);
        let mut out = Vec::new();
        for b in wire.iter() {
            p.feed(1, &[*b], &no_head, &mut out);
        }
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].body, b"abcdefg");
        assert_eq!(out[0].status, 200);
        assert_eq!(p.interim, 1);
    }

    #[test]
    fn response_to_head_has_no_body_and_until_close_ends_at_finish() {
        let mut p = Parser::new(Side::Response);
        let mut out = Vec::new();
        let head = |i: usize| i == 0;
        p.feed(
            1,
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.0 200 OK\r\n\r\nbody",
            &head,
            &mut out,
        );
        assert_eq!(out.len(), 1);
        p.finish(&mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].body, b"body");
        assert!(!out[1].incomplete);
    }

    #[test]
    fn garbage_tls_and_partial_are_counted_not_fatal() {
        let mut p = Parser::new(Side::Request);
        let mut out = Vec::new();
        p.feed(1, &[0x16, 3, 1, 0, 5, 1, 2, 3], &no_head, &mut out);
        assert!(p.lost.as_deref().unwrap_or("").contains("TLS"));
        p.feed(2, b"more", &no_head, &mut out);
        assert_eq!(p.undecoded_bytes, 12);

        let mut p = Parser::new(Side::Request);
        p.feed(
            1,
            b"POST /u HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc",
            &no_head,
            &mut out,
        );
        p.finish(&mut out);
        assert!(out.last().is_some_and(|m| m.incomplete && m.body == b"abc"));

        let mut p = Parser::new(Side::Response);
        p.feed(
            1,
            b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
            &no_head,
            &mut out,
        );
        assert!(p.lost.is_some());
    }
}
