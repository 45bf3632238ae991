//! Calibration: does the topology deliver the RTT and bandwidth it was asked for?
//!
//! - Connect time: a TCP connect from the `app` namespace to the proxy's address completes
//!   after SYN -> SYN-ACK, one round trip. The median of several samples over the RTT
//!   should be 1.
//! - Bandwidth: a bulk source in the `solr` namespace (an iperf-like sender, not a Solr
//!   stand-in) sends N bytes; the client measures goodput (TCP payload) over the last 80 %
//!   of them, past slow start. Goodput is at most ~96.5 % of the IP-level cap (1448 payload
//!   bytes per 1500-byte packet with TCP timestamps).

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
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
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
/// namespace) and returns the goodput in bit/s over the last 80 % of the bytes.
pub fn bulk_goodput(addr: SocketAddr, bytes: u64) -> Result<f64> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .with_context(|| format!("bulk connect to {addr}"))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    s.write_all(&bytes.to_le_bytes())?;
    let mut buf = vec![0u8; 256 * 1024];
    let (mut got, mut mark) = (0u64, None);
    let skip = bytes / 5;
    loop {
        let n = s.read(&mut buf).context("bulk read")?;
        if n == 0 {
            break;
        }
        got += n as u64;
        if mark.is_none() && got >= skip {
            mark = Some((Instant::now(), got));
        }
    }
    let end = Instant::now();
    anyhow::ensure!(
        got == bytes,
        "bulk transfer ended after {got} of {bytes} bytes"
    );
    let (t, at) = mark.context("bulk transfer too short")?;
    let secs = end.duration_since(t).as_secs_f64().max(1e-9);
    Ok((got - at) as f64 * 8.0 / secs)
}
