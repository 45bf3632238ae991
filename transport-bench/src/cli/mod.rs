//! The command line: [`Cli`] and [`Command`] (one file per command), the argument groups
//! several commands share ([`groups`]), and [`run`], which dispatches. Everything here sits on
//! top of the scenarios and the library crates; nothing below imports from it.

pub mod audit;
pub mod baseline;
pub mod bulk_files;
pub mod bulk_index;
pub mod compare;
#[cfg(test)]
mod docs_pages;
pub mod groups;
pub mod knn;
pub mod large_responses;
pub mod nrt;
pub mod registry;
pub mod report;
pub mod response_format;
pub mod routing;
pub mod schema;
pub mod study;
pub mod sweep;
pub mod wan;
pub mod watch;
#[cfg(feature = "ebpf")]
pub mod watch_ebpf;
#[cfg(not(feature = "ebpf"))]
#[path = "watch_ebpf_off.rs"]
pub mod watch_ebpf;

use anyhow::Result;
use clap::{Parser, Subcommand};

use registry::Scenario;

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
    /// The transport study: indexing per update format, then the same searches
    /// through every transport with and without gzip, with connection witnesses.
    Study(Box<study::StudyArgs>),
    /// A quick audit of any Solr: each transport with and without gzip, a few searches,
    /// connection reuse proven by the witnesses, the phase breakdown and overhead over QTime.
    /// Without `--url` it audits the project's local Solr, through the WAN topology with
    /// `--rtt`/`--bandwidth` (emulation applies only to a Solr on this machine's loopback).
    Audit(Box<audit::AuditArgs>),
    /// The raw-hyper baseline: the same searches through a raw hyper keep-alive loop and
    /// every solr-client transport in interleaved rounds; p50/p99 ratios, CPU per request.
    Baseline(Box<baseline::BaselineArgs>),
    /// Compares two saved studies (`summary.json`): differences and the noise margin.
    Compare(compare::CompareArgs),
    /// Near-real-time indexing under search load: a commit loop, paced indexing,
    /// full-speed searches and a visibility-lag prober, hard and soft commits side by side.
    Nrt(Box<nrt::NrtArgs>),
    /// Read routing under write pressure: the same reads under
    /// each read preference of the leader/follower pair (or, `--topology cloud`, of a SolrCloud
    /// shard with NRT, TLOG and PULL replicas) while indexing pressure rises, with per-node
    /// (and per-replica) counts, QTime, visibility lag and per-JVM CPU.
    Routing(Box<routing::RoutingArgs>),
    /// Bulk indexing of update files with the page cache hot and cold.
    BulkFiles(Box<bulk_files::BulkArgs>),
    /// Bulk indexing beside SolrJ: ConcurrentUpdateHttp2SolrClient (swept to its best
    /// setting), Http2SolrClient, solr-client sequential and concurrent, in interleaved
    /// rounds, with docs/s, client CPU and numFound checked exactly after every run.
    BulkIndex(Box<bulk_index::BulkIndexArgs>),
    /// Watches any application's Solr traffic on the wire (or in a saved capture): connections,
    /// reuse, requests, gzip, update formats, wall time vs QTime, findings with fixes.
    Watch(Box<watch::WatchArgs>),
    /// The study's searches at several round-trip times through the WAN topology (root):
    /// one table (p50/p95, QTime, connections, fresh/pooled ratio vs theory) and one chart.
    Sweep(Box<sweep::SweepArgs>),
    /// Large responses: pages of 10..1000 rows with and without gzip across an
    /// emulated slow link (root): wire bytes, p50/p95, client CPU, where gzip starts to pay.
    LargeResponses(Box<large_responses::LargeArgs>),
    /// Prints the JSON Schema of a command's JSON output: `summary.json` of study/audit
    /// (default), or that of sweep, large-responses, watch, nrt, bulk-files, knn or routing.
    Schema(schema::SchemaArgs),
    /// The kNN load test: a concurrency x topK sweep of vector searches on one
    /// or more Solr JVM settings, with /proc resource sampling and the reduction table.
    Knn(Box<knn::KnnArgs>),
    /// Re-renders the tables, CSV and charts of a saved run: a study or audit from its raw
    /// `records.jsonl`; an `nrt`, `bulk-files`, `routing` or `knn` run from its JSON (which holds every
    /// figure and timeline they are drawn from).
    Report(report::ReportArgs),
}

/// Runs the command.
pub async fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Study(a) => study::Study::run(*a).await,
        Command::Audit(a) => audit::Audit::run(*a).await,
        Command::Baseline(a) => baseline::Baseline::run(*a).await,
        Command::Compare(a) => compare::run(a),
        Command::Nrt(a) => nrt::Nrt::run(*a).await,
        Command::Routing(a) => routing::Routing::run(*a).await,
        Command::BulkFiles(a) => bulk_files::BulkFiles::run(*a).await,
        Command::BulkIndex(a) => bulk_index::BulkIndex::run(*a).await,
        Command::Watch(a) => watch::run(*a).await,
        Command::Sweep(a) => sweep::Sweep::run(*a).await,
        Command::LargeResponses(a) => large_responses::LargeResponses::run(*a).await,
        Command::Schema(a) => schema::run(a),
        Command::Knn(a) => knn::Knn::run(*a).await,
        Command::Report(a) => report::run(a),
    }
}

/// The command `transport-bench {cmd} {extra...}` parses to (for tests of option handling).
#[cfg(test)]
pub(crate) fn parse_command(cmd: &str, extra: &[&str]) -> Command {
    let argv = ["transport-bench", cmd]
        .into_iter()
        .chain(extra.iter().copied());
    Cli::parse_from(argv).command
}

/// What the binary does with a parsed command line: runs it and returns the process's exit
/// code: 0, also when stdout was closed (`transport-bench ... | head`); 1 on an error, whose
/// whole chain is printed on stderr as one `transport-bench: error: ...` line.
pub async fn exit_code(cli: Cli) -> i32 {
    let Err(e) = run(cli).await else {
        return 0;
    };
    if e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    }) {
        return 0;
    }
    eprintln!("transport-bench: error: {e:#}");
    1
}
