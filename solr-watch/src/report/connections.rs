//! Connection figures of a finished [`Tracker`]: the [`ConnectionSummary`], the TLS and
//! HTTP/2 summaries, what could not be decoded and one [`ConnectionRecord`] a connection.

use std::collections::BTreeMap;

use super::wire::{asks_close, close_name, ms, proto_name};
use super::{ConnectionRecord, ConnectionSummary, TlsSummary, Undecodable};
use crate::tls::decrypt::TlsDecryption;
use crate::tls::Handshake;
use crate::wire::conn::{Close, Conn, Proto, Tracker};
use crate::wire::http2::Http2Summary;
use bench_report::stats::exact_percentiles;

/// What TLS leaves visible, when no key log decrypted it.
const TLS_NOTE: &str = "TLS hides requests: only connections, handshakes, bytes and timing are \
    visible; capture the cleartext side (e.g. behind the TLS terminator) for request-level detail";

/// Frames cut by the snap length hide request heads and bodies: on such a connection the
/// requests, their answers and everything read from them are unknown.
pub(super) fn cut(c: &Conn) -> bool {
    c.cut_bytes > 0 && c.proto != Proto::Tls
}

/// The connection-level parts of a report.
pub(super) struct ConnectionFigures {
    /// Connection figures.
    pub connections: ConnectionSummary,
    /// What could not be decoded (QTime still to be added from the requests).
    pub undecodable: Undecodable,
    /// TLS figures (meaningful when `connections > 0`).
    pub tls: TlsSummary,
    /// HTTP/2 figures (meaningful when `connections > 0`).
    pub http2: Http2Summary,
    /// One record a connection.
    pub list: Vec<ConnectionRecord>,
}

/// The figures while connections are added one by one.
struct Tally {
    out: ConnectionFigures,
    t0: u64,
    requests_known: bool,
    lifetimes: Vec<f64>,
    gaps: Vec<f64>,
    opened_secs: BTreeMap<u64, u64>,
    decryption: Option<TlsDecryption>,
    tls_life: Vec<f64>,
    requests: u64,
    with_requests: u64,
    max_requests: u64,
    as_asked: u64,
}

/// Connection figures of `t`; `requests_known` is false when frames were cut by the snap
/// length (request-level counts are then left unknown).
pub(super) fn connection_figures(
    t: &Tracker,
    requests_known: bool,
    span_s: f64,
) -> ConnectionFigures {
    let mut tally = Tally::new(t, requests_known);
    for c in &t.conns {
        tally.add(c);
    }
    tally.finish(t, span_s)
}

impl Tally {
    fn new(t: &Tracker, requests_known: bool) -> Self {
        Tally {
            out: ConnectionFigures {
                connections: ConnectionSummary {
                    seen: t.conns.len() as u64,
                    ..Default::default()
                },
                undecodable: Undecodable::default(),
                tls: TlsSummary {
                    note: TLS_NOTE.into(),
                    ..Default::default()
                },
                http2: Http2Summary::default(),
                list: Vec::new(),
            },
            t0: t.first_ts.unwrap_or(0),
            requests_known,
            lifetimes: Vec::new(),
            gaps: Vec::new(),
            opened_secs: BTreeMap::new(),
            decryption: t.keylog.as_ref().map(|k| TlsDecryption::new(&k.stats())),
            tls_life: Vec::new(),
            requests: 0,
            with_requests: 0,
            max_requests: 0,
            as_asked: 0,
        }
    }

    fn add(&mut self, c: &Conn) {
        let handshake = self.add_protocol(c);
        self.add_open_close(c);
        let max_idle = self.add_requests(c);
        add_undecodable(&mut self.out.undecodable, c);
        if let Some(h) = &c.h2 {
            self.out.http2.add(h.facts());
        }
        let record = self.record(c, max_idle, handshake);
        self.out.list.push(record);
    }

    /// Counts the protocol; for TLS, the handshake.
    fn add_protocol(&mut self, c: &Conn) -> Option<Handshake> {
        let cs = &mut self.out.connections;
        match c.proto {
            Proto::Http1 => cs.http1 += 1,
            Proto::Tls => {
                cs.tls += 1;
                return Some(self.add_tls(c));
            }
            Proto::Http2 => cs.http2 += 1,
            Proto::Other => cs.other += 1,
            Proto::None => cs.empty += 1,
        }
        None
    }

    fn add_tls(&mut self, c: &Conn) -> Handshake {
        let tls = &mut self.out.tls;
        let f = c.tls.facts();
        tls.connections += 1;
        tls.client_hellos += u64::from(f.client_hello);
        tls.offered_ticket += u64::from(f.offered_ticket);
        tls.offered_psk += u64::from(f.offered_psk);
        tls.tls13 += u64::from(f.version == 0x0304);
        let h = f.handshake();
        match h {
            Handshake::Full => tls.full += 1,
            Handshake::Resumed => tls.resumed += 1,
            Handshake::Unknown => tls.unknown += 1,
        }
        tls.bytes_to_server += c.wire_to_server;
        tls.bytes_from_server += c.wire_from_server;
        if c.close.is_some() {
            self.tls_life.push(ms(c.last_ts.saturating_sub(c.first_ts)));
        }
        if let (Some(sum), Some(d)) = (self.decryption.as_mut(), c.decrypt.as_ref()) {
            sum.add(d.stats());
        }
        h
    }

    /// Counts how the connection opened and ended, and its lifetime.
    fn add_open_close(&mut self, c: &Conn) {
        let cs = &mut self.out.connections;
        if let Some(ts) = c.syn_ts {
            cs.opened += 1;
            *self
                .opened_secs
                .entry(ts.saturating_sub(self.t0) / 1_000_000)
                .or_default() += 1;
        } else {
            cs.already_open += 1;
        }
        cs.syn_retransmits += c.syn_retransmits;
        cs.retransmitted_segments += c.c2s.retransmitted + c.s2c.retransmitted;
        cs.out_of_order_segments += c.c2s.out_of_order + c.s2c.out_of_order;
        match c.close.map(|x| x.0) {
            Some(Close::ClientFin) => cs.closed_by_client += 1,
            Some(Close::ServerFin) => {
                cs.closed_by_server += 1;
                if c.requests.last().is_some_and(asks_close) {
                    self.as_asked += 1;
                }
            }
            Some(Close::ClientRst) => cs.reset_by_client += 1,
            Some(Close::ServerRst) => cs.reset_by_server += 1,
            None => cs.still_open += 1,
        }
        if c.close.is_some() && c.syn_ts.is_some() {
            self.lifetimes
                .push(ms(c.last_ts.saturating_sub(c.first_ts)));
        }
    }

    /// Counts the requests and the idle gaps between them; the longest gap.
    fn add_requests(&mut self, c: &Conn) -> Option<f64> {
        let n = c.requests.len() as u64;
        self.requests += n;
        if n > 0 {
            self.with_requests += 1;
            self.max_requests = self.max_requests.max(n);
        }
        let mut max_idle: Option<f64> = None;
        let judged = if self.requests_known {
            c.requests.len()
        } else {
            0
        };
        for i in 1..judged {
            if let Some(prev) = c.responses.get(i - 1) {
                let g = ms(c.requests[i].first_ts.saturating_sub(prev.last_ts));
                self.gaps.push(g);
                max_idle = Some(max_idle.map_or(g, |m: f64| m.max(g)));
            }
        }
        max_idle
    }

    fn record(
        &self,
        c: &Conn,
        max_idle: Option<f64>,
        handshake: Option<Handshake>,
    ) -> ConnectionRecord {
        let t0 = self.t0;
        let known = (!cut(c)).then_some(c.requests.len() as u64);
        ConnectionRecord {
            id: c.id,
            client: c.client.clone(),
            protocol: c
                .h2
                .as_ref()
                .map_or(proto_name(c.proto), |h| h.facts().start.as_str())
                .into(),
            opened_in_capture: c.syn_ts.is_some(),
            start_ms: ms(c.first_ts.saturating_sub(t0)),
            end_ms: ms(c.last_ts.saturating_sub(t0)),
            requests: known,
            request_starts_ms: c
                .requests
                .iter()
                .filter(|_| known.is_some())
                .map(|q| ms(q.first_ts.saturating_sub(t0)))
                .collect(),
            bytes_to_server: c.wire_to_server,
            bytes_from_server: c.wire_from_server,
            closed_by: close_name(c.close.map(|x| x.0)).into(),
            max_idle_ms: max_idle,
            handshake,
            h2: c.h2.as_ref().map(|h| h.facts().clone()),
        }
    }

    fn finish(mut self, t: &Tracker, span_s: f64) -> ConnectionFigures {
        let cs = &mut self.out.connections;
        if self.requests_known {
            cs.with_requests = Some(self.with_requests);
            cs.max_requests_per_connection = Some(self.max_requests);
            cs.closed_by_server_as_asked = Some(self.as_asked);
            cs.requests_per_connection = Some(if self.with_requests > 0 {
                self.requests as f64 / self.with_requests as f64
            } else {
                0.0
            });
        }
        cs.lifetime = exact_percentiles(self.lifetimes);
        cs.idle_gap = exact_percentiles(self.gaps);
        cs.new_per_second = if span_s >= 1.0 {
            cs.opened as f64 / span_s
        } else {
            cs.opened as f64
        };
        cs.new_per_second_peak = self.opened_secs.values().copied().max().unwrap_or(0);
        cs.time_wait_estimate = (cs.new_per_second * 60.0).round() as u64;
        cs.time_wait_at_end = time_wait_at_end(t);
        let tls = &mut self.out.tls;
        tls.lifetime = exact_percentiles(self.tls_life);
        if let Some(d) = &self.decryption {
            tls.note = super::tls::note(d);
        }
        tls.decryption = self.decryption;
        self.out
    }
}

/// Connections closed with a FIN in the last 60 s of the capture.
fn time_wait_at_end(t: &Tracker) -> u64 {
    t.conns
        .iter()
        .filter(|c| {
            matches!(c.close, Some((Close::ClientFin | Close::ServerFin, ts)) if t.last_ts.saturating_sub(ts) < 60_000_000)
        })
        .count() as u64
}

/// Adds what `c` left undecoded, and why.
fn add_undecodable(und: &mut Undecodable, c: &Conn) {
    und.missing_bytes += c.c2s.gap_bytes + c.s2c.gap_bytes;
    und.http_bytes += c.req.undecoded_bytes + c.resp.undecoded_bytes;
    und.opaque_bytes += c.opaque_bytes;
    und.incomplete_messages += c.requests.iter().filter(|m| m.incomplete).count() as u64
        + c.responses.iter().filter(|m| m.incomplete).count() as u64;
    let lost: Vec<&String> = [&c.req.lost, &c.resp.lost].into_iter().flatten().collect();
    if !lost.is_empty() && c.proto == Proto::Http1 {
        und.connections_out_of_sync += 1;
    }
    for why in lost {
        *und.reasons.entry(why.clone()).or_default() += 1;
    }
    if let Some(h) = &c.h2 {
        und.http_bytes += h.undecoded_bytes();
        if !h.facts().lost.is_empty() {
            und.connections_out_of_sync += 1;
        }
        for why in &h.facts().lost {
            *und.reasons.entry(why.clone()).or_default() += 1;
        }
    }
    if c.proto == Proto::Other {
        *und.reasons.entry("unknown protocol".into()).or_default() += 1;
    }
}
