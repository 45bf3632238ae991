//! `transport-bench`: latency audits of Solr clients. `main.rs` only calls [`run`].
//!
//! Modules: [`local_solr`] starts the project's real Solr; [`workload`] generates seeded
//! documents and queries; [`study`] runs the transport study; [`witness`] reads the kernel's
//! connection counters; [`stats`] holds the percentile rules; [`report`] prints and saves;
//! [`wan`] emulates a remote Solr (namespaces, delay line, TLS proxy); [`sweep`] runs the
//! study's searches at several RTTs through it; [`large_responses`] is scenario S5 (seed 004);
//! [`watch`] audits any application's Solr traffic from a packet capture; [`routing`] is seed
//! 003's read-routing question under write pressure.

pub mod args;
pub mod bulk_files;
pub mod cli;
pub mod idle;
pub mod knn;
pub mod large_responses;
pub mod load;
pub mod nrt;
pub mod report;
pub mod routing;
pub mod runs;
pub mod study;
pub mod sweep;
pub mod witness;
pub mod workload;

pub use bench_report::stats;
pub use solr_harness::{auth, local_solr, seedkit};

/// The WAN emulator (crate `wan-emu`) and its command-line options.
pub mod wan {
    pub use crate::cli::wan as cli;
    pub use wan_emu::*;
}

/// The passive traffic analyser (crate `solr-watch`) and its command.
pub mod watch {
    pub use crate::cli::watch as cli;
    pub use solr_watch::*;
}

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
    Study(Box<StudyArgs>),
    /// A quick audit of any Solr: each transport with and without gzip, a few searches,
    /// connection reuse proven by the witnesses, the phase breakdown and overhead over QTime.
    /// Without `--url` it audits the project's local Solr, through the WAN topology with
    /// `--rtt`/`--bandwidth` (emulation applies only to a Solr on this machine's loopback).
    Audit(Box<AuditArgs>),
    /// Compares two saved studies (`summary.json`): differences and the noise margin.
    Compare {
        /// Baseline summary.json (or its folder).
        baseline: PathBuf,
        /// Contender summary.json (or its folder).
        contender: PathBuf,
    },
    /// Near-real-time indexing under search load (seed 001): a commit loop, paced indexing,
    /// full-speed searches and a visibility-lag prober, hard and soft commits side by side.
    Nrt(Box<nrt::NrtArgs>),
    /// Read routing under write pressure (seed 003's routing headers): the same reads under
    /// each read preference of the leader/follower pair (or, `--topology cloud`, of a SolrCloud
    /// shard with NRT, TLOG and PULL replicas) while indexing pressure rises, with per-node
    /// (and per-replica) counts, QTime, visibility lag and per-JVM CPU.
    Routing(Box<routing::RoutingArgs>),
    /// Bulk indexing of update files with the page cache hot and cold (seed 002).
    BulkFiles(Box<bulk_files::BulkArgs>),
    /// Watches any application's Solr traffic on the wire (or in a saved capture): connections,
    /// reuse, requests, gzip, update formats, wall time vs QTime, findings with fixes.
    Watch(Box<watch::cli::WatchArgs>),
    /// The study's searches at several round-trip times through the WAN topology (root):
    /// one table (p50/p95, QTime, connections, fresh/pooled ratio vs theory) and one chart.
    Sweep(Box<sweep::SweepArgs>),
    /// Scenario S5 (seed 004): pages of 10..1000 rows with and without gzip across an
    /// emulated slow link (root): wire bytes, p50/p95, client CPU, where gzip starts to pay.
    LargeResponses(Box<large_responses::LargeArgs>),
    /// Prints the JSON Schema of a command's JSON output: `summary.json` of study/audit
    /// (default), or that of sweep, large-responses, watch, nrt, bulk-files, knn or routing.
    Schema {
        /// Whose: summary (also: study, audit), sweep, large-responses, watch, nrt, bulk-files,
        /// knn, routing.
        #[arg(default_value = "summary")]
        which: String,
    },
    /// The kNN load test of seed 000 (S2): concurrency x topK sweep of vector searches on one
    /// or more Solr JVM settings, with /proc resource sampling and the reduction table.
    Knn(Box<KnnArgs>),
    /// Re-renders the tables, CSV and charts of a saved run: a study or audit from its raw
    /// `records.jsonl`; an `nrt`, `bulk-files`, `routing` or `knn` run from its JSON (which holds every
    /// figure and timeline they are drawn from).
    Report {
        /// The run folder (summary.json + records.jsonl, or knn.json).
        run: PathBuf,
    },
}

/// Options of `audit`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// Solr base URL, e.g. `https://solr.example:8983/solr`. Without it the project's local
    /// Solr is started (and stopped after).
    #[arg(long, value_parser = crate::SolrUrl)]
    pub url: Option<String>,
    /// The local Solr with TLS; with `--rtt`, TLS 1.3 at the WAN proxy instead.
    #[arg(long)]
    pub tls: bool,
    /// Collection or core.
    #[arg(long, default_value = "bench")]
    pub collection: String,
    /// CA certificate (PEM) to trust for https.
    #[arg(long)]
    pub ca: Option<PathBuf>,
    /// The query each search sends (any Solr answers `*:*`).
    #[arg(long, default_value = "*:*")]
    pub query: String,
    /// Rows per search.
    #[arg(value_parser = crate::args::count::<u64, 0, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 10)]
    pub rows: u64,
    /// Searches per transport.
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 50)]
    pub searches: usize,
    /// Interface for the pcap SYN witness (default: lo for a loopback URL, any otherwise).
    #[arg(long)]
    pub interface: Option<String>,
    /// Do not capture packets.
    #[arg(long)]
    pub no_pcap: bool,
    /// Output folder (default `results/audit-<unix time>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// Idle gaps (ms) for the idle-penalty probe: the same search on one kept-alive pooled
    /// connection, back to back (0) and after each gap. Not through `--rtt`.
    #[arg(value_parser = crate::args::count::<u64, 0, 3_600_000>, allow_negative_numbers = true, long, value_delimiter = ',', default_value = idle::DEFAULT_GAPS)]
    pub idle_gaps: Vec<u64>,
    /// Searches per idle gap.
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000>, allow_negative_numbers = true, long, default_value_t = idle::DEFAULT_SEARCHES)]
    pub idle_searches: usize,
    /// Skip the idle-penalty probe.
    #[arg(long)]
    pub no_idle: bool,
    /// Then measure the longest idle gap again while a warmer sends `*:*` with no rows
    /// every this many ms on a second connection (0: no warmer).
    #[arg(value_parser = crate::args::count::<u64, 0, 60_000>, allow_negative_numbers = true, long, value_name = "MS", default_value_t = 20)]
    pub idle_warmer: u64,
    /// WAN emulation (`--rtt`, `--jitter`, `--bandwidth`, `--tls-version`; root): only for
    /// the project's local Solr or another Solr on this machine's loopback.
    #[command(flatten)]
    pub wan: Box<wan::cli::WanArgs>,
}

/// Options of `study`.
#[derive(Debug, clap::Args)]
pub struct StudyArgs {
    /// Solr base URL. Without it the project's own local Solr is started (and stopped after).
    #[arg(long, value_parser = crate::SolrUrl)]
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
    /// Documents reindexed per update format (seed 003: 50K); 0 skips reindexing.
    #[arg(value_parser = crate::args::count::<usize, 0, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 50_000)]
    pub docs: usize,
    /// Documents per update request.
    #[arg(value_parser = crate::args::count::<usize, 1, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 500)]
    pub batch: usize,
    /// Measured searches per transport and repetition (seed 003: 1K); 0 skips.
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 1000)]
    pub searches: usize,
    /// Measured mixed read/write operations per transport and repetition (seed 003: 1K); 0 skips.
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 1000)]
    pub mixed: usize,
    /// Share of writes (single-document adds, no commit) in the mixed workload.
    #[arg(value_parser = crate::args::ratio, allow_negative_numbers = true, long, default_value_t = 0.5)]
    pub write_ratio: f64,
    /// Warm-up searches per transport and repetition (excluded from figures).
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 20)]
    pub warmup: usize,
    /// Repetitions; the transport order rotates between them.
    #[arg(value_parser = crate::args::count::<usize, 1, 1000>, allow_negative_numbers = true, long, default_value_t = 3)]
    pub reps: usize,
    /// Rows per search.
    #[arg(value_parser = crate::args::count::<u64, 0, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 10)]
    pub rows: u64,
    /// Concurrent workers (closed loop).
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000>, allow_negative_numbers = true, long, default_value_t = 1)]
    pub concurrency: usize,
    /// Open loop: target rate in requests per second (replaces the closed loop).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Open loop: Poisson arrivals instead of a constant gap.
    #[arg(long)]
    pub poisson: bool,
    /// Open loop: most requests in flight at once.
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000>, allow_negative_numbers = true, long, default_value_t = 64)]
    pub max_in_flight: usize,
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
    #[arg(value_parser = crate::args::count::<usize, 0, 65_536>, allow_negative_numbers = true, long, default_value_t = 0)]
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

/// Options of `knn`.
#[derive(Debug, clap::Args)]
pub struct KnnArgs {
    /// Solr base URL. Without it the project's local Solr is started once per `--jvm`.
    #[arg(long, value_parser = crate::SolrUrl)]
    pub url: Option<String>,
    /// Collection or core.
    #[arg(long, default_value = "bench")]
    pub collection: String,
    /// CA certificate (PEM) to trust for https.
    #[arg(long)]
    pub ca: Option<PathBuf>,
    /// With `--url`: pid of the Solr JVM to sample (default: host CPU only).
    #[arg(long)]
    pub solr_pid: Option<u32>,
    /// Documents in the corpus (seed: 7,367).
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 7367)]
    pub docs: usize,
    /// Vector dimension (seed: 768).
    #[arg(value_parser = crate::args::count::<usize, 1, 65_536>, allow_negative_numbers = true, long, default_value_t = 768)]
    pub dim: usize,
    /// Workload seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Documents per update request.
    #[arg(value_parser = crate::args::count::<usize, 1, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 500)]
    pub batch: usize,
    /// Concurrency levels, comma-separated (seed: 1,5,10,20).
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000>, allow_negative_numbers = true, long, value_delimiter = ',', default_value = "1,5,10,20")]
    pub concurrency: Vec<usize>,
    /// topK values, comma-separated.
    #[arg(value_parser = crate::args::count::<u32, 1, 1_000_000>, allow_negative_numbers = true, long = "topk", value_delimiter = ',', default_value = "10,100,1000")]
    pub top_k: Vec<u32>,
    /// Queries per cell (0 = one per document, as the seed's loop count).
    #[arg(value_parser = crate::args::count::<usize, 0, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 0)]
    pub requests: usize,
    /// Longest a cell runs, seconds (0 = until its queries are done).
    #[arg(value_parser = crate::args::seconds, allow_negative_numbers = true, long, default_value_t = 0.0)]
    pub cell_seconds: f64,
    /// Warm-up queries per JVM before the sweep (not measured).
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 200)]
    pub warmup: usize,
    /// Solr JVM settings to compare; the first is the baseline (java17, temurin25,
    /// temurin25+incubator, temurin25+vector). Repeat or comma-separate.
    #[arg(
        long = "jvm",
        value_delimiter = ',',
        default_value = "java17,temurin25+vector"
    )]
    pub jvms: Vec<String>,
    /// Solr heap.
    #[arg(long, default_value = "1g")]
    pub heap: String,
    /// Fields per hit ("" = every stored field, the 768 floats included).
    #[arg(long, default_value = "id,score")]
    pub fl: String,
    /// /proc sampling interval, ms.
    #[arg(value_parser = crate::args::count::<u64, 1, 60_000>, allow_negative_numbers = true, long, default_value_t = 250)]
    pub sample_ms: u64,
    /// Local Solr instance names are PREFIX-JVM.
    #[arg(long, default_value = "knn")]
    pub instance_prefix: String,
    /// Keep the local Solr running afterwards.
    #[arg(long)]
    pub keep_solr: bool,
    /// Output folder (default `results/knn-<unix time>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// Print the JSON Schema of `knn.json` and exit.
    #[arg(long)]
    pub schema: bool,
}

/// Runs the CLI.
pub async fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Study(a) => study_cmd(*a).await,
        Command::Audit(a) => audit_cmd(*a).await,
        Command::Nrt(a) => nrt::cmd(*a).await.map(|_| ()),
        Command::BulkFiles(a) => bulk_files::cmd(*a).await.map(|_| ()),
        Command::Routing(a) => routing::cmd(*a).await.map(|_| ()),
        Command::Watch(a) => watch::cli::run(*a).await,
        Command::Compare {
            baseline,
            contender,
        } => {
            let a = report::load_summary(&baseline)?;
            let b = report::load_summary(&contender)?;
            let diffs = report::compare::compare(&a, &b);
            report::compare::print(&diffs, &mut std::io::stdout().lock())
        }
        Command::Knn(a) => knn_cmd(*a).await,
        Command::Sweep(a) => sweep::run_cmd(*a).await,
        Command::LargeResponses(a) => large_responses::run_cmd(*a).await,
        Command::Schema { which } => {
            let s = schema_named(&which).with_context(|| {
                format!(
                    "schema {which:?}: expected summary, sweep, large-responses, watch, nrt, \
                     bulk-files, knn or routing"
                )
            })?;
            println!("{s}");
            Ok(())
        }
        Command::Report { run } => {
            let kind = rerender_any(&run, &mut std::io::stdout().lock())?;
            eprintln!("re-rendered ({kind}): {}", run.display());
            Ok(())
        }
    }
}

/// The JSON Schema of `summary.json`, as published in `transport-bench/schema/summary.schema.json`.
pub fn summary_schema() -> String {
    schema_of::<study::StudyReport>()
}

/// The JSON Schema of the `nrt` summary (`transport-bench/schema/nrt.schema.json`).
pub fn nrt_schema() -> String {
    schema_of::<nrt::NrtReport>()
}

/// The JSON Schema of the `bulk-files` summary (`transport-bench/schema/bulk-files.schema.json`).
pub fn bulk_files_schema() -> String {
    schema_of::<bulk_files::BulkReport>()
}

/// The JSON Schema of `knn.json`, as published in `transport-bench/schema/knn.schema.json`.
pub fn knn_schema() -> String {
    schema_of::<knn::KnnReport>()
}

async fn knn_cmd(a: KnnArgs) -> Result<()> {
    if a.schema {
        println!("{}", knn_schema());
        return Ok(());
    }
    if a.sample_ms == 0 {
        anyhow::bail!("--sample-ms must be at least 1");
    }
    if a.url.is_some() && a.jvms != ["java17", "temurin25+vector"] {
        eprintln!(
            "knn: --jvm is ignored with --url (the JVM of an external Solr is not ours to choose)"
        );
    }
    let cfg = knn::KnnConfig {
        url: a.url,
        collection: a.collection,
        ca: a.ca,
        solr_pid: a.solr_pid,
        docs: a.docs,
        dim: a.dim,
        seed: a.seed,
        batch: a.batch,
        concurrency: a.concurrency,
        top_k: a.top_k,
        requests: a.requests,
        cell_seconds: a.cell_seconds,
        warmup: a.warmup,
        jvms: a.jvms,
        heap: a.heap,
        fl: a.fl,
        sample_interval: std::time::Duration::from_millis(a.sample_ms),
        instance_prefix: a.instance_prefix,
        keep_solr: a.keep_solr,
        quiet: a.quiet,
    };
    let report = knn::run(&cfg).await?;
    let out = out_dir(a.out, "knn")?;
    knn::render::save(&out, &report).with_context(|| format!("saving to {}", out.display()))?;
    knn::render::print_text(&report, &mut std::io::stdout().lock())?;
    eprintln!("saved: {}", out.display());
    Ok(())
}

/// The command `transport-bench {cmd} {extra...}` parses to (for tests of option handling).
#[cfg(test)]
pub(crate) fn parse_command(cmd: &str, extra: &[&str]) -> Command {
    use clap::Parser;
    let argv = ["transport-bench", cmd]
        .into_iter()
        .chain(extra.iter().copied());
    Cli::parse_from(argv).command
}

/// The parser of every `--url`: [`check_solr_url`], with an error that does not repeat the
/// value (clap's own "invalid value '...'" would print the password back).
#[derive(Debug, Clone, Copy)]
pub struct SolrUrl;

impl clap::builder::TypedValueParser for SolrUrl {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<String, clap::Error> {
        let fail = |m: String| {
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("--url: {m}\n"),
            )
            .with_cmd(cmd)
        };
        let raw = value.to_str().ok_or_else(|| fail("not UTF-8".into()))?;
        check_solr_url(raw).map_err(fail)
    }
}

/// Checks a `--url` value: an http(s) URL without user info. Credentials in the URL would be
/// written into every report, JSON and CSV file of the run, so they are refused with a message
/// that does not repeat them.
pub fn check_solr_url(raw: &str) -> std::result::Result<String, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("not a URL ({e})"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "user info (user:password@) is not accepted: it would be written into \
             the run's reports; give the URL without it (Solr with basic auth is not supported \
             by the benchmark commands)"
                .into(),
        );
    }
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("must be http or https, not {}", url.scheme()));
    }
    Ok(raw.to_string())
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

/// `out` when given; otherwise a new folder `results/{kind}-{unix time}` under the project
/// root, created here, with `-2`, `-3`, .. appended when that name is taken (two runs in
/// the same second never share a folder).
pub fn out_dir(out: Option<PathBuf>, kind: &str) -> Result<PathBuf> {
    match out {
        Some(dir) => Ok(dir),
        None => unique_dir(
            &local_solr::project_root().join("results"),
            &format!("{kind}-{}", seedkit::unix_secs()),
        ),
    }
}

/// Creates and returns a new folder `parent/stem`, or `parent/stem-N` (N = 2, 3, ..) when
/// that exists: `create_dir` either makes the folder or fails, so two processes racing for
/// the same name end up in different folders.
pub fn unique_dir(parent: &std::path::Path, stem: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    for n in 1u32.. {
        let dir = if n == 1 {
            parent.join(stem)
        } else {
            parent.join(format!("{stem}-{n}"))
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", dir.display())),
        }
    }
    unreachable!("u32 counter exhausted")
}

/// The JSON Schema published as `transport-bench/schema/{name}.schema.json` (`study` and
/// `audit` are aliases of `summary`), or None for an unknown name.
pub fn schema_named(name: &str) -> Option<String> {
    Some(match name {
        "summary" | "study" | "audit" => summary_schema(),
        "sweep" => sweep::sweep_schema(),
        "large-responses" => large_responses::large_schema(),
        "watch" => watch::watch_schema(),
        "nrt" => nrt_schema(),
        "bulk-files" => bulk_files_schema(),
        "knn" => knn_schema(),
        "routing" => schema_of::<routing::RoutingReport>(),
        _ => return None,
    })
}

/// The JSON Schema of `T`, pretty-printed (what `transport-bench/schema/*.schema.json` hold).
pub fn schema_of<T: schemars::JsonSchema>() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(T)).unwrap_or_default()
}

async fn audit_cmd(a: AuditArgs) -> Result<()> {
    a.wan.validate()?;
    if let (Some(url), true) = (&a.url, a.wan.enabled()) {
        if let Err(e) = wan::cli::upstream_of(url) {
            anyhow::bail!(
                "WAN emulation (--rtt/--bandwidth) applies only to the project's local Solr or \
                 another plain-http Solr on this machine's loopback, and {url} is not one ({e:#}). \
                 Drop --rtt/--bandwidth to audit it over the real network, or drop --url to \
                 audit the local Solr through the emulated link."
            );
        }
    }
    // Through the WAN topology the proxy terminates TLS; Solr itself stays plain http.
    let solr_tls = a.tls && !a.wan.enabled();
    let target = local_target(
        a.url.clone(),
        &a.collection,
        a.ca.clone(),
        "audit",
        solr_tls,
    )?;
    let (url, ca) = (target.url.clone(), target.ca.clone());
    // An empty local core would answer every search with nothing: index a few documents.
    let docs = if target.local.is_some() { 100 } else { 0 };
    let pcap_interface = (!a.no_pcap).then(|| {
        a.interface
            .clone()
            .unwrap_or_else(|| default_interface(&url))
    });
    let cfg = study::StudyConfig {
        url: url.clone(),
        collection: a.collection,
        ca,
        docs,
        batch: 100,
        searches: a.searches,
        mixed: 0,
        write_ratio: 0.0,
        warmup: 0,
        reps: 1,
        rows: a.rows,
        query: Some(a.query),
        load: load::Load::Closed { concurrency: 1 },
        seed: 42,
        transports: TransportKind::ALL.to_vec(),
        gzip: vec![false, true],
        vector_dim: 0,
        pcap_interface,
        capture_dir: None,
        quiet: a.quiet,
    };
    let result = if a.wan.enabled() {
        wan::cli::run_study(&a.wan, a.tls, cfg).await
    } else {
        let mut result = study::run(&cfg).await;
        if let (Ok((report, _)), false) = (&mut result, a.no_idle || a.idle_gaps.is_empty()) {
            match idle_probe(&cfg, &a.idle_gaps, a.idle_searches, a.idle_warmer).await {
                Ok(p) => report.idle = Some(p),
                Err(e) => report
                    .warnings
                    .push(format!("idle-penalty probe failed: {e:#}")),
            }
        }
        result
    };
    target.finish(false);
    let (report, records) = result?;
    let out = out_dir(a.out, "audit")?;
    report::save(&out, &report, &records)
        .with_context(|| format!("saving to {}", out.display()))?;
    let mut stdout = std::io::stdout().lock();
    use std::io::Write;
    let through = match report.settings.get("wan") {
        Some(w) => format!(
            " through the emulated link (RTT {} ms, proxy {})",
            w["rtt_ms"],
            w["proxy"].as_str().unwrap_or("-")
        ),
        None => String::new(),
    };
    writeln!(
        stdout,
        "Audit of {url}{through}: {} searches per transport",
        a.searches
    )?;
    for line in study::findings(&report.transports) {
        writeln!(stdout, "  {line}")?;
    }
    writeln!(stdout)?;
    report::print_text(&report, &mut stdout)?;
    eprintln!("saved: {}", out.display());
    Ok(())
}

/// Re-renders whatever run `run` holds (see [`Command::Report`]), prints its text report to
/// `w`, and says which kind it was ([`runs::rerender_any`]).
pub fn rerender_any<W: std::io::Write>(run: &std::path::Path, w: &mut W) -> Result<&'static str> {
    runs::rerender_any(run, w)
}

/// `url` when given; otherwise the project's local standalone Solr, instance `name`
/// (`name-tls` with TLS).
fn local_target(
    url: Option<String>,
    collection: &str,
    ca: Option<PathBuf>,
    name: &str,
    tls: bool,
) -> Result<seedkit::Target> {
    if tls {
        seedkit::Target::open(url, collection, ca, &format!("{name}-tls"), &["--tls"])
    } else {
        seedkit::Target::open(url, collection, ca, name, &[])
    }
}

/// The idle-penalty probe of `audit` ([`idle::probe`]) on a new pooled client, with a warmer
/// on a second one every `warmer_ms` (0: none).
async fn idle_probe(
    cfg: &study::StudyConfig,
    gaps: &[u64],
    n: usize,
    warmer_ms: u64,
) -> Result<idle::IdleProbe> {
    let mut tls = solr_client::TlsOptions::new();
    if let Some(ca) = &cfg.ca {
        tls = tls.add_ca_pem_file(ca)?;
    }
    let pooled = std::sync::Arc::new(solr_client::transport::Pooled::new(
        &tls,
        solr_client::transport::PooledConfig::default(),
    )?);
    let auth = auth::from_env()?;
    let client = |transport: std::sync::Arc<solr_client::transport::Pooled>| {
        let b = solr_client::SolrClient::builder(&cfg.url)
            .collection(&cfg.collection)
            .custom_transport(transport);
        match auth.clone() {
            Some(c) => b.credentials(c),
            None => b,
        }
        .build()
    };
    let measured = client(pooled.clone())?;
    let warm_client = client(std::sync::Arc::new(solr_client::transport::Pooled::new(
        &tls,
        solr_client::transport::PooledConfig::default(),
    )?))?;
    let select =
        solr_client::Select::new(cfg.query.clone().unwrap_or_else(|| "*:*".into())).rows(cfg.rows);
    let warmer = (warmer_ms > 0).then(|| idle::Warmer {
        client: &warm_client,
        select: solr_client::Select::new("*:*").rows(0),
        interval: std::time::Duration::from_millis(warmer_ms),
    });
    let steps = (gaps.len() + usize::from(warmer.is_some())) * n;
    let pb = seedkit::progress(cfg.quiet, steps as u64, "idle-penalty probe");
    let opened = {
        let pooled = pooled.clone();
        move || solr_client::Transport::stats(&*pooled).connections_opened
    };
    let p = idle::probe(&measured, &opened, &select, gaps, n, warmer, &pb).await;
    pb.finish_and_clear();
    p
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
    let target = local_target(a.url, &a.collection, a.ca, "study", solr_tls)?;
    let url = target.url.clone();
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
        ca: target.ca.clone(),
        docs: a.docs,
        batch: a.batch,
        searches: a.searches,
        mixed: a.mixed,
        write_ratio: a.write_ratio,
        warmup: a.warmup,
        reps: a.reps,
        rows: a.rows,
        load: match a.rate {
            Some(rate) if rate > 0.0 => load::Load::Open {
                rate,
                poisson: a.poisson,
                max_in_flight: a.max_in_flight,
            },
            Some(rate) => anyhow::bail!("--rate must be positive, not {rate}"),
            None => load::Load::Closed {
                concurrency: a.concurrency,
            },
        },
        seed: a.seed,
        transports: a.transports,
        gzip,
        vector_dim: a.vector_dim,
        query: None,
        pcap_interface,
        capture_dir: a.save_captures,
        quiet: a.quiet,
    };
    let result = if a.wan.enabled() {
        wan::cli::run_study(&a.wan, a.tls, cfg).await
    } else {
        study::run(&cfg).await
    };
    target.finish(a.keep_solr);
    let (report, records) = result?;
    let out = out_dir(a.out, "study")?;
    report::save(&out, &report, &records)
        .with_context(|| format!("saving to {}", out.display()))?;
    let mut stdout = std::io::stdout().lock();
    report::print_text(&report, &mut stdout)?;
    eprintln!("saved: {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn published_schemas_are_current() {
        let published = [
            ("summary", include_str!("../schema/summary.schema.json")),
            ("sweep", include_str!("../schema/sweep.schema.json")),
            (
                "large-responses",
                include_str!("../schema/large-responses.schema.json"),
            ),
            ("watch", include_str!("../schema/watch.schema.json")),
            ("nrt", include_str!("../schema/nrt.schema.json")),
            (
                "bulk-files",
                include_str!("../schema/bulk-files.schema.json"),
            ),
            ("knn", include_str!("../schema/knn.schema.json")),
            ("routing", include_str!("../schema/routing.schema.json")),
        ];
        for (name, text) in published {
            assert_eq!(
                text.trim(),
                super::schema_named(name).expect("a known schema").trim(),
                "run `transport-bench schema {name} > transport-bench/schema/{name}.schema.json`"
            );
        }
        assert_eq!(super::schema_named("nope"), None);
    }

    #[test]
    fn run_folders_are_unique_within_a_second() {
        let parent = std::env::temp_dir().join(format!("tb-unique-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&parent);
        let dirs: Vec<_> = (0..3)
            .map(|_| super::unique_dir(&parent, "audit-1700000000").expect("dir"))
            .collect();
        assert_eq!(dirs[0], parent.join("audit-1700000000"));
        assert_eq!(dirs[1], parent.join("audit-1700000000-2"));
        assert_eq!(dirs[2], parent.join("audit-1700000000-3"));
        assert!(dirs.iter().all(|d| d.is_dir()));
        std::fs::remove_dir_all(&parent).expect("clean up");
    }

    #[test]
    fn audit_idle_options() {
        let gaps = |extra: &[&str]| match super::parse_command("audit", extra) {
            super::Command::Audit(a) => (a.idle_gaps, a.idle_searches, a.idle_warmer, a.no_idle),
            other => panic!("{other:?}"),
        };
        assert_eq!(gaps(&[]), (vec![0, 20, 100, 300], 15, 20, false));
        assert_eq!(
            gaps(&["--idle-gaps", "0,50", "--idle-warmer", "0", "--no-idle"]),
            (vec![0, 50], 15, 0, true)
        );
    }
}
