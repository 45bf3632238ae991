//! `Timing` against clocks outside the client: the phases are measured inside the
//! transport, so they are checked here against what cannot share their mistakes.
//!
//! 1. An `Instant` taken around each call: `total()` is a sum of consecutive intervals
//!    inside the call, so it is never more than the call, and it is most of it (the client's
//!    own work before the first phase and after the last, building the request and
//!    returning the value, is small against a request to Solr).
//! 2. The kernel's packet timestamps (libpcap on `lo`) for the very same requests: each
//!    wire interval is contained in the client's interval that must enclose it (the SYN
//!    leaves after the connect phase started; a response segment is read after it was
//!    sent), and the wire accounts for most of the client's span. The byte counts agree
//!    exactly.
//!
//! Bounds are relative only: "at most" with the clocks' resolution (pcap timestamps are
//! whole microseconds) and 0.1% for the rate difference of the realtime clock pcap stamps
//! with and the monotonic clock `Instant` reads (NTP slews at most 0.05%); "most of" as a
//! median ratio over [`N`] requests of at least [`MOST_OF_CALL`] or [`MOST_OF_SPAN`], so
//! that a few descheduled requests on a loaded 2-core machine cannot fail it.

use std::time::{Duration, Instant};

use solr_client::{Select, Timing, TransportKind};
use solr_watch::libpcap::witness::{Background, CaptureOptions, Sink};
use solr_watch::wire::packet::{self, TcpPacket};

use crate::support::{self, client, tag};

/// Requests per transport and per capture.
const N: usize = 10;

/// The median share of the call (an `Instant` around it) that `total()` must cover: the
/// client's work outside the phases is microseconds against milliseconds (0.98..0.996 was
/// measured here on a loaded machine).
const MOST_OF_CALL: f64 = 0.8;

/// The median share of the client's span that the wire's SYN -> last response segment must
/// cover: looser, as the span also holds the address lookup on the blocking pool before the
/// SYN and the reader's wake-up after the last segment (0.86..0.99 measured here).
const MOST_OF_SPAN: f64 = 0.5;

/// Documents a search returns: a response of several segments' worth.
const ROWS: usize = 100;

/// The median of `v` (not empty).
fn median(v: Vec<f64>) -> f64 {
    bench_report::stats::median(v).expect("a median of no value")
}

/// `inner <= outer`, allowing the outside clock's resolution and rate difference.
fn within(inner: Duration, outer: Duration, resolution: Duration) -> bool {
    inner <= outer + outer / 1000 + resolution
}

/// A search over `ROWS` documents of their own tag (indexed once).
async fn indexed_search() -> Select {
    let s = support::standalone();
    let t = tag("clock");
    let c = client(s.url(None).expect("url"), TransportKind::Pooled, false);
    support::index_tagged(&c, &t, ROWS).await;
    Select::new(format!("tag_s:{t}")).rows(ROWS as u64)
}

#[tokio::test]
async fn total_is_most_of_the_call_and_never_more() {
    let _g = support::shared().await;
    let q = indexed_search().await;
    let url = support::standalone().url(None).expect("url");
    for kind in TransportKind::ALL {
        for gzip in [false, true] {
            let c = client(url, kind, gzip);
            let mut ratios = Vec::new();
            for i in 0..N {
                let t0 = Instant::now();
                let r = c.select(&q).await.expect("select");
                let outside = t0.elapsed();
                assert_eq!(r.docs().len(), ROWS);
                let total = r.timing.total();
                assert!(
                    total <= outside,
                    "{kind} gzip={gzip} #{i}: total {total:?} > the call {outside:?}: {:?}",
                    r.timing
                );
                ratios.push(total.as_secs_f64() / outside.as_secs_f64());
            }
            let m = median(ratios.clone());
            eprintln!("{kind} gzip={gzip}: total/call median {m:.3} of {ratios:.3?}");
            assert!(
                m >= MOST_OF_CALL,
                "{kind} gzip={gzip}: total/call {ratios:.3?}"
            );
        }
    }
}

/// The packets of a capture, with their kernel timestamps (µs).
#[derive(Default)]
struct Packets(Vec<(u64, TcpPacket)>);

impl Sink for Packets {
    type Out = Vec<(u64, TcpPacket)>;

    fn packet(&mut self, link: i32, data: &[u8], _wire_len: u32, ts_us: u64) {
        if let Some(p) = packet::parse(link, data) {
            self.0.push((ts_us, p));
        }
    }

    fn finish(
        self,
        dropped: u64,
        if_dropped: u64,
        error: Option<String>,
    ) -> anyhow::Result<Self::Out> {
        anyhow::ensure!(error.is_none(), "capture: {error:?}");
        anyhow::ensure!(dropped + if_dropped == 0, "capture dropped packets");
        Ok(self.0)
    }
}

/// One connection as the wire saw it: timestamps (µs) and payload bytes each way.
#[derive(Debug, Default)]
struct Wire {
    syn: u64,
    syn_ack: Option<u64>,
    first_req: Option<u64>,
    first_resp: Option<u64>,
    last_resp: Option<u64>,
    bytes_out: u64,
    bytes_in: u64,
}

/// The connections to `port`, in the order of their SYNs. A segment sent again (same
/// direction and sequence number: a tail-loss probe when a loaded client acks late) counts
/// once, at its first transmission.
fn connections(packets: &[(u64, TcpPacket)], port: u16) -> Vec<Wire> {
    let mut by_port: std::collections::BTreeMap<u16, Wire> = Default::default();
    let mut sent = std::collections::HashSet::new();
    for &(ts, p) in packets {
        if p.payload_len > 0 && !sent.insert((p.src_port, p.dst_port, p.seq)) {
            continue;
        }
        let to_server = p.dst_port == port;
        let client_port = if to_server { p.src_port } else { p.dst_port };
        if to_server && p.is_syn_only() {
            by_port.insert(
                client_port,
                Wire {
                    syn: ts,
                    ..Wire::default()
                },
            );
            continue;
        }
        let Some(w) = by_port.get_mut(&client_port) else {
            continue; // a connection opened before the capture
        };
        let syn_ack = p.flags & 0x12 == 0x12;
        match (to_server, p.payload_len > 0) {
            (false, _) if syn_ack => w.syn_ack = w.syn_ack.or(Some(ts)),
            (true, true) => {
                w.first_req = w.first_req.or(Some(ts));
                w.bytes_out += p.payload_len as u64;
            }
            (false, true) => {
                w.first_resp = w.first_resp.or(Some(ts));
                w.last_resp = Some(ts);
                w.bytes_in += p.payload_len as u64;
            }
            _ => {}
        }
    }
    let mut v: Vec<Wire> = by_port.into_values().collect();
    v.sort_by_key(|w| w.syn);
    v
}

fn us(a: u64, b: Option<u64>) -> Duration {
    Duration::from_micros(b.expect("seen on the wire").saturating_sub(a))
}

/// Checks one request's phases against its connection on the wire; returns the share of
/// the client's span (start -> last byte read) that the wire's SYN -> last response
/// segment covers.
fn against_wire(i: usize, t: &Timing, w: &Wire) -> f64 {
    let res = Duration::from_micros(1);
    let connect = t.connect.expect("a fresh connection");
    let to_first_byte = t.blocked + t.connection_setup() + t.write + t.server_wait;
    let client_span = t.transport_total();
    let checks = [
        (
            "SYN -> SYN-ACK within connect",
            us(w.syn, w.syn_ack),
            connect,
        ),
        (
            "first request byte -> first response byte within write + server_wait",
            us(w.first_req.expect("a request"), w.first_resp),
            t.write + t.server_wait,
        ),
        (
            "SYN -> first response byte within start -> first byte",
            us(w.syn, w.first_resp),
            to_first_byte,
        ),
        (
            "SYN -> last response byte within start -> last byte",
            us(w.syn, w.last_resp),
            client_span,
        ),
    ];
    for (what, wire, client) in checks {
        assert!(
            within(wire, client, res),
            "#{i}: {what}: wire {wire:?}, client {client:?}; {t:?}, {w:?}"
        );
    }
    assert_eq!(
        (t.bytes_out, t.bytes_in),
        (w.bytes_out, w.bytes_in),
        "#{i}: bytes out, in"
    );
    us(w.syn, w.last_resp).as_secs_f64() / client_span.as_secs_f64()
}

#[tokio::test]
async fn phases_against_the_kernels_packet_timestamps() {
    let q = indexed_search().await;
    let url = support::standalone().url(None).expect("url");
    let port = url::Url::parse(url)
        .ok()
        .and_then(|u| u.port())
        .expect("port");
    // Alone on the node's port: every SYN of the capture is one of these requests.
    let _g = support::exclusive().await;
    let opts = CaptureOptions {
        snaplen: 256,
        buffer: 16 << 20,
        save: None,
    };
    let cap = Background::start("lo", port, opts, Packets::default())
        .expect("capture on lo (root or CAP_NET_RAW)");
    let c = client(url, TransportKind::Fresh, false);
    let mut timings = Vec::new();
    for _ in 0..N {
        timings.push(c.select(&q).await.expect("select").timing);
    }
    let packets = cap.stop().expect("capture");
    let conns = connections(&packets, port);
    assert_eq!(conns.len(), N, "one connection per request (fresh)");
    let shares: Vec<f64> = timings
        .iter()
        .zip(&conns)
        .enumerate()
        .map(|(i, (t, w))| against_wire(i, t, w))
        .collect();
    let m = median(shares.clone());
    eprintln!("wire SYN->last byte / client span: median {m:.3} of {shares:.3?}");
    assert!(
        m >= MOST_OF_SPAN,
        "the wire covers most of the client's span: {shares:.3?}"
    );
}
