//! WAN emulation on one machine: two network namespaces joined by a userspace delay line.
//!
//! ```text
//! namespace PREFIX-app   198.18.0.1  device PREFIX-a   (the bench and its client)
//!     |  delay line: TUN fds, RTT/2 each way, jitter, bandwidth cap   (delayline.rs)
//! namespace PREFIX-solr  198.18.0.2  device PREFIX-s   (front proxy, TLS)  (proxy.rs)
//!     |  proxy relay tasks run in the root namespace
//! root namespace         127.0.0.1:PORT                (the Solr JVM)
//! ```
//!
//! Both TUN devices are opened in the root namespace and moved with `ip link set DEV netns
//! NS`; their file descriptors stay attached, so one forwarder holds both ends
//! (`namespaces.rs`, `tun.rs`). Addresses come from 198.18.0.0/15 (RFC 2544, benchmarking).
//!
//! The client side runs in a thread that entered `PREFIX-app` with `setns` before building
//! its tokio runtime ([`AppNamespace::block_on`]): every socket it opens, its pcap capture
//! and its `/proc/thread-self/net` counters are the app namespace's. Chosen over
//! re-executing the bench under `ip netns exec` because one process then owns the local
//! Solr, the proxy, the delay line and the teardown, and tests can call it directly.
//!
//! Teardown: [`Wan`]'s drop stops the proxy, the delay line (closing the TUN fds removes
//! the devices) and deletes the namespaces; `study` also tears down on Ctrl-C/SIGTERM; a
//! crashed run's namespaces are deleted at the next start (see `namespaces.rs`).
//!
//! A 40 ms link in front of a server listening on 127.0.0.1:8983 (root needed: namespaces,
//! TUN devices):
//!
//! ```no_run
//! use std::time::Duration;
//! use wan_emu::{LinkParams, Wan, WanConfig};
//! # fn main() -> anyhow::Result<()> {
//! let wan = Wan::start(WanConfig {
//!     prefix: "demo".into(),
//!     link: LinkParams { rtt: Duration::from_millis(40), jitter: Duration::ZERO, bandwidth_bps: None },
//!     seed: 1,
//!     upstream: "127.0.0.1:8983".parse()?,
//!     tls: None,
//! })?;
//! // The front proxy on the solr side's address forwards to the upstream server.
//! let proxy = wan.proxy_addr();
//! // A thread inside the app namespace: every socket it opens crosses the delay line.
//! let took = wan.app().block_on(move || async move {
//!     let t = std::time::Instant::now();
//!     tokio::net::TcpStream::connect(proxy).await?;
//!     Ok(t.elapsed()) // about one RTT: the SYN and SYN-ACK cross the link
//! })?;
//! println!("connect took {took:?}; base URL {}", wan.url("/solr"));
//! # Ok(()) }
//! ```

pub mod calibrate;
pub mod delayline;
pub mod namespaces;
pub mod owned;
pub mod proxy;
pub mod tun;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};

pub use calibrate::Calibration;
pub use delayline::{DelayLine, DirStats, LinkParams};
pub use namespaces::Namespaces;
pub use proxy::{ProxyCounters, TlsTermination, TlsVersion};

/// The app side's address.
pub const APP_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
/// The solr side's address (in the server certificate's SANs).
pub const SOLR_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 2);
/// Port of the calibration bulk source in the solr namespace.
pub const BULK_PORT: u16 = 5201;

/// What to build.
#[derive(Debug, Clone)]
pub struct WanConfig {
    /// Namespace/device prefix (namespaces `PREFIX-app`, `PREFIX-solr`), at most 10 chars.
    pub prefix: String,
    /// The link.
    pub link: LinkParams,
    /// Seed of the jitter.
    pub seed: u64,
    /// The Solr node the proxy forwards to (loopback, root namespace).
    pub upstream: SocketAddr,
    /// TLS termination at the proxy (None: plain TCP relay).
    pub tls: Option<TlsTermination>,
}

/// Unmeasured connects before the compensation is measured ([`Wan::compensate`]).
pub const COMPENSATION_WARMUP: usize = 10;
/// Connects whose median is the compensation ([`Wan::compensate`]).
pub const COMPENSATION_SAMPLES: usize = 25;
/// The link's RTT while its own cost is measured ([`Wan::compensate`]).
pub const COMPENSATION_PROBE_RTT: Duration = Duration::from_millis(2);

/// A running topology. Dropping it tears everything down.
#[derive(Debug)]
pub struct Wan {
    // Field order is drop order: proxy runtime, then delay line, then namespaces.
    runtime: Option<tokio::runtime::Runtime>,
    delay: DelayLine,
    ns: Namespaces,
    proxy: Arc<ProxyCounters>,
    tls: Option<TlsVersion>,
    port: u16,
    app_device: String,
}

/// Parses a rate such as `100mbit`, `1gbit`, `500kbit` or a bare number of bit/s.
pub fn parse_rate(s: &str) -> Result<u64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix("gbit") {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix("mbit") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix("kbit") {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix("bit") {
        (n, 1.0)
    } else if t.ends_with("bps") {
        bail!("ambiguous rate {s:?}: write bits per second as kbit, mbit or gbit (100mbit)");
    } else {
        (t.as_str(), 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("bad rate {s:?} (e.g. 100mbit)"))?;
    if !(v.is_finite() && v * mult >= 8_000.0) {
        bail!("rate {s:?} out of range (at least 8kbit)");
    }
    Ok((v * mult) as u64)
}

impl Wan {
    /// Builds the namespaces, devices, delay line, proxy and bulk source. Call it from a
    /// thread in the root namespace (where Solr listens on loopback).
    pub fn start(cfg: WanConfig) -> Result<Wan> {
        let ns = Namespaces::create(&cfg.prefix)?;
        let app_device = format!("{}-a", cfg.prefix);
        let solr_device = format!("{}-s", cfg.prefix);
        let a = tun::open(&app_device)?;
        let s = tun::open(&solr_device)?;
        for (dev, netns, local, peer) in [
            (&app_device, &ns.app, APP_ADDR, SOLR_ADDR),
            (&solr_device, &ns.solr, SOLR_ADDR, APP_ADDR),
        ] {
            namespaces::ip(&["link", "set", dev, "netns", netns])?;
            let (local, peer) = (local.to_string(), peer.to_string());
            namespaces::ip(&[
                "-n", netns, "addr", "add", &local, "peer", &peer, "dev", dev,
            ])?;
            namespaces::ip(&["-n", netns, "link", "set", dev, "up"])?;
        }
        let delay = DelayLine::start(a, s, LinkParams::default(), cfg.seed)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("wan-proxy")
            .enable_all()
            .build()
            .context("proxy runtime")?;
        let port = if cfg.tls.is_some() { 443 } else { 80 };
        let server_config = cfg.tls.as_ref().map(|t| t.server_config()).transpose()?;
        let listener = namespaces::bind_in(&ns.solr, SocketAddr::from((SOLR_ADDR, port)))?;
        let bulk = namespaces::bind_in(&ns.solr, SocketAddr::from((SOLR_ADDR, BULK_PORT)))?;
        let proxy = Arc::new(ProxyCounters::default());
        {
            let _guard = runtime.enter();
            proxy::spawn(listener, cfg.upstream, server_config, proxy.clone())?;
            calibrate::spawn_bulk_source(bulk)?;
        }
        let wan = Wan {
            runtime: Some(runtime),
            delay,
            ns,
            proxy,
            tls: cfg.tls.map(|t| t.version),
            port,
            app_device,
        };
        wan.compensate()?;
        wan.set_link(cfg.link);
        Ok(wan)
    }

    /// Measures the forwarder's own round trip (two reads, two hand-offs, two writes, and the
    /// kernels' work on both sides) and sets it as the compensation: each direction then
    /// holds RTT/2 minus half of it, so a client sees the RTT. It is measured where the link
    /// works, on held packets: TCP connects through an uncompensated [`COMPENSATION_PROBE_RTT`]
    /// link, minus that RTT. (At RTT 0 the writer threads sleep and are woken for every
    /// packet; a held packet finds its writer already awake at its release time, so RTT 0
    /// over-states the cost by ~0.1 ms, 5 % of RTT 2 ms.) The cost is 0.1-0.3 ms here and
    /// follows the machine's load: [`COMPENSATION_WARMUP`] unmeasured connects come first (the
    /// first ones after a start pay for cold paths), then the median of
    /// [`COMPENSATION_SAMPLES`]. The link is restored afterwards. `start` calls it; call it
    /// again before a measurement when the load may have changed since.
    pub fn compensate(&self) -> Result<Duration> {
        let link = self.link();
        let previous = self.compensation();
        self.delay.set_compensation(Duration::ZERO);
        self.set_link(LinkParams {
            rtt: COMPENSATION_PROBE_RTT,
            ..Default::default()
        });
        let proxy = self.proxy_addr();
        let times = self.app().run(move || {
            calibrate::connect_times(proxy, COMPENSATION_WARMUP)?;
            calibrate::connect_times(proxy, COMPENSATION_SAMPLES)
        });
        self.set_link(link);
        let own = match times {
            Ok(t) => calibrate::median(t).saturating_sub(COMPENSATION_PROBE_RTT),
            Err(e) => {
                self.delay.set_compensation(previous);
                return Err(e);
            }
        };
        self.delay.set_compensation(own);
        Ok(own)
    }

    /// The forwarder's own round-trip cost measured at start (subtracted from the hold time).
    pub fn compensation(&self) -> Duration {
        self.delay.compensation()
    }

    /// The proxy's base URL for a Solr path such as `/solr`.
    pub fn url(&self, path: &str) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://{SOLR_ADDR}:{}{path}", self.port)
    }

    /// The proxy's socket address.
    pub fn proxy_addr(&self) -> SocketAddr {
        SocketAddr::from((SOLR_ADDR, self.port))
    }

    /// The TLS version the proxy terminates, if any.
    pub fn tls(&self) -> Option<TlsVersion> {
        self.tls
    }

    /// The app side's device (for the pcap witness).
    pub fn app_device(&self) -> &str {
        &self.app_device
    }

    /// The app namespace, to run client code in.
    pub fn app(&self) -> AppNamespace {
        AppNamespace {
            name: self.ns.app.clone(),
        }
    }

    /// Changes the link (RTT, jitter, bandwidth) while running.
    pub fn set_link(&self, p: LinkParams) {
        self.delay.set_params(p);
    }

    /// The current link.
    pub fn link(&self) -> LinkParams {
        self.delay.params()
    }

    /// Delay-line counters (app -> solr, solr -> app).
    pub fn link_stats(&self) -> (DirStats, DirStats) {
        self.delay.stats()
    }

    /// Proxy counters: (accepted, TLS handshakes, upstream connections, failed).
    pub fn proxy_stats(&self) -> (u64, u64, u64, u64) {
        let c = &self.proxy;
        (
            c.accepted.load(Ordering::Relaxed),
            c.handshakes.load(Ordering::Relaxed),
            c.upstream.load(Ordering::Relaxed),
            c.failed.load(Ordering::Relaxed),
        )
    }

    /// Measures the current link: `samples` TCP connects to the proxy, and with a bandwidth
    /// cap a bulk transfer of about 1.5 s at the cap (blocking; runs in the app namespace).
    pub fn calibrate(&self, samples: usize) -> Result<Calibration> {
        let link = self.link();
        let proxy = self.proxy_addr();
        let times = self
            .app()
            .run(move || calibrate::connect_times(proxy, samples.max(1)))?;
        let p50 = calibrate::median(times).as_secs_f64() * 1000.0;
        let rtt_ms = link.rtt.as_secs_f64() * 1000.0;
        let mut c = Calibration {
            rtt_ms,
            connect_samples: samples.max(1),
            connect_p50_ms: p50,
            compensation_ms: self.compensation().as_secs_f64() * 1000.0,
            connect_ratio: (rtt_ms > 0.0).then(|| p50 / rtt_ms),
            bandwidth_bps: link.bandwidth_bps,
            ..Default::default()
        };
        if let Some(bps) = link.bandwidth_bps {
            let bytes = (bps / 8 * 3 / 2).clamp(1 << 20, 64 << 20);
            let bulk = SocketAddr::from((SOLR_ADDR, BULK_PORT));
            let g = self
                .app()
                .run(move || calibrate::bulk_goodput(bulk, bytes))?;
            c.goodput_bps = Some(g);
            c.bandwidth_ratio = Some(g / bps as f64);
        }
        Ok(c)
    }

    /// Tears everything down now (drop does the same).
    pub fn stop(mut self) -> Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<()> {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
        self.delay.stop();
        self.ns.remove()
    }
}

impl Drop for Wan {
    fn drop(&mut self) {
        if let Err(e) = self.shutdown() {
            eprintln!("wan: teardown: {e:#}");
        }
    }
}

/// The app namespace: runs client code inside it.
#[derive(Debug, Clone)]
pub struct AppNamespace {
    name: String,
}

impl AppNamespace {
    /// Runs blocking `f` on a thread inside the namespace.
    pub fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce() -> Result<T> + Send + 'static,
    {
        namespaces::run_in(&self.name, f)
    }

    /// Builds a tokio runtime (2 workers) inside the namespace and runs `f()` on it to the
    /// end (blocking the caller).
    pub fn block_on<T, F, Fut>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce() -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<T>>,
    {
        self.run(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("wan-app")
                .enable_all()
                .build()
                .context("app runtime")?;
            let r = rt.block_on(f());
            rt.shutdown_timeout(Duration::from_secs(1));
            r
        })
    }

    /// Like [`AppNamespace::block_on`] without blocking: the result arrives on the
    /// returned channel. The thread is detached, so an interrupted caller can leave.
    pub fn spawn<T, F, Fut>(&self, f: F) -> tokio::sync::oneshot::Receiver<Result<T>>
    where
        T: Send + 'static,
        F: FnOnce() -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<T>>,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let me = self.clone();
        std::thread::spawn(move || {
            let _ = tx.send(me.block_on(f));
        });
        rx
    }
}

#[cfg(test)]
mod tests {
    use super::parse_rate;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100mbit").unwrap(), 100_000_000);
        assert_eq!(parse_rate("1.5Gbit").unwrap(), 1_500_000_000);
        assert_eq!(parse_rate("512kbit").unwrap(), 512_000);
        assert_eq!(parse_rate("64000").unwrap(), 64_000);
        assert!(
            parse_rate("100mbps").is_err(),
            "tc's mbps means megabytes: refused"
        );
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("-5mbit").is_err());
        assert!(parse_rate("1bit").is_err());
    }
}
