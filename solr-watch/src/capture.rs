//! Where the packets come from: a live libpcap capture (the witness's [`Background`]
//! capture, feeding a [`Tracker`]) or a saved pcap/pcapng file ([`SavedCapture`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{anyhow, bail, Result};

use super::conn::Tracker;
use super::keylog::KeyLogFile;
use crate::live::{Background, CaptureOptions, SavedCapture, Sink};

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

/// Reads a saved capture (pcap or pcapng). With `port` None, the server port is the
/// destination of the first SYN-only packet. A file cut short or damaged part-way is analysed
/// up to the damage and the reason (truncated or damaged, at which byte) kept in
/// [`Captured::error`]; a file that is not a capture at all, or in which nothing before the
/// damage can be analysed (no packet, no connection to the port), is an error.
pub fn read_file(path: &Path, port: Option<u16>) -> Result<Captured> {
    read_file_with_keys(path, port, None)
}

/// [`read_file`], decrypting TLS connections with the secrets of a key log.
pub fn read_file_with_keys(
    path: &Path,
    port: Option<u16>,
    keylog: Option<Arc<KeyLogFile>>,
) -> Result<Captured> {
    let saved = SavedCapture::read(path)?;
    let damage = |what: &str| match &saved.error {
        Some(e) => format!("nothing to analyse: {e}"),
        None => format!("nothing to analyse in {}: {what}", path.display()),
    };
    if saved.frames.is_empty() {
        bail!(damage("no packets"));
    }
    let port = saved
        .server_port(port, path)
        .map_err(|e| match saved.error {
            Some(_) => anyhow!(damage(&format!("{e:#}"))),
            None => e,
        })?;
    let mut tracker = Tracker::with_keylog(port, keylog);
    for (ts, f, len) in &saved.frames {
        tracker.add(saved.link, f, *len, *ts);
    }
    tracker.finish();
    if tracker.conns.is_empty() {
        bail!(damage(&format!("no TCP connection to port {port}")));
    }
    Ok(Captured {
        tracker,
        dropped: 0,
        error: saved.error,
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
    progress: Arc<Progress>,
    capture: Background<Captured>,
}

/// The capture thread's side: the tracker and the progress counters it updates.
struct Live {
    tracker: Tracker,
    progress: Arc<Progress>,
}

impl Sink for Live {
    type Out = Captured;

    fn packet(&mut self, link: i32, data: &[u8], wire_len: u32, ts_us: u64) {
        self.tracker.add(link, data, wire_len, ts_us);
        self.progress
            .frames
            .store(self.tracker.frames, Ordering::Relaxed);
        self.progress
            .connections
            .store(self.tracker.conns.len() as u64, Ordering::Relaxed);
    }

    fn idle(&mut self) {
        let reqs: usize = self.tracker.conns.iter().map(|c| c.requests.len()).sum();
        self.progress.requests.store(reqs as u64, Ordering::Relaxed);
    }

    fn finish(mut self, dropped: u64, if_dropped: u64, error: Option<String>) -> Result<Captured> {
        self.tracker.finish();
        Ok(Captured {
            tracker: self.tracker,
            dropped: dropped + if_dropped,
            error,
        })
    }
}

impl LiveWatch {
    /// Starts capturing `tcp port {port}` on `interface`, optionally saving the packets to a
    /// pcapng file. Returns once the capture is open and filtering (needs root or
    /// CAP_NET_RAW).
    pub fn start(interface: &str, port: u16, save: Option<PathBuf>) -> Result<LiveWatch> {
        Self::start_with_keys(interface, port, save, None)
    }

    /// [`LiveWatch::start`], decrypting TLS connections with the secrets of a key log (read
    /// as the clients write it).
    pub fn start_with_keys(
        interface: &str,
        port: u16,
        save: Option<PathBuf>,
        keylog: Option<Arc<KeyLogFile>>,
    ) -> Result<LiveWatch> {
        let progress = Arc::new(Progress::default());
        let sink = Live {
            tracker: Tracker::with_keylog(port, keylog),
            progress: progress.clone(),
        };
        let opts = CaptureOptions {
            snaplen: 262_144,
            buffer: 32 * 1024 * 1024,
            save,
        };
        let capture = Background::start(interface, port, opts, sink)?;
        Ok(LiveWatch { progress, capture })
    }

    /// Running totals so far.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Stops after draining what the kernel still holds; returns the finished tracker.
    pub fn stop(self) -> Result<Captured> {
        self.capture.stop()
    }
}
