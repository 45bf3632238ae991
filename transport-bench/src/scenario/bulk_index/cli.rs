//! `transport-bench bulk-index`: bulk indexing beside SolrJ. Its options
//! ([`BulkIndexArgs`]) resolve into a [`BulkIndexConfig`]; the scenario runs the rounds; a run whose
//! `numFound` was not exact fails the command once its report is saved.

use anyhow::{Context, Result};
use solr_client::UpdateFormat;

use crate::args::groups::{KeepSolrArgs, OutputArgs, SolrTargetArgs};
use crate::scenario::bulk_index::{self, BulkIndexConfig, BulkIndexReport, IndexRow};
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};
use solr_harness::seedkit;

/// Options of `bulk-index`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "Solr base URL (http:// for the SolrJ rows). Without it or `SOLR_URL` the project's local standalone \
     Solr (instance `bulk-index`) is started and stopped after"
)))]
#[command(mut_arg("ca", |a| a.help("CA certificate (PEM) to trust for https (solr-client rows only)")))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/bulk-index-<unix time>`)")))]
pub struct BulkIndexArgs {
    /// The Solr to index into.
    #[command(flatten)]
    pub target: SolrTargetArgs,
    /// Documents per run.
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 100_000)]
    pub docs: usize,
    /// Interleaved rounds: each runs every row once, the order rotating by one per round.
    #[arg(value_parser = crate::args::count::<usize, 1, 1000>, allow_negative_numbers = true, long, default_value_t = 3)]
    pub rounds: usize,
    /// Documents per request of SolrJ Http2SolrClient, sequential and concurrent.
    #[arg(value_parser = crate::args::count::<usize, 1, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 1000)]
    pub batch: usize,
    /// Batches in flight in the concurrent row.
    #[arg(value_parser = crate::args::count::<usize, 1, 1024>, allow_negative_numbers = true, long, default_value_t = 4)]
    pub in_flight: usize,
    /// solr-client's update format.
    #[arg(long, default_value = "json")]
    pub format: UpdateFormat,
    /// The rows, in report order.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "solrj-cusc,solrj-http2,sequential,concurrent"
    )]
    pub rows: Vec<IndexRow>,
    /// SolrJ CUSC queue sizes to sweep (with --cusc-threads; the best setting runs the rounds).
    #[arg(long, value_delimiter = ',', default_value = "100,1000", value_parser = crate::args::count::<usize, 1, 1_000_000>)]
    pub cusc_queue: Vec<usize>,
    /// SolrJ CUSC thread counts to sweep.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4", value_parser = crate::args::count::<usize, 1, 256>)]
    pub cusc_threads: Vec<usize>,
    /// Documents per sweep run (default: half of --docs).
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000_000>, allow_negative_numbers = true, long)]
    pub sweep_docs: Option<usize>,
    /// Documents of one untimed warm-up run per row (JIT, connections, Solr's caches).
    #[arg(value_parser = crate::args::count::<usize, 0, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 20_000)]
    pub warmup_docs: usize,
    /// Prefix of every document id of the bench (default `bulkidx-<unix time>`).
    #[arg(long)]
    pub tag: Option<String>,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Whether the local Solr stays up.
    #[command(flatten)]
    pub local: KeepSolrArgs,
}

impl BulkIndexArgs {
    /// The scenario's configuration; the SolrJ program logs into `out/solrj.log`.
    pub fn config(&self, out: &std::path::Path) -> BulkIndexConfig {
        BulkIndexConfig {
            docs: self.docs,
            rounds: self.rounds,
            batch: self.batch,
            in_flight: self.in_flight,
            format: self.format,
            rows: self.rows.clone(),
            cusc_queue: self.cusc_queue.clone(),
            cusc_threads: self.cusc_threads.clone(),
            sweep_docs: self.sweep_docs.unwrap_or(self.docs.div_ceil(2)),
            warmup_docs: self.warmup_docs,
            tag: self
                .tag
                .clone()
                .unwrap_or_else(|| format!("bulkidx-{}", seedkit::unix_secs())),
            solrj_log: out.join("solrj.log"),
            quiet: self.output.quiet,
        }
    }
}

/// Runs `bulk-index`: the rounds; a run whose `numFound` was not exact fails the command
/// after the report is saved ([`Outcome::fails_with`]).
pub async fn run(a: BulkIndexArgs, run: &Run) -> Result<Outcome<BulkIndexReport>> {
    let out = run.out()?;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let cfg = a.config(out);
    cfg.check()?;
    let target = a.target.open(&run.local, "bulk-index", false)?;
    let report = bulk_index::run(&cfg, &target).await?;
    let failure = (!report.all_exact).then(|| report.verdict.clone());
    let outcome = Outcome::new(report);
    Ok(match failure {
        Some(why) => outcome.fails_with(why),
        None => outcome,
    })
}

/// `bulk-index` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct BulkIndex;

impl Scenario for BulkIndex {
    const NAME: &'static str = "bulk-index";
    const ABOUT: &'static str =
        "Bulk indexing beside SolrJ: ConcurrentUpdateHttp2SolrClient (swept to its best \
        setting), Http2SolrClient, solr-client sequential and concurrent, in interleaved \
        rounds, with docs/s, client CPU and numFound checked exactly after every run";
    type Args = BulkIndexArgs;
    type Report = BulkIndexReport;

    fn ending(a: &BulkIndexArgs) -> Ending {
        Ending::new(&a.output).keep_solr(a.local.keep_solr)
    }

    async fn run(a: BulkIndexArgs, run: &Run) -> Result<Outcome<BulkIndexReport>> {
        self::run(a, run).await
    }
}

#[cfg(test)]
mod tests {
    use super::BulkIndexArgs;

    #[test]
    fn options_parse_and_bad_values_are_errors() {
        let a: BulkIndexArgs = crate::args::try_parse("bulk-index", &[]).expect("defaults");
        assert_eq!(a.rows.len(), 4);
        assert_eq!(a.cusc_queue, [100, 1000]);
        let a: BulkIndexArgs = crate::args::try_parse(
            "bulk-index",
            &["--rows", "sequential,concurrent", "--docs", "10"],
        )
        .expect("rows");
        assert_eq!(a.config(std::path::Path::new("/tmp")).sweep_docs, 5);
        let a: BulkIndexArgs = crate::args::try_parse(
            "bulk-index",
            &[
                "--url",
                "http://127.0.0.1:8983/solr",
                "--ca",
                "/ca.pem",
                "--out",
                "/tmp/x",
                "--quiet",
                "--keep-solr",
            ],
        )
        .expect("shared groups");
        assert_eq!(
            a.target.ca.as_deref(),
            Some(std::path::Path::new("/ca.pem"))
        );
        assert_eq!(
            a.output.out.as_deref(),
            Some(std::path::Path::new("/tmp/x"))
        );
        assert!(a.config(std::path::Path::new("/tmp")).quiet && a.local.keep_solr);
        for bad in [
            &["--docs", "0"][..],
            &["--rounds", "-1"],
            &["--rows", "solrj"],
            &["--cusc-threads", "0"],
        ] {
            assert!(
                crate::args::try_parse::<BulkIndexArgs>("bulk-index", bad).is_err(),
                "{bad:?}"
            );
        }
    }
}
