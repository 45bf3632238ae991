//! The pcap witness: counts SYN-only packets to the Solr port with libpcap.
//!
//! The BPF filter is only `tcp port P`; SYN detection happens here on the parsed TCP
//! header, because the classic `tcp[tcpflags]` filter indexes from the IPv4 header and
//! silently misses IPv6 (libpcap #600, #1207). A SYN seen again with the same source address,
//! port and sequence number is a retransmission and counted apart. Capture drops (kernel and
//! interface) come from `pcap_stats` and are reported, never hidden.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use serde::{Deserialize, Serialize};

use crate::pcap::pcapng::PcapngWriter;
use crate::wire::packet::{self, TcpPacket};

/// What the capture saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PcapCount {
    /// First SYNs (connection attempts) to the port.
    pub syns: u64,
    /// Retransmitted SYNs (same source, port and sequence), not in `syns`.
    pub syn_retransmits: u64,
    /// Of `syns`, over IPv6.
    pub syns_v6: u64,
    /// Packets captured (both directions).
    pub packets: u64,
    /// Frame bytes on the wire, client to server (link headers included).
    pub wire_bytes_to_server: u64,
    /// Frame bytes on the wire, server to client.
    pub wire_bytes_from_server: u64,
    /// TCP payload bytes client to server.
    pub payload_to_server: u64,
    /// TCP payload bytes server to client.
    pub payload_from_server: u64,
    /// TCP payload bytes server to client, each sequence number counted once (a segment
    /// retransmitted and delivered twice counts once): what the client's socket can read.
    /// Exact for connections whose SYN-ACK was captured.
    #[serde(default)]
    pub payload_from_server_unique: u64,
    /// Packets the kernel dropped (pcap_stats ps_drop); None when `pcap_stats` failed
    /// (unknown, never a silent 0).
    pub dropped: Option<u64>,
    /// Packets the interface dropped (ps_ifdrop); None when `pcap_stats` failed.
    pub if_dropped: Option<u64>,
    /// Packets that were not TCP over IP or were cut short.
    pub undecoded: u64,
}

impl PcapCount {
    /// Kernel plus interface drops; None when either is unknown.
    pub fn drops(&self) -> Option<u64> {
        Some(self.dropped? + self.if_dropped?)
    }
}

/// A TCP flow: source address and port, destination address and port.
type Flow = ([u8; 16], u16, [u8; 16], u16);

/// Tallies packets into a [`PcapCount`].
#[derive(Debug, Default)]
pub struct Tally {
    port: u16,
    seen: HashSet<([u8; 16], u16, u32)>,
    /// Per server -> client flow: the server's initial sequence number and the byte ranges
    /// seen (offsets from it, disjoint, sorted).
    ranges: HashMap<Flow, (u32, Vec<(u64, u64)>)>,
    /// The running count.
    pub count: PcapCount,
    /// `pcap_stats` failed: the count's drops stay None.
    drops_unknown: bool,
}

impl Tally {
    /// A tally for server port `port`.
    pub fn new(port: u16) -> Self {
        Tally {
            port,
            ..Default::default()
        }
    }

    /// Adds one frame of link type `link` with original length `orig_len`.
    pub fn add(&mut self, link: i32, frame: &[u8], orig_len: u32) {
        let Some(p) = packet::parse(link, frame) else {
            self.count.undecoded += 1;
            return;
        };
        self.add_tcp(&p, orig_len);
    }

    fn add_tcp(&mut self, p: &TcpPacket, orig_len: u32) {
        let c = &mut self.count;
        c.packets += 1;
        if p.dst_port == self.port {
            c.wire_bytes_to_server += u64::from(orig_len);
            c.payload_to_server += p.payload_len as u64;
            if p.is_syn_only() {
                if self.seen.insert((p.src, p.src_port, p.seq)) {
                    c.syns += 1;
                    if p.v6 {
                        c.syns_v6 += 1;
                    }
                } else {
                    c.syn_retransmits += 1;
                }
            }
        } else if p.src_port == self.port {
            c.wire_bytes_from_server += u64::from(orig_len);
            c.payload_from_server += p.payload_len as u64;
            let flow = (p.src, p.src_port, p.dst, p.dst_port);
            if p.flags & 0x02 != 0 {
                // SYN-ACK: data starts at ISN + 1.
                self.ranges.insert(flow, (p.seq, Vec::new()));
            } else if p.payload_len > 0 {
                // A flow whose SYN-ACK was not captured starts at its first data byte.
                let (isn, seen) = self
                    .ranges
                    .entry(flow)
                    .or_insert((p.seq.wrapping_sub(1), Vec::new()));
                let a = u64::from(p.seq.wrapping_sub(*isn));
                c.payload_from_server_unique += add_range(seen, a, a + p.payload_len as u64);
            }
        }
    }
}

/// Adds `[a, b)` to the sorted disjoint `ranges`; returns how many of its bytes were new.
fn add_range(ranges: &mut Vec<(u64, u64)>, a: u64, b: u64) -> u64 {
    let overlap: u64 = ranges
        .iter()
        .map(|&(x, y)| y.min(b).saturating_sub(x.max(a)))
        .sum();
    let (mut lo, mut hi) = (a, b);
    ranges.retain(|&(x, y)| {
        if y < lo || x > hi {
            true
        } else {
            lo = lo.min(x);
            hi = hi.max(y);
            false
        }
    });
    let at = ranges.partition_point(|&(x, _)| x < lo);
    ranges.insert(at, (lo, hi));
    (b - a) - overlap
}

/// What a [`Background`] capture feeds its packets to, on the capture thread.
pub trait Sink: Send + 'static {
    /// What the capture returns when stopped.
    type Out: Send + 'static;
    /// One captured frame of link type `link` (`wire_len` = its length on the wire), at
    /// `ts_us` microseconds since the epoch.
    fn packet(&mut self, link: i32, data: &[u8], wire_len: u32, ts_us: u64);
    /// Called when no packet is queued (about every millisecond while idle).
    fn idle(&mut self) {}
    /// `pcap_stats` failed when the capture ended: the drops passed to
    /// [`Sink::finish`] (0) are unknown.
    fn drops_unknown(&mut self) {}
    /// The capture ended: kernel and interface drops from `pcap_stats`, and the error that
    /// stopped it early, if any.
    fn finish(self, dropped: u64, if_dropped: u64, error: Option<String>) -> Result<Self::Out>;
}

/// How a [`Background`] capture opens its device.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// Bytes kept of each packet.
    pub snaplen: i32,
    /// Kernel ring size, bytes.
    pub buffer: i32,
    /// Also write every packet (whole, up to `snaplen`) to this pcapng file.
    pub save: Option<PathBuf>,
}

/// A capture of `tcp port P` running on its own thread, feeding a [`Sink`];
/// [`Background::stop`] ends it and returns what the sink made.
#[derive(Debug)]
pub struct Background<O> {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Result<O>>>,
}

impl<O: Send + 'static> Background<O> {
    /// Starts capturing `tcp port {port}` on `interface`. Returns once the capture is open
    /// and filtering (needs root or CAP_NET_RAW).
    pub fn start<S: Sink<Out = O>>(
        interface: &str,
        port: u16,
        opts: CaptureOptions,
        sink: S,
    ) -> Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel::<Result<()>>();
        let iface = interface.to_string();
        let stop2 = stop.clone();
        let handle =
            std::thread::spawn(move || capture_loop(&iface, port, opts, stop2, ready_tx, sink));
        match ready_rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(())) => Ok(Background {
                stop,
                handle: Some(handle),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(anyhow!(
                "pcap capture on {interface} did not start within 10 s"
            )),
        }
    }

    /// Stops the capture after draining what the kernel still holds.
    pub fn stop(mut self) -> Result<O> {
        std::thread::sleep(Duration::from_millis(100));
        self.stop.store(true, Ordering::SeqCst);
        match self.handle.take() {
            Some(h) => h.join().map_err(|_| anyhow!("capture thread panicked"))?,
            None => Err(anyhow!("capture already stopped")),
        }
    }
}

impl<O> Drop for Background<O> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Microseconds since the epoch of a pcap timestamp.
pub fn ts_us(ts: &libc::timeval) -> u64 {
    (ts.tv_sec.max(0) as u64) * 1_000_000 + ts.tv_usec.max(0) as u64
}

fn capture_loop<S: Sink>(
    iface: &str,
    port: u16,
    opts: CaptureOptions,
    stop: Arc<AtomicBool>,
    ready: mpsc::Sender<Result<()>>,
    mut sink: S,
) -> Result<S::Out> {
    let mut cap = match open(iface, port, &opts) {
        Ok(c) => {
            let _ = ready.send(Ok(()));
            c
        }
        Err(e) => {
            let msg = format!("{e:#}");
            let _ = ready.send(Err(e));
            return Err(anyhow!(msg));
        }
    };
    let link = cap.get_datalink().0;
    let mut writer = match &opts.save {
        Some(p) => Some(PcapngWriter::new(
            std::io::BufWriter::new(
                std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
            ),
            link as u16,
            opts.snaplen.max(0) as u32,
        )?),
        None => None,
    };
    let error = pump(&mut cap, link, &stop, &mut sink, writer.as_mut())?;
    let (dropped, if_dropped) = match cap.stats() {
        Ok(s) => (u64::from(s.dropped), u64::from(s.if_dropped)),
        Err(_) => {
            sink.drops_unknown();
            (0, 0)
        }
    };
    if let Some(w) = writer {
        w.finish()?;
    }
    sink.finish(dropped, if_dropped, error)
}

/// Opens a non-blocking capture of `tcp port {port}` on `iface`.
fn open(iface: &str, port: u16, opts: &CaptureOptions) -> Result<pcap::Capture<pcap::Active>> {
    let mut cap = pcap::Capture::from_device(iface)
        .with_context(|| format!("no capture device {iface}"))?
        .immediate_mode(true)
        .snaplen(opts.snaplen)
        .buffer_size(opts.buffer)
        .timeout(50)
        .open()
        .with_context(|| format!("cannot capture on {iface} (needs root or CAP_NET_RAW)"))?;
    cap.filter(&format!("tcp port {port}"), true)
        .context("setting the BPF filter")?;
    // Non-blocking: a blocking read may never return on an idle interface, whatever the
    // timeout says; the loop in `pump` polls and sleeps 1 ms when nothing is queued.
    let cap = cap.setnonblock().context("non-blocking capture")?;
    Ok(cap)
}

/// Hands every packet to `sink` (and `writer`) until `stop`; the capture error that ended
/// it early, if one did.
fn pump<S: Sink, W: std::io::Write>(
    cap: &mut pcap::Capture<pcap::Active>,
    link: i32,
    stop: &AtomicBool,
    sink: &mut S,
    mut writer: Option<&mut PcapngWriter<W>>,
) -> Result<Option<String>> {
    loop {
        match cap.next_packet() {
            Ok(pkt) => {
                let ts = ts_us(&pkt.header.ts);
                sink.packet(link, pkt.data, pkt.header.len, ts);
                if let Some(w) = writer.as_mut() {
                    w.packet(ts, pkt.data, pkt.header.len)?;
                }
            }
            Err(pcap::Error::TimeoutExpired) => {
                if stop.load(Ordering::SeqCst) {
                    return Ok(None);
                }
                sink.idle();
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Ok(Some(format!("capture error: {e}"))),
        }
    }
}

impl Sink for Tally {
    type Out = PcapCount;

    fn packet(&mut self, link: i32, data: &[u8], wire_len: u32, _ts_us: u64) {
        self.add(link, data, wire_len);
    }

    fn drops_unknown(&mut self) {
        self.drops_unknown = true;
    }

    fn finish(mut self, dropped: u64, if_dropped: u64, error: Option<String>) -> Result<PcapCount> {
        if let Some(e) = error {
            return Err(anyhow!(e));
        }
        if !self.drops_unknown {
            self.count.dropped = Some(dropped);
            self.count.if_dropped = Some(if_dropped);
        }
        Ok(self.count)
    }
}

/// A running pcap witness; [`PcapWitness::stop`] ends it and returns the count.
#[derive(Debug)]
pub struct PcapWitness(Background<PcapCount>);

impl PcapWitness {
    /// Starts capturing `tcp port {port}` on `interface` (e.g. `lo`), optionally saving every
    /// packet to a pcapng file. Returns once the capture is open and filtering.
    pub fn start(interface: &str, port: u16, save: Option<PathBuf>) -> Result<PcapWitness> {
        let opts = CaptureOptions {
            // Counting needs only the headers (lengths come from the IP header); a short
            // snaplen keeps the ring from overflowing at 100 Mbit/s and more. Saved
            // captures keep whole packets.
            snaplen: if save.is_some() { 262_144 } else { 256 },
            buffer: 16 * 1024 * 1024,
            save,
        };
        Background::start(interface, port, opts, Tally::new(port)).map(PcapWitness)
    }

    /// Stops the capture after draining what the kernel still holds, and returns the count.
    pub fn stop(self) -> Result<PcapCount> {
        self.0.stop()
    }
}

/// A frame of a saved capture: timestamp µs, frame bytes, length on the wire.
#[cfg(test)]
pub(crate) type Frame = (u64, Vec<u8>, u32);

/// The link type and every frame libpcap reads from a saved capture: the independent
/// reader the streaming one ([`crate::pcap::reader`]) is checked against in tests.
#[cfg(test)]
pub(crate) fn read_with_libpcap(path: &std::path::Path) -> Result<(i32, Vec<Frame>)> {
    let mut cap = pcap::Capture::from_file(path)
        .with_context(|| format!("cannot read capture {}", path.display()))?;
    let link = cap.get_datalink().0;
    let mut frames = Vec::new();
    loop {
        match cap.next_packet() {
            Ok(pkt) => frames.push((ts_us(&pkt.header.ts), pkt.data.to_vec(), pkt.header.len)),
            Err(pcap::Error::NoMorePackets) => return Ok((link, frames)),
            Err(e) => anyhow::bail!("libpcap stopped after {} packets: {e}", frames.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pcap::reader::tests::{pcap_file, pcapng_section, read_all, reference};

    /// Drops that `pcap_stats` could not report are unknown, not 0.
    #[test]
    fn drops_that_cannot_be_read_are_unknown() {
        let mut t = Tally::new(8983);
        Sink::drops_unknown(&mut t);
        let c = Sink::finish(t, 0, 0, None).expect("count");
        assert_eq!((c.dropped, c.if_dropped, c.drops()), (None, None, None));
        let c = Sink::finish(Tally::new(8983), 2, 1, None).expect("count");
        assert_eq!(
            (c.dropped, c.if_dropped, c.drops()),
            (Some(2), Some(1), Some(3))
        );
    }

    fn seg(seq: u32, len: usize, flags: u8) -> TcpPacket {
        TcpPacket {
            src: [2; 16],
            dst: [1; 16],
            src_port: 80,
            dst_port: 40000,
            seq,
            flags,
            payload_len: len,
            payload_offset: 0,
            v6: false,
        }
    }

    #[test]
    fn unique_payload_counts_each_byte_once() {
        let mut t = Tally::new(80);
        t.add_tcp(&seg(1000, 0, 0x12), 60); // SYN-ACK, data from 1001
        t.add_tcp(&seg(1001, 100, 0x10), 160);
        t.add_tcp(&seg(1201, 100, 0x10), 160); // 1101..1201 lost, this arrives first
        t.add_tcp(&seg(1001, 100, 0x10), 160); // spurious retransmission
        t.add_tcp(&seg(1101, 100, 0x10), 160); // the lost one, retransmitted
        t.add_tcp(&seg(1251, 100, 0x10), 160); // half overlapping
        assert_eq!(t.count.payload_from_server, 500);
        assert_eq!(t.count.payload_from_server_unique, 350);
        // Wrapping sequence numbers.
        let mut t = Tally::new(80);
        t.add_tcp(&seg(u32::MAX - 10, 0, 0x12), 60);
        t.add_tcp(&seg(u32::MAX - 9, 100, 0x10), 160);
        t.add_tcp(&seg(90, 10, 0x10), 70);
        assert_eq!(t.count.payload_from_server_unique, 110);
    }

    /// The streaming pcap reader's packets are those libpcap reads, byte for byte.
    #[test]
    fn same_packets_as_libpcap() {
        let dir = std::env::temp_dir().join(format!("watch-reader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let (ng, _) = read_all(&reference("search-fresh.pcapng"));
        let mut files = vec![
            ("fresh.pcapng".to_string(), reference("search-fresh.pcapng")),
            (
                "pooled.pcapng".to_string(),
                reference("search-pooled.pcapng"),
            ),
        ];
        for le in [true, false] {
            for nanos in [false, true] {
                files.push((
                    format!("{le}-{nanos}.pcap"),
                    pcap_file(&ng, le, nanos, 1, 65535),
                ));
            }
        }
        let ts0 = ng[0].2;
        let ns: Vec<(u32, u64, u32, Vec<u8>)> = ng
            .iter()
            .map(|p| (0, p.2 * 1000 + 5, p.3, p.5.clone()))
            .collect();
        files.push((
            "ns-be.pcapng".into(),
            pcapng_section(false, &[(1, 0, Some(9))], &ns),
        ));
        for (name, bytes) in files {
            let p = dir.join(&name);
            std::fs::write(&p, &bytes).expect("write");
            let (link, frames) = read_with_libpcap(&p).expect("libpcap reads it");
            let (ours, err) = read_all(&bytes);
            assert!(err.is_none(), "{name}: {err:?}");
            let ours: Vec<(u64, Vec<u8>, u32)> =
                ours.into_iter().map(|p| (p.2, p.5, p.3)).collect();
            assert_eq!(ours, frames, "{name}");
            assert_eq!(link, 1);
            assert!(ours[0].0 >= ts0);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
