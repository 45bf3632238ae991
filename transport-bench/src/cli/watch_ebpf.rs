//! `transport-bench watch --ebpf`: the kernel-side watch (solr-watch's `ebpf` module), until
//! `--duration` passes or Ctrl-C.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use std::path::Path;

use anyhow::{Context, Result};
use bench_report::RunReport;
use solr_watch::ebpf::{self, EbpfOptions};

use crate::scenario::shape::{Ending, Outcome};

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

/// Runs `watch --ebpf`; the run ends as every scenario's does ([`super::registry::end`]),
/// saved as an [`EbpfRun`].
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
    let ending = Ending::new(&a.output).fail_on(a.fail_on.fail_on);
    let out = a.output.dir("watch-ebpf")?;
    let outcome = Outcome::new(EbpfRun::of(&report)?);
    let outcome = match unread_https(&report) {
        Err(e) => outcome.fails_with(format!("{e:#}")),
        Ok(()) => outcome,
    };
    super::registry::end(&ending, &out, outcome, &report.findings).map(drop)
}

/// A saved `watch --ebpf` run as `report RUN` reads it back: `watch-ebpf.json` as written
/// (the [`ebpf::EbpfReport`], whose schema it publishes) and its text, `watch-ebpf.txt`. The
/// eBPF report is written, not read back: the text is kept beside it to print it again.
#[derive(Debug)]
pub struct EbpfRun {
    /// `watch-ebpf.json`, pretty-printed in the report's field order.
    json: String,
    /// The same, parsed (the run's page reads it).
    value: serde_json::Value,
    /// The text report.
    text: String,
}

/// The text file of a saved `watch --ebpf` run.
const EBPF_TEXT: &str = "watch-ebpf.txt";

impl EbpfRun {
    /// The run of `report`.
    pub fn of(report: &ebpf::EbpfReport) -> Result<EbpfRun> {
        let mut text = Vec::new();
        ebpf::print_text(report, &mut text)?;
        Ok(EbpfRun {
            json: serde_json::to_string_pretty(report)?,
            value: serde_json::to_value(report)?,
            text: String::from_utf8_lossy(&text).into_owned(),
        })
    }
}

impl serde::Serialize for EbpfRun {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for EbpfRun {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let json = serde_json::to_string_pretty(&value).map_err(serde::de::Error::custom)?;
        Ok(EbpfRun {
            json,
            value,
            text: String::new(),
        })
    }
}

impl schemars::JsonSchema for EbpfRun {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        ebpf::EbpfReport::schema_name()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ebpf::EbpfReport::json_schema(g)
    }
}

impl RunReport for EbpfRun {
    const KIND: &'static str = "watch-ebpf";
    const FILE: &'static str = "watch-ebpf.json";

    fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        std::fs::write(dir.join(Self::FILE), &self.json)?;
        std::fs::write(dir.join(EBPF_TEXT), &self.text)?;
        self.finish_save(dir)
    }

    fn print_text(&self, w: &mut dyn std::io::Write) -> Result<()> {
        Ok(w.write_all(self.text.as_bytes())?)
    }

    /// The JSON as saved, and the text beside it.
    fn load(dir: &Path) -> Result<Self> {
        let path = dir.join(Self::FILE);
        let json = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let value = serde_json::from_str(&json)
            .with_context(|| format!("{} is not a {} report", path.display(), Self::KIND))?;
        let path = dir.join(EBPF_TEXT);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Ok(EbpfRun { json, value, text })
    }
}

/// The warnings, before watching: an OpenSSL file that could not be probed, and the raw
/// syscall tracepoints taken instead of each syscall's own (they cost every process more).
fn warn_refused(probes: &ebpf::probes::Probes) {
    for (path, why) in &probes.tls_refused {
        eprintln!("warning: https not readable: {} ({why})", path.display());
    }
    if let Some(why) = &probes.raw_syscalls {
        eprintln!(
            "notice: reading bytes through the raw syscall tracepoints, which run for every \
             syscall of every process ({why}); mounting tracefs (mount -t tracefs nodev \
             /sys/kernel/tracing) lets the watch use each syscall's own tracepoints"
        );
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
