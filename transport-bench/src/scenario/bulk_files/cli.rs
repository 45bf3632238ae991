//! `transport-bench bulk-files`: bulk indexing of update files with the page cache hot and
//! cold. Its options ([`BulkArgs`]: the shared target and output groups plus its
//! own) become the scenario's plain [`bulk_files::BulkConfig`].

use std::future::Future;
use std::path::PathBuf;

use anyhow::Result;
use solr_client::UpdateFormat;

use crate::args::groups::{IdPrefixArgs, OutputArgs, RunArgs, SolrTargetArgs};
use crate::scenario::bulk_files::{self, BulkConfig, BulkReport, ColdMode, CommitMode};
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};

/// Options of `bulk-files`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "Solr base URL. Without it or `SOLR_URL` the project's local standalone Solr (instance `bulk`) is \
     started and stopped after"
)))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/bulk-files-<unix time>`)")))]
#[command(mut_arg("id_prefix", |a| a.help("Prefix of every document id (default `bulk-<format>-`)")))]
pub struct BulkArgs {
    /// The Solr to index into.
    #[command(flatten)]
    pub target: SolrTargetArgs,
    /// Update files (seed: 420), multiplied by `--scale`.
    #[arg(value_parser = crate::args::count::<usize, 1, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 420)]
    pub files: usize,
    /// Documents per file (seed: ~1,100).
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 1100)]
    pub docs_per_file: usize,
    /// Target size of one encoded document in bytes (seed: 2.68 MB / 1,100 docs).
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 2440)]
    pub doc_bytes: usize,
    /// Scale factor on the number of files (0.25 = 105 files).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// File format: xml (as the original benchmark) or json (or cbor).
    #[arg(long, default_value = "xml")]
    pub format: UpdateFormat,
    /// Files posted (then deleted) before the first timed run, untimed, so the JVM's JIT
    /// and Solr's caches are warm (the first run on a fresh node was 4x slower without).
    #[arg(value_parser = crate::args::count::<usize, 0, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 20)]
    pub warmup_files: usize,
    /// Repetitions of the hot/cold pair (the original benchmark ran 2).
    #[arg(value_parser = crate::args::count::<usize, 1, 1000>, allow_negative_numbers = true, long, default_value_t = 2)]
    pub reps: usize,
    /// Run hot then cold in every repetition, as the original benchmark did (default: ABBA
    /// order, hot/cold then cold/hot, so a drift over the runs cancels out of the difference).
    #[arg(long)]
    pub seed_order: bool,
    /// How the cold run evicts the files.
    #[arg(long, value_enum, default_value = "drop-caches")]
    pub cold: ColdMode,
    /// When to soft-commit.
    #[arg(long, value_enum, default_value = "end")]
    pub commit: CommitMode,
    /// Folder of the update files (default `results/bulk-files-data/<format>-<files>x<docs>`);
    /// files already there with the same parameters are reused.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Regenerate the files even when they match.
    #[arg(long)]
    pub regenerate: bool,
    /// Delete the update files afterwards.
    #[arg(long)]
    pub remove_files: bool,
    /// The run's document ids, the workload's seed and the local Solr's fate.
    #[command(flatten)]
    pub run: RunArgs<IdPrefixArgs>,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl From<&BulkArgs> for BulkConfig {
    fn from(a: &BulkArgs) -> Self {
        BulkConfig {
            files: a.files,
            docs_per_file: a.docs_per_file,
            doc_bytes: a.doc_bytes,
            scale: a.scale,
            format: a.format,
            warmup_files: a.warmup_files,
            reps: a.reps,
            seed_order: a.seed_order,
            cold: a.cold,
            commit: a.commit,
            dir: a.dir.clone(),
            regenerate: a.regenerate,
            remove_files: a.remove_files,
            id_prefix: a.run.ids.id_prefix.clone(),
            seed: a.run.seed,
            quiet: a.output.quiet,
        }
    }
}

/// Runs `bulk-files` (the local Solr is started unless `--url`).
pub async fn run(a: BulkArgs, run: &Run) -> Result<Outcome<BulkReport>> {
    let cfg = BulkConfig::from(&a);
    cfg.files_scaled()?;
    let target = a.target.open(&run.local, "bulk", false)?;
    Ok(Outcome::new(bulk_files::run(&cfg, &target).await?))
}

/// `bulk-files` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct BulkFiles;

impl Scenario for BulkFiles {
    const NAME: &'static str = "bulk-files";
    const ABOUT: &'static str = "Bulk indexing of update files with the page cache hot and cold";
    type Args = BulkArgs;
    type Report = BulkReport;

    fn ending(a: &BulkArgs) -> Ending {
        Ending::new(&a.output).keep_solr(a.run.local.keep_solr)
    }

    fn run(a: BulkArgs, run: &Run) -> impl Future<Output = Result<Outcome<BulkReport>>> + Send {
        self::run(a, run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> BulkArgs {
        crate::args::try_parse("bulk-files", extra).expect("parses")
    }

    #[test]
    fn an_argument_line_becomes_the_config() {
        let a = args(&[
            "--url",
            "https://solr.example:8983/solr",
            "--collection",
            "c2",
            "--ca",
            "/tmp/ca.pem",
            "--files",
            "12",
            "--docs-per-file",
            "200",
            "--doc-bytes",
            "1000",
            "--scale",
            "0.5",
            "--format",
            "json",
            "--warmup-files",
            "1",
            "--reps",
            "3",
            "--seed-order",
            "--cold",
            "fadvise",
            "--commit",
            "per-file",
            "--dir",
            "/tmp/d",
            "--regenerate",
            "--remove-files",
            "--id-prefix",
            "b-",
            "--seed",
            "9",
            "--quiet",
        ]);
        assert_eq!(
            a.target.ca.as_deref(),
            Some(std::path::Path::new("/tmp/ca.pem"))
        );
        assert_eq!(a.target.collection, "c2");
        let c = BulkConfig::from(&a);
        assert_eq!(
            (c.files, c.docs_per_file, c.doc_bytes, c.scale),
            (12, 200, 1000, 0.5)
        );
        assert_eq!(c.format, UpdateFormat::Json);
        assert_eq!((c.warmup_files, c.reps, c.seed_order), (1, 3, true));
        assert_eq!((c.cold, c.commit), (ColdMode::Fadvise, CommitMode::PerFile));
        assert_eq!(c.dir, Some(PathBuf::from("/tmp/d")));
        assert_eq!((c.regenerate, c.remove_files), (true, true));
        assert_eq!(
            (c.id_prefix.as_deref(), c.seed, c.quiet),
            (Some("b-"), 9, true)
        );
        assert_eq!(c.files_scaled().expect("6 files"), 6);
    }

    #[test]
    fn scale_sets_the_file_count_and_bad_values_are_errors() {
        let cfg = |extra: &[&str]| BulkConfig::from(&args(extra));
        assert_eq!(cfg(&[]).files_scaled().expect("default"), 420);
        assert_eq!(cfg(&["--scale", "0.25"]).files_scaled().expect("0.25"), 105);
        for bad in [&["--scale", "0"][..], &["--scale", "NaN"]] {
            assert!(cfg(bad).files_scaled().is_err(), "{bad:?}");
        }
        // Counts out of range are rejected by the parser, with the range.
        for bad in [["--docs-per-file", "0"], ["--reps", "0"], ["--files", "-1"]] {
            let e = crate::args::try_parse::<BulkArgs>("bulk-files", &bad).expect_err("rejected");
            assert!(e.to_string().contains("must be a whole number from"), "{e}");
        }
        assert!(crate::args::try_parse::<BulkArgs>("bulk-files", &["--format", "yaml"]).is_err());
    }
}
