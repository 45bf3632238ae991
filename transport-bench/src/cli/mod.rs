//! The command line: [`Cli`] and [`Command`] (the scenarios' subcommands are built from
//! [`registry::SCENARIOS`], their options live in their scenario's folder; the other commands
//! are [`registry::Other`], one file each here), and [`run`], which dispatches. Everything
//! here sits on top of the scenarios and the library crates; nothing below imports from it.

#[cfg(test)]
mod docs_pages;
pub use crate::args::fail_on;
pub mod registry;
pub mod report;
pub mod schema;
pub mod shell;
pub mod watch;
#[cfg(feature = "ebpf")]
pub mod watch_ebpf;
#[cfg(not(feature = "ebpf"))]
#[path = "watch_ebpf_off.rs"]
pub mod watch_ebpf;
pub mod watch_serve;

use anyhow::Result;
use clap::{Parser, Subcommand};

use crate::scenario::shape::Scenario;
use registry::{Entry, Other, Running, SCENARIOS};

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

/// The order `--help` lists the commands in; a scenario not named here follows them, in the
/// list's order.
pub(crate) const HELP_ORDER: &[&str] = &[
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
    "completions",
    "man",
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
        Command::Other(other) => other.run().await,
    }
}

/// Parses a whole command line `transport-bench NAME OPTIONS...` that names scenario `S` into
/// `S`'s options, for a caller that wants the scenario's report value rather than the printed
/// run (`nrt::cli::cmd`). Any other command line is clap's error.
pub fn scenario_args<S: Scenario>(
    argv: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
) -> Result<S::Args, clap::Error> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    let matches = cmd.try_get_matches_from_mut(argv)?;
    match matches.subcommand() {
        Some((name, sub)) if name == S::NAME => {
            <S::Args as clap::FromArgMatches>::from_arg_matches(sub)
        }
        _ => Err(cmd.error(
            clap::error::ErrorKind::InvalidSubcommand,
            format!("the command line names no {}", S::NAME),
        )),
    }
}

/// What the binary does with a parsed command line: runs it and returns the process's exit
/// code: 0, also when stdout was closed (`transport-bench ... | head`); 1 on an error, whose
/// whole chain is printed on stderr as one `transport-bench: error: ...` line; 3 when
/// `--fail-on` found a finding at its severity or above ([`fail_on`]). (2 is clap's, for a
/// command line it refused.)
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
    if let Some(found) = e.downcast_ref::<fail_on::FindingsFound>() {
        eprintln!("transport-bench: {found}");
        return fail_on::EXIT_FINDINGS;
    }
    eprintln!("transport-bench: error: {e:#}");
    1
}
