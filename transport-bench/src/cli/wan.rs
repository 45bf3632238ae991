//! The `study` options that run it through the WAN topology, and the hook that does so.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::study::{self, Record, StudyConfig, StudyReport};
use wan_emu::{Calibration, LinkParams, TlsTermination, TlsVersion, Wan, WanConfig};

/// WAN options of `study` (need root). Any of `--rtt`/`--bandwidth` switches the topology
/// on: the study then talks to the front proxy at 198.18.0.2 through the delay line.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct WanArgs {
    /// Emulated round-trip time in ms (network namespaces + delay line; needs root).
    #[arg(value_parser = crate::args::delay_ms, allow_negative_numbers = true, long, value_name = "MS")]
    pub rtt: Option<f64>,
    /// Jitter in ms: uniform in [-J, +J] on each one-way delay, seeded, FIFO kept.
    #[arg(value_parser = crate::args::delay_ms, allow_negative_numbers = true, long, value_name = "MS", default_value_t = 0.0)]
    pub jitter: f64,
    /// Bandwidth cap per direction, e.g. 100mbit (IP bytes).
    #[arg(long, value_name = "RATE")]
    pub bandwidth: Option<String>,
    /// TLS version the WAN proxy terminates (implies TLS; `--tls` alone means 1.3).
    #[arg(long, value_name = "1.2|1.3")]
    pub tls_version: Option<TlsVersion>,
    /// Namespace prefix (`PREFIX-app`, `PREFIX-solr`).
    #[arg(long, default_value = "stb", hide = true)]
    pub wan_prefix: String,
}

impl WanArgs {
    /// Whether the WAN topology is asked for.
    pub fn enabled(&self) -> bool {
        self.rtt.is_some() || self.bandwidth.is_some()
    }

    /// Checks option combinations.
    pub fn validate(&self) -> Result<()> {
        if !self.enabled() && (self.jitter != 0.0 || self.tls_version.is_some()) {
            bail!("--jitter and --tls-version need --rtt (or --bandwidth): they shape the WAN topology");
        }
        for (name, v) in [
            ("--rtt", self.rtt.unwrap_or(0.0)),
            ("--jitter", self.jitter),
        ] {
            if !(v.is_finite() && (0.0..=10_000.0).contains(&v)) {
                bail!("{name} must be between 0 and 10000 ms, not {v}");
            }
        }
        Ok(())
    }

    /// The link these options describe.
    pub fn link(&self) -> Result<LinkParams> {
        Ok(LinkParams {
            rtt: Duration::from_secs_f64(self.rtt.unwrap_or(0.0) / 1000.0),
            jitter: Duration::from_secs_f64(self.jitter / 1000.0),
            bandwidth_bps: self
                .bandwidth
                .as_deref()
                .map(wan_emu::parse_rate)
                .transpose()?,
        })
    }
}

/// The loopback socket address of an `http://127.x.y.z:PORT/...` Solr URL (the only kind
/// of Solr the WAN proxy forwards to: emulation applies to the project's local Solr only).
pub fn upstream_of(url: &str) -> Result<SocketAddr> {
    let u = url::Url::parse(url).with_context(|| format!("bad Solr URL {url}"))?;
    if u.scheme() != "http" {
        bail!("through the WAN topology the proxy terminates TLS: give a plain http Solr URL, not {url}");
    }
    let host: std::net::IpAddr = u
        .host_str()
        .and_then(|h| h.parse().ok())
        .with_context(|| format!("the WAN proxy forwards to a loopback IP, not {url}"))?;
    if !host.is_loopback() {
        bail!("the WAN proxy forwards only to loopback Solr nodes, not {url}");
    }
    let port = u.port_or_known_default().context("no port")?;
    Ok(SocketAddr::new(host, port))
}

/// Runs the study through the WAN topology: starts it, calibrates, prints the calibration
/// header, runs `study::run` in the app namespace with the proxy's URL and the app-side
/// pcap device, and tears down (also on Ctrl-C/SIGTERM).
pub async fn run_study(
    args: &WanArgs,
    tls: bool,
    mut cfg: StudyConfig,
) -> Result<(StudyReport, Vec<Record>)> {
    args.validate()?;
    let link = args.link()?;
    let upstream = upstream_of(&cfg.url)?;
    let path = url::Url::parse(&cfg.url)?.path().to_string();
    let tls_dir = tls_dir();
    let version = match (tls, args.tls_version) {
        (_, Some(v)) => Some(v),
        (true, None) => Some(TlsVersion::Tls13),
        (false, None) => None,
    };
    let termination = version.map(termination);
    let wan = Wan::start(WanConfig {
        prefix: args.wan_prefix.clone(),
        link,
        seed: cfg.seed,
        upstream,
        tls: termination,
    })?;
    eprintln!("wan: calibrating...");
    let calibration = wan.calibrate(21)?;
    println!("{}", header(&wan, &link, &calibration));
    cfg.url = wan.url(&path);
    if version.is_some() {
        cfg.ca = Some(tls_dir.join("ca.pem"));
    }
    if cfg.pcap_interface.is_some() {
        cfg.pcap_interface = Some(wan.app_device().to_string());
    }
    let rx = wan
        .app()
        .spawn(move || async move { study::run(&cfg).await });
    let result = tokio::select! {
        r = rx => r.context("the study thread ended without a result")?,
        s = interrupted() => {
            let name = s?;
            drop(wan);
            bail!("interrupted by {name}: WAN namespaces removed");
        }
    };
    let (mut report, records) = result?;
    report.settings["wan"] = serde_json::json!({
        "rtt_ms": args.rtt.unwrap_or(0.0),
        "jitter_ms": args.jitter,
        "bandwidth_bps": link.bandwidth_bps,
        "tls_version": version.map(|v| v.to_string()),
        "proxy": wan.url(&path),
        "upstream": upstream.to_string(),
        "pcap_device": wan.app_device(),
        "calibration": calibration,
    });
    wan.stop()?;
    Ok((report, records))
}

/// The project's TLS material (`local-solr/run/tls`: `ca.pem`, `server.pem`, `server.key`).
pub fn tls_dir() -> std::path::PathBuf {
    crate::local_solr::project_root()
        .join("local-solr")
        .join("run")
        .join("tls")
}

/// TLS termination at the proxy with the project's server certificate (no resumption).
pub fn termination(version: TlsVersion) -> TlsTermination {
    let dir = tls_dir();
    TlsTermination {
        version,
        cert_pem: dir.join("server.pem"),
        key_pem: dir.join("server.key"),
        resumption: false,
    }
}

/// The report header of a WAN run.
pub fn header(wan: &Wan, link: &LinkParams, c: &Calibration) -> String {
    let tls = wan
        .tls()
        .map(|v| format!("TLS {v} terminated at the proxy"))
        .unwrap_or_else(|| "no TLS".into());
    format!(
        "WAN: {} -> {} via delay line, RTT {:.1} ms, jitter {:.1} ms, bandwidth {}, {tls}\n\
         WAN calibration: {c}",
        wan_emu::APP_ADDR,
        wan.url(""),
        link.rtt.as_secs_f64() * 1000.0,
        link.jitter.as_secs_f64() * 1000.0,
        link.bandwidth_bps
            .map(|b| format!("{:.1} Mbit/s", b as f64 / 1e6))
            .unwrap_or_else(|| "unlimited".into()),
    )
}

/// Resolves on Ctrl-C or SIGTERM with the signal's name.
pub async fn interrupted() -> Result<&'static str> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("SIGTERM handler")?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => { r.context("Ctrl-C handler")?; Ok("Ctrl-C") }
        _ = term.recv() => Ok("SIGTERM"),
    }
}
