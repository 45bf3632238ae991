//! `transport-bench`: latency audits of Solr clients. `main.rs` only calls [`run`].
//!
//! Modules: [`local_solr`] starts the project's real Solr; [`workload`] generates seeded
//! documents and queries; [`study`] runs the transport study; [`witness`] reads the kernel's
//! connection counters; [`stats`] holds the percentile rules; [`report`] prints and saves;
//! [`wan`] emulates a remote Solr (namespaces, delay line, TLS proxy).

pub mod local_solr;
pub mod report;
pub mod stats;
pub mod study;
pub mod wan;
pub mod witness;
pub mod workload;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use solr_client::TransportKind;

/// Command line.
#[derive(Debug, Parser)]
#[command(
    name = "transport-bench",
    version,
    about = "Solr says QTime=1 ms, the app sees 170 ms: where did the time go?"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The transport study (seed 003): indexing per update format, then the same searches
    /// through every transport with and without gzip, with connection witnesses.
    Study(StudyArgs),
}

/// Options of `study`.
#[derive(Debug, clap::Args)]
pub struct StudyArgs {
    /// Solr base URL. Without it the project's own local Solr is started (and stopped after).
    #[arg(long)]
    pub url: Option<String>,
    /// Collection or core.
    #[arg(long, default_value = "bench")]
    pub collection: String,
    /// CA certificate (PEM) to trust for https.
    #[arg(long)]
    pub ca: Option<PathBuf>,
    /// Start the local Solr with TLS (https) instead of plain http.
    #[arg(long)]
    pub tls: bool,
    /// Documents indexed per update format.
    #[arg(long, default_value_t = 5000)]
    pub docs: usize,
    /// Documents per update request.
    #[arg(long, default_value_t = 500)]
    pub batch: usize,
    /// Measured searches per transport and repetition.
    #[arg(long, default_value_t = 300)]
    pub searches: usize,
    /// Warm-up searches per transport and repetition (excluded from figures).
    #[arg(long, default_value_t = 20)]
    pub warmup: usize,
    /// Repetitions; the transport order rotates between them.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Rows per search.
    #[arg(long, default_value_t = 10)]
    pub rows: u64,
    /// Concurrent workers (closed loop).
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Workload seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Transports, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "fresh,pooled,reqwest,http2"
    )]
    pub transports: Vec<TransportKind>,
    /// Gzip settings to compare: both, on or off.
    #[arg(long, default_value = "both")]
    pub gzip: String,
    /// Dimension of the documents' `vector` field (0 = none).
    #[arg(long, default_value_t = 0)]
    pub vector_dim: usize,
    /// Output folder (default `results/study-<unix time>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Interface for the pcap SYN witness (default: lo for a loopback URL, any otherwise).
    #[arg(long)]
    pub interface: Option<String>,
    /// Do not capture packets (the pcap witness needs root or CAP_NET_RAW).
    #[arg(long)]
    pub no_pcap: bool,
    /// Save each transport's first-repetition capture as pcapng here.
    #[arg(long)]
    pub save_captures: Option<PathBuf>,
    /// Keep the local Solr running afterwards.
    #[arg(long)]
    pub keep_solr: bool,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// WAN emulation (`--rtt`, `--jitter`, `--bandwidth`, `--tls-version`).
    #[command(flatten)]
    pub wan: Box<wan::cli::WanArgs>,
}

/// Runs the CLI.
pub async fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Study(a) => study_cmd(a).await,
    }
}

/// `lo` for a loopback URL, `any` otherwise.
pub fn default_interface(url: &str) -> String {
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    if host == "localhost" || host.starts_with("127.") || host == "[::1]" {
        "lo".into()
    } else {
        "any".into()
    }
}

async fn study_cmd(a: StudyArgs) -> Result<()> {
    let gzip = match a.gzip.as_str() {
        "both" => vec![false, true],
        "on" => vec![true],
        "off" => vec![false],
        other => anyhow::bail!("--gzip must be both, on or off, not {other:?}"),
    };
    a.wan.validate()?;
    // Through the WAN topology the proxy terminates TLS; Solr itself stays plain http.
    let solr_tls = a.tls && !a.wan.enabled();
    let mut local = None;
    let (url, ca) = match a.url {
        Some(u) => (u, a.ca),
        None => {
            eprintln!(
                "starting the project's local Solr (standalone{})...",
                if solr_tls { ", TLS" } else { "" }
            );
            let extra: &[&str] = if solr_tls { &["--tls"] } else { &[] };
            let name = if solr_tls { "study-tls" } else { "study" };
            let s = local_solr::LocalSolr::start(local_solr::Mode::Standalone, name, extra)?;
            let url = s.url(None)?.to_string();
            let ca = s.ca.clone().or(a.ca);
            local = Some(s);
            (url, ca)
        }
    };
    let pcap_interface = if a.no_pcap {
        None
    } else {
        Some(
            a.interface
                .clone()
                .unwrap_or_else(|| default_interface(&url)),
        )
    };
    let cfg = study::StudyConfig {
        url,
        collection: a.collection,
        ca,
        docs: a.docs,
        batch: a.batch.max(1),
        searches: a.searches,
        warmup: a.warmup,
        reps: a.reps,
        rows: a.rows,
        concurrency: a.concurrency,
        seed: a.seed,
        transports: a.transports,
        gzip,
        vector_dim: a.vector_dim,
        pcap_interface,
        capture_dir: a.save_captures,
        quiet: a.quiet,
    };
    let result = if a.wan.enabled() {
        wan::cli::run_study(&a.wan, a.tls, cfg).await
    } else {
        study::run(&cfg).await
    };
    if let (Some(s), false) = (&local, a.keep_solr) {
        if let Err(e) = s.stop() {
            eprintln!("warning: could not stop the local Solr: {e:#}");
        }
    }
    let (report, records) = result?;
    let out = a.out.unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        local_solr::project_root()
            .join("results")
            .join(format!("study-{secs}"))
    });
    report::save(&out, &report, &records)
        .with_context(|| format!("saving to {}", out.display()))?;
    let mut stdout = std::io::stdout().lock();
    report::print_text(&report, &mut stdout)?;
    eprintln!("saved: {}", out.display());
    Ok(())
}
