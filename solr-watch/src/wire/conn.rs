//! Packets to connections: every TCP connection to the watched port, both directions
//! reassembled, then handed to the HTTP/1.1 parser or the TLS classifier by what the client
//! sent first, or to the HTTP/2 decoder (prior knowledge, or after an h2c upgrade). Who
//! closed, when, and what went wrong on the way is kept per connection.

use std::collections::HashMap;
use std::sync::Arc;

use super::http::{Message, Parser, Side};
use super::http2::{H2Conn, Start};
use super::tcp::{Delivery, Reassembler};
use crate::tls::decrypt::{Decryptor, Plain};
use crate::tls::keylog::KeyLogFile;
use crate::tls::TlsConn;
use crate::wire::packet::{self, TcpPacket};

const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;

/// Application protocol of a connection, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    /// No payload seen yet.
    None,
    /// Cleartext HTTP/1.x.
    Http1,
    /// TLS.
    Tls,
    /// HTTP/2: cleartext with prior knowledge or after an h2c upgrade (how: [`Conn::h2`]).
    Http2,
    /// Something else.
    Other,
}

/// How a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Close {
    /// The client sent the first FIN.
    ClientFin,
    /// The server sent the first FIN.
    ServerFin,
    /// The client reset it.
    ClientRst,
    /// The server reset it.
    ServerRst,
}

/// One TCP connection to the watched port.
#[derive(Debug)]
pub struct Conn {
    /// Order of first appearance, from 1.
    pub id: usize,
    /// Client address and port.
    pub client: String,
    /// Client initial sequence number, when its SYN was seen.
    pub client_isn: Option<u32>,
    /// Timestamp (µs) of the SYN, when seen (None: open before the capture started).
    pub syn_ts: Option<u64>,
    /// First packet.
    pub first_ts: u64,
    /// Last packet.
    pub last_ts: u64,
    /// First FIN or RST, and when.
    pub close: Option<(Close, u64)>,
    /// Client to server stream.
    pub c2s: Reassembler,
    /// Server to client stream.
    pub s2c: Reassembler,
    /// Protocol.
    pub proto: Proto,
    /// Request parser.
    pub req: Parser,
    /// Response parser.
    pub resp: Parser,
    /// TLS handshake bytes.
    pub tls: TlsConn,
    /// TLS records decrypted with a key log (`watch --keylog`), when there is one.
    pub decrypt: Option<Box<Decryptor>>,
    /// Requests parsed, in order.
    pub requests: Vec<Message>,
    /// Responses parsed, in order (the i-th answers the i-th request).
    pub responses: Vec<Message>,
    is_head: Vec<bool>,
    /// Frame bytes client to server.
    pub wire_to_server: u64,
    /// Frame bytes server to client.
    pub wire_from_server: u64,
    /// SYNs seen again.
    pub syn_retransmits: u64,
    /// Payload bytes of a protocol this tool does not decode (TLS, other).
    pub opaque_bytes: u64,
    /// The HTTP/2 decoder, once the connection speaks HTTP/2.
    pub h2: Option<Box<H2Conn>>,
    /// Payload bytes on the wire that the capture did not keep because its frames were cut
    /// short (the snap length): what the parsers above could not see.
    pub cut_bytes: u64,
    /// Finished (streams flushed).
    pub finished: bool,
}

impl Conn {
    fn new(id: usize, client: String, ts: u64) -> Self {
        Conn {
            id,
            client,
            client_isn: None,
            syn_ts: None,
            first_ts: ts,
            last_ts: ts,
            close: None,
            c2s: Reassembler::default(),
            s2c: Reassembler::default(),
            proto: Proto::None,
            req: Parser::new(Side::Request),
            resp: Parser::new(Side::Response),
            tls: TlsConn::default(),
            decrypt: None,
            requests: Vec::new(),
            responses: Vec::new(),
            is_head: Vec::new(),
            wire_to_server: 0,
            wire_from_server: 0,
            syn_retransmits: 0,
            opaque_bytes: 0,
            h2: None,
            cut_bytes: 0,
            finished: false,
        }
    }

    fn classify(&mut self, first: &[u8], from_client: bool) {
        if self.proto != Proto::None || first.is_empty() {
            return;
        }
        self.proto = if first[0] == 0x16 {
            Proto::Tls
        } else if from_client && first.starts_with(b"PRI * HTTP/2") {
            self.h2 = Some(Box::new(H2Conn::new(Start::PriorKnowledge)));
            Proto::Http2
        } else if (from_client && first[0].is_ascii_uppercase())
            || (!from_client && first.starts_with(b"HTTP/"))
        {
            Proto::Http1
        } else {
            Proto::Other
        };
    }

    fn deliver(&mut self, from_client: bool, d: Vec<Delivery>) {
        for x in d {
            match x {
                Delivery::Data(ts, bytes) => self.data(from_client, ts, &bytes),
                Delivery::Gap(n) => self.gap(from_client, n),
            }
        }
    }

    /// In-order bytes from one side, handed to the protocol's decoder.
    fn data(&mut self, from_client: bool, ts: u64, bytes: &[u8]) {
        self.classify(bytes, from_client);
        match (self.proto, from_client) {
            (Proto::Http1, true) => {
                let mut out = Vec::new();
                self.req.feed(ts, bytes, &|_| false, &mut out);
                self.push_requests(out);
                self.check_upgrade();
            }
            (Proto::Http1, false) => {
                let mut out = Vec::new();
                let heads = &self.is_head;
                self.resp.feed(
                    ts,
                    bytes,
                    &|i| heads.get(i).copied().unwrap_or(false),
                    &mut out,
                );
                self.push_responses(out);
                self.check_upgrade();
            }
            (Proto::Http2, _) => self.h2_plaintext(from_client, ts, bytes),
            (Proto::Tls, true) => {
                self.tls.client(bytes);
                self.tls_bytes(true, ts, bytes);
            }
            (Proto::Tls, false) => {
                self.tls.server(bytes);
                self.tls_bytes(false, ts, bytes);
            }
            _ => self.opaque_bytes += bytes.len() as u64,
        }
    }

    /// `n` bytes from one side missing from the capture.
    fn gap(&mut self, from_client: bool, n: u64) {
        let mut out = Vec::new();
        match (self.proto, from_client) {
            (Proto::Http1, true) => {
                self.req.gap(n, &mut out);
                self.push_requests(out);
            }
            (Proto::Http1, false) => {
                self.resp.gap(n, &mut out);
                self.push_responses(out);
            }
            (Proto::Tls, _) => {
                if let Some(d) = self.decrypt.as_mut() {
                    d.gap(from_client);
                }
                self.opaque_bytes += n;
            }
            (Proto::Http2, _) => {
                if let Some(h) = self.h2.as_mut() {
                    h.gap(from_client, n);
                }
            }
            _ => self.opaque_bytes += n,
        }
    }

    /// A SYN: the client's opens the connection (or is sent again), the server's its stream.
    fn syn(&mut self, p: &TcpPacket, from_client: bool, ts: u64) {
        if p.flags & SYN == 0 {
            return;
        }
        if from_client && p.is_syn_only() {
            if self.client_isn == Some(p.seq) {
                self.syn_retransmits += 1;
            } else if self.client_isn.is_none() && !self.c2s.started() {
                self.client_isn = Some(p.seq);
                self.syn_ts = Some(ts);
                self.c2s.syn(p.seq);
            }
        } else if !from_client {
            self.s2c.syn(p.seq);
        }
    }

    /// The first FIN or RST closes the connection.
    fn fin_or_rst(&mut self, p: &TcpPacket, from_client: bool, ts: u64) {
        if self.close.is_some() {
            return;
        }
        let how = match (p.flags & RST != 0, p.flags & FIN != 0, from_client) {
            (true, _, true) => Close::ClientRst,
            (true, _, false) => Close::ServerRst,
            (false, true, true) => Close::ClientFin,
            (false, true, false) => Close::ServerFin,
            (false, false, _) => return,
        };
        self.close = Some((how, ts));
    }

    fn push_responses(&mut self, out: Vec<Message>) {
        for mut m in out {
            super::solr::digest_response(&mut m);
            self.responses.push(m);
        }
    }

    fn push_requests(&mut self, out: Vec<Message>) {
        for mut m in out {
            super::solr::digest_request(&mut m);
            self.is_head.push(m.method == "HEAD");
            self.requests.push(m);
        }
    }

    /// TLS bytes: decrypted when a key log was given, the application bytes then parsed
    /// like cleartext; otherwise opaque.
    fn tls_bytes(&mut self, from_client: bool, ts: u64, bytes: &[u8]) {
        let Some(dec) = self.decrypt.as_mut() else {
            self.opaque_bytes += bytes.len() as u64;
            return;
        };
        let mut plain = Vec::new();
        dec.feed(from_client, ts, bytes, &self.tls, &mut plain);
        let h2 = dec.alpn() == Some("h2");
        self.decrypted(plain, h2);
    }

    /// Decrypted application bytes, in order, into the HTTP/1.1 parsers. With ALPN `h2`
    /// they are HTTP/2: the place to hand them to the HTTP/2 decoder (`watch/http2.rs`,
    /// like a prior-knowledge connection's bytes) — until then they are counted as opaque.
    fn decrypted(&mut self, plain: Vec<Plain>, h2: bool) {
        for p in plain {
            if h2 {
                // ALPN h2: the decrypted bytes are HTTP/2 from the first byte (the client
                // preface), so they go to the HTTP/2 decoder like prior-knowledge h2c.
                if self.h2.is_none() {
                    self.h2 = Some(Box::new(H2Conn::new(Start::Alpn)));
                }
                self.h2_plaintext(p.from_client, p.ts, &p.data);
                continue;
            }
            let mut out = Vec::new();
            if p.from_client {
                self.req.feed(p.ts, &p.data, &|_| false, &mut out);
                self.push_requests(out);
            } else {
                let heads = &self.is_head;
                self.resp.feed(
                    p.ts,
                    &p.data,
                    &|i| heads.get(i).copied().unwrap_or(false),
                    &mut out,
                );
                self.push_responses(out);
            }
        }
    }

    /// Flushes both streams and parsers (end of connection or of capture).
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let d = self.c2s.finish();
        self.deliver(true, d);
        let d = self.s2c.finish();
        self.deliver(false, d);
        if let Some(mut dec) = self.decrypt.take() {
            let mut plain = Vec::new();
            dec.finish(&mut plain);
            self.opaque_bytes += dec.stats().opaque_bytes;
            self.decrypted(plain, dec.alpn() == Some("h2"));
            self.decrypt = Some(dec);
        }
        let mut out = Vec::new();
        self.req.finish(&mut out);
        self.push_requests(out);
        let mut out = Vec::new();
        self.resp.finish(&mut out);
        self.push_responses(out);
        if let Some(h) = self.h2.as_mut() {
            h.finish();
        }
        self.take_h2();
    }
}

/// Connections known from the kernel (`watch --ebpf`) rather than from packets: the bytes
/// come in order from the socket calls, and TLS plaintext from the TLS library.
impl Conn {
    /// A connection first seen at `ts` (µs); `syn_ts` when its connect was seen.
    pub fn from_kernel(id: usize, client: String, ts: u64, syn_ts: Option<u64>) -> Self {
        let mut c = Conn::new(id, client, ts);
        c.syn_ts = syn_ts;
        c
    }

    /// In-order bytes one direction carried through the socket (TLS records stay opaque
    /// here but their handshake is classified).
    pub fn socket_bytes(&mut self, from_client: bool, ts: u64, bytes: &[u8]) {
        self.last_ts = self.last_ts.max(ts);
        if from_client {
            self.wire_to_server += bytes.len() as u64;
        } else {
            self.wire_from_server += bytes.len() as u64;
        }
        self.data(from_client, ts, bytes);
    }

    /// `n` bytes of one direction the probes could not copy.
    pub fn socket_gap(&mut self, from_client: bool, n: u64) {
        self.gap(from_client, n);
    }

    /// Plaintext read at the TLS library's boundary (`SSL_write`/`SSL_read`), in order: into
    /// the HTTP/1.1 parsers, or the HTTP/2 decoder when the client starts with its preface.
    pub fn tls_plaintext(&mut self, from_client: bool, ts: u64, bytes: &[u8]) {
        self.last_ts = self.last_ts.max(ts);
        if self.h2.is_none()
            && from_client
            && self.requests.is_empty()
            && bytes.starts_with(b"PRI * HTTP/2")
        {
            self.h2 = Some(Box::new(H2Conn::new(Start::Alpn)));
        }
        let h2 = self.h2.is_some();
        let p = Plain {
            from_client,
            ts,
            data: bytes.to_vec(),
        };
        self.decrypted(vec![p], h2);
    }

    /// The kernel closed the socket at `ts`: `how` the state it left says.
    pub fn closed(&mut self, how: Option<Close>, ts: u64) {
        self.last_ts = self.last_ts.max(ts);
        if self.close.is_none() {
            self.close = how.map(|h| (h, ts));
        }
    }
}

/// HTTP/2: the h2c upgrade and the hand-off of bytes to the decoder.
impl Conn {
    /// Feeds application bytes of an HTTP/2 connection (in order, one direction) to its
    /// decoder and collects the streams it finished. This is also the entry point for TLS
    /// with ALPN `h2`: the decrypting side sets [`Conn::h2`] to
    /// `H2Conn::new(Start::Alpn)` once and then passes each direction's plaintext here.
    pub fn h2_plaintext(&mut self, from_client: bool, ts: u64, bytes: &[u8]) {
        if let Some(h) = self.h2.as_mut() {
            h.feed(from_client, ts, bytes);
        }
        self.take_h2();
    }

    fn take_h2(&mut self) {
        let Some(h) = self.h2.as_mut() else {
            return;
        };
        for (q, r) in std::mem::take(&mut h.done) {
            self.push_requests(vec![q]);
            self.push_responses(vec![r]);
        }
    }

    /// After HTTP/1 bytes: a request asked `Upgrade: h2c` and the server answered `101`
    /// (the connection becomes HTTP/2, that request stream 1), or answered otherwise (the
    /// request side goes on as HTTP/1.1), or a `101` to anything else (not decoded).
    fn check_upgrade(&mut self) {
        if !self.resp.switched() {
            if self.req.switched() && self.responses.len() >= self.requests.len() {
                // The upgrade request got an ordinary response: no switch.
                let mut out = Vec::new();
                let ts = self.responses.last().map_or(0, |r| r.last_ts);
                let heads = &self.is_head;
                self.req
                    .resume(ts, &|i| heads.get(i).copied().unwrap_or(false), &mut out);
                self.push_requests(out);
            }
            return;
        }
        let asked = self.req.switched() && self.requests.len() == self.responses.len() + 1;
        let Some((head_bytes, ts)) = self.resp.switch_head.filter(|_| asked) else {
            self.resp
                .give_up("protocol switched (101), not HTTP/1.1 any more".into());
            return;
        };
        let Some(request) = self.requests.pop() else {
            return;
        };
        self.is_head.pop();
        let mut h = H2Conn::upgraded(request, head_bytes, ts);
        h.feed(true, ts, &self.req.take_switched());
        h.feed(false, ts, &self.resp.take_switched());
        self.req.give_up("switched to HTTP/2 (h2c)".into());
        self.resp.give_up("switched to HTTP/2 (h2c)".into());
        self.req.lost = None;
        self.resp.lost = None;
        self.h2 = Some(Box::new(h));
        self.proto = Proto::Http2;
        self.take_h2();
    }
}

type Key = ([u8; 16], u16, [u8; 16]);

/// Feeds packets to connections for one server port.
#[derive(Debug)]
pub struct Tracker {
    /// The server port watched.
    pub port: u16,
    live: HashMap<Key, usize>,
    /// Every connection, in order of first appearance.
    pub conns: Vec<Conn>,
    /// Frames offered.
    pub frames: u64,
    /// Frames that were not TCP over IPv4/IPv6 or were cut short before the TCP header.
    pub frames_undecoded: u64,
    /// TCP frames captured shorter than their payload (snap length).
    pub frames_cut_short: u64,
    /// Most bytes captured of a frame cut short (the effective snap length; 0: none cut).
    pub cut_frame_len: u32,
    /// The capture's snap length when known (a file's header, a live capture's setting; 0:
    /// unknown).
    pub snap_len: u32,
    /// TCP frames neither to nor from the port.
    pub frames_other_port: u64,
    /// First timestamp (µs).
    pub first_ts: Option<u64>,
    /// Last timestamp (µs).
    pub last_ts: u64,
    /// TLS secrets (`watch --keylog`): TLS connections are decrypted with them.
    pub keylog: Option<Arc<KeyLogFile>>,
    /// Connections taken out by [`Tracker::evict`] (ids go on from there).
    pub evicted: usize,
    /// Why the requests cannot be read, when a watcher knows it before the report (eBPF:
    /// TLS encrypted by a library it does not probe): requests are then unknown, never 0.
    pub requests_unread: Option<String>,
}

fn addr(ip: &[u8; 16], port: u16) -> String {
    if ip[..12] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] {
        format!("{}.{}.{}.{}:{port}", ip[12], ip[13], ip[14], ip[15])
    } else {
        format!("[{}]:{port}", std::net::Ipv6Addr::from(*ip))
    }
}

impl Tracker {
    /// A tracker for server port `port`.
    pub fn new(port: u16) -> Self {
        Tracker {
            port,
            live: HashMap::new(),
            conns: Vec::new(),
            frames: 0,
            frames_undecoded: 0,
            frames_cut_short: 0,
            cut_frame_len: 0,
            snap_len: 0,
            frames_other_port: 0,
            first_ts: None,
            last_ts: 0,
            keylog: None,
            evicted: 0,
            requests_unread: None,
        }
    }

    /// A tracker for server port `port` that decrypts TLS with the secrets in `keylog`.
    pub fn with_keylog(port: u16, keylog: Option<Arc<KeyLogFile>>) -> Self {
        Tracker {
            keylog,
            ..Tracker::new(port)
        }
    }

    /// Adds one frame of link type `link` captured at `ts` (µs).
    pub fn add(&mut self, link: i32, frame: &[u8], orig_len: u32, ts: u64) {
        self.frames += 1;
        let Some(p) = packet::parse(link, frame) else {
            self.frames_undecoded += 1;
            return;
        };
        // Timestamps need not be monotonic in a capture: keep the earliest.
        self.first_ts = Some(self.first_ts.map_or(ts, |f| f.min(ts)));
        self.last_ts = self.last_ts.max(ts);
        self.add_tcp(&p, frame, orig_len, ts);
    }

    fn add_tcp(&mut self, p: &TcpPacket, frame: &[u8], orig_len: u32, ts: u64) {
        let from_client = if p.dst_port == self.port {
            true
        } else if p.src_port == self.port {
            false
        } else {
            self.frames_other_port += 1;
            return;
        };
        let idx = self.conn_of(p, from_client, ts);
        let c = &mut self.conns[idx];
        c.last_ts = c.last_ts.max(ts);
        c.first_ts = c.first_ts.min(ts);
        if from_client {
            c.wire_to_server += u64::from(orig_len);
        } else {
            c.wire_from_server += u64::from(orig_len);
        }
        c.syn(p, from_client, ts);
        let end = (p.payload_offset + p.payload_len).min(frame.len());
        let data = frame.get(p.payload_offset..end).unwrap_or(&[]);
        if data.len() < p.payload_len {
            self.frames_cut_short += 1;
            self.cut_frame_len = self.cut_frame_len.max(frame.len() as u32);
            c.cut_bytes += (p.payload_len - data.len()) as u64;
        }
        if p.payload_len > 0 && p.flags & RST == 0 {
            let d = if from_client {
                c.c2s.push(p.seq, data, p.payload_len, ts)
            } else {
                c.s2c.push(p.seq, data, p.payload_len, ts)
            };
            c.deliver(from_client, d);
        }
        c.fin_or_rst(p, from_client, ts);
    }

    /// The index of the connection `p` belongs to; a new one when the packet opens one.
    fn conn_of(&mut self, p: &TcpPacket, from_client: bool, ts: u64) -> usize {
        let key: Key = if from_client {
            (p.src, p.src_port, p.dst)
        } else {
            (p.dst, p.dst_port, p.src)
        };
        let Some(i) = self.live.get(&key).copied() else {
            return self.open(key, ts, from_client, p);
        };
        let c = &self.conns[i];
        let new_conn = p.is_syn_only()
            && from_client
            && c.client_isn != Some(p.seq)
            && (c.close.is_some() || c.client_isn.is_some() || c.c2s.bytes > 0);
        if !new_conn {
            return i;
        }
        // The client port was reused for a new connection.
        self.conns[i].finish();
        self.open(key, ts, from_client, p)
    }

    fn open(&mut self, key: Key, ts: u64, from_client: bool, p: &TcpPacket) -> usize {
        let (ip, port) = if from_client {
            (p.src, p.src_port)
        } else {
            (p.dst, p.dst_port)
        };
        let id = self.conns.len();
        let mut conn = Conn::new(self.evicted + id + 1, addr(&ip, port), ts);
        conn.decrypt = self.keylog.clone().map(|k| Box::new(Decryptor::new(k)));
        self.conns.push(conn);
        self.live.insert(key, id);
        id
    }

    /// Takes out the connections `out` selects, the others kept in order (a watch that
    /// runs for days keeps only the connections still in use). Ids stay unique.
    pub fn evict(&mut self, mut out: impl FnMut(&Conn) -> bool) -> Vec<Conn> {
        let old = std::mem::take(&mut self.conns);
        let mut index = vec![None; old.len()];
        let mut taken = Vec::new();
        for (i, c) in old.into_iter().enumerate() {
            if out(&c) {
                taken.push(c);
            } else {
                index[i] = Some(self.conns.len());
                self.conns.push(c);
            }
        }
        self.evicted += taken.len();
        self.live.retain(|_, i| match index[*i] {
            Some(n) => {
                *i = n;
                true
            }
            None => false,
        });
        taken
    }

    /// Flushes every connection (end of capture).
    pub fn finish(&mut self) {
        for c in &mut self.conns {
            c.finish();
        }
        self.live.clear();
    }
}
