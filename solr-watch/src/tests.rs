//! Tracker-level tests on packets built here: pipelining, out-of-order and retransmitted
//! segments, holes, resets, port reuse, TLS, damaged capture files, and the schema.

use std::io::Write;

use super::report::build;
use super::tls::tests::client_hello_record;
use crate::wire::conn::Tracker;
use crate::wire::packet::linktype;

pub(crate) const SRV: u16 = 8983;
const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const PSH: u8 = 0x08;
const ACK: u8 = 0x10;

/// An Ethernet/IPv4/TCP frame from 127.0.0.1:`sport` to 127.0.0.1:`dport`.
pub(crate) fn frame(sport: u16, dport: u16, seq: u32, flags: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 12];
    f.extend([0x08, 0x00]);
    let total = (40 + payload.len()) as u16;
    f.extend([0x45, 0]);
    f.extend(total.to_be_bytes());
    f.extend([0, 0, 0x40, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]);
    f.extend(sport.to_be_bytes());
    f.extend(dport.to_be_bytes());
    f.extend(seq.to_be_bytes());
    f.extend([0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    f.extend(payload);
    f
}

/// Builds a client/server exchange as frames, with timestamps.
pub(crate) struct Conv {
    pub(crate) frames: Vec<(u64, Vec<u8>)>,
    cport: u16,
    cseq: u32,
    sseq: u32,
    pub(crate) ts: u64,
}

impl Conv {
    pub(crate) fn new(cport: u16, ts: u64) -> Self {
        Conv {
            frames: Vec::new(),
            cport,
            cseq: 1000,
            sseq: 50_000,
            ts,
        }
    }
    fn tick(&mut self) -> u64 {
        self.ts += 100;
        self.ts
    }
    pub(crate) fn open(&mut self) -> &mut Self {
        let t = self.tick();
        self.frames
            .push((t, frame(self.cport, SRV, self.cseq, SYN, b"")));
        let t = self.tick();
        self.frames
            .push((t, frame(SRV, self.cport, self.sseq, SYN | ACK, b"")));
        self.cseq += 1;
        self.sseq += 1;
        let t = self.tick();
        self.frames
            .push((t, frame(self.cport, SRV, self.cseq, ACK, b"")));
        self
    }
    pub(crate) fn client(&mut self, data: &[u8]) -> Vec<u8> {
        let f = frame(self.cport, SRV, self.cseq, PSH | ACK, data);
        self.cseq += data.len() as u32;
        f
    }
    pub(crate) fn server(&mut self, data: &[u8]) -> Vec<u8> {
        let f = frame(SRV, self.cport, self.sseq, PSH | ACK, data);
        self.sseq += data.len() as u32;
        f
    }
    pub(crate) fn send(&mut self, f: Vec<u8>) -> &mut Self {
        let t = self.tick();
        self.frames.push((t, f));
        self
    }
    pub(crate) fn close(&mut self, from_client: bool) -> &mut Self {
        let f = if from_client {
            frame(self.cport, SRV, self.cseq, FIN | ACK, b"")
        } else {
            frame(SRV, self.cport, self.sseq, FIN | ACK, b"")
        };
        self.send(f)
    }
}

fn run(frames: &[(u64, Vec<u8>)]) -> super::report::WatchReport {
    let mut t = Tracker::new(SRV);
    for (ts, f) in frames {
        t.add(linktype::ETHERNET, f, f.len() as u32, *ts);
    }
    t.finish();
    build(&t, "test", 0, None)
}

/// The request figures of a report whose requests were judged.
fn reqs(r: &super::report::WatchReport) -> &super::report::RequestSummary {
    r.requests.as_ref().expect("request figures")
}

pub(crate) fn resp(qtime: u32, body_pad: usize) -> Vec<u8> {
    let body = format!(
        "{{\"responseHeader\":{{\"status\":0,\"QTime\":{qtime}}},\"pad\":\"{}\"}}",
        "x".repeat(body_pad)
    );
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

pub(crate) const GET: &[u8] = b"GET /solr/bench/select?q=*:*&wt=json HTTP/1.1\r\nHost: x\r\n\r\n";

#[test]
fn pipelined_requests_with_out_of_order_and_retransmitted_segments() {
    let mut c = Conv::new(40000, 0);
    c.open();
    // Two pipelined requests in one segment, a third split in two.
    let two = [GET, GET].concat();
    let f = c.client(&two);
    c.send(f);
    let a = c.client(&GET[..10]);
    let b = c.client(&GET[10..]);
    // Out of order: the second half first, then the first, then the first again.
    c.send(b).send(a.clone()).send(a);
    // Responses: three, the middle one's segments reordered and the first retransmitted.
    let r1 = c.server(&resp(1, 10));
    let r2 = resp(2, 3000);
    let r2a = c.server(&r2[..1500]);
    let r2b = c.server(&r2[1500..]);
    let r3 = c.server(&resp(3, 10));
    c.send(r1.clone()).send(r2b).send(r1).send(r2a).send(r3);
    c.close(true).close(false);
    let r = run(&c.frames);
    assert_eq!(r.connections.seen, 1);
    assert_eq!(r.connections.opened, 1);
    assert_eq!(reqs(&r).requests, 3);
    assert_eq!(reqs(&r).answered, 3);
    assert_eq!(reqs(&r).qtime_decoded, 3);
    let qmax = reqs(&r).qtime.max_ms.unwrap_or(0.0);
    assert!((qmax - 3.0).abs() < 0.01, "{qmax}");
    assert_eq!(r.connections.retransmitted_segments, 2);
    assert_eq!(r.connections.out_of_order_segments, 2);
    assert_eq!(r.connections.closed_by_client, 1);
    assert_eq!(r.undecodable.missing_bytes + r.undecodable.http_bytes, 0);
    assert_eq!(r.connections.max_requests_per_connection, Some(3));
    assert!(
        r.findings.iter().any(|f| f.kind == "no-gzip"),
        "{:?}",
        r.findings
    );
}

#[test]
fn one_connection_per_request_is_found_and_counted() {
    let mut frames = Vec::new();
    for i in 0..5u16 {
        let mut c = Conv::new(41000 + i, u64::from(i) * 10_000);
        c.open();
        let q = c.client(GET);
        let s = c.server(&resp(0, 5));
        c.send(q).send(s).close(i % 2 == 0).close(i % 2 == 1);
        frames.extend(c.frames);
    }
    let r = run(&frames);
    assert_eq!((r.connections.opened, reqs(&r).requests), (5, 5));
    assert_eq!(
        (
            r.connections.closed_by_client,
            r.connections.closed_by_server
        ),
        (3, 2)
    );
    assert_eq!(r.findings[0].kind, "no-reuse");
    assert!(
        r.verdict.contains("5 requests on 5 connections"),
        "{}",
        r.verdict
    );
}

#[test]
fn lost_segment_is_counted_and_parsing_stops_cleanly() {
    let mut c = Conv::new(42000, 0);
    c.open();
    let q1 = c.client(GET);
    let _lost = c.client(b"GET /solr/bench/sel");
    let q3 = c.client(b"ect HTTP/1.1\r\n\r\n");
    c.send(q1).send(q3);
    let mut reset = frame(42000, SRV, c.cseq, RST, b"");
    reset[47] = RST;
    c.send(reset);
    let r = run(&c.frames);
    assert_eq!(reqs(&r).requests, 1);
    assert_eq!(r.undecodable.missing_bytes, 19);
    assert_eq!(r.undecodable.connections_out_of_sync, 1);
    assert_eq!(r.connections.reset_by_client, 1);
    assert!(r.findings.iter().any(|f| f.kind == "undecodable"));
}

#[test]
fn tls_connection_is_connection_level_only() {
    let mut c = Conv::new(43000, 0);
    c.open();
    let ch = c.client(&client_hello_record(&[], &[]));
    c.send(ch).close(true);
    let r = run(&c.frames);
    let tls = r.tls.as_ref().expect("tls summary");
    assert_eq!((tls.connections, tls.client_hellos, tls.unknown), (1, 1, 1));
    assert_eq!(reqs(&r).requests, 0);
    assert!(r.findings.iter().any(|f| f.kind == "tls-opaque"));
}

#[test]
fn garbage_frames_never_panic() {
    let mut c = Conv::new(44000, 0);
    c.open();
    let q = c.client(GET);
    c.send(q);
    let mut frames = c.frames.clone();
    // Every prefix of every frame, plus noise.
    for (ts, f) in &c.frames {
        for cut in 0..f.len() {
            frames.push((*ts, f[..cut].to_vec()));
        }
    }
    let noise: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    for w in noise.chunks(97) {
        frames.push((1, w.to_vec()));
        let mut f = frame(44000, SRV, 7, PSH | ACK, w);
        // Noise in the TCP header (ports, sequence, offset, flags).
        f[34..54].copy_from_slice(&w[..20]);
        f[34..36].copy_from_slice(&SRV.to_be_bytes());
        frames.push((2, f));
    }
    let r = run(&frames);
    assert!(r.frames_undecoded > 0);
}

#[test]
fn reference_captures_20_connections_vs_1() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../captures");
    let fresh = super::watch_file(&dir.join("search-fresh.pcapng"), None).expect("fresh");
    let pooled = super::watch_file(&dir.join("search-pooled.pcapng"), None).expect("pooled");
    assert_eq!((fresh.connections.opened, reqs(&fresh).requests), (20, 20));
    assert_eq!((pooled.connections.opened, reqs(&pooled).requests), (1, 20));
    assert_eq!(reqs(&fresh).qtime_decoded, 20);
    assert_eq!(pooled.connections.max_requests_per_connection, Some(20));
}

#[test]
fn damaged_capture_files_are_errors_or_partial_never_panics() {
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../captures/search-pooled.pcapng");
    let bytes = std::fs::read(&src).expect("capture");
    let dir = std::env::temp_dir().join(format!("watch-damaged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = dir.join("cut.pcapng");
    let mut partial = 0;
    for cut in (0..bytes.len())
        .step_by(bytes.len() / 40 + 1)
        .chain([10, 27, 28, 100])
    {
        std::fs::File::create(&p)
            .and_then(|mut f| f.write_all(&bytes[..cut]))
            .expect("write");
        // The port of the reference capture is inferred (with a wrong one there is nothing
        // to analyse, an error).
        match super::watch_file(&p, None) {
            Ok(r) => {
                partial += 1;
                assert!(reqs(&r).requests <= 20);
            }
            Err(e) => assert!(!format!("{e:#}").is_empty()),
        }
    }
    assert!(partial > 10, "most prefixes are still readable captures");
    std::fs::write(&p, b"definitely not a capture").expect("write");
    let e = super::watch_file(&p, None).expect_err("not a capture");
    assert!(format!("{e:#}").contains("cannot read capture"), "{e:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn server_closing_as_asked_is_not_blamed_on_the_server() {
    let close = b"GET /solr/bench/select HTTP/1.1\r\nConnection: close\r\n\r\n";
    let mut frames = Vec::new();
    for (i, req) in [&close[..], &close[..], GET, GET].into_iter().enumerate() {
        let mut c = Conv::new(45000 + i as u16, i as u64 * 10_000);
        c.open();
        let q = c.client(req);
        let s = c.server(&resp(0, 5));
        c.send(q).send(s).close(false).close(true);
        frames.extend(c.frames);
    }
    let r = run(&frames);
    assert_eq!(r.connections.closed_by_server, 4);
    assert_eq!(r.connections.closed_by_server_as_asked, Some(2));
    assert_eq!(reqs(&r).close_requested, 2);
    let f = r
        .findings
        .iter()
        .find(|f| f.kind == "server-closes")
        .expect("2 of 4 unasked");
    assert!(f.what.contains("closed 2 of 4"), "{}", f.what);
    // Only the ones that asked: no server finding.
    let r = run(&frames[..frames.len() / 2]);
    assert!(
        !r.findings.iter().any(|f| f.kind == "server-closes"),
        "{:?}",
        r.findings
    );
    assert!(
        r.findings[0].what.contains("asked the server to close"),
        "{}",
        r.findings[0].what
    );
}

/// A capture cut mid-packet or with a flipped byte is named truncated or damaged
/// (file and byte offset), is analysed only up to the flaw (no 67-million-second span from
/// a flipped timestamp), and is an error when nothing before the flaw can be analysed.
#[test]
fn truncated_and_flipped_captures_are_named_with_their_offset() {
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../captures/search-pooled.pcapng");
    let bytes = std::fs::read(&src).expect("capture");
    let whole = super::watch_file(&src, None).expect("reference");
    assert_eq!(whole.capture_error, None);
    let mut reader = crate::pcap::reader::CaptureReader::new(&bytes[..]).expect("pcapng");
    let mut packets = Vec::new();
    while let Some(p) = reader.next_packet().expect("whole") {
        packets.push(p.offset);
    }
    let dir = std::env::temp_dir().join(format!("watch-flaws-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let write = |name: &str, b: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, b).expect("write");
        p
    };
    let mid = packets.len() / 2;
    let at = packets[mid] as usize;

    // Cut inside the middle packet: the half before it is analysed, the cut is named.
    let p = write("cut.pcapng", &bytes[..at + 20]);
    let r = super::watch_file(&p, None).expect("half is analysable");
    let e = r.capture_error.clone().expect("the cut is reported");
    assert!(
        e.starts_with(&format!("{} is truncated at byte {at}:", p.display())),
        "{e}"
    );
    assert_eq!(r.frames, mid as u64);
    assert!(reqs(&r).requests < reqs(&whole).requests);

    // A flipped byte in the most significant byte of a packet's timestamp.
    let mut flipped = bytes.clone();
    flipped[at + 15] ^= 0x40;
    let p = write("flipped-ts.pcapng", &flipped);
    let r = super::watch_file(&p, None).expect("half is analysable");
    let e = r.capture_error.clone().expect("the damage is reported");
    assert!(
        e.starts_with(&format!("{} is damaged at byte {at}:", p.display()))
            && e.contains("timestamp"),
        "{e}"
    );
    assert_eq!(r.frames, mid as u64);
    assert!(r.span_s <= whole.span_s, "{} > {}", r.span_s, whole.span_s);

    // A flipped byte in a block length.
    let mut flipped = bytes.clone();
    flipped[at + 4] ^= 0x04;
    let p = write("flipped-len.pcapng", &flipped);
    let r = super::watch_file(&p, None).expect("half is analysable");
    let e = r.capture_error.expect("the damage is reported");
    assert!(
        e.starts_with(&format!("{} is damaged at byte {at}:", p.display())),
        "{e}"
    );

    // Nothing analysable before the flaw: an error that says why.
    let first = packets[0] as usize;
    let p = write("cut-early.pcapng", &bytes[..first + 20]);
    let e = format!(
        "{:#}",
        super::watch_file(&p, None).expect_err("nothing to analyse")
    );
    assert!(
        e.starts_with("nothing to analyse:") && e.contains(&format!("truncated at byte {first}")),
        "{e}"
    );
    let mut flipped = bytes.clone();
    flipped[first + 15] ^= 0x40;
    let p = write("flipped-early.pcapng", &flipped);
    let e = format!(
        "{:#}",
        super::watch_file(&p, None).expect_err("nothing to analyse")
    );
    assert!(e.contains(&format!("damaged at byte {first}")), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Severities are an enum in Rust but the same strings in `watch.json`, and the
/// published schema did not change with it.
#[test]
fn severity_is_an_enum_serialised_as_before() {
    use super::report::{Finding, Severity};
    let f = Finding {
        severity: Severity::High,
        kind: "no-reuse".into(),
        what: String::new(),
        fix: String::new(),
    };
    let v = serde_json::to_value(&f).expect("json");
    assert_eq!(v["severity"], "high");
    let back: Finding =
        serde_json::from_str(r#"{"severity":"medium","kind":"k","what":"w","fix":"f"}"#)
            .expect("reads today's files");
    assert_eq!(back.severity, Severity::Medium);
    assert!(Severity::High < Severity::Medium && Severity::Medium < Severity::Info);
    let published = include_str!("../../transport-bench/schema/watch.schema.json");
    assert_eq!(super::watch_schema().trim(), published.trim());
}

/// QTimes 0 and 3 are reported as 0 and 3 (a histogram said 0.001 and
/// 3.001); wall times are exact to the microsecond of the packet timestamps.
#[test]
fn qtime_and_wall_percentiles_are_exact() {
    let mut frames = Vec::new();
    // QTimes 0, 0, 3, 0, 3 on one keep-alive connection; each response 300 µs after its
    // request (three ticks of 100 µs: request, response; the close at the end).
    let mut c = Conv::new(46000, 0);
    c.open();
    for qt in [0, 0, 3, 0, 3] {
        let q = c.client(GET);
        let s = c.server(&resp(qt, 5));
        c.send(q);
        c.tick();
        c.tick();
        c.send(s);
    }
    c.close(true);
    frames.extend(c.frames);
    let r = run(&frames);
    let q = &reqs(&r).qtime;
    assert_eq!(q.n, 5);
    assert_eq!((q.p50_ms, q.max_ms), (Some(0.0), Some(3.0)));
    assert_eq!(q.mean_ms, 6.0 / 5.0);
    let w = &reqs(&r).wall;
    assert_eq!((w.p50_ms, w.max_ms), (Some(0.3), Some(0.3)));
    let json = serde_json::to_value(&r).expect("json");
    assert_eq!(json["requests"]["qtime"]["max_ms"], 3.0);
    assert_eq!(json["requests"]["qtime"]["p50_ms"], 0.0);
    let e = &reqs(&r).endpoints[0];
    assert_eq!((e.qtime.p50_ms, e.qtime.max_ms), (Some(0.0), Some(3.0)));
}

#[test]
fn exact_percentiles_by_nearest_rank() {
    use bench_report::stats::exact_percentiles;
    let p = exact_percentiles((1..=100).map(f64::from));
    assert_eq!(
        (p.n, p.p50_ms, p.p90_ms, p.p99_ms, p.max_ms),
        (100, Some(50.0), Some(90.0), Some(99.0), Some(100.0))
    );
    let p = exact_percentiles([3.0, 0.0, -0.5]);
    assert_eq!((p.p50_ms, p.p90_ms, p.max_ms), (Some(0.0), None, Some(3.0)));
    assert_eq!(exact_percentiles([]), Default::default());
}

/// `watch_file` reads captures with the streaming reader (no libpcap); its report
/// is the one the libpcap path gave, field for field.
#[cfg(feature = "live")]
#[test]
fn streaming_reader_reports_what_the_libpcap_path_did() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../captures");
    for name in ["search-fresh.pcapng", "search-pooled.pcapng"] {
        let path = dir.join(name);
        let ours = super::watch_file(&path, None).expect("streamed");
        let (link, frames) = crate::libpcap::witness::read_with_libpcap(&path).expect("libpcap");
        let port = frames
            .iter()
            .filter_map(|(_, f, _)| crate::wire::packet::parse(link, f))
            .find(|p| p.is_syn_only())
            .map(|p| p.dst_port)
            .expect("a SYN");
        let mut t = Tracker::new(port);
        for (ts, f, len) in &frames {
            t.add(link, f, *len, *ts);
        }
        t.finish();
        let theirs = build(&t, &path.display().to_string(), 0, None);
        assert_eq!(
            serde_json::to_value(&ours).expect("json"),
            serde_json::to_value(&theirs).expect("json"),
            "{name}"
        );
    }
}

/// Writes `frames` (ts µs, whole Ethernet frame, wire length) as a pcapng file whose
/// interface has snap length `snap`, each record cut to it with its true captured length,
/// as `tcpdump -s SNAP -w` writes them.
fn write_snapped(path: &std::path::Path, frames: &[(u64, Vec<u8>, u32)], snap: usize) {
    let out = std::fs::File::create(path).expect("create");
    let mut w = crate::pcap::pcapng::PcapngWriter::new(out, 1, snap as u32).expect("header");
    for (ts, f, wire) in frames {
        w.packet(*ts, &f[..f.len().min(snap)], *wire)
            .expect("packet");
    }
    w.finish().expect("flush");
}

/// A capture taken with `tcpdump -s 96` (made here by cutting every record
/// of a capture to 96 bytes, the captured length true and the wire length kept) cannot show
/// requests. Keep-alive traffic (the reference capture of 20 searches against the real Solr
/// on one connection) must not become "1 request, 0 answered, no problem found", and
/// ab-like traffic (HTTP/1.0, the server closes as asked) must not become a false
/// `server-closes` finding: request facts are None, the verdict says why (snap length 96),
/// and only connection-level findings remain.
#[test]
fn snap_length_truncated_captures_judge_nothing_from_missing_bytes() {
    let dir = std::env::temp_dir().join(format!("watch-snap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let from_request_bytes = [
        "no-reuse",
        "reuse",
        "no-gzip",
        "server-no-gzip",
        "gzip",
        "xml-updates",
        "wt-eval",
        "server-closes",
        "outside-solr",
    ];

    // Keep-alive: the reference capture, every record cut to 96 bytes.
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../captures/search-pooled.pcapng");
    let whole = super::watch_file(&src, None).expect("reference");
    assert_eq!(reqs(&whole).requests, 20);
    let mut frames = Vec::new();
    let mut reader = crate::pcap::reader::CaptureReader::open(&src).expect("open");
    while let Some(p) = reader.next_packet().expect("whole file") {
        frames.push((p.ts_us, p.data.to_vec(), p.orig_len));
    }
    let path = dir.join("pooled-s96.pcapng");
    write_snapped(&path, &frames, 96);
    let r = super::watch_file(&path, None).expect("analysable");
    assert_eq!(r.snap_len, Some(96));
    assert!(r.frames_cut_short > 0);
    assert!(r.requests.is_none(), "{:?}", r.requests);
    let why = r.requests_unknown.as_deref().expect("why");
    assert!(why.contains("snap length (96 bytes)"), "{why}");
    assert_eq!(r.connections.with_requests, None);
    assert_eq!(r.connections.max_requests_per_connection, None);
    assert_eq!(r.connection_list[0].requests, None);
    // Connection-level facts are those of the whole capture.
    assert_eq!(r.connections.seen, whole.connections.seen);
    assert_eq!(r.connections.opened, 1);
    assert_eq!(r.frames, whole.frames);
    assert!(
        r.verdict.contains("requests cannot be judged")
            && r.verdict.contains("snap length (96 bytes)")
            && !r.verdict.ends_with("; no problem found"),
        "{}",
        r.verdict
    );
    for f in &r.findings {
        assert!(!from_request_bytes.contains(&f.kind.as_str()), "{f:?}");
    }
    assert!(r.findings.iter().any(|f| f.kind == "snap-length"));
    let json = serde_json::to_value(&r).expect("json");
    assert!(json["requests"].is_null());
    assert!(json["connections"]["with_requests"].is_null());
    let mut text = Vec::new();
    super::print_text(&r, &mut text).expect("text");
    let text = String::from_utf8(text).expect("utf8");
    assert!(text.contains("Requests: not judged:"), "{text}");

    // ab-like: 20 connections, one HTTP/1.0 request each, the server closes as asked.
    let ab = b"GET /solr/bench/select?q=*:*&wt=json HTTP/1.0\r\nHost: 127.0.0.1:8983\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n";
    let mut frames = Vec::new();
    for i in 0..20u16 {
        let mut c = Conv::new(47000 + i, 1_700_000_000_000_000 + u64::from(i) * 10_000);
        c.open();
        let q = c.client(ab);
        let s = c.server(&resp(1, 3000));
        c.send(q).send(s).close(false).close(true);
        frames.extend(c.frames.into_iter().map(|(ts, f)| {
            let n = f.len() as u32;
            (ts, f, n)
        }));
    }
    let path = dir.join("ab.pcapng");
    write_snapped(&path, &frames, 65535);
    let whole = super::watch_file(&path, None).expect("whole");
    assert_eq!(reqs(&whole).requests, 20);
    assert_eq!(whole.connections.closed_by_server_as_asked, Some(20));
    assert!(!whole.findings.iter().any(|f| f.kind == "server-closes"));
    let path = dir.join("ab-s96.pcapng");
    write_snapped(&path, &frames, 96);
    let r = super::watch_file(&path, None).expect("analysable");
    assert_eq!(r.snap_len, Some(96));
    assert!(r.requests.is_none());
    assert_eq!(r.connections.closed_by_server, 20);
    assert_eq!(r.connections.closed_by_server_as_asked, None);
    for f in &r.findings {
        assert!(!from_request_bytes.contains(&f.kind.as_str()), "{f:?}");
    }
    // The connection-level finding of the whole capture stays (20 new connections in 0.2 s).
    let kinds = |r: &super::report::WatchReport| {
        r.findings
            .iter()
            .map(|f| f.kind.clone())
            .filter(|k| k == "time-wait")
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(&r), kinds(&whole));
    assert!(
        r.verdict.contains("snap length (96 bytes)"),
        "{}",
        r.verdict
    );
    let _ = std::fs::remove_dir_all(&dir);
}

mod binary_qtime;
mod early_close;
mod h2;
mod server_first;
mod tls_decrypt;
