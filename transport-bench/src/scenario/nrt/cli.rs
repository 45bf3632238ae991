//! `transport-bench nrt`: near-real-time indexing under search load. Its options
//! ([`NrtArgs`]: the shared target and output groups plus its own) become the scenario's
//! plain [`nrt::NrtConfig`].

use std::future::Future;

use anyhow::Result;

use crate::args::groups::{IdPrefixArgs, OutputArgs, RunArgs, SolrTargetArgs};
use crate::scenario::nrt::{self, CommitKind, NrtConfig, NrtReport};
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};

/// Options of `nrt`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "Solr base URL. Without it or `SOLR_URL` the project's local standalone Solr (instance `nrt`) is \
     started, cleared before each run as the original benchmark did, and stopped after"
)))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/nrt-<unix time>`)")))]
#[command(mut_arg("id_prefix", |a| a.help("Prefix of every document id this run writes (default `nrt-<unix time>-`)")))]
pub struct NrtArgs {
    /// The Solr to index into and search.
    #[command(flatten)]
    pub target: SolrTargetArgs,
    /// Documents preloaded before the measured phase (seed: 50,000 in the algorithm,
    /// 200,000 in the text).
    #[arg(value_parser = crate::args::count::<usize, 0, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 50_000)]
    pub preload: usize,
    /// Preload tasks (seed: 4).
    #[arg(value_parser = crate::args::count::<usize, 1, 1024>, allow_negative_numbers = true, long, default_value_t = 4)]
    pub preload_threads: usize,
    /// Documents per preload request (the original benchmark added one per request; 100 keeps
    /// set-up short).
    #[arg(value_parser = crate::args::count::<usize, 1, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 100)]
    pub preload_batch: usize,
    /// Measured phase, seconds (seed: 60).
    #[arg(value_parser = crate::args::seconds, allow_negative_numbers = true, long, default_value_t = 60.0)]
    pub duration: f64,
    /// Commit kinds of the refresh loop, run one after the other and printed side by side.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "hard,soft")]
    pub commit: Vec<CommitKind>,
    /// Pause between two commits of the refresh loop, ms (seed: 0, as fast as possible).
    #[arg(value_parser = crate::args::count::<u64, 0, 3_600_000>, allow_negative_numbers = true, long, default_value_t = 0)]
    pub commit_interval_ms: u64,
    /// Indexing tasks (seed: 2).
    #[arg(value_parser = crate::args::count::<usize, 1, 1024>, allow_negative_numbers = true, long, default_value_t = 2)]
    pub index_threads: usize,
    /// Target adds per second of each indexing task, one document per request (seed: 100).
    #[arg(long, default_value_t = 100.0)]
    pub rate: f64,
    /// Search tasks at full speed (seed: 4).
    #[arg(value_parser = crate::args::count::<usize, 1, 1024>, allow_negative_numbers = true, long, default_value_t = 4)]
    pub search_threads: usize,
    /// Rows per search.
    #[arg(value_parser = crate::args::count::<u64, 0, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 10)]
    pub rows: u64,
    /// Probe every Nth acknowledged add for its visibility lag (1 = every one).
    #[arg(value_parser = crate::args::count::<usize, 1, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 1)]
    pub probe_every: usize,
    /// After the measured phase, how long the refresh loop keeps running until every probed
    /// document is visible, seconds.
    #[arg(value_parser = crate::args::seconds, allow_negative_numbers = true, long, default_value_t = 30.0)]
    pub probe_timeout: f64,
    /// Longest wait for background merges after the preload commit, seconds.
    #[arg(value_parser = crate::args::seconds, allow_negative_numbers = true, long, default_value_t = 300.0)]
    pub merge_wait: f64,
    /// Do not delete the whole index before each run (always the case with `--url`).
    #[arg(long)]
    pub no_clear: bool,
    /// The run's document ids, the workload's seed and the local Solr's fate.
    #[command(flatten)]
    pub run: RunArgs<IdPrefixArgs>,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl From<&NrtArgs> for NrtConfig {
    fn from(a: &NrtArgs) -> Self {
        NrtConfig {
            preload: a.preload,
            preload_threads: a.preload_threads,
            preload_batch: a.preload_batch,
            duration: a.duration,
            commit: a.commit.clone(),
            commit_interval_ms: a.commit_interval_ms,
            index_threads: a.index_threads,
            rate: a.rate,
            search_threads: a.search_threads,
            rows: a.rows,
            probe_every: a.probe_every,
            probe_timeout: a.probe_timeout,
            merge_wait: a.merge_wait,
            no_clear: a.no_clear,
            id_prefix: a.run.ids.id_prefix.clone(),
            seed: a.run.seed,
            quiet: a.output.quiet,
        }
    }
}

/// Runs `nrt` (the local Solr is started unless `--url`).
pub async fn run(a: NrtArgs, run: &Run) -> Result<Outcome<NrtReport>> {
    let cfg = NrtConfig::from(&a);
    cfg.validate()?;
    let target = a.target.open(&run.local, "nrt", false)?;
    Ok(Outcome::new(nrt::run(&cfg, &target).await?))
}

/// `nrt` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct Nrt;

impl Scenario for Nrt {
    const NAME: &'static str = "nrt";
    const ABOUT: &'static str =
        "Near-real-time indexing under search load: a commit loop, paced indexing, \
        full-speed searches and a visibility-lag prober, hard and soft commits side by side";
    type Args = NrtArgs;
    type Report = NrtReport;

    fn ending(a: &NrtArgs) -> Ending {
        Ending::new(&a.output).keep_solr(a.run.local.keep_solr)
    }

    fn run(a: NrtArgs, run: &Run) -> impl Future<Output = Result<Outcome<NrtReport>>> + Send {
        self::run(a, run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> NrtArgs {
        crate::args::try_parse("nrt", extra).expect("parses")
    }

    #[test]
    fn an_argument_line_becomes_the_config() {
        let a = args(&[
            "--url",
            "http://127.0.0.1:8983/solr",
            "--collection",
            "c1",
            "--preload",
            "2000",
            "--preload-threads",
            "3",
            "--preload-batch",
            "50",
            "--duration",
            "8",
            "--commit",
            "soft",
            "--commit-interval-ms",
            "250",
            "--index-threads",
            "5",
            "--rate",
            "50",
            "--search-threads",
            "6",
            "--rows",
            "7",
            "--probe-every",
            "2",
            "--probe-timeout",
            "9",
            "--merge-wait",
            "20",
            "--no-clear",
            "--id-prefix",
            "p-",
            "--seed",
            "7",
            "--quiet",
            "--keep-solr",
            "--out",
            "/tmp/x",
        ]);
        assert_eq!(a.target.url.as_deref(), Some("http://127.0.0.1:8983/solr"));
        assert_eq!(a.target.collection, "c1");
        assert!(a.run.local.keep_solr);
        assert_eq!(
            a.output.out.as_deref(),
            Some(std::path::Path::new("/tmp/x"))
        );
        let c = NrtConfig::from(&a);
        assert_eq!(
            (c.preload, c.preload_threads, c.preload_batch, c.duration),
            (2000, 3, 50, 8.0)
        );
        assert_eq!(c.commit, vec![CommitKind::Soft]);
        assert_eq!(
            (
                c.commit_interval_ms,
                c.index_threads,
                c.rate,
                c.search_threads,
                c.rows
            ),
            (250, 5, 50.0, 6, 7)
        );
        assert_eq!(
            (c.probe_every, c.probe_timeout, c.merge_wait, c.no_clear),
            (2, 9.0, 20.0, true)
        );
        assert_eq!(
            (c.id_prefix.as_deref(), c.seed, c.quiet),
            (Some("p-"), 7, true)
        );
    }

    #[test]
    fn bad_options_are_clear_errors() {
        let cfg = |extra: &[&str]| NrtConfig::from(&args(extra));
        assert!(cfg(&[]).validate().is_ok());
        assert_eq!(cfg(&[]).commit, vec![CommitKind::Hard, CommitKind::Soft]);
        assert_eq!(
            cfg(&["--commit", "soft,hard"]).commit,
            vec![CommitKind::Soft, CommitKind::Hard]
        );
        for bad in [
            &["--duration", "0"][..],
            &["--rate=-1"],
            &["--id-prefix", "a,b"],
        ] {
            let e = cfg(bad).validate().expect_err("rejected");
            assert!(e.to_string().starts_with("--"), "{e}");
        }
        // Counts out of range are rejected by the parser, with the range (not clamped).
        for bad in [
            ["--probe-every", "0"],
            ["--search-threads", "0"],
            ["--preload-batch", "0"],
            ["--duration", "-5"],
        ] {
            let e = crate::args::try_parse::<NrtArgs>("nrt", &bad).expect_err("rejected");
            assert!(e.to_string().contains("out of range"), "{e}");
        }
    }
}
