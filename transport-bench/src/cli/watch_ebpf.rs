//! `transport-bench watch --ebpf`: the kernel-side watch (solr-watch's `ebpf` module), until
//! `--duration` passes or Ctrl-C.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use solr_watch::ebpf::{self, EbpfOptions};

use super::watch::WatchArgs;

/// The probes' options from `watch`'s: `--port` (8983 when omitted), `--duration`,
/// `--tls-binary`.
fn options(a: &WatchArgs) -> EbpfOptions {
    EbpfOptions {
        ports: vec![a.port.unwrap_or(8983)],
        duration: a.duration,
        tls_binaries: a.tls_binary.clone(),
    }
}

/// Runs `watch --ebpf`.
pub async fn run(a: WatchArgs) -> Result<()> {
    let opts = options(&a);
    let ready = ebpf::Ready::check()?;
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            s.store(true, Ordering::Relaxed);
        }
    });
    let what = match a.duration {
        Some(d) => format!("for {:.1} s", d.as_secs_f64()),
        None => "until Ctrl-C".into(),
    };
    let report = tokio::task::spawn_blocking(move || -> Result<ebpf::EbpfReport> {
        let probes = ready.attach(&opts)?;
        warn_refused(&probes);
        eprintln!(
            "watching connections to port {:?} from the kernel {what} (ready)...",
            opts.ports
        );
        ebpf::watch_attached(&probes, &opts, &stop)
    })
    .await??;
    let out = crate::engine::run_dir::out_dir(a.out.clone(), "watch-ebpf")?;
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    std::fs::write(
        out.join("watch-ebpf.json"),
        serde_json::to_string_pretty(&report)?,
    )?;
    a.json
        .print_saved(&out, "watch-ebpf.json", |w| ebpf::print_text(&report, w))?;
    eprintln!("saved: {}", out.display());
    unread_https(&report)?;
    a.fail_on.check(&report.findings)
}

/// The warning, before watching, when an OpenSSL file could not be probed.
fn warn_refused(probes: &ebpf::probes::Probes) {
    for (path, why) in &probes.tls_refused {
        eprintln!("warning: https not readable: {} ({why})", path.display());
    }
}

/// An error (after the report is saved and printed) when refused probes left requests
/// unknown: the run did not read what it was asked to.
fn unread_https(r: &ebpf::EbpfReport) -> Result<()> {
    let unknown = r
        .processes
        .iter()
        .filter(|p| p.report.requests.is_none())
        .count();
    if r.tls_refused.is_empty() || unknown == 0 {
        return Ok(());
    }
    anyhow::bail!(
        "{}: the requests of {unknown} process(es) are unknown",
        ebpf::report::not_readable(&r.tls_refused)
    )
}

/// Runs `watch --ebpf --serve` into `metrics` until `--duration` passes or `stop` says so.
pub async fn serve(a: WatchArgs, metrics: solr_watch::serve::Shared) -> Result<()> {
    let opts = options(&a);
    let ready = ebpf::Ready::check()?;
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let forget = a.forget_after;
    let task = tokio::task::spawn_blocking(move || -> Result<()> {
        let probes = ready.attach(&opts)?;
        warn_refused(&probes);
        eprintln!(
            "watching connections to port {:?} from the kernel (ready)...",
            opts.ports
        );
        solr_watch::serve::ebpf::serve(&probes, &opts, &s, metrics, forget)
    });
    tokio::pin!(task);
    tokio::select! {
        r = &mut task => return r?,
        r = super::watch_serve::stopped(None) => r?,
    }
    stop.store(true, Ordering::Relaxed);
    task.await?
}
