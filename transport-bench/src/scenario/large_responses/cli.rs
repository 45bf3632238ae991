//! `transport-bench large-responses`: pages of 10..1000 rows with and without gzip across an
//! emulated slow link. Its options ([`LargeArgs`]: the shared target,
//! output and capture groups plus its own) become the scenario's plain
//! [`large_responses::LargeConfig`].

use std::future::Future;

use anyhow::Result;
use solr_client::TransportKind;

use crate::args::wan::WanCommandArgs;
use crate::args::GzipChoice;
use crate::scenario::large_responses::{self, LargeConfig, LargeReport};
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};
use wan_emu::TlsVersion;

/// Options of `large-responses`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "A Solr on this machine's loopback (plain http). Without it or `SOLR_URL` the project's local Solr is \
     started and stopped after"
)))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/large-responses-<unix time>`)")))]
#[command(mut_arg("no_pcap", |a| a.help("Do not capture packets (no byte cross-check)")))]
#[command(mut_arg("seed", |a| a.help("Seed of the corpus and of the page offsets")))]
pub struct LargeArgs {
    /// Page sizes (rows per search), comma-separated.
    #[arg(value_parser = crate::args::count::<u64, 1, 1_000_000>, allow_negative_numbers = true, long, value_delimiter = ',', default_value = "10,40,100,1000")]
    pub rows: Vec<u64>,
    /// Gzip settings to compare: both, on or off.
    #[arg(long, value_enum, hide_possible_values = true, default_value_t = GzipChoice::Both)]
    pub gzip: GzipChoice,
    /// Emulated round-trip time, ms.
    #[arg(value_parser = crate::args::delay_ms, allow_negative_numbers = true, long, value_name = "MS", default_value_t = 20.0)]
    pub rtt: f64,
    /// Jitter in ms (uniform in [-J, +J] on each one-way delay).
    #[arg(value_parser = crate::args::delay_ms, allow_negative_numbers = true, long, value_name = "MS", default_value_t = 0.0)]
    pub jitter: f64,
    /// Bandwidth cap per direction (e.g. 100mbit, 1gbit), or `none`.
    #[arg(long, value_name = "RATE", default_value = "100mbit")]
    pub bandwidth: String,
    /// TLS at the proxy (1.2 or 1.3); plain http without it.
    #[arg(long, value_name = "1.2|1.3")]
    pub tls_version: Option<TlsVersion>,
    /// Measured requests per cell (page size x gzip).
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 60)]
    pub requests: usize,
    /// Warm-up requests per cell (excluded from figures, counted in the byte accounting).
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 3)]
    pub warmup: usize,
    /// Documents in the corpus (at least the largest page).
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 2000)]
    pub docs: usize,
    /// Approximate JSON size of one document, bytes.
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 2048)]
    pub doc_bytes: usize,
    /// Transport (the original benchmark's client pools connections).
    #[arg(long, default_value = "pooled")]
    pub transport: TransportKind,
    /// The target, run, output and capture options of a command through the WAN topology.
    #[command(flatten)]
    pub wan: WanCommandArgs,
}

impl From<&LargeArgs> for LargeConfig {
    fn from(a: &LargeArgs) -> Self {
        LargeConfig {
            rows: a.rows.clone(),
            gzip: a.gzip,
            rtt: a.rtt,
            jitter: a.jitter,
            bandwidth: a.bandwidth.clone(),
            tls_version: a.tls_version,
            requests: a.requests,
            warmup: a.warmup,
            docs: a.docs,
            doc_bytes: a.doc_bytes,
            transport: a.transport,
            collection: a.wan.target.collection.clone(),
            seed: a.wan.run.seed,
            no_pcap: a.wan.capture.no_pcap,
            quiet: a.wan.output.quiet,
            wan_prefix: a.wan.wan_prefix.clone(),
        }
    }
}

/// Runs `large-responses`: starts the local Solr unless `--url`, runs; the records are saved
/// beside the report.
pub async fn run(a: LargeArgs, run: &Run) -> Result<Outcome<LargeReport>> {
    a.wan.reject_misfits("large-responses")?;
    let cfg = LargeConfig::from(&a);
    let target = a.wan.target.open(&run.local, "large", false)?;
    let (report, records) = large_responses::scenario(&cfg, &target.url).await?;
    Ok(Outcome::new(report).beside(move |dir| {
        crate::engine::run_dir::write_jsonl(&dir.join("records.jsonl"), &records)
    }))
}

/// `large-responses` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct LargeResponses;

impl Scenario for LargeResponses {
    const NAME: &'static str = "large-responses";
    const ABOUT: &'static str =
        "Large responses: pages of 10..1000 rows with and without gzip across an \
        emulated slow link (root): wire bytes, p50/p95, client CPU, where gzip starts to pay";
    type Args = LargeArgs;
    type Report = LargeReport;

    fn ending(a: &LargeArgs) -> Ending {
        Ending::new(&a.wan.output).keep_solr(a.wan.run.local.keep_solr)
    }

    fn run(a: LargeArgs, run: &Run) -> impl Future<Output = Result<Outcome<LargeReport>>> + Send {
        self::run(a, run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_line_becomes_the_config() {
        let a: LargeArgs = crate::args::try_parse(
            "large-responses",
            &[
                "--rows",
                "10,100",
                "--gzip",
                "off",
                "--rtt",
                "40",
                "--jitter",
                "2",
                "--bandwidth",
                "none",
                "--tls-version",
                "1.2",
                "--requests",
                "7",
                "--warmup",
                "1",
                "--docs",
                "300",
                "--doc-bytes",
                "512",
                "--transport",
                "http2",
                "--url",
                "http://127.0.0.1:8983/solr",
                "--collection",
                "c5",
                "--seed",
                "6",
                "--out",
                "/tmp/l",
                "--no-pcap",
                "--keep-solr",
                "--quiet",
                "--wan-prefix",
                "w",
            ],
        )
        .expect("parses");
        assert_eq!(
            a.wan.target.url.as_deref(),
            Some("http://127.0.0.1:8983/solr")
        );
        assert!(a.wan.run.local.keep_solr);
        let c = LargeConfig::from(&a);
        assert_eq!((c.rows, c.gzip), (vec![10, 100], GzipChoice::Off));
        assert_eq!((c.rtt, c.jitter, c.bandwidth.as_str()), (40.0, 2.0, "none"));
        assert_eq!(c.tls_version, Some(TlsVersion::Tls12));
        assert_eq!(
            (c.requests, c.warmup, c.docs, c.doc_bytes),
            (7, 1, 300, 512)
        );
        assert_eq!(c.transport, TransportKind::Http2);
        assert_eq!((c.collection.as_str(), c.seed), ("c5", 6));
        assert_eq!(
            (c.no_pcap, c.quiet, c.wan_prefix.as_str()),
            (true, true, "w")
        );
        let bad: LargeArgs =
            crate::args::try_parse("large-responses", &["--ca", "/tmp/ca.pem"]).expect("parses");
        assert!(bad.wan.reject_misfits("large-responses").is_err());
    }
}
