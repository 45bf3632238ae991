//! What every scenario is to the command line ([`Scenario`]): the list of them
//! ([`crate::cli::registry::SCENARIOS`]) builds the subcommands, schema names, `report RUN`'s
//! dispatch and `run.json` kinds from it. Each scenario implements it in its folder's `cli.rs`.
//!
//! A scenario only measures: [`Scenario::run`] returns its report ([`Outcome`]). The registry
//! ends every run the same way: it stops the local Solr the run started through
//! [`Run::local`] (an RAII guard, so an error or an early return stops it too, unless
//! `--keep-solr`), saves the report (with `index.html`), prints it (text, or `--json`), says
//! where it went and sets the exit code (an error, [`Outcome::fails_with`], `--fail-on`). What
//! it reads from the options to do so is the scenario's [`Ending`].

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::Result;
use bench_report::run::RunReport;
use solr_watch::report::{Finding, Severity};

use crate::args::groups::OutputArgs;
use crate::engine::local::LocalSolrs;

/// A scenario as the command line runs it.
pub trait Scenario: 'static {
    /// The subcommand's name (`bulk-files`); also the stem of its default run folder.
    const NAME: &'static str;
    /// The subcommand's line in `--help`.
    const ABOUT: &'static str;
    /// The name `schema` publishes its report's JSON Schema under.
    const SCHEMA: &'static str = Self::NAME;
    /// The command's options.
    type Args: clap::Args + Send;
    /// The report the run saves.
    type Report: RunReport + Send;
    /// What the registry reads from the options to end the run.
    fn ending(args: &Self::Args) -> Ending;
    /// Measures and returns the report; a local Solr is started through `run.local`.
    fn run(
        args: Self::Args,
        run: &Run,
    ) -> impl Future<Output = Result<Outcome<Self::Report>>> + Send;
    /// The findings `--fail-on` judges (none by default).
    fn findings(_report: &Self::Report) -> &[Finding] {
        &[]
    }
}

/// What ending a run takes from its options: where the report goes and how it is shown
/// (`--out`, `--quiet`, `--json`), `--keep-solr`, `--fail-on`, and `--schema` (print the
/// report's JSON Schema instead of running).
#[derive(Debug, Clone)]
pub struct Ending {
    /// `--out`, `--quiet`, `--json`.
    pub output: OutputArgs,
    /// `--keep-solr`: the local Solr the run started stays up.
    pub keep_solr: bool,
    /// `--fail-on`: exit code 3 on a finding at this severity or above.
    pub fail_on: Option<Severity>,
    /// `--schema`: print the report's JSON Schema and run nothing.
    pub schema: bool,
}

impl Ending {
    /// A run whose report goes where `output` says, that stops the local Solr, with no
    /// `--fail-on` and no `--schema`.
    pub fn new(output: &OutputArgs) -> Ending {
        Ending {
            output: output.clone(),
            keep_solr: false,
            fail_on: None,
            schema: false,
        }
    }

    /// `--keep-solr`.
    pub fn keep_solr(mut self, keep: bool) -> Ending {
        self.keep_solr = keep;
        self
    }

    /// `--fail-on`.
    pub fn fail_on(mut self, at: Option<Severity>) -> Ending {
        self.fail_on = at;
        self
    }

    /// `--schema`.
    pub fn schema(mut self, schema: bool) -> Ending {
        self.schema = schema;
        self
    }
}

/// Writes files into a run folder ([`Outcome::beside`]).
pub type WriteBeside = Box<dyn FnOnce(&Path) -> Result<()> + Send>;

/// What a run hands the registry: its report, and what saving and printing it needs beyond
/// the report.
pub struct Outcome<R> {
    /// The report.
    pub report: R,
    /// Writes the files the report is rendered from beside it (`records.jsonl`), before the
    /// report is saved.
    pub beside: Option<WriteBeside>,
    /// Printed before the report's text (`audit`'s heading and findings).
    pub heading: Option<String>,
    /// The run measured but failed (an inexact count): the error, after the report is
    /// saved and printed.
    pub failure: Option<String>,
}

impl<R> std::fmt::Debug for Outcome<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outcome")
            .field("beside", &self.beside.is_some())
            .field("heading", &self.heading)
            .field("failure", &self.failure)
            .finish_non_exhaustive()
    }
}

impl<R> Outcome<R> {
    /// `report`, saved and printed as it is.
    pub fn new(report: R) -> Outcome<R> {
        Outcome {
            report,
            beside: None,
            heading: None,
            failure: None,
        }
    }

    /// `write` puts the files the report is rendered from into the run folder first.
    pub fn beside(mut self, write: impl FnOnce(&Path) -> Result<()> + Send + 'static) -> Self {
        self.beside = Some(Box::new(write));
        self
    }

    /// `heading` is printed before the report's text.
    pub fn heading(mut self, heading: String) -> Self {
        self.heading = Some(heading);
        self
    }

    /// The run fails with `why` once its report is saved and printed.
    pub fn fails_with(mut self, why: String) -> Self {
        self.failure = Some(why);
        self
    }
}

/// What a running scenario is given: the guard of the local Solr it starts ([`Run::local`])
/// and its run folder ([`Run::out`]).
#[derive(Debug)]
pub struct Run {
    /// Starts the local Solr and holds it until the run ends.
    pub local: LocalSolrs,
    output: OutputArgs,
    name: &'static str,
    out: OnceLock<PathBuf>,
}

impl Run {
    /// The run of scenario `name` ending as `ending` says.
    pub fn new(name: &'static str, ending: &Ending) -> Run {
        Run {
            local: LocalSolrs::new(ending.keep_solr),
            output: ending.output.clone(),
            name,
            out: OnceLock::new(),
        }
    }

    /// The run folder: `--out`, or a new `NAME-<unix time>` under the results folder, chosen
    /// (and created) at the first call; every later call gives the same.
    pub fn out(&self) -> Result<&Path> {
        if let Some(out) = self.out.get() {
            return Ok(out);
        }
        let dir = self.output.dir(self.name)?;
        Ok(self.out.get_or_init(|| dir))
    }

    /// Whether progress is hidden (`--quiet`).
    pub fn quiet(&self) -> bool {
        self.output.quiet
    }
}
