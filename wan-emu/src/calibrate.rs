//! Calibration: does the topology deliver the RTT and bandwidth it was asked for?
//!
//! - Connect time: a TCP connect from the `app` namespace to the proxy's address completes
//!   after SYN -> SYN-ACK, one round trip. The median of several samples over the RTT
//!   should be 1.
//! - Bandwidth: a bulk source in the `solr` namespace (an iperf-like sender, not a Solr
//!   stand-in) sends N bytes; the client measures goodput (TCP payload) over the last 80 %
//!   of them, past slow start, as the median of its 100 ms bins (see [`binned_goodput`]).
//!   Goodput is at most ~96.5 % of the IP-level cap (1448 payload bytes per 1500-byte
//!   packet with TCP timestamps).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What the calibration measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Requested RTT, ms.
    pub rtt_ms: f64,
    /// Connect samples.
    pub connect_samples: usize,
    /// Median TCP connect time, ms.
    pub connect_p50_ms: f64,
    /// The forwarder's own round trip measured at start and subtracted from the hold
    /// time, ms.
    pub compensation_ms: f64,
    /// Median connect time over the RTT (None at RTT 0).
    pub connect_ratio: Option<f64>,
    /// Requested cap, bit/s.
    pub bandwidth_bps: Option<u64>,
    /// Measured goodput, bit/s (when a cap was set).
    pub goodput_bps: Option<f64>,
    /// Goodput over the cap.
    pub bandwidth_ratio: Option<f64>,
}

impl std::fmt::Display for Calibration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TCP connect p50 {:.2} ms at RTT {} ms",
            self.connect_p50_ms, self.rtt_ms
        )?;
        if let Some(r) = self.connect_ratio {
            write!(
                f,
                " (ratio {r:.3}, {} samples; forwarder's own {:.3} ms compensated)",
                self.connect_samples, self.compensation_ms
            )?;
        }
        if let (Some(cap), Some(g), Some(r)) =
            (self.bandwidth_bps, self.goodput_bps, self.bandwidth_ratio)
        {
            write!(
                f,
                "; bulk goodput {:.1} Mbit/s under a {:.1} Mbit/s cap (ratio {r:.3})",
                g / 1e6,
                cap as f64 / 1e6
            )?;
        }
        Ok(())
    }
}

/// The median of `v` (0 for an empty list).
pub fn median(v: Vec<Duration>) -> Duration {
    bench_report::stats::median_duration(v).unwrap_or_default()
}

/// `n` blocking TCP connect times to `addr`, from the calling thread's namespace.
pub fn connect_times(addr: SocketAddr, n: usize) -> Result<Vec<Duration>> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        let s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
            .with_context(|| format!("calibration connect to {addr}"))?;
        out.push(t0.elapsed());
        drop(s);
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(out)
}

/// Serves bulk transfers on `listener` (in the `solr` namespace): each connection sends an
/// 8-byte little-endian length, receives that many bytes, then EOF.
pub fn spawn_bulk_source(listener: std::net::TcpListener) -> Result<tokio::task::JoinHandle<()>> {
    let listener = tokio::net::TcpListener::from_std(listener).context("bulk listener")?;
    Ok(tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(async move {
                let mut len = [0u8; 8];
                if sock.read_exact(&mut len).await.is_err() {
                    return;
                }
                let mut left = u64::from_le_bytes(len);
                let chunk = vec![0u8; 64 * 1024];
                while left > 0 {
                    let n = left.min(chunk.len() as u64) as usize;
                    if sock.write_all(&chunk[..n]).await.is_err() {
                        return;
                    }
                    left -= n as u64;
                }
                let _ = sock.shutdown().await;
            });
        }
    }))
}

/// Receives `bytes` from the bulk source at `addr` (blocking, from the calling thread's
/// namespace) and returns the goodput in bit/s over the last 80 % of the bytes, as the
/// median of 100 ms bins ([`binned_goodput`]).
pub fn bulk_goodput(addr: SocketAddr, bytes: u64) -> Result<f64> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .with_context(|| format!("bulk connect to {addr}"))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    s.write_all(&bytes.to_le_bytes())?;
    let mut buf = vec![0u8; 256 * 1024];
    let mut got = 0u64;
    let skip = bytes / 5;
    // (time, bytes) of every read past slow start.
    let mut reads: Vec<(Instant, u64)> = Vec::with_capacity(16_384);
    loop {
        let n = s.read(&mut buf).context("bulk read")?;
        if n == 0 {
            break;
        }
        got += n as u64;
        if got >= skip {
            reads.push((Instant::now(), n as u64));
        }
    }
    anyhow::ensure!(
        got == bytes,
        "bulk transfer ended after {got} of {bytes} bytes"
    );
    binned_goodput(&reads, BIN).context("bulk transfer too short to measure")
}

/// Bin width of [`binned_goodput`].
const BIN: Duration = Duration::from_millis(100);

/// Goodput in bit/s from timed reads `(when, bytes)`: the bytes read in each full `bin` after
/// the first read, as a rate, and the median of those rates (None with no full bin).
///
/// The median, not bytes over elapsed time: a stall of the delay line (a VM pause, a
/// descheduled forwarder) holds packets back and then releases them at once; a window that
/// starts inside such a burst counts its bytes in no time, which once read 112.7 Mbit/s under
/// a 100 Mbit/s cap. A stall only makes outlier bins (empty ones, then one burst).
pub fn binned_goodput(reads: &[(Instant, u64)], bin: Duration) -> Option<f64> {
    let (&(t0, _), rest) = reads.split_first()?;
    let end = reads.last()?.0;
    let full = (end.duration_since(t0).as_nanos() / bin.as_nanos().max(1)) as usize;
    if full == 0 {
        return None;
    }
    let mut bins = vec![0u64; full];
    for &(t, n) in rest {
        let i = (t.duration_since(t0).as_nanos() / bin.as_nanos().max(1)) as usize;
        if let Some(b) = bins.get_mut(i) {
            *b += n;
        }
    }
    let rates: Vec<f64> = bins
        .iter()
        .map(|&b| b as f64 * 8.0 / bin.as_secs_f64())
        .collect();
    bench_report::stats::median(rates)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads of `n` bytes every `every`, starting at `t0`, for `count` reads.
    fn steady(t0: Instant, every: Duration, n: u64, count: u32) -> Vec<(Instant, u64)> {
        (0..count).map(|i| (t0 + every * i, n)).collect()
    }

    #[test]
    fn steady_stream_reads_at_its_rate() {
        // 1448 bytes every 120 µs = 96.53 Mbit/s, for 1.2 s.
        let reads = steady(Instant::now(), Duration::from_micros(120), 1448, 10_000);
        let g = binned_goodput(&reads, BIN).expect("bins");
        assert!((g / 96.533e6 - 1.0).abs() < 0.01, "{g}");
    }

    #[test]
    fn a_stall_and_its_burst_do_not_inflate_the_rate() {
        // The same stream, but nothing arrives for 150 ms and then the backlog at once.
        let t0 = Instant::now();
        let every = Duration::from_micros(120);
        let mut reads = Vec::new();
        let (stall_from, stall_to) = (Duration::from_millis(50), Duration::from_millis(200));
        let mut backlog = 0;
        for i in 0..10_000u32 {
            let t = every * i;
            if t >= stall_from && t < stall_to {
                backlog += 1448;
                continue;
            }
            if backlog > 0 {
                reads.push((t0 + stall_to, backlog));
                backlog = 0;
            }
            reads.push((t0 + t, 1448));
        }
        // Bytes over elapsed time from inside the burst would read well above the rate.
        let g = binned_goodput(&reads, BIN).expect("bins");
        assert!((g / 96.533e6 - 1.0).abs() < 0.01, "{g}");
    }

    #[test]
    fn too_short_a_transfer_has_no_rate() {
        let reads = steady(Instant::now(), Duration::from_millis(1), 1448, 50);
        assert_eq!(binned_goodput(&reads, BIN), None);
        assert_eq!(binned_goodput(&[], BIN), None);
    }
}
