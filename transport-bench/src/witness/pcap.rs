//! The pcap witness: counts SYN-only packets to the Solr port with libpcap.
//!
//! The BPF filter is only `tcp port P`; SYN detection happens here on the parsed TCP
//! header, because the classic `tcp[tcpflags]` filter indexes from the IPv4 header and
//! silently misses IPv6 (libpcap #600, #1207). A SYN seen again with the same source address,
//! port and sequence number is a retransmission and counted apart. Capture drops (kernel and
//! interface) come from `pcap_stats` and are reported, never hidden.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use serde::{Deserialize, Serialize};

use super::packet::{self, TcpPacket};
use super::pcapng::PcapngWriter;

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
    /// Packets the kernel dropped (pcap_stats ps_drop).
    pub dropped: u64,
    /// Packets the interface dropped (ps_ifdrop).
    pub if_dropped: u64,
    /// Packets that were not TCP over IP or were cut short.
    pub undecoded: u64,
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

/// A running capture; [`PcapWitness::stop`] ends it and returns the count.
#[derive(Debug)]
pub struct PcapWitness {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Result<PcapCount>>>,
}

impl PcapWitness {
    /// Starts capturing `tcp port {port}` on `interface` (e.g. `lo`), optionally saving every
    /// packet to a pcapng file. Returns once the capture is open and filtering.
    pub fn start(interface: &str, port: u16, save: Option<PathBuf>) -> Result<PcapWitness> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel::<Result<()>>();
        let iface = interface.to_string();
        let stop2 = stop.clone();
        let handle = std::thread::spawn(move || capture_loop(&iface, port, save, stop2, ready_tx));
        match ready_rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(())) => Ok(PcapWitness {
                stop,
                handle: Some(handle),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(anyhow!(
                "pcap capture on {interface} did not start within 10 s"
            )),
        }
    }

    /// Stops the capture after draining what the kernel still holds, and returns the count.
    pub fn stop(mut self) -> Result<PcapCount> {
        std::thread::sleep(Duration::from_millis(100));
        self.stop.store(true, Ordering::SeqCst);
        match self.handle.take() {
            Some(h) => h.join().map_err(|_| anyhow!("pcap thread panicked"))?,
            None => Err(anyhow!("capture already stopped")),
        }
    }
}

impl Drop for PcapWitness {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn capture_loop(
    iface: &str,
    port: u16,
    save: Option<PathBuf>,
    stop: Arc<AtomicBool>,
    ready: mpsc::Sender<Result<()>>,
) -> Result<PcapCount> {
    let opened = (|| -> Result<_> {
        let mut cap = pcap::Capture::from_device(iface)
            .with_context(|| format!("no capture device {iface}"))?
            .immediate_mode(true)
            // Counting needs only the headers (lengths come from the IP header); a short
            // snaplen keeps the ring from overflowing at 100 Mbit/s and more. Saved
            // captures keep whole packets.
            .snaplen(if save.is_some() { 262_144 } else { 256 })
            .buffer_size(16 * 1024 * 1024)
            .timeout(50)
            .open()
            .with_context(|| format!("cannot capture on {iface} (needs root or CAP_NET_RAW)"))?;
        cap.filter(&format!("tcp port {port}"), true)
            .context("setting the BPF filter")?;
        // Non-blocking: a blocking read may never return on an idle interface, whatever the
        // timeout says; the loop below polls and sleeps 1 ms when nothing is queued.
        let cap = cap.setnonblock().context("non-blocking capture")?;
        Ok(cap)
    })();
    let mut cap = match opened {
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
    let mut writer = match &save {
        Some(p) => Some(PcapngWriter::new(
            std::io::BufWriter::new(
                std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
            ),
            link as u16,
            262_144,
        )?),
        None => None,
    };
    let mut tally = Tally::new(port);
    loop {
        match cap.next_packet() {
            Ok(pkt) => {
                tally.add(link, pkt.data, pkt.header.len);
                if let Some(w) = writer.as_mut() {
                    let ts = pkt.header.ts;
                    let us = (ts.tv_sec as u64) * 1_000_000 + ts.tv_usec as u64;
                    w.packet(us, pkt.data, pkt.header.len)?;
                }
            }
            Err(pcap::Error::TimeoutExpired) => {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(anyhow!("capture error: {e}")),
        }
    }
    if let Ok(s) = cap.stats() {
        tally.count.dropped = u64::from(s.dropped);
        tally.count.if_dropped = u64::from(s.if_dropped);
    }
    if let Some(w) = writer {
        w.finish()?;
    }
    Ok(tally.count)
}

/// Counts a saved capture (pcap or pcapng) for server port `port`; with `None` the server
/// port is the destination port of the first SYN-only packet in the file.
pub fn count_file(path: &Path, port: Option<u16>) -> Result<PcapCount> {
    let mut cap = pcap::Capture::from_file(path)
        .with_context(|| format!("cannot read capture {}", path.display()))?;
    let link = cap.get_datalink().0;
    let mut frames = Vec::new();
    loop {
        match cap.next_packet() {
            Ok(pkt) => frames.push((pkt.data.to_vec(), pkt.header.len)),
            Err(pcap::Error::NoMorePackets) => break,
            Err(e) => return Err(anyhow!("reading {}: {e}", path.display())),
        }
    }
    let port = match port {
        Some(p) => p,
        None => frames
            .iter()
            .filter_map(|(f, _)| packet::parse(link, f))
            .find(|p| p.is_syn_only())
            .map(|p| p.dst_port)
            .ok_or_else(|| {
                anyhow!(
                    "{}: no SYN packet to infer the server port from",
                    path.display()
                )
            })?,
    };
    let mut tally = Tally::new(port);
    for (f, len) in &frames {
        tally.add(link, f, *len);
    }
    Ok(tally.count)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
