//! A live capture with libpcap (the `live` feature) feeding a [`Tracker`], with running
//! totals for a progress line.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::Result;

use super::Captured;
use crate::libpcap::witness::{Background, CaptureOptions, Sink};
use crate::tls::keylog::KeyLogFile;
use crate::wire::conn::Tracker;

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

    /// [`LiveWatch::start`], decrypting TLS connections with the secrets of a key log that
    /// may still be growing (clients append to it as they connect).
    pub fn start_with_keys(
        interface: &str,
        port: u16,
        save: Option<PathBuf>,
        keylog: Option<Arc<KeyLogFile>>,
    ) -> Result<LiveWatch> {
        let progress = Arc::new(Progress::default());
        let snaplen = 262_144;
        let mut tracker = Tracker::with_keylog(port, keylog);
        tracker.snap_len = snaplen;
        let sink = Live {
            tracker,
            progress: progress.clone(),
        };
        let opts = CaptureOptions {
            snaplen: snaplen as i32,
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
