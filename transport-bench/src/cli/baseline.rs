//! `transport-bench baseline`: the raw-hyper baseline (issue #15): the same searches through
//! a raw hyper keep-alive loop and every solr-client transport in interleaved rounds, with
//! p50/p99 ratios and client CPU per request.

use std::path::PathBuf;

use anyhow::{Context, Result};
use bench_report::RunReport;

use crate::scenario::baseline::{self, BaselineConfig, BaselineReport, BaselineRow};
use solr_harness::seedkit::Target;

/// Options of `baseline`.
#[derive(Debug, Clone, clap::Args)]
pub struct BaselineArgs {
    /// Solr base URL (http://). Without it the project's local standalone Solr (instance
    /// `baseline`) is started, seeded with --docs documents, and stopped after.
    #[arg(long, value_parser = crate::args::SolrUrl)]
    pub url: Option<String>,
    /// Core or collection.
    #[arg(long, default_value = "bench")]
    pub collection: String,
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
    /// The rows (raw-hyper is the reference of the ratios).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "raw-hyper,raw-hyper-json,fresh,pooled,pooled-typed,http2,reqwest"
    )]
    pub rows: Vec<BaselineRow>,
    /// Workload seed (documents and queries).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output folder (default `results/baseline-<unix time>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep the local Solr running afterwards.
    #[arg(long)]
    pub keep_solr: bool,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// Runs `baseline`: seeds documents, runs the rounds, prints and saves the report.
pub async fn run(a: BaselineArgs) -> Result<BaselineReport> {
    let target = Target::open(a.url.clone(), &a.collection, None, "baseline", &[])?;
    let result = async {
        if a.docs > 0 {
            seed_docs(&target, a.docs, a.seed).await?;
        }
        let cfg = BaselineConfig {
            url: target.url.clone(),
            collection: target.collection.clone(),
            queries: a.queries,
            rounds: a.rounds,
            warmup: a.warmup,
            rows_per_page: a.page_rows,
            rows: a.rows.clone(),
            seed: a.seed,
        };
        baseline::run(&cfg, a.quiet).await
    }
    .await;
    target.finish(a.keep_solr);
    let report = result?;
    let out = crate::run_dir::out_dir(a.out.clone(), "baseline")?;
    report
        .save(&out)
        .with_context(|| format!("saving to {}", out.display()))?;
    report.print_text(&mut std::io::stdout().lock())?;
    eprintln!("saved: {}", out.display());
    Ok(report)
}

/// Indexes `n` generated documents with ids `baseline-{i}` (overwriting the previous run's)
/// and commits.
async fn seed_docs(target: &Target, n: usize, seed: u64) -> Result<()> {
    let client = target.client(solr_client::UpdateFormat::Json)?;
    let mut gen = crate::workload::Generator::new(seed, 0);
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

#[cfg(test)]
mod tests {
    use super::BaselineArgs;

    #[test]
    fn options_parse_and_bad_values_are_errors() {
        let a: BaselineArgs = crate::args::try_parse("baseline", &[]).expect("defaults");
        assert_eq!(a.rows.len(), 7);
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
