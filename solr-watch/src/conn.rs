//! Packets to connections: every TCP connection to the watched port, both directions
//! reassembled, then handed to the HTTP/1.1 parser or the TLS classifier by what the client
//! sent first. Who closed, when, and what went wrong on the way is kept per connection.

use std::collections::HashMap;

use super::http::{Message, Parser, Side};
use super::tcp::{Delivery, Reassembler};
use super::tls::TlsConn;
use crate::packet::{self, TcpPacket};

/// Application protocol of a connection, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    /// No payload seen yet.
    None,
    /// Cleartext HTTP/1.x.
    Http1,
    /// TLS.
    Tls,
    /// HTTP/2 with prior knowledge (cleartext).
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
    /// Payload bytes of a protocol this tool does not decode (TLS, HTTP/2, other).
    pub opaque_bytes: u64,
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
            requests: Vec::new(),
            responses: Vec::new(),
            is_head: Vec::new(),
            wire_to_server: 0,
            wire_from_server: 0,
            syn_retransmits: 0,
            opaque_bytes: 0,
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
                Delivery::Data(ts, bytes) => {
                    self.classify(&bytes, from_client);
                    match (self.proto, from_client) {
                        (Proto::Http1, true) => {
                            let mut out = Vec::new();
                            self.req.feed(ts, &bytes, &|_| false, &mut out);
                            self.push_requests(out);
                        }
                        (Proto::Http1, false) => {
                            let mut out = Vec::new();
                            let heads = &self.is_head;
                            self.resp.feed(
                                ts,
                                &bytes,
                                &|i| heads.get(i).copied().unwrap_or(false),
                                &mut out,
                            );
                            self.push_responses(out);
                        }
                        (Proto::Tls, true) => {
                            self.tls.client(&bytes);
                            self.opaque_bytes += bytes.len() as u64;
                        }
                        (Proto::Tls, false) => {
                            self.tls.server(&bytes);
                            self.opaque_bytes += bytes.len() as u64;
                        }
                        _ => self.opaque_bytes += bytes.len() as u64,
                    }
                }
                Delivery::Gap(n) => {
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
                        _ => self.opaque_bytes += n,
                    }
                }
            }
        }
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
        let mut out = Vec::new();
        self.req.finish(&mut out);
        self.push_requests(out);
        let mut out = Vec::new();
        self.resp.finish(&mut out);
        self.push_responses(out);
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
        let key: Key = if from_client {
            (p.src, p.src_port, p.dst)
        } else {
            (p.dst, p.dst_port, p.src)
        };
        let syn_only = p.is_syn_only();
        let idx = match self.live.get(&key).copied() {
            Some(i) => {
                let c = &self.conns[i];
                let new_conn = syn_only
                    && from_client
                    && c.client_isn != Some(p.seq)
                    && (c.close.is_some() || c.client_isn.is_some() || c.c2s.bytes > 0);
                if new_conn {
                    // The client port was reused for a new connection.
                    self.conns[i].finish();
                    self.open(key, ts, from_client, p)
                } else {
                    i
                }
            }
            None => self.open(key, ts, from_client, p),
        };
        let c = &mut self.conns[idx];
        c.last_ts = c.last_ts.max(ts);
        c.first_ts = c.first_ts.min(ts);
        if from_client {
            c.wire_to_server += u64::from(orig_len);
        } else {
            c.wire_from_server += u64::from(orig_len);
        }
        const FIN: u8 = 0x01;
        const SYN: u8 = 0x02;
        const RST: u8 = 0x04;
        if p.flags & SYN != 0 {
            if from_client && syn_only {
                if c.client_isn == Some(p.seq) {
                    c.syn_retransmits += 1;
                } else if c.client_isn.is_none() && !c.c2s.started() {
                    c.client_isn = Some(p.seq);
                    c.syn_ts = Some(ts);
                    c.c2s.syn(p.seq);
                }
            } else if !from_client {
                c.s2c.syn(p.seq);
            }
        }
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
        if c.close.is_none() {
            if p.flags & RST != 0 {
                let how = if from_client {
                    Close::ClientRst
                } else {
                    Close::ServerRst
                };
                c.close = Some((how, ts));
            } else if p.flags & FIN != 0 {
                let how = if from_client {
                    Close::ClientFin
                } else {
                    Close::ServerFin
                };
                c.close = Some((how, ts));
            }
        }
    }

    fn open(&mut self, key: Key, ts: u64, from_client: bool, p: &TcpPacket) -> usize {
        let (ip, port) = if from_client {
            (p.src, p.src_port)
        } else {
            (p.dst, p.dst_port)
        };
        let id = self.conns.len();
        self.conns.push(Conn::new(id + 1, addr(&ip, port), ts));
        self.live.insert(key, id);
        id
    }

    /// Flushes every connection (end of capture).
    pub fn finish(&mut self) {
        for c in &mut self.conns {
            c.finish();
        }
        self.live.clear();
    }
}
