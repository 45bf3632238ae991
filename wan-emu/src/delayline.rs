//! The delay line: a userspace forwarder between the two TUN devices.
//!
//! One reader and one writer thread per direction. The reader stamps each packet on
//! arrival and computes when it leaves: with a bandwidth cap the packet first waits for the
//! link (a token bucket one packet deep: departure = max(arrival, link free) + size / rate,
//! dropped when that backlog exceeds max(RTT, 5 ms), i.e. a drop-tail buffer of about one
//! bandwidth-delay product), then travels RTT/2 (minus half the forwarder's own round-trip
//! cost, measured at start, so that the round trip a client sees is the RTT), plus a seeded uniform jitter in
//! [-jitter, +jitter]. Release times never go backwards, so FIFO order is kept (jitter delays
//! followers rather than reordering). The writer waits until each release time (sleep, then a short yield loop) and writes
//! the packet into the other device. Every packet is delayed: SYNs, TLS handshakes, ACKs.
//!
//! Threads rather than tokio tasks: tokio's timer has millisecond granularity, too coarse
//! for RTT 2 ms; a thread sleeps to 300 µs before the release time, then yields until it.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use nix::poll::{PollFd, PollFlags, PollTimeout};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::tun::Tun;

/// How the link behaves; the same in both directions. Changeable while running.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkParams {
    /// Round-trip time; each direction holds packets RTT/2.
    pub rtt: Duration,
    /// Uniform jitter in [-jitter, +jitter] added to each one-way delay (FIFO kept).
    pub jitter: Duration,
    /// Bandwidth cap in bits per second per direction (IP bytes), None for unlimited.
    pub bandwidth_bps: Option<u64>,
}

impl LinkParams {
    /// Drop-tail limit on the link backlog, as time.
    fn queue_limit(&self) -> Duration {
        self.rtt.max(Duration::from_millis(5))
    }
}

/// The forwarder's own round-trip cost, subtracted (half per direction) from the hold
/// time, in ns.
#[derive(Debug, Default)]
struct Compensation(AtomicU64);

/// Counters of one direction.
#[derive(Debug, Default)]
struct DirCounters {
    packets: AtomicU64,
    bytes: AtomicU64,
    dropped: AtomicU64,
}

/// A snapshot of one direction's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirStats {
    /// Packets forwarded.
    pub packets: u64,
    /// IP bytes forwarded.
    pub bytes: u64,
    /// Packets dropped by the bandwidth cap's buffer.
    pub dropped: u64,
}

/// The running forwarder. Stops (threads joined) on [`DelayLine::stop`] or drop.
#[derive(Debug)]
pub struct DelayLine {
    params: Arc<Mutex<LinkParams>>,
    compensation: Arc<Compensation>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// [app -> solr, solr -> app].
    counters: [Arc<DirCounters>; 2],
}

impl DelayLine {
    /// Starts forwarding between the `app` and `solr` devices. `seed` seeds the jitter.
    pub fn start(app: Tun, solr: Tun, params: LinkParams, seed: u64) -> Result<DelayLine> {
        let params = Arc::new(Mutex::new(params));
        let compensation = Arc::new(Compensation::default());
        let stop = Arc::new(AtomicBool::new(false));
        let app = Arc::new(app);
        let solr = Arc::new(solr);
        let counters: [Arc<DirCounters>; 2] = [Arc::default(), Arc::default()];
        let mut threads = Vec::new();
        for (dir, (src, dst)) in [(app.clone(), solr.clone()), (solr, app)]
            .into_iter()
            .enumerate()
        {
            let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
            let (p, s, c) = (params.clone(), stop.clone(), counters[dir].clone());
            let comp = compensation.clone();
            let rng = StdRng::seed_from_u64(seed ^ (dir as u64).wrapping_mul(0x9E37_79B9));
            threads.push(
                std::thread::Builder::new()
                    .name(format!("wan-read-{dir}"))
                    .spawn(move || {
                        super::tun::realtime_thread();
                        reader(&src, &tx, &p, &comp, &s, &c, rng)
                    })
                    .context("cannot spawn a delay-line thread")?,
            );
            let (s, c) = (stop.clone(), counters[dir].clone());
            threads.push(
                std::thread::Builder::new()
                    .name(format!("wan-write-{dir}"))
                    .spawn(move || {
                        super::tun::realtime_thread();
                        writer(&dst, &rx, &s, &c)
                    })
                    .context("cannot spawn a delay-line thread")?,
            );
        }
        Ok(DelayLine {
            params,
            compensation,
            stop,
            threads,
            counters,
        })
    }

    /// Changes the link; packets already queued keep their release times.
    pub fn set_params(&self, p: LinkParams) {
        *self.params.lock().unwrap_or_else(|e| e.into_inner()) = p;
    }

    /// Sets the forwarder's own round-trip cost (measured at RTT 0); each direction then
    /// holds packets RTT/2 minus half of it, so the round trip a client sees is the RTT.
    pub fn set_compensation(&self, round_trip: Duration) {
        let ns = u64::try_from(round_trip.as_nanos()).unwrap_or(u64::MAX);
        self.compensation.0.store(ns, Ordering::Relaxed);
    }

    /// The compensation in use.
    pub fn compensation(&self) -> Duration {
        Duration::from_nanos(self.compensation.0.load(Ordering::Relaxed))
    }

    /// The current link.
    pub fn params(&self) -> LinkParams {
        *self.params.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counters: (app -> solr, solr -> app).
    pub fn stats(&self) -> (DirStats, DirStats) {
        let snap = |c: &DirCounters| DirStats {
            packets: c.packets.load(Ordering::Relaxed),
            bytes: c.bytes.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
        };
        (snap(&self.counters[0]), snap(&self.counters[1]))
    }

    /// Stops the threads and closes the devices (which removes them).
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for DelayLine {
    fn drop(&mut self) {
        self.stop();
    }
}

fn reader(
    src: &Tun,
    tx: &Sender<(Instant, Vec<u8>)>,
    params: &Mutex<LinkParams>,
    compensation: &Compensation,
    stop: &AtomicBool,
    counters: &DirCounters,
    mut rng: StdRng,
) {
    set_timer_slack();
    let mut buf = vec![0u8; 65_536];
    let mut link_free = Instant::now();
    let mut last_release = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let mut fds = [PollFd::new(src.file.as_fd(), PollFlags::POLLIN)];
        match nix::poll::poll(&mut fds, PollTimeout::from(100u16)) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return,
        }
        let n = match (&src.file).read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(_) => return, // device gone
        };
        let now = Instant::now();
        let p = *params.lock().unwrap_or_else(|e| e.into_inner());
        let departure = match p.bandwidth_bps {
            Some(bps) if bps > 0 => {
                let start = link_free.max(now);
                if start.duration_since(now) > p.queue_limit() {
                    counters.dropped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                link_free = start + Duration::from_nanos(n as u64 * 8 * 1_000_000_000 / bps);
                link_free
            }
            _ => now,
        };
        let comp = Duration::from_nanos(compensation.0.load(Ordering::Relaxed) / 2);
        let mut delay = (p.rtt / 2).saturating_sub(comp);
        if !p.jitter.is_zero() {
            let j = p.jitter.as_nanos() as i64;
            let d = delay.as_nanos() as i64 + rng.random_range(-j..=j);
            delay = Duration::from_nanos(d.max(0) as u64);
        }
        let release = (departure + delay).max(last_release);
        last_release = release;
        if tx.send((release, buf[..n].to_vec())).is_err() {
            return;
        }
    }
}

fn writer(dst: &Tun, rx: &Receiver<(Instant, Vec<u8>)>, stop: &AtomicBool, counters: &DirCounters) {
    set_timer_slack();
    while !stop.load(Ordering::Relaxed) {
        let (release, pkt) = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(x) => x,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        wait_until(release);
        // A failed write (e.g. the peer device is down) loses the packet, as a link would.
        if (&dst.file).write(&pkt).is_ok() {
            counters.packets.fetch_add(1, Ordering::Relaxed);
            counters
                .bytes
                .fetch_add(pkt.len() as u64, Ordering::Relaxed);
        }
    }
}

/// Sleeps until `SPIN` before `t`, then yields in a loop until `t`: a sleep alone wakes
/// 50-200 µs late on a busy VM, which is 10-20 % of RTT 2 ms.
fn wait_until(t: Instant) {
    const SPIN: Duration = Duration::from_micros(300);
    loop {
        let now = Instant::now();
        if now >= t {
            return;
        }
        let left = t - now;
        if left > SPIN {
            std::thread::sleep(left - SPIN);
        } else {
            std::thread::yield_now();
        }
    }
}

/// 1 µs timer slack for this thread (default 50 µs), so sleeps end close to release times.
fn set_timer_slack() {
    let _ = nix::sys::prctl::set_timerslack(1_000);
}
