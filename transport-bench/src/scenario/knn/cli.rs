//! `transport-bench knn`: the kNN load test.

use std::future::Future;

use anyhow::Result;

use crate::args::groups::{OutputArgs, RunArgs, SolrTargetArgs};
use crate::scenario::knn;
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};

/// Options of `knn`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "Solr base URL. Without it or `SOLR_URL` the project's local Solr is started once per `--jvm`"
)))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/knn-<unix time>`)")))]
pub struct KnnArgs {
    /// The Solr to load.
    #[command(flatten)]
    pub target: SolrTargetArgs,
    /// With `--url`: pid of the Solr JVM to sample (default: host CPU only).
    #[arg(long)]
    pub solr_pid: Option<u32>,
    /// Documents in the corpus (seed: 7,367).
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 7367)]
    pub docs: usize,
    /// Vector dimension (seed: 768).
    #[arg(value_parser = crate::args::count::<usize, 1, 65_536>, allow_negative_numbers = true, long, default_value_t = 768)]
    pub dim: usize,
    /// Documents per update request.
    #[arg(value_parser = crate::args::count::<usize, 1, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 500)]
    pub batch: usize,
    /// Concurrency levels, comma-separated (seed: 1,5,10,20).
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000>, allow_negative_numbers = true, long, value_delimiter = ',', default_value = "1,5,10,20")]
    pub concurrency: Vec<usize>,
    /// topK values, comma-separated.
    #[arg(value_parser = crate::args::count::<u32, 1, 1_000_000>, allow_negative_numbers = true, long = "topk", value_delimiter = ',', default_value = "10,100,1000")]
    pub top_k: Vec<u32>,
    /// Queries per cell (0 = one per document, as the original benchmark's loop count).
    #[arg(value_parser = crate::args::count::<usize, 0, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 0)]
    pub requests: usize,
    /// Longest a cell runs, seconds (0 = until its queries are done).
    #[arg(value_parser = crate::args::seconds, allow_negative_numbers = true, long, default_value_t = 0.0)]
    pub cell_seconds: f64,
    /// Warm-up queries per JVM before the sweep (not measured).
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 200)]
    pub warmup: usize,
    /// Solr JVM settings to compare; the first is the baseline (java17, temurin25,
    /// temurin25+incubator, temurin25+vector). Repeat or comma-separate.
    #[arg(
        long = "jvm",
        value_delimiter = ',',
        default_value = "java17,temurin25+vector"
    )]
    pub jvms: Vec<String>,
    /// Solr heap.
    #[arg(long, default_value = "1g")]
    pub heap: String,
    /// Fields per hit ("" = every stored field, the 768 floats included).
    #[arg(long, default_value = "id,score")]
    pub fl: String,
    /// /proc sampling interval, ms.
    #[arg(value_parser = crate::args::count::<u64, 1, 60_000>, allow_negative_numbers = true, long, default_value_t = 250)]
    pub sample_ms: u64,
    /// Local Solr instance names are PREFIX-JVM.
    #[arg(long, default_value = "knn")]
    pub instance_prefix: String,
    /// The workload's seed and the local Solr's fate.
    #[command(flatten)]
    pub run: RunArgs,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Print the JSON Schema of `knn.json` and exit.
    #[arg(long)]
    pub schema: bool,
}

impl From<&KnnArgs> for knn::KnnConfig {
    fn from(a: &KnnArgs) -> Self {
        knn::KnnConfig {
            url: a.target.url.clone(),
            collection: a.target.collection.clone(),
            ca: a.target.ca.clone(),
            solr_pid: a.solr_pid,
            docs: a.docs,
            dim: a.dim,
            seed: a.run.seed,
            batch: a.batch,
            concurrency: a.concurrency.clone(),
            top_k: a.top_k.clone(),
            requests: a.requests,
            cell_seconds: a.cell_seconds,
            warmup: a.warmup,
            jvms: a.jvms.clone(),
            heap: a.heap.clone(),
            fl: a.fl.clone(),
            sample_interval: std::time::Duration::from_millis(a.sample_ms),
            instance_prefix: a.instance_prefix.clone(),
            quiet: a.output.quiet,
        }
    }
}

/// Runs `knn`: checks the options, starts a local Solr per `--jvm` unless `--url`, sweeps.
pub async fn run(a: KnnArgs, run: &Run) -> Result<Outcome<knn::KnnReport>> {
    let mut cfg = knn::KnnConfig::from(&a);
    // `SOLR_URL` counts as `--url`; `--local` as none.
    cfg.url = a.target.configured_url()?;
    if cfg.url.is_some() && a.jvms != ["java17", "temurin25+vector"] {
        eprintln!(
            "knn: --jvm is ignored with --url (the JVM of an external Solr is not ours to choose)"
        );
    }
    let instances = format!("{}-<jvm>, one per --jvm", a.instance_prefix);
    if let Some(notice) = a.target.local_notice(&instances)? {
        eprintln!("{notice}");
    }
    Ok(Outcome::new(knn::run(&cfg, &run.local).await?))
}

/// `knn` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct Knn;

impl Scenario for Knn {
    const NAME: &'static str = "knn";
    const ABOUT: &'static str =
        "The kNN load test: a concurrency x topK sweep of vector searches on one \
        or more Solr JVM settings, with /proc resource sampling and the reduction table";
    type Args = KnnArgs;
    type Report = knn::KnnReport;

    fn ending(a: &KnnArgs) -> Ending {
        Ending::new(&a.output)
            .keep_solr(a.run.local.keep_solr)
            .schema(a.schema)
    }

    fn run(a: KnnArgs, run: &Run) -> impl Future<Output = Result<Outcome<knn::KnnReport>>> + Send {
        self::run(a, run)
    }
}
