//! The pieces every run through the WAN topology shares: the options it is built from
//! ([`WanSetup`]), the proxy's upstream, its TLS termination, the report header, interruption.

use std::net::SocketAddr;

use anyhow::{bail, Context, Result};

use wan_emu::{Calibration, LinkParams, TlsTermination, TlsVersion, Wan};

/// Where and how to build the WAN topology for one run: the link, the TLS version the proxy
/// terminates (None: plain http) and the namespace prefix. The command line builds it from
/// its WAN options; `sweep` builds one per point.
#[derive(Debug, Clone)]
pub struct WanSetup {
    /// The emulated link (RTT, jitter, bandwidth).
    pub link: LinkParams,
    /// The round-trip time as given, in ms (reported as given, not re-derived from `link`).
    pub rtt_ms: f64,
    /// The jitter as given, in ms.
    pub jitter_ms: f64,
    /// TLS version the proxy terminates (with `tls` true and none given: 1.3).
    pub tls_version: Option<TlsVersion>,
    /// Namespace prefix (`PREFIX-app`, `PREFIX-solr`).
    pub prefix: String,
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

/// The project's TLS material (`local-solr/run/tls`: `ca.pem`, `server.pem`, `server.key`).
pub fn tls_dir() -> std::path::PathBuf {
    solr_harness::local_solr::project_root()
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
