//! `watch --serve` on packets: a live capture whose connections are harvested into the
//! aggregator as their requests complete (every 50 ms, and every 64 packets), and dropped
//! from memory 5 s (capture time) after their first FIN or RST, or after an hour without
//! a packet. Every series has only the `host` label.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::findings::Windows;
use super::harvest::{end, harvest, Cursor};
use super::http::Shared;
use super::labels::Who;
use crate::libpcap::witness::{Background, CaptureOptions, Sink};
use crate::tls::keylog::KeyLogFile;
use crate::wire::conn::{Conn, Tracker};

/// A closed connection stays this long (capture time, µs) for its last packets.
const CLOSED_KEEP_US: u64 = 5_000_000;
/// A connection without a packet for this long (µs) is dropped.
const IDLE_KEEP_US: u64 = 3_600_000_000;

/// The capture thread's side.
#[derive(Debug)]
pub struct ServeSink {
    tracker: Tracker,
    metrics: Shared,
    cursors: HashMap<usize, Cursor>,
    windows: Windows,
    who: Who,
    last: Instant,
    packets: u64,
}

impl ServeSink {
    /// A sink for server port `port`, decrypting TLS with `keylog` when given.
    pub fn new(port: u16, keylog: Option<Arc<KeyLogFile>>, metrics: Shared) -> Self {
        ServeSink {
            tracker: Tracker::with_keylog(port, keylog),
            metrics,
            cursors: HashMap::new(),
            windows: Windows::new(port),
            who: Who::host(),
            last: Instant::now(),
            packets: 0,
        }
    }

    /// Connections held (live, or closed within the last 5 s of capture time).
    pub fn connections(&self) -> usize {
        self.tracker.conns.len()
    }

    /// Requests and responses held in the connections (not yet answered, or not yet
    /// harvested).
    pub fn held_messages(&self) -> usize {
        let n = |c: &Conn| c.requests.len() + c.responses.len();
        self.tracker.conns.iter().map(n).sum()
    }

    /// Connections whose harvest state is held.
    pub fn cursors(&self) -> usize {
        self.cursors.len()
    }

    /// Takes the answered requests of every connection, and ends the connections that are
    /// done.
    pub fn harvest(&mut self) {
        self.last = Instant::now();
        let mut m = self.metrics.lock().unwrap_or_else(|e| e.into_inner());
        for c in &mut self.tracker.conns {
            let cur = self.cursors.entry(c.id).or_default();
            harvest(c, cur, &self.who, &mut m);
        }
        let now = self.tracker.last_ts;
        let done = |c: &Conn| {
            let closed = c.close.is_some_and(|(_, t)| t + CLOSED_KEEP_US <= now);
            closed || c.last_ts + IDLE_KEEP_US <= now
        };
        for mut c in self.tracker.evict(done) {
            let mut cur = self.cursors.remove(&c.id).unwrap_or_default();
            end(&mut c, &mut cur, &self.who, &mut m, "unknown");
            self.windows.ended(&self.who, c, cur.recent);
        }
        self.windows.judge(Duration::from_micros(now), &mut m);
    }

    /// The findings windows: (processes, connections) held.
    pub fn windows(&self) -> (usize, usize) {
        self.windows.held()
    }

    /// Ends every connection (the watch stops).
    pub fn end_all(&mut self) {
        self.harvest();
        let mut m = self.metrics.lock().unwrap_or_else(|e| e.into_inner());
        for mut c in self.tracker.evict(|_| true) {
            let mut cur = self.cursors.remove(&c.id).unwrap_or_default();
            end(&mut c, &mut cur, &self.who, &mut m, "unknown");
        }
    }

    /// Feeds one frame.
    pub fn frame(&mut self, link: i32, data: &[u8], wire_len: u32, ts_us: u64) {
        self.tracker.add(link, data, wire_len, ts_us);
        self.packets += 1;
        if self.packets.is_multiple_of(64) {
            self.harvest();
        }
    }
}

impl Sink for ServeSink {
    type Out = ();

    fn packet(&mut self, link: i32, data: &[u8], wire_len: u32, ts_us: u64) {
        self.frame(link, data, wire_len, ts_us);
    }

    fn idle(&mut self) {
        if self.last.elapsed() >= Duration::from_millis(50) {
            self.harvest();
        }
    }

    fn finish(mut self, _dropped: u64, _if_dropped: u64, error: Option<String>) -> Result<()> {
        self.end_all();
        match error {
            Some(e) => Err(anyhow::anyhow!(e)),
            None => Ok(()),
        }
    }
}

/// A running `watch --serve` capture; [`PcapServe::stop`] ends it.
#[derive(Debug)]
pub struct PcapServe(Background<()>);

impl PcapServe {
    /// Starts capturing `tcp port {port}` on `interface` into `metrics`.
    pub fn start(
        interface: &str,
        port: u16,
        keylog: Option<Arc<KeyLogFile>>,
        metrics: Shared,
    ) -> Result<Self> {
        let snaplen = 262_144;
        let mut sink = ServeSink::new(port, keylog, metrics);
        sink.tracker.snap_len = snaplen;
        let opts = CaptureOptions {
            snaplen: snaplen as i32,
            buffer: 32 * 1024 * 1024,
            save: None,
        };
        Background::start(interface, port, opts, sink).map(PcapServe)
    }

    /// Stops after draining what the kernel still holds; every connection ends.
    pub fn stop(self) -> Result<()> {
        self.0.stop()
    }
}
