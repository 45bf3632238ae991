//! `watch --ebpf`: the traffic of every process on this host to Solr, read from the kernel
//! rather than from packets, so each connection and request is attributed to its process
//! (pid, command line, cgroup), and HTTPS from OpenSSL clients is read in plaintext at
//! `SSL_write`/`SSL_read` without any key log.
//!
//! - [`preflight`]: root, BTF, kernel version; otherwise one refusal naming what is missing.
//! - `bpf/watch.bpf.c` (compiled once into the committed `bpf/watch.bpf.o`, loaded with libbpf): connection
//!   events from the BTF tracepoints `inet_sock_set_state` and `tcp_retransmit_skb` (with
//!   srtt and retransmits at close), payload of socket reads and writes from each syscall's own
//!   tracepoint (the raw syscall tracepoints as a fallback), OpenSSL plaintext from uprobes.
//! - [`probes`]: loading, attaching, draining the ring buffer; [`ssl_sites`]: where in each
//!   file the OpenSSL uprobes go; [`event`]: the record layout;
//!   [`session`]: events into connections per process; [`process`]: /proc facts;
//!   [`report`]: the pcap report per process, findings naming the process;
//!   [`tls_library`]: the TLS library a process maps, named when its TLS was not read.

pub mod cmdline;
pub mod event;
pub mod preflight;
pub mod probes;
pub mod process;
pub mod report;
pub mod session;
pub mod ssl_sites;
pub mod tls_library;

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{bail, Context, Result};

pub use report::{print_text, EbpfReport};

/// What to watch.
#[derive(Debug, Clone)]
pub struct EbpfOptions {
    /// Solr ports (the remote port of client connections).
    pub ports: Vec<u16>,
    /// How long (None: until `stop`).
    pub duration: Option<Duration>,
    /// More binaries with OpenSSL linked in statically (symbols present).
    pub tls_binaries: Vec<PathBuf>,
}

/// Checks the machine, attaches the probes, watches, and reports. Refuses (an error with
/// the one refusal message) before loading anything when something is missing.
pub fn watch(opts: &EbpfOptions, stop: &AtomicBool) -> Result<EbpfReport> {
    let ready = Ready::check()?;
    let probes = ready.attach(opts)?;
    watch_attached(&probes, opts, stop)
}

/// Proof that the preflight passed.
#[derive(Debug)]
pub struct Ready(());

impl Ready {
    /// Runs the preflight (BTF at [`preflight::btf_path`]).
    pub fn check() -> Result<Self> {
        Self::check_with(&preflight::btf_path())
    }

    /// Runs the preflight with the kernel's BTF expected at `btf`.
    pub fn check_with(btf: &std::path::Path) -> Result<Self> {
        let missing = preflight::missing(btf);
        if !missing.is_empty() {
            bail!(preflight::refusal(&missing));
        }
        Ok(Ready(()))
    }

    /// Loads and attaches the probes. A `--tls-binary` that is missing, or in which no
    /// OpenSSL probe attached, is an error: the user asked for it to be read.
    pub fn attach(&self, opts: &EbpfOptions) -> Result<probes::Probes> {
        let mut named = Vec::new();
        for b in &opts.tls_binaries {
            let c = std::fs::canonicalize(b)
                .with_context(|| format!("--tls-binary {}: no such file", b.display()))?;
            named.push((b, c));
        }
        let probes = probes::Probes::attach(&opts.ports, &probes::tls_targets(&opts.tls_binaries))?;
        for (b, c) in named {
            if let Some((_, why)) = probes.tls_refused.iter().find(|(p, _)| *p == c) {
                bail!(
                    "--tls-binary {}: no OpenSSL probe attached: {why}",
                    b.display()
                );
            }
        }
        Ok(probes)
    }
}

/// Watches with probes already attached (the overhead benchmark attaches once).
pub fn watch_attached(
    probes: &probes::Probes,
    opts: &EbpfOptions,
    stop: &AtomicBool,
) -> Result<EbpfReport> {
    let session = Rc::new(RefCell::new(session::Session::default()));
    probes.run(session.clone(), opts.duration, stop)?;
    let s = std::mem::take(&mut *session.borrow_mut());
    let span_s = s
        .span
        .map_or(0.0, |(a, b)| b.saturating_sub(a) as f64 / 1e6);
    let port = opts.ports.first().copied().unwrap_or(0);
    let seen = s.finish(port);
    let tls = report::TlsProbes {
        probed: probes
            .tls_libraries
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        refused: probes
            .tls_refused
            .iter()
            .map(|(p, why)| report::TlsRefused {
                path: p.display().to_string(),
                why: why.clone(),
            })
            .collect(),
    };
    Ok(report::build(
        &opts.ports,
        span_s,
        tls,
        probes.lost_events(),
        seen,
    ))
}
