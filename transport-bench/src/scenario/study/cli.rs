//! `transport-bench study`: the transport study.

use std::future::Future;
use std::path::PathBuf;

use anyhow::Result;
use solr_watch::report::Finding;

use super::response_format::ResponseFormatArgs;
use crate::args::fail_on::FailOnArgs;
use crate::args::groups::{
    CaptureArgs, OutputArgs, RunArgs, SolrTargetArgs, TransportMatrixArgs, WitnessSelfTestArgs,
};
use crate::args::wan::WanArgs;
use crate::engine::load::Load;
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};
use crate::scenario::study::{self, wan};

/// Options of `study`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "Solr base URL. Without it or `SOLR_URL` the project's own local Solr is started (and stopped after)"
)))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/study-<unix time>`)")))]
pub struct StudyArgs {
    /// The Solr to study.
    #[command(flatten)]
    pub target: SolrTargetArgs,
    /// Start the local Solr with TLS (https) instead of plain http.
    #[arg(long)]
    pub tls: bool,
    /// Proxy every measured transport goes through: HTTP (`http://host:port`; `CONNECT`
    /// tunnels for https, absolute-form requests for http; `host:port` means
    /// `http://host:port`) or SOCKS5 (`socks5://`, `socks5h://`); `user:password@` in the
    /// URL are its credentials (never shown). The witnesses then count connections to the
    /// proxy. Not with WAN emulation. Default: direct.
    #[arg(long, value_name = "URL", value_parser = crate::args::ProxyUrl)]
    pub proxy: Option<String>,
    /// Documents reindexed per update format (the full study: 50K); 0 skips reindexing.
    #[arg(value_parser = crate::args::count::<usize, 0, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 50_000)]
    pub docs: usize,
    /// Documents per update request.
    #[arg(value_parser = crate::args::count::<usize, 1, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 500)]
    pub batch: usize,
    /// Measured searches per transport and repetition (the full study: 1K); 0 skips.
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 1000)]
    pub searches: usize,
    /// Measured mixed read/write operations per transport and repetition (the full study: 1K); 0 skips.
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 1000)]
    pub mixed: usize,
    /// Share of writes (single-document adds, no commit) in the mixed workload.
    #[arg(value_parser = crate::args::ratio, allow_negative_numbers = true, long, default_value_t = 0.5)]
    pub write_ratio: f64,
    /// Warm-up searches per transport and repetition (excluded from figures).
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 20)]
    pub warmup: usize,
    /// Repetitions; the transport order rotates between them.
    #[arg(value_parser = crate::args::count::<usize, 1, 1000>, allow_negative_numbers = true, long, default_value_t = 3)]
    pub reps: usize,
    /// Rows per search.
    #[arg(value_parser = crate::args::count::<u64, 0, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 10)]
    pub rows: u64,
    /// Concurrent workers (closed loop).
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000>, allow_negative_numbers = true, long, default_value_t = 1)]
    pub concurrency: usize,
    /// Open loop: target rate in requests per second (replaces the closed loop).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Open loop: Poisson arrivals instead of a constant gap.
    #[arg(long)]
    pub poisson: bool,
    /// Open loop: most requests in flight at once.
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000>, allow_negative_numbers = true, long, default_value_t = 64)]
    pub max_in_flight: usize,
    /// The transports and gzip settings every search runs through.
    #[command(flatten)]
    pub matrix: TransportMatrixArgs,
    /// Response formats of the searches (`--response-format`).
    #[command(flatten)]
    pub formats: ResponseFormatArgs,
    /// Dimension of the documents' `vector` field (0 = none).
    #[arg(value_parser = crate::args::count::<usize, 0, 65_536>, allow_negative_numbers = true, long, default_value_t = 0)]
    pub vector_dim: usize,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
    /// `--fail-on`: exit code 3 on a finding at that severity or above.
    #[command(flatten)]
    pub fail_on: FailOnArgs,
    /// The pcap SYN witness.
    #[command(flatten)]
    pub capture: CaptureArgs,
    /// The witnesses' self-test (hidden).
    #[command(flatten)]
    pub self_test: WitnessSelfTestArgs,
    /// Save each transport's first-repetition capture as pcapng here.
    #[arg(long)]
    pub save_captures: Option<PathBuf>,
    /// The workload's seed and the local Solr's fate.
    #[command(flatten)]
    pub run: RunArgs,
    /// WAN emulation (`--rtt`, `--jitter`, `--bandwidth`, `--tls-version`).
    #[command(flatten)]
    pub wan: Box<WanArgs>,
}

impl StudyArgs {
    /// The load the options ask for: an open loop with `--rate`, else a closed one.
    pub fn load(&self) -> Result<Load> {
        Ok(match self.rate {
            Some(rate) if rate > 0.0 => Load::Open {
                rate,
                poisson: self.poisson,
                max_in_flight: self.max_in_flight,
            },
            Some(rate) => anyhow::bail!("--rate must be positive, not {rate}"),
            None => Load::Closed {
                concurrency: self.concurrency,
            },
        })
    }

    /// The study's configuration against the Solr at `url` (trusting `ca`).
    pub fn config(&self, url: String, ca: Option<PathBuf>) -> Result<study::StudyConfig> {
        Ok(study::StudyConfig {
            // Every connection goes to the proxy when there is one.
            pcap_interface: self
                .capture
                .interface_for(self.proxy.as_deref().unwrap_or(&url)),
            url,
            collection: self.target.collection.clone(),
            ca,
            proxy: self.proxy.clone(),
            docs: self.docs,
            batch: self.batch,
            searches: self.searches,
            mixed: self.mixed,
            write_ratio: self.write_ratio,
            warmup: self.warmup,
            reps: self.reps,
            rows: self.rows,
            load: self.load()?,
            seed: self.run.seed,
            transports: self.matrix.transports.clone(),
            gzip: self.matrix.gzip.settings(),
            response_formats: self.formats.formats(),
            vector_dim: self.vector_dim,
            query: None,
            capture_dir: self.save_captures.clone(),
            quiet: self.output.quiet,
            self_test_connects: self.self_test.witness_self_test,
        })
    }
}

/// Runs `study`; the raw records are saved beside the report (it is rendered from them).
pub async fn run(a: StudyArgs, run: &Run) -> Result<Outcome<study::StudyReport>> {
    a.load()?;
    let wan_setup = a.wan.setup()?;
    if a.proxy.is_some() && wan_setup.is_some() {
        anyhow::bail!(
            "--proxy does not combine with WAN emulation (--rtt/--bandwidth): the emulated \
             link has its own front proxy"
        );
    }
    // Through the WAN topology the proxy terminates TLS; Solr itself stays plain http.
    let solr_tls = a.tls && wan_setup.is_none();
    let target = a.target.open(&run.local, "study", solr_tls)?;
    let cfg = a.config(target.url.clone(), target.ca.clone())?;
    let (report, records) = match &wan_setup {
        Some(w) => wan::run_study(w, a.tls, cfg).await?,
        None => study::run_isolated(cfg).await?,
    };
    Ok(Outcome::new(report).beside(move |dir| {
        crate::engine::run_dir::write_jsonl(&dir.join("records.jsonl"), &records)
    }))
}

/// `study` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct Study;

impl Scenario for Study {
    const NAME: &'static str = "study";
    const ABOUT: &'static str =
        "The transport study: indexing per update format, then the same searches \
        through every transport with and without gzip, with connection witnesses";
    const SCHEMA: &'static str = "summary";
    type Args = StudyArgs;
    type Report = study::StudyReport;

    fn ending(a: &StudyArgs) -> Ending {
        Ending::new(&a.output)
            .keep_solr(a.run.local.keep_solr)
            .fail_on(a.fail_on.fail_on)
    }

    fn run(
        a: StudyArgs,
        run: &Run,
    ) -> impl Future<Output = Result<Outcome<study::StudyReport>>> + Send {
        self::run(a, run)
    }

    fn findings(r: &study::StudyReport) -> &[Finding] {
        &r.findings
    }
}
