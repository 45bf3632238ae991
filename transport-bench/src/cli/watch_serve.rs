//! `transport-bench watch --serve ADDR:PORT`: the watch (pcap, or `--ebpf`) as a daemon
//! serving Prometheus metrics at `/metrics` until SIGINT/SIGTERM or `--duration`.
//!
//! The address is bound first: an address in use is refused before any capture starts.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use solr_watch::serve::{self, Metrics, Server};

use super::watch::WatchArgs;

/// Runs `watch --serve`.
pub async fn run(a: WatchArgs) -> Result<()> {
    let addr = a.serve.clone().unwrap_or_default();
    let listener = serve::bind(&addr).await?;
    let host = a.host_label.clone().unwrap_or_else(serve::hostname);
    let metrics = Arc::new(Mutex::new(Metrics::new(&host)));
    let server = Server::spawn(listener, metrics.clone())?;
    eprintln!(
        "serving metrics at http://{}/metrics (host=\"{host}\")",
        server.addr
    );
    let r = if a.ebpf {
        super::watch_ebpf::serve(a, metrics).await
    } else {
        pcap(a, metrics).await
    };
    server.shutdown().await;
    r
}

/// The pcap watch into `metrics`.
async fn pcap(a: WatchArgs, metrics: serve::Shared) -> Result<()> {
    let Some(port) = a.port else {
        bail!("--port is required for a live capture (the Solr port, e.g. 8983)");
    };
    let keylog = match &a.keylog {
        Some(p) => Some(Arc::new(solr_watch::tls::keylog::KeyLogFile::open(p)?)),
        None => None,
    };
    let live = serve::pcap::PcapServe::start(&a.interface, port, keylog, metrics)?;
    eprintln!("watching tcp port {port} on {}...", a.interface);
    stopped(a.duration).await?;
    tokio::task::spawn_blocking(move || live.stop()).await?
}

/// Resolves on SIGINT, SIGTERM, or once `duration` (if any) has passed.
pub async fn stopped(duration: Option<Duration>) -> Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
    let sleep = async {
        match duration {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.context("waiting for Ctrl-C")?,
        _ = term.recv() => {}
        _ = sleep => {}
    }
    Ok(())
}
