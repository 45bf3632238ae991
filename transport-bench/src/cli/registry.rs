//! The ONE list of scenarios ([`SCENARIOS`]): each command that runs a measurement and saves a
//! report is a [`Scenario`] (its name, its help line, its clap options, its report type, how
//! it runs). The clap subcommands ([`super::Command`]), the `schema` command's names,
//! `report RUN`'s dispatch ([`rerender_any`]) and the kinds written into `run.json` all come
//! from this list. The commands that are not scenarios (compare, watch, schema, report) are
//! [`Other`]; `watch`'s saved runs are kinds of their own ([`saved_kinds`]).
//!
//! The registry also ends every run ([`run_to_end`], [`end`]): the scenario returns its
//! report, and the same code stops the local Solr it started, saves the report (with
//! `index.html`), prints it, says where it went and sets the exit code. `watch` ends through
//! [`end`] too.

use std::future::Future;
use std::io::Write;
use std::path::Path;
use std::pin::Pin;

use anyhow::{Context, Result};
use bench_report::run::{kind_of, RunReport};

use solr_watch::report::Finding;

use crate::scenario::shape::{Ending, Outcome, Run, Scenario};

/// A scenario's run, its options parsed, not yet started.
pub type Running = Pin<Box<dyn Future<Output = Result<()>> + Send>>;

/// One scenario of the list, type-erased.
#[derive(Debug)]
pub struct Entry {
    /// The subcommand's name.
    pub name: &'static str,
    /// The name of its JSON Schema.
    pub schema_name: &'static str,
    /// The kind its reports write into `run.json`.
    pub kind: &'static str,
    /// Its report's JSON file in the run folder.
    pub file: &'static str,
    /// Its report's JSON Schema.
    pub schema: fn() -> String,
    /// Re-renders a saved run of this kind and prints its text.
    pub rerender: fn(&Path, &mut dyn Write) -> Result<()>,
    /// Whether a JSON document reads as this kind of report.
    pub reads_as: fn(&[u8]) -> bool,
    /// Its clap subcommand: name, help line and options.
    pub command: fn() -> clap::Command,
    /// Parses its subcommand's matches into its options and returns the run.
    pub start: fn(&clap::ArgMatches) -> Result<Running, clap::Error>,
}

impl Entry {
    /// The entry of scenario `S`.
    pub const fn of<S: Scenario>() -> Entry {
        Entry {
            name: S::NAME,
            schema_name: S::SCHEMA,
            kind: <S::Report as RunReport>::KIND,
            file: <S::Report as RunReport>::FILE,
            schema: <S::Report as RunReport>::schema,
            rerender: rerender::<S::Report>,
            reads_as: reads_as::<S::Report>,
            command: command::<S>,
            start: start::<S>,
        }
    }
}

fn command<S: Scenario>() -> clap::Command {
    let cmd = clap::Command::new(S::NAME);
    <S::Args as clap::Args>::augment_args(cmd).about(S::ABOUT)
}

fn start<S: Scenario>(m: &clap::ArgMatches) -> Result<Running, clap::Error> {
    let args = <S::Args as clap::FromArgMatches>::from_arg_matches(m)?;
    Ok(Box::pin(async { run_to_end::<S>(args).await.map(drop) }))
}

/// Runs scenario `S` and ends its run, the same for every scenario: `--schema` prints the
/// report's schema instead (and returns None); the local Solr the run started is stopped
/// (whatever the run returned, unless `--keep-solr`) before the report is saved and printed
/// ([`end`]). Returns the report, for a caller that wants its figures (the e2e tests).
pub async fn run_to_end<S: Scenario>(args: S::Args) -> Result<Option<S::Report>> {
    let ending = S::ending(&args);
    if ending.schema {
        // Not println!: a closed stdout (`--schema | head`) is an error, not a panic.
        writeln!(std::io::stdout().lock(), "{}", S::Report::schema())?;
        return Ok(None);
    }
    let run = Run::new(S::NAME, &ending);
    let result = match S::run(args, &run).await {
        Ok(outcome) => run.out().map(|out| (outcome, out.to_path_buf())),
        Err(e) => Err(e),
    };
    // Stops the local Solr before the report is written, as the run's last act.
    drop(run);
    let (outcome, out) = result?;
    let findings = S::findings(&outcome.report).to_vec();
    end(&ending, &out, outcome, &findings).map(Some)
}

/// The end of every run that has a report: writes the files it is rendered from
/// ([`Outcome::beside`]), saves it into `out` (its JSON, text, charts, `run.json` and
/// `index.html`), prints it (the text on stdout, or with `--json` the saved JSON byte for byte
/// on stdout and the text on stderr), says `saved: OUT` on stderr, then fails the run when it
/// measured a failure ([`Outcome::fails_with`]) or `--fail-on` found `findings` at its
/// severity; otherwise returns the report.
pub fn end<R: RunReport>(
    ending: &Ending,
    out: &Path,
    outcome: Outcome<R>,
    findings: &[Finding],
) -> Result<R> {
    let Outcome {
        report,
        beside,
        heading,
        failure,
    } = outcome;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    if let Some(write) = beside {
        write(out).with_context(|| format!("saving to {}", out.display()))?;
    }
    report
        .save(out)
        .with_context(|| format!("saving to {}", out.display()))?;
    ending.output.json.print_saved(out, R::FILE, |w| {
        if let Some(h) = &heading {
            w.write_all(h.as_bytes())?;
        }
        report.print_text(w)
    })?;
    eprintln!("saved: {}", out.display());
    if let Some(why) = failure {
        anyhow::bail!("{why}");
    }
    crate::args::fail_on::check(ending.fail_on, findings)?;
    Ok(report)
}

/// Every scenario, in the order an old run folder without `run.json` is tried against.
pub const SCENARIOS: &[Entry] = &[
    Entry::of::<crate::scenario::study::cli::Study>(),
    Entry::of::<crate::scenario::study::audit::Audit>(),
    Entry::of::<crate::scenario::nrt::cli::Nrt>(),
    Entry::of::<crate::scenario::bulk_files::cli::BulkFiles>(),
    Entry::of::<crate::scenario::routing::cli::Routing>(),
    Entry::of::<crate::scenario::knn::cli::Knn>(),
    Entry::of::<crate::scenario::study::sweep::cli::Sweep>(),
    Entry::of::<crate::scenario::large_responses::cli::LargeResponses>(),
    Entry::of::<crate::scenario::bulk_index::cli::BulkIndex>(),
    Entry::of::<crate::scenario::baseline::cli::Baseline>(),
];

/// A kind of saved run `report RUN` reads, whichever command saved it: its `run.json` kind,
/// its JSON file, how it is re-rendered and recognised.
#[derive(Debug, Clone, Copy)]
pub struct Saved {
    /// The kind its reports write into `run.json`.
    pub kind: &'static str,
    /// Its report's JSON file in the run folder.
    pub file: &'static str,
    /// Re-renders a saved run of this kind and prints its text.
    pub rerender: fn(&Path, &mut dyn Write) -> Result<()>,
    /// Whether a JSON document reads as this kind of report.
    pub reads_as: fn(&[u8]) -> bool,
}

impl Saved {
    /// The saved kind of report `R`.
    pub const fn of<R: RunReport>() -> Saved {
        Saved {
            kind: R::KIND,
            file: R::FILE,
            rerender: rerender::<R>,
            reads_as: reads_as::<R>,
        }
    }
}

/// The runs saved by `watch` (not a scenario: it also serves metrics, with no report).
#[cfg(not(feature = "ebpf"))]
const WATCH_RUNS: &[Saved] = &[Saved::of::<solr_watch::WatchReport>()];
/// The runs saved by `watch` and `watch --ebpf` (not a scenario: it also serves metrics,
/// with no report).
#[cfg(feature = "ebpf")]
const WATCH_RUNS: &[Saved] = &[
    Saved::of::<solr_watch::WatchReport>(),
    Saved::of::<super::watch_ebpf::EbpfRun>(),
];

/// Every kind of saved run: the scenarios' in the list's order, then `watch`'s.
pub fn saved_kinds() -> Vec<Saved> {
    let scenarios = SCENARIOS.iter().map(|e| Saved {
        kind: e.kind,
        file: e.file,
        rerender: e.rerender,
        reads_as: e.reads_as,
    });
    scenarios.chain(WATCH_RUNS.iter().copied()).collect()
}

/// The commands that are not scenarios (`compare` is the study's).
#[derive(Debug, clap::Subcommand)]
pub enum Other {
    /// Compares two saved studies (`summary.json`): differences and the noise margin.
    Compare(crate::scenario::study::compare_command::CompareArgs),
    /// Watches any application's Solr traffic on the wire (or in a saved capture): connections,
    /// reuse, requests, gzip, update formats, wall time vs QTime, findings with fixes.
    Watch(Box<super::watch::WatchArgs>),
    /// Prints the JSON Schema of a command's JSON output (the help line names them:
    /// [`super::schema::about`]).
    #[command(about = super::schema::about())]
    Schema(super::schema::SchemaArgs),
    /// Re-renders the tables, CSV and charts of a saved run: a study or audit from its raw
    /// `records.jsonl`; an `nrt`, `bulk-files`, `routing` or `knn` run from its JSON (which holds every
    /// figure and timeline they are drawn from).
    Report(super::report::ReportArgs),
    /// Prints a shell completion script (bash, zsh, fish, elvish, powershell), generated from
    /// the options.
    Completions(super::shell::CompletionsArgs),
    /// Prints the man page (roff) of every command, generated from the options.
    Man(super::shell::ManArgs),
}

impl Other {
    /// Runs the command.
    pub async fn run(self) -> Result<()> {
        match self {
            Other::Compare(a) => crate::scenario::study::compare_command::run(a),
            Other::Watch(a) => super::watch::run(*a).await,
            Other::Schema(a) => super::schema::run(a),
            Other::Report(a) => super::report::run(a),
            Other::Completions(a) => super::shell::completions(&a, &mut std::io::stdout().lock()),
            Other::Man(a) => super::shell::man(&a, &mut std::io::stdout().lock()),
        }
    }
}

/// The kinds a run folder's `run.json` may name, each once.
pub fn kinds() -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = Vec::new();
    for e in saved_kinds() {
        if !kinds.contains(&e.kind) {
            kinds.push(e.kind);
        }
    }
    kinds
}

/// The JSON file in a run folder holding the report of `kind` (a kind [`rerender_any`]
/// returned; `summary.json` for any other).
pub fn file_of(kind: &str) -> &'static str {
    saved_kinds()
        .iter()
        .find(|e| e.kind == kind)
        .map_or("summary.json", |e| e.file)
}

/// The JSON Schema published under `name` (a schema name or a scenario's name).
pub fn schema(name: &str) -> Option<String> {
    SCENARIOS
        .iter()
        .find(|e| e.schema_name == name || e.name == name)
        .map(|e| (e.schema)())
}

fn rerender<R: RunReport>(dir: &Path, w: &mut dyn Write) -> Result<()> {
    let r = R::rerender(dir)?;
    r.print_text(w)
}

fn reads_as<R: RunReport>(bytes: &[u8]) -> bool {
    serde_json::from_slice::<R>(bytes).is_ok()
}

/// Re-renders whatever run `run` holds, prints its text report to `w`, and says which kind
/// it was: the kind named by `run.json`, or for an older folder without one, the first
/// scenario whose report its JSON reads as.
pub fn rerender_any(run: &Path, w: &mut dyn Write) -> Result<&'static str> {
    let Some(kind) = kind_of(run)? else {
        return rerender_legacy(run, w);
    };
    let Some(e) = saved_kinds().into_iter().find(|e| e.kind == kind) else {
        anyhow::bail!(
            "{} names the kind {kind:?}, which this transport-bench cannot render",
            run.join(bench_report::run::MANIFEST).display()
        );
    };
    (e.rerender)(run, w)?;
    Ok(e.kind)
}

/// A folder saved before `run.json` existed: the kind is the first scenario whose own JSON
/// file it holds (`knn.json`, ...), else the first whose report `summary.json` reads as.
fn rerender_legacy(run: &Path, w: &mut dyn Write) -> Result<&'static str> {
    let saved = saved_kinds();
    let own = saved
        .iter()
        .find(|e| e.file != "summary.json" && run.join(e.file).is_file());
    if let Some(e) = own {
        (e.rerender)(run, w)?;
        return Ok(e.kind);
    }
    let path = run.join("summary.json");
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let Some(e) = saved
        .iter()
        .find(|e| e.file == "summary.json" && (e.reads_as)(&bytes))
    else {
        anyhow::bail!(
            "{} is no report of {} (and there is no run.json)",
            path.display(),
            kinds().join(", ")
        );
    };
    (e.rerender)(run, w)?;
    Ok(e.kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::knn::KnnReport;
    use crate::scenario::study::sweep::SweepReport;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("runs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn sweep() -> SweepReport {
        SweepReport {
            schema_version: 1,
            upstream: "http://127.0.0.1:8983/solr".into(),
            settings: serde_json::Value::Null,
            points: vec![],
            rows: vec![],
            warnings: vec![],
            duration_s: 1.5,
            verdict: "verdict: nothing measured".into(),
        }
    }

    #[test]
    fn report_run_dispatches_on_the_manifest_kind() {
        let dir = temp("sweep");
        sweep().save(&dir).unwrap();
        assert_eq!(kind_of(&dir).unwrap().as_deref(), Some("sweep"));
        let mut out = Vec::new();
        assert_eq!(rerender_any(&dir, &mut out).unwrap(), "sweep");
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().last(), Some("verdict: nothing measured"));
        assert_eq!(
            std::fs::read_to_string(dir.join("sweep.txt")).unwrap(),
            text,
            "the printed text is the saved one"
        );

        let knn = temp("knn");
        KnnReport::default().save(&knn).unwrap();
        assert_eq!(rerender_any(&knn, &mut Vec::new()).unwrap(), "knn");
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&knn);
    }

    #[test]
    fn a_folder_without_manifest_still_loads_and_gets_one() {
        let dir = temp("legacy");
        sweep().save(&dir).unwrap();
        std::fs::remove_file(dir.join(bench_report::run::MANIFEST)).unwrap();
        assert_eq!(kind_of(&dir).unwrap(), None);
        assert_eq!(rerender_any(&dir, &mut Vec::new()).unwrap(), "sweep");
        assert_eq!(
            kind_of(&dir).unwrap().as_deref(),
            Some("sweep"),
            "re-rendering writes the manifest"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unknown_kind_is_refused_by_name() {
        let dir = temp("unknown");
        bench_report::run::write_manifest(&dir, "teleport", "summary.json").unwrap();
        let e = rerender_any(&dir, &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("\"teleport\""), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod list {
    use clap::CommandFactory;

    use super::SCENARIOS;

    #[test]
    fn every_scenario_is_a_subcommand_with_its_name() {
        let cli = crate::cli::Cli::command();
        let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
        for e in SCENARIOS {
            assert!(
                names.contains(&e.name),
                "{} is no subcommand of {names:?}",
                e.name
            );
        }
        let others: Vec<&&str> = names
            .iter()
            .filter(|n| **n != "help" && !SCENARIOS.iter().any(|e| e.name == **n))
            .collect();
        assert_eq!(
            others,
            [
                &"compare",
                &"watch",
                &"schema",
                &"report",
                &"completions",
                &"man"
            ],
            "the commands that are not scenarios"
        );
    }

    #[test]
    fn kinds_and_schemas_come_from_the_list() {
        let mut kinds = vec![
            "study",
            "nrt",
            "bulk-files",
            "routing",
            "knn",
            "sweep",
            "large-responses",
            "bulk-index",
            "baseline",
            "watch",
        ];
        if cfg!(feature = "ebpf") {
            kinds.push("watch-ebpf");
        }
        assert_eq!(super::kinds(), kinds);
        assert_eq!(super::schema("audit"), super::schema("summary"));
        assert_eq!(super::schema("nope"), None);
    }

    #[test]
    fn help_lists_the_commands_in_their_order() {
        let help = crate::cli::Cli::command().render_help().to_string();
        let at = |name: &str| {
            help.find(&format!("\n  {name} "))
                .unwrap_or_else(|| panic!("{name} missing from {help}"))
        };
        let order = crate::cli::HELP_ORDER;
        for pair in order.windows(2) {
            assert!(at(pair[0]) < at(pair[1]), "{} before {}", pair[0], pair[1]);
        }
    }

    #[test]
    fn a_command_line_parses_into_one_scenarios_options() {
        use crate::scenario::nrt::cli::Nrt;
        let a = crate::cli::scenario_args::<Nrt>(["transport-bench", "nrt", "--preload", "7"])
            .expect("parses");
        assert_eq!(a.preload, 7);
        let e = crate::cli::scenario_args::<Nrt>(["transport-bench", "knn"]).unwrap_err();
        assert!(e.to_string().contains("names no nrt"), "{e}");
        assert!(
            crate::cli::scenario_args::<Nrt>(["transport-bench", "nrt", "--preload", "-1"])
                .is_err()
        );
    }
}
