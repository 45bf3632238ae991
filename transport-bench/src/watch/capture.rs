//! Where the packets come from: a live libpcap capture (non-blocking, like the pcap witness)
//! or a saved pcap/pcapng file. Both feed a [`Tracker`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};

use super::conn::Tracker;
use crate::witness::packet;
use crate::witness::pcapng::PcapngWriter;

/// What a capture produced: the tracker (finished), kernel drops and an early-stop error.
#[derive(Debug)]
pub struct Captured {
    /// The connections.
    pub tracker: Tracker,
    /// Packets the kernel dropped.
    pub dropped: u64,
    /// An error that ended reading early.
    pub error: Option<String>,
}

fn ts_us(ts: &libc::timeval) -> u64 {
    (ts.tv_sec.max(0) as u64) * 1_000_000 + ts.tv_usec.max(0) as u64
}

/// Reads a saved capture (pcap or pcapng). With `port` None, the server port is the
/// destination of the first SYN-only packet. A file cut short or damaged part-way is analysed
/// up to the damage and the error kept in [`Captured::error`]; a file that is not a capture at
/// all is an error.
pub fn read_file(path: &Path, port: Option<u16>) -> Result<Captured> {
    let mut cap = pcap::Capture::from_file(path).with_context(|| {
        format!(
            "cannot read capture {} (not pcap or pcapng?)",
            path.display()
        )
    })?;
    let link = cap.get_datalink().0;
    let mut frames = Vec::new();
    let mut error = None;
    loop {
        match cap.next_packet() {
            Ok(pkt) => frames.push((ts_us(&pkt.header.ts), pkt.data.to_vec(), pkt.header.len)),
            Err(pcap::Error::NoMorePackets) => break,
            Err(e) => {
                error = Some(format!(
                    "reading stopped after {} packets: {e}",
                    frames.len()
                ));
                break;
            }
        }
    }
    let port = match port {
        Some(p) => p,
        None => frames
            .iter()
            .filter_map(|(_, f, _)| packet::parse(link, f))
            .find(|p| p.is_syn_only())
            .map(|p| p.dst_port)
            .ok_or_else(|| {
                anyhow!(
                    "{}: no SYN packet to infer the Solr port from; pass --port",
                    path.display()
                )
            })?,
    };
    let mut tracker = Tracker::new(port);
    for (ts, f, len) in &frames {
        tracker.add(link, f, *len, *ts);
    }
    tracker.finish();
    Ok(Captured {
        tracker,
        dropped: 0,
        error,
    })
}

/// Running totals of a live capture, for a progress line.
#[derive(Debug, Default)]
pub struct Progress {
    /// Frames captured.
    pub frames: AtomicU64,
    /// Connections seen.
    pub connections: AtomicU64,
    /// HTTP requests parsed.
    pub requests: AtomicU64,
}

/// A running live capture; [`LiveWatch::stop`] ends it.
#[derive(Debug)]
pub struct LiveWatch {
    stop: Arc<AtomicBool>,
    progress: Arc<Progress>,
    handle: Option<JoinHandle<Result<Captured>>>,
}

impl LiveWatch {
    /// Starts capturing `tcp port {port}` on `interface`, optionally saving the packets to a
    /// pcapng file. Returns once the capture is open and filtering (needs root or
    /// CAP_NET_RAW).
    pub fn start(interface: &str, port: u16, save: Option<PathBuf>) -> Result<LiveWatch> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel::<Result<()>>();
        let iface = interface.to_string();
        let stop2 = stop.clone();
        let progress = Arc::new(Progress::default());
        let p2 = progress.clone();
        let handle = std::thread::spawn(move || run(&iface, port, save, stop2, p2, ready_tx));
        match ready_rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(())) => Ok(LiveWatch {
                stop,
                progress,
                handle: Some(handle),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(anyhow!("capture on {interface} did not start within 10 s")),
        }
    }

    /// Running totals so far.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Stops after draining what the kernel still holds; returns the finished tracker.
    pub fn stop(mut self) -> Result<Captured> {
        std::thread::sleep(Duration::from_millis(100));
        self.stop.store(true, Ordering::SeqCst);
        match self.handle.take() {
            Some(h) => h.join().map_err(|_| anyhow!("capture thread panicked"))?,
            None => Err(anyhow!("capture already stopped")),
        }
    }
}

impl Drop for LiveWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn run(
    iface: &str,
    port: u16,
    save: Option<PathBuf>,
    stop: Arc<AtomicBool>,
    progress: Arc<Progress>,
    ready: mpsc::Sender<Result<()>>,
) -> Result<Captured> {
    let opened = (|| -> Result<_> {
        let mut cap = pcap::Capture::from_device(iface)
            .with_context(|| format!("no capture device {iface}"))?
            .immediate_mode(true)
            .snaplen(262_144)
            .buffer_size(32 * 1024 * 1024)
            .timeout(50)
            .open()
            .with_context(|| format!("cannot capture on {iface} (needs root or CAP_NET_RAW)"))?;
        cap.filter(&format!("tcp port {port}"), true)
            .context("setting the BPF filter")?;
        cap.setnonblock().context("non-blocking capture")
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
    let mut tracker = Tracker::new(port);
    let mut error = None;
    loop {
        match cap.next_packet() {
            Ok(pkt) => {
                let ts = ts_us(&pkt.header.ts);
                tracker.add(link, pkt.data, pkt.header.len, ts);
                progress.frames.store(tracker.frames, Ordering::Relaxed);
                progress
                    .connections
                    .store(tracker.conns.len() as u64, Ordering::Relaxed);
                if let Some(w) = writer.as_mut() {
                    w.packet(ts, pkt.data, pkt.header.len)?;
                }
            }
            Err(pcap::Error::TimeoutExpired) => {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let reqs: usize = tracker.conns.iter().map(|c| c.requests.len()).sum();
                progress.requests.store(reqs as u64, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => {
                error = Some(format!("capture error: {e}"));
                break;
            }
        }
    }
    let dropped = cap
        .stats()
        .map(|s| u64::from(s.dropped) + u64::from(s.if_dropped))
        .unwrap_or(0);
    if let Some(w) = writer {
        w.finish()?;
    }
    tracker.finish();
    Ok(Captured {
        tracker,
        dropped,
        error,
    })
}
