//! `transport-bench watch`: options and the command.

use std::path::PathBuf;
use std::time::Duration;

use std::sync::atomic::Ordering;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::groups::OutputArgs;
use crate::scenario::shape::{Ending, Outcome};

/// Options of `watch`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("fail_on", |a| a.conflicts_with("serve")))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/watch-<unix time>`)")))]
#[command(mut_arg("quiet", |a| a.help("No progress line")))]
pub struct WatchArgs {
    /// Solr port to watch (with --read: inferred from the first SYN when omitted).
    #[arg(short, long)]
    pub port: Option<u16>,
    /// Interface to capture on (`lo` for a local Solr, `any` for every interface).
    #[arg(short, long, default_value = "any")]
    pub interface: String,
    /// How long to capture, e.g. `60s`, `2m`, `500ms` (default: until Ctrl-C).
    #[arg(short, long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Read a saved pcap or pcapng file instead of capturing.
    #[arg(short, long)]
    pub read: Option<PathBuf>,
    /// Also save the live capture as pcapng here.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// `--out`, `--quiet`, `--json` (the report as JSON on stdout, as saved in `watch.json`).
    #[command(flatten)]
    pub output: OutputArgs,
    /// Decrypt TLS with this key log (the `SSLKEYLOGFILE` format curl, Python, Go, Node,
    /// browsers and Java agents write); read as it grows during a live capture.
    #[arg(long, value_name = "FILE")]
    pub keylog: Option<PathBuf>,
    /// Print the JSON Schema of `watch.json` and exit.
    #[arg(long)]
    pub schema: bool,
    /// Watch from the kernel (eBPF) instead of packets: every connection and request
    /// attributed to its process, HTTPS of OpenSSL clients read without a key log. Needs
    /// root and a kernel with BTF; `--port` defaults to 8983 here.
    #[arg(long, conflicts_with_all = ["read", "save", "keylog"])]
    pub ebpf: bool,
    /// With --ebpf: another binary that links OpenSSL statically with its symbols (the
    /// system libssl and `node` are probed anyway). Repeatable.
    #[arg(long, value_name = "PATH", requires = "ebpf")]
    pub tls_binary: Vec<PathBuf>,
    /// Run as a daemon until SIGINT/SIGTERM (or --duration), serving Prometheus metrics
    /// (OpenMetrics) at `http://ADDR:PORT/metrics`, updated as requests complete; no report
    /// is written.
    #[arg(long, value_name = "ADDR:PORT", conflicts_with_all = ["read", "save", "json", "schema"])]
    pub serve: Option<String>,
    /// The `host` label of every series (default: this machine's hostname).
    #[arg(long, value_name = "NAME")]
    pub host_label: Option<String>,
    /// With --serve --ebpf: how long a process that exited (its /proc entry gone) stays in
    /// the exposition.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "5m")]
    pub forget_after: Duration,
    /// `--fail-on`: exit code 3 on a finding at that severity or above (not with --serve).
    #[command(flatten)]
    pub fail_on: super::fail_on::FailOnArgs,
}

/// Parses `60s`, `2m`, `500ms`, `1h` or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or((s, "s"), |i| (&s[..i], &s[i..]));
    let v: f64 = num
        .parse()
        .map_err(|_| format!("not a duration: {s:?} (try 60s, 2m, 500ms)"))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" | "" => v,
        "m" => v * 60.0,
        "h" => v * 3600.0,
        _ => return Err(format!("unknown unit in {s:?} (ms, s, m, h)")),
    };
    if !secs.is_finite() || secs <= 0.0 {
        return Err(format!("duration must be positive: {s:?}"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Runs `watch`: `--schema`, `--serve` and `--ebpf` go their own ways; otherwise the capture
/// (live or `--read`) is analysed and the run ends as every scenario's does
/// ([`super::registry::end`]).
pub async fn run(a: WatchArgs) -> Result<()> {
    if a.schema {
        // Not println!: a closed stdout (`watch --schema | head`) is an error, not a panic.
        use std::io::Write;
        writeln!(std::io::stdout().lock(), "{}", solr_watch::watch_schema())?;
        return Ok(());
    }
    if a.serve.is_some() {
        return super::watch_serve::run(a).await;
    }
    if a.ebpf {
        return super::watch_ebpf::run(a).await;
    }
    let keylog = match &a.keylog {
        // A live capture may start before the client creates the file; a saved one may not.
        Some(p) if a.read.is_some() && !p.exists() => {
            bail!("key log {} does not exist", p.display())
        }
        Some(p) => Some(std::sync::Arc::new(
            solr_watch::tls::keylog::KeyLogFile::open(p)?,
        )),
        None => None,
    };
    let (captured, source) = match &a.read {
        Some(path) => read_saved(&a, path, keylog)?,
        None => capture_live(&a, keylog).await?,
    };
    let mut report = solr_watch::analyse(&captured, &source);
    // The paced-response finding reads the file again (live: the one `--save` wrote).
    let pcap = a.read.as_ref().or(a.save.as_ref());
    if let Some(f) = pcap.and_then(|p| crate::engine::witness::pacing::finding_in(p, a.port)) {
        report.findings.push(f);
    }
    let ending = Ending::new(&a.output).fail_on(a.fail_on.fail_on);
    let out = a.output.dir("watch")?;
    let findings = report.findings.clone();
    let outcome = Outcome::new(report).beside(move |dir| solr_watch::save_requests(dir, &captured));
    super::registry::end(&ending, &out, outcome, &findings).map(drop)
}

/// `--read FILE`: the saved capture, and the source the report names.
fn read_saved(
    a: &WatchArgs,
    path: &std::path::Path,
    keylog: Option<std::sync::Arc<solr_watch::tls::keylog::KeyLogFile>>,
) -> Result<(solr_watch::Captured, String)> {
    if a.duration.is_some() || a.save.is_some() {
        bail!("--read analyses a saved file: --duration and --save do not apply");
    }
    let c = solr_watch::capture::read_file_with_keys(path, a.port, keylog)?;
    if let Some(e) = &c.error {
        eprintln!("warning: {e}");
    }
    Ok((c, path.display().to_string()))
}

/// A live capture until `--duration` passes or Ctrl-C, with a progress line.
async fn capture_live(
    a: &WatchArgs,
    keylog: Option<std::sync::Arc<solr_watch::tls::keylog::KeyLogFile>>,
) -> Result<(solr_watch::Captured, String)> {
    let Some(port) = a.port else {
        bail!("--port is required for a live capture (the Solr port, e.g. 8983)");
    };
    let live = solr_watch::LiveWatch::start_with_keys(&a.interface, port, a.save.clone(), keylog)?;
    let what = match a.duration {
        Some(d) => format!("for {:.1} s", d.as_secs_f64()),
        None => "until Ctrl-C".into(),
    };
    eprintln!("watching tcp port {port} on {} {what}...", a.interface);
    let pb = if a.output.quiet {
        ProgressBar::hidden()
    } else {
        let pb = ProgressBar::new_spinner();
        pb.set_style(
            ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        pb
    };
    let wait = async {
        match a.duration {
            Some(d) => tokio::select! {
                _ = tokio::time::sleep(d) => Ok(()),
                r = tokio::signal::ctrl_c() => r,
            },
            None => tokio::signal::ctrl_c().await,
        }
    };
    tokio::pin!(wait);
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tokio::select! {
            r = &mut wait => { r.context("waiting for Ctrl-C")?; break; }
            _ = tick.tick() => {
                let p = live.progress();
                pb.set_message(format!(
                    "{} packets, {} connections, {} requests",
                    p.frames.load(Ordering::Relaxed),
                    p.connections.load(Ordering::Relaxed),
                    p.requests.load(Ordering::Relaxed)
                ));
                pb.tick();
            }
        }
    }
    pb.finish_and_clear();
    let c = tokio::task::spawn_blocking(move || live.stop()).await??;
    Ok((c, format!("interface {}", a.interface)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("x").is_err());
        assert!(parse_duration("5d").is_err());
        assert!(parse_duration("0s").is_err());
    }

    #[tokio::test]
    async fn a_saved_capture_needs_an_existing_key_log() {
        let cli = <crate::cli::Cli as clap::Parser>::parse_from([
            "transport-bench",
            "watch",
            "--read",
            "/nonexistent/capture.pcap",
            "--keylog",
            "/nonexistent/keys.log",
        ]);
        let e = crate::cli::run(cli).await.expect_err("missing key log");
        assert!(
            format!("{e:#}").contains("key log /nonexistent/keys.log does not exist"),
            "{e:#}"
        );
    }
}
