//! `transport-bench baseline`: the raw-hyper baseline: the same searches through
//! a raw hyper keep-alive loop and every solr-client transport in interleaved rounds, with
//! p50/p99 ratios and client CPU per request.

use anyhow::{bail, Context, Result};

use crate::args::groups::{OutputArgs, RunArgs, SolrTargetArgs};
use crate::scenario::baseline::{self, BaselineConfig, BaselineReport, BaselineRow};
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};
use solr_harness::seedkit::Target;

/// Options of `baseline`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "Solr base URL (http://). Without it or `SOLR_URL` the project's local standalone Solr (instance \
     `baseline`) is started, seeded with --docs documents, and stopped after"
)))]
#[command(mut_arg("ca", |a| a.hide(true)))]
#[command(mut_arg("seed", |a| a.help("Workload seed (documents and queries)")))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/baseline-<unix time>`)")))]
pub struct BaselineArgs {
    /// The Solr to search (plain http: the raw hyper rows speak no TLS).
    #[command(flatten)]
    pub target: SolrTargetArgs,
    /// Documents indexed (id prefix `baseline-`) before the searches, so they find hits.
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 2000)]
    pub docs: usize,
    /// Searches per row per round (the same list for every row).
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 500)]
    pub queries: usize,
    /// Interleaved rounds (the row order rotates by one per round).
    #[arg(value_parser = crate::args::count::<usize, 1, 1000>, allow_negative_numbers = true, long, default_value_t = 5)]
    pub rounds: usize,
    /// Untimed searches per row before the first round.
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 200)]
    pub warmup: usize,
    /// Rows per page of every search.
    #[arg(value_parser = crate::args::count::<usize, 0, 100_000>, allow_negative_numbers = true, long, default_value_t = 10)]
    pub page_rows: usize,
    /// The rows (raw-hyper is the reference of the plain ratios; raw-hyper-json and
    /// raw-hyper-typed, the loops doing equal decoding work, of the targets).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "raw-hyper,raw-hyper-json,raw-hyper-typed,fresh,pooled,pooled-typed,http2,reqwest"
    )]
    pub rows: Vec<BaselineRow>,
    /// The workload's seed and the local Solr's fate.
    #[command(flatten)]
    pub run: RunArgs,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Runs `baseline`: seeds documents, runs the rounds.
pub async fn run(a: BaselineArgs, run: &Run) -> Result<Outcome<BaselineReport>> {
    if a.target.ca.is_some() {
        bail!("--ca does not apply to baseline: its raw hyper rows talk plain http only");
    }
    let target = a.target.open(&run.local, "baseline", false)?;
    if a.docs > 0 {
        seed_docs(&target, a.docs, a.run.seed).await?;
    }
    let cfg = BaselineConfig {
        url: target.url.clone(),
        collection: target.collection.clone(),
        queries: a.queries,
        rounds: a.rounds,
        warmup: a.warmup,
        rows_per_page: a.page_rows,
        rows: a.rows.clone(),
        seed: a.run.seed,
    };
    Ok(Outcome::new(baseline::run(&cfg, run.quiet()).await?))
}

/// Indexes `n` generated documents with ids `baseline-{i}` (overwriting the previous run's)
/// and commits.
async fn seed_docs(target: &Target, n: usize, seed: u64) -> Result<()> {
    let client = target.client(solr_client::UpdateFormat::Json)?;
    let mut gen = crate::engine::workload::Generator::new(seed, 0);
    let docs: Vec<serde_json::Value> = (0..n).map(|i| gen.doc("baseline-", i)).collect();
    let r = client
        .add_batched(&docs, 1000)
        .await
        .context("indexing the baseline's documents")?;
    if r.acknowledged != n {
        anyhow::bail!("{} of {n} baseline documents acknowledged", r.acknowledged);
    }
    client.commit(solr_client::Commit::default()).await?;
    Ok(())
}

/// `baseline` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct Baseline;

impl Scenario for Baseline {
    const NAME: &'static str = "baseline";
    const ABOUT: &'static str =
        "The raw-hyper baseline: the same searches through a raw hyper keep-alive loop and \
        every solr-client transport in interleaved rounds; p50/p99 ratios, CPU per request";
    type Args = BaselineArgs;
    type Report = BaselineReport;

    fn ending(a: &BaselineArgs) -> Ending {
        Ending::new(&a.output).keep_solr(a.run.local.keep_solr)
    }

    async fn run(a: BaselineArgs, run: &Run) -> Result<Outcome<BaselineReport>> {
        self::run(a, run).await
    }
}

#[cfg(test)]
mod tests {
    use super::{Baseline, BaselineArgs};
    use crate::scenario::shape::{Run, Scenario};

    #[test]
    fn the_shared_groups_fill_the_options() {
        let a: BaselineArgs = crate::args::try_parse(
            "baseline",
            &[
                "--url",
                "http://127.0.0.1:8983/solr",
                "--collection",
                "c",
                "--seed",
                "7",
                "--out",
                "/tmp/x",
                "--quiet",
                "--keep-solr",
            ],
        )
        .expect("parses");
        assert_eq!(a.target.url.as_deref(), Some("http://127.0.0.1:8983/solr"));
        assert_eq!(a.target.collection, "c");
        assert_eq!(a.run.seed, 7);
        assert_eq!(
            a.output.out.as_deref(),
            Some(std::path::Path::new("/tmp/x"))
        );
        assert!(a.output.quiet && a.run.local.keep_solr);
        let d: BaselineArgs = crate::args::try_parse("baseline", &[]).expect("defaults");
        assert_eq!((d.run.seed, d.run.local.keep_solr), (42, false));
    }

    #[tokio::test]
    async fn ca_is_refused_before_anything_starts() {
        let a: BaselineArgs = crate::args::try_parse(
            "baseline",
            &[
                "--url",
                "http://127.0.0.1:1/solr",
                "--ca",
                "/nonexistent.pem",
            ],
        )
        .expect("the shared target group parses --ca");
        let run = Run::new("baseline", &Baseline::ending(&a));
        let e = super::run(a, &run).await.expect_err("--ca is refused");
        assert!(
            format!("{e:#}").contains("--ca does not apply to baseline"),
            "{e:#}"
        );
    }

    #[test]
    fn options_parse_and_bad_values_are_errors() {
        let a: BaselineArgs = crate::args::try_parse("baseline", &[]).expect("defaults");
        assert_eq!(a.rows.len(), 8);
        for bad in [
            &["--queries", "0"][..],
            &["--rows", "hyper"],
            &["--rounds", "-2"],
        ] {
            assert!(
                crate::args::try_parse::<BaselineArgs>("baseline", bad).is_err(),
                "{bad:?}"
            );
        }
    }
}
