//! `transport-bench routing`: read routing under write pressure.
//! Its options ([`RoutingArgs`]: the shared output group plus its own; the target is a
//! leader/follower pair or the local cloud, not one `--url`) become the scenario's plain
//! [`routing::RoutingConfig`].

use std::future::Future;
use std::path::PathBuf;

use anyhow::Result;

use crate::args::groups::{IdPrefixArgs, OutputArgs, RunArgs};
use crate::scenario::routing::{self, Pref, RoutingConfig, RoutingReport, Topology, WriteLevel};
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};

/// Options of `routing`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/routing-<unix time>`)")))]
#[command(mut_arg("id_prefix", |a| a.help("Prefix of every document id this run writes (default `routing-<unix time>-`)")))]
#[command(mut_arg("keep_solr", |a| a.help("Keep the local pair running afterwards")))]
pub struct RoutingArgs {
    /// `pair` (leader/follower) or `cloud` (SolrCloud with one NRT, one TLOG and one PULL
    /// replica; always the project's local cloud).
    #[arg(long, value_enum, default_value = "pair")]
    pub topology: Topology,
    /// Leader (primary) base URL. Without `--leader`/`--follower` the project's local pair
    /// (instance `--instance`) is started with the commit and poll settings below, and
    /// stopped after.
    #[arg(long, requires = "follower", value_parser = crate::args::SolrUrl)]
    pub leader: Option<String>,
    /// Follower (replica) base URL.
    #[arg(long, requires = "leader", value_parser = crate::args::SolrUrl)]
    pub follower: Option<String>,
    /// Core on both nodes.
    #[arg(short, long, default_value = "bench")]
    pub collection: String,
    /// CA certificate (PEM) to trust for https.
    #[arg(long)]
    pub ca: Option<PathBuf>,
    /// Read preferences, comma-separated. Pair (default none,leader,follower): none (all
    /// reads to the leader, no routing), leader, follower. Cloud (default
    /// none,solr-nrt,solr-tlog,solr-pull,client): none, solr-nrt, solr-tlog, solr-pull, client.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub prefs: Vec<Pref>,
    /// Write pressure levels, comma-separated: docs/s (0 = none) or `max`.
    #[arg(long, value_delimiter = ',', default_value = "0,200,max", value_parser = routing::parse_level)]
    pub write_rates: Vec<WriteLevel>,
    /// Seconds per cell (one level x one preference).
    #[arg(long, value_parser = crate::args::seconds, allow_negative_numbers = true, default_value_t = 8.0)]
    pub duration: f64,
    /// Repetitions; the order of levels and preferences rotates between them.
    #[arg(long, value_parser = crate::args::count::<usize, 1, 1000>, allow_negative_numbers = true, default_value_t = 2)]
    pub reps: usize,
    /// Closed-loop read tasks.
    #[arg(long, value_parser = crate::args::count::<usize, 1, 1024>, allow_negative_numbers = true, default_value_t = 2)]
    pub readers: usize,
    /// Documents per update request of the indexer.
    #[arg(long, value_parser = crate::args::count::<usize, 1, 100000>, allow_negative_numbers = true, default_value_t = 20)]
    pub write_batch: usize,
    /// Documents indexed (and replicated) before the first cell.
    #[arg(long, value_parser = crate::args::count::<usize, 0, 10000000>, allow_negative_numbers = true, default_value_t = 5000)]
    pub preload: usize,
    /// Rows per search.
    #[arg(long, value_parser = crate::args::count::<u64, 0, 100000>, allow_negative_numbers = true, default_value_t = 10)]
    pub rows: u64,
    /// Local pair: the follower's replication poll interval, seconds.
    #[arg(long, value_parser = crate::args::count::<u64, 1, 3600>, allow_negative_numbers = true, default_value_t = 1)]
    pub poll_interval: u64,
    /// Local Solr: autoCommit (hard, openSearcher=false) interval, ms; replication fetches
    /// what a hard commit made. Default 1000 (pair), 2000 (cloud: TLOG and PULL replicas poll
    /// every half of it in whole seconds, so below 2000 they never poll).
    #[arg(long, value_parser = crate::args::count::<u64, 1, 3600000>, allow_negative_numbers = true)]
    pub hard_commit_ms: Option<u64>,
    /// Local pair: Solr's autoSoftCommit interval, ms (the leader reopens its searcher).
    #[arg(long, value_parser = crate::args::count::<u64, 1, 3600000>, allow_negative_numbers = true, default_value_t = 250)]
    pub soft_commit_ms: u64,
    /// Pause between two searches of the lag prober for the same probe document, ms.
    #[arg(long, value_parser = crate::args::count::<u64, 1, 60000>, allow_negative_numbers = true, default_value_t = 20)]
    pub probe_poll_ms: u64,
    /// A probe document not seen this long after its add counts as unseen, seconds.
    #[arg(long, value_parser = crate::args::seconds, allow_negative_numbers = true, default_value_t = 30.0)]
    pub probe_timeout: f64,
    /// Searches per cell before it is measured (through the cell's own router).
    #[arg(long, value_parser = crate::args::count::<usize, 0, 1000000>, allow_negative_numbers = true, default_value_t = 20)]
    pub warmup: usize,
    /// /proc sampling interval, ms.
    #[arg(long, value_parser = crate::args::count::<u64, 10, 60000>, allow_negative_numbers = true, default_value_t = 250)]
    pub sample_ms: u64,
    /// Name of the local pair instance.
    #[arg(long, default_value = "routing")]
    pub instance: String,
    /// The run's document ids, the workload's seed and the local Solr's fate.
    #[command(flatten)]
    pub run: RunArgs<IdPrefixArgs>,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl From<&RoutingArgs> for RoutingConfig {
    fn from(a: &RoutingArgs) -> Self {
        RoutingConfig {
            topology: a.topology,
            leader: a.leader.clone(),
            follower: a.follower.clone(),
            collection: a.collection.clone(),
            ca: a.ca.clone(),
            prefs: a.prefs.clone(),
            write_rates: a.write_rates.clone(),
            duration: a.duration,
            reps: a.reps,
            readers: a.readers,
            write_batch: a.write_batch,
            preload: a.preload,
            rows: a.rows,
            poll_interval: a.poll_interval,
            hard_commit_ms: a.hard_commit_ms,
            soft_commit_ms: a.soft_commit_ms,
            probe_poll_ms: a.probe_poll_ms,
            probe_timeout: a.probe_timeout,
            warmup: a.warmup,
            sample_ms: a.sample_ms,
            instance: a.instance.clone(),
            id_prefix: a.run.ids.id_prefix.clone(),
            seed: a.run.seed,
            quiet: a.output.quiet,
        }
    }
}

/// Runs `routing` (the local pair or cloud is started unless `--leader`/`--follower`).
pub async fn run(a: RoutingArgs, run: &Run) -> Result<Outcome<RoutingReport>> {
    let report = routing::run(&RoutingConfig::from(&a), &run.local).await?;
    Ok(Outcome::new(report))
}

/// `routing` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct Routing;

impl Scenario for Routing {
    const NAME: &'static str = "routing";
    const ABOUT: &'static str = "Read routing under write pressure: the same reads under \
        each read preference of the leader/follower pair (or, `--topology cloud`, of a SolrCloud \
        shard with NRT, TLOG and PULL replicas) while indexing pressure rises, with per-node \
        (and per-replica) counts, QTime, visibility lag and per-JVM CPU";
    type Args = RoutingArgs;
    type Report = RoutingReport;

    fn ending(a: &RoutingArgs) -> Ending {
        Ending::new(&a.output).keep_solr(a.run.local.keep_solr)
    }

    fn run(
        a: RoutingArgs,
        run: &Run,
    ) -> impl Future<Output = Result<Outcome<RoutingReport>>> + Send {
        self::run(a, run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> RoutingConfig {
        RoutingConfig::from(
            &crate::args::try_parse::<RoutingArgs>("routing", extra).expect("parses"),
        )
    }

    #[test]
    fn an_argument_line_becomes_the_config() {
        let c = args(&[
            "--leader",
            "http://127.0.0.1:1/solr",
            "--follower",
            "http://127.0.0.1:2/solr",
            "--collection",
            "c3",
            "--ca",
            "/tmp/ca.pem",
            "--prefs",
            "leader,follower",
            "--write-rates",
            "0,50.5,max",
            "--duration",
            "3",
            "--reps",
            "4",
            "--readers",
            "5",
            "--write-batch",
            "6",
            "--preload",
            "7",
            "--rows",
            "8",
            "--poll-interval",
            "9",
            "--hard-commit-ms",
            "1500",
            "--soft-commit-ms",
            "300",
            "--probe-poll-ms",
            "11",
            "--probe-timeout",
            "12",
            "--warmup",
            "13",
            "--sample-ms",
            "100",
            "--instance",
            "i",
            "--id-prefix",
            "r-",
            "--seed",
            "14",
            "--keep-solr",
            "--quiet",
            "--out",
            "/tmp/o",
        ]);
        assert_eq!(c.topology, Topology::Pair);
        assert_eq!(c.leader.as_deref(), Some("http://127.0.0.1:1/solr"));
        assert_eq!(c.follower.as_deref(), Some("http://127.0.0.1:2/solr"));
        assert_eq!(
            (c.collection.as_str(), c.ca.as_deref()),
            ("c3", Some(std::path::Path::new("/tmp/ca.pem")))
        );
        assert_eq!(c.prefs, vec![Pref::Leader, Pref::Follower]);
        assert_eq!(
            c.write_rates,
            vec![
                WriteLevel::Rate(0.0),
                WriteLevel::Rate(50.5),
                WriteLevel::Max
            ]
        );
        assert_eq!(
            (
                c.duration,
                c.reps,
                c.readers,
                c.write_batch,
                c.preload,
                c.rows
            ),
            (3.0, 4, 5, 6, 7, 8)
        );
        assert_eq!(
            (
                c.poll_interval,
                c.hard_commit_ms,
                c.soft_commit_ms,
                c.probe_poll_ms
            ),
            (9, Some(1500), 300, 11)
        );
        assert_eq!((c.probe_timeout, c.warmup, c.sample_ms), (12.0, 13, 100));
        assert_eq!(
            (c.instance.as_str(), c.id_prefix.as_deref(), c.seed),
            ("i", Some("r-"), 14)
        );
        assert!(c.quiet);
        let kept = crate::args::try_parse::<RoutingArgs>("routing", &["--keep-solr"]);
        assert!(Routing::ending(&kept.expect("parses")).keep_solr);
        assert!(c.validate().is_ok());
    }

    #[test]
    fn options_parse_and_bad_ones_are_clear_errors() {
        let a = args(&[]);
        assert!(a.validate().is_ok());
        assert_eq!(
            a.write_rates,
            vec![
                WriteLevel::Rate(0.0),
                WriteLevel::Rate(200.0),
                WriteLevel::Max
            ]
        );
        assert_eq!(a.prefs(), vec![Pref::None, Pref::Leader, Pref::Follower]);
        for bad in [&["--duration", "0"][..], &["--id-prefix", "a b"]] {
            let e = args(bad).validate().expect_err("rejected");
            assert!(e.to_string().starts_with("--"), "{e}");
        }
        // Counts out of range never reach `validate`: the parser names the range.
        for bad in [
            &["--reps", "0"][..],
            &["--readers", "-1"],
            &["--write-batch", "0"],
        ] {
            let e =
                crate::args::try_parse::<RoutingArgs>("routing", bad).expect_err("out of range");
            assert!(e.to_string().contains("out of range"), "{e}");
        }
        // Cloud: its own default preferences and hard commit; pair and cloud preferences
        // are not mixed; TLOG/PULL replicas never poll below a 2000 ms hard commit.
        let c = args(&["--topology", "cloud"]);
        assert!(c.validate().is_ok());
        assert_eq!(c.hard_commit(), 2000);
        assert_eq!(a.hard_commit(), 1000);
        assert_eq!(
            c.prefs().iter().map(|p| p.as_str()).collect::<Vec<_>>(),
            ["none", "solr-nrt", "solr-tlog", "solr-pull", "client"]
        );
        for bad in [
            &["--prefs", "solr-pull"][..],
            &["--topology", "cloud", "--prefs", "follower"],
            &["--topology", "cloud", "--hard-commit-ms", "1000"],
        ] {
            let e = args(bad).validate().expect_err("rejected");
            assert!(e.to_string().starts_with("--"), "{e}");
        }
        let parse = routing::parse_level;
        assert!(parse("-1").is_err() && parse("fast").is_err());
        assert_eq!(parse("MAX"), Ok(WriteLevel::Max));
    }
}
