//! What every scenario is to the command line ([`Scenario`]): the list of them
//! ([`crate::cli::registry::SCENARIOS`]) builds the subcommands, schema names, `report RUN`'s
//! dispatch and `run.json` kinds from it. Each scenario implements it in its folder's `cli.rs`.

use std::future::Future;

use anyhow::Result;
use bench_report::run::RunReport;

/// A scenario as the command line runs it.
pub trait Scenario: 'static {
    /// The subcommand's name (`bulk-files`).
    const NAME: &'static str;
    /// The subcommand's line in `--help`.
    const ABOUT: &'static str;
    /// The name `schema` publishes its report's JSON Schema under.
    const SCHEMA: &'static str = Self::NAME;
    /// The command's options.
    type Args: clap::Args;
    /// The report the run saves.
    type Report: RunReport;
    /// Runs the command: measures, prints and saves the report.
    fn run(args: Self::Args) -> impl Future<Output = Result<()>> + Send;
}
