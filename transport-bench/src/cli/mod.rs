//! The command line: [`Cli`] and [`Command`] (one file per command; the scenarios' subcommands
//! are built from [`registry::SCENARIOS`]), the argument groups several commands share
//! ([`groups`]), and [`run`], which dispatches. Everything here sits on
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

use anyhow::Result;
use clap::{Parser, Subcommand};

use registry::{Entry, Running, SCENARIOS};

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

/// The command a command line names: a scenario of [`registry::SCENARIOS`], whose clap
/// subcommand is built from the list, or one of the other commands.
pub enum Command {
    /// A scenario: its entry in the list and its run, options parsed, not yet started.
    Scenario(&'static Entry, Running),
    /// A command that is not a scenario.
    Other(Other),
}

/// The commands that are not scenarios.
#[derive(Debug, Subcommand)]
pub enum Other {
    /// Compares two saved studies (`summary.json`): differences and the noise margin.
    Compare(compare::CompareArgs),
    /// Watches any application's Solr traffic on the wire (or in a saved capture): connections,
    /// reuse, requests, gzip, update formats, wall time vs QTime, findings with fixes.
    Watch(Box<watch::WatchArgs>),
    /// Prints the JSON Schema of a command's JSON output: `summary.json` of study/audit
    /// (default), or that of sweep, large-responses, watch, nrt, bulk-files, knn or routing.
    Schema(schema::SchemaArgs),
    /// Re-renders the tables, CSV and charts of a saved run: a study or audit from its raw
    /// `records.jsonl`; an `nrt`, `bulk-files`, `routing` or `knn` run from its JSON (which holds every
    /// figure and timeline they are drawn from).
    Report(report::ReportArgs),
}

/// The order `--help` lists the commands in; a scenario not named here follows them, in the
/// list's order.
const HELP_ORDER: &[&str] = &[
    "study",
    "audit",
    "baseline",
    "compare",
    "nrt",
    "routing",
    "bulk-files",
    "bulk-index",
    "watch",
    "sweep",
    "large-responses",
    "schema",
    "knn",
    "report",
];

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Scenario(e, _) => f.debug_tuple("Scenario").field(&e.name).finish(),
            Command::Other(o) => o.fmt(f),
        }
    }
}

impl clap::FromArgMatches for Command {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        if let Some((name, sub)) = m.subcommand() {
            if let Some(e) = SCENARIOS.iter().find(|e| e.name == name) {
                return Ok(Command::Scenario(e, (e.start)(sub)?));
            }
        }
        Other::from_arg_matches(m).map(Command::Other)
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Subcommand for Command {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        let cmd = SCENARIOS
            .iter()
            .fold(cmd, |cmd, e| cmd.subcommand((e.command)()));
        let cmd = Other::augment_subcommands(cmd);
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        names.iter().enumerate().fold(cmd, |cmd, (i, name)| {
            let at = HELP_ORDER.iter().position(|n| n == name);
            cmd.mut_subcommand(name, |c| {
                c.display_order(at.unwrap_or(HELP_ORDER.len() + i))
            })
        })
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        SCENARIOS.iter().any(|e| e.name == name) || Other::has_subcommand(name)
    }
}

/// Runs the command.
pub async fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Scenario(_, running) => running.await,
        Command::Other(Other::Compare(a)) => compare::run(a),
        Command::Other(Other::Watch(a)) => watch::run(*a).await,
        Command::Other(Other::Schema(a)) => schema::run(a),
        Command::Other(Other::Report(a)) => report::run(a),
    }
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
