//! `transport-bench sweep`: the study's searches at several round-trip times through the WAN
//! topology. Its options ([`SweepArgs`]: the shared target, output and capture groups plus its
//! own) become the scenario's plain [`sweep::SweepConfig`].

use std::future::Future;

use anyhow::Result;

use crate::args::groups::{TransportMatrixArgs, WitnessSelfTestArgs};
use crate::args::wan::WanCommandArgs;
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};
use crate::scenario::study::sweep::{self, SweepConfig, SweepReport, TlsChoice};

/// Options of `sweep`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "A Solr on this machine's loopback (plain http; the proxy terminates TLS). Without it or `SOLR_URL` \
     the project's local Solr is started and stopped after"
)))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/sweep-<unix time>`)")))]
#[command(mut_arg("no_pcap", |a| a.help("Do not capture packets")))]
#[command(mut_arg("transports", |a| a.help("Transports, comma-separated (fresh and pooled are needed for the ratio)")))]
pub struct SweepArgs {
    /// Round-trip times in ms, comma-separated. 0 is always measured (the theory's baseline).
    #[arg(value_parser = crate::args::delay_ms, allow_negative_numbers = true, long, value_delimiter = ',', default_value = "0,2,20,80")]
    pub rtt: Vec<f64>,
    /// TLS version terminated at the proxy: 1.3, 1.2 or both.
    #[arg(long, value_enum, hide_possible_values = true, default_value = "1.3")]
    pub tls_version: TlsChoice,
    /// Jitter in ms (uniform in [-J, +J] on each one-way delay).
    #[arg(value_parser = crate::args::delay_ms, allow_negative_numbers = true, long, value_name = "MS", default_value_t = 0.0)]
    pub jitter: f64,
    /// Bandwidth cap per direction, e.g. 100mbit (none by default).
    #[arg(long, value_name = "RATE")]
    pub bandwidth: Option<String>,
    /// Documents indexed first on loopback (ids `sweep-N`, overwritten on each run); 0 skips.
    #[arg(value_parser = crate::args::count::<usize, 0, 100_000_000>, allow_negative_numbers = true, long, default_value_t = 2000)]
    pub docs: usize,
    /// Measured searches per transport and point.
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 100)]
    pub searches: usize,
    /// Warm-up searches per transport and point (excluded from figures).
    #[arg(value_parser = crate::args::count::<usize, 0, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 5)]
    pub warmup: usize,
    /// Repetitions per point (the transport order rotates).
    #[arg(value_parser = crate::args::count::<usize, 1, 1000>, allow_negative_numbers = true, long, default_value_t = 1)]
    pub reps: usize,
    /// Rows per search.
    #[arg(value_parser = crate::args::count::<u64, 0, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 10)]
    pub rows: u64,
    /// The transports and gzip settings every search runs through.
    #[command(flatten)]
    pub matrix: TransportMatrixArgs,
    /// The witnesses' self-test (hidden).
    #[command(flatten)]
    pub self_test: WitnessSelfTestArgs,
    /// The target, run, output and capture options of a command through the WAN topology.
    #[command(flatten)]
    pub wan: WanCommandArgs,
}

impl From<&SweepArgs> for SweepConfig {
    fn from(a: &SweepArgs) -> Self {
        SweepConfig {
            rtt: a.rtt.clone(),
            tls_version: a.tls_version,
            jitter: a.jitter,
            bandwidth: a.bandwidth.clone(),
            collection: a.wan.target.collection.clone(),
            docs: a.docs,
            searches: a.searches,
            warmup: a.warmup,
            reps: a.reps,
            rows: a.rows,
            transports: a.matrix.transports.clone(),
            gzip: a.matrix.gzip,
            seed: a.wan.run.seed,
            no_pcap: a.wan.capture.no_pcap,
            quiet: a.wan.output.quiet,
            wan_prefix: a.wan.wan_prefix.clone(),
            self_test_connects: a.self_test.witness_self_test,
        }
    }
}

/// Runs `sweep`: checks the options, starts the local Solr unless `--url`, sweeps.
pub async fn run(a: SweepArgs, run: &Run) -> Result<Outcome<SweepReport>> {
    // Check the options before starting anything.
    a.wan.reject_misfits("sweep")?;
    sweep::rtt_list(&a.rtt)?;
    let cfg = SweepConfig::from(&a);
    let target = a.wan.target.open(&run.local, "sweep", false)?;
    let report = sweep::sweep(&cfg, &target.url, run.out()?).await?;
    Ok(Outcome::new(report))
}

/// `sweep` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct Sweep;

impl Scenario for Sweep {
    const NAME: &'static str = "sweep";
    const ABOUT: &'static str =
        "The study's searches at several round-trip times through the WAN topology (root): \
        one table (p50/p95, QTime, connections, fresh/pooled ratio vs theory) and one chart";
    type Args = SweepArgs;
    type Report = SweepReport;

    fn ending(a: &SweepArgs) -> Ending {
        Ending::new(&a.wan.output).keep_solr(a.wan.run.local.keep_solr)
    }

    fn run(a: SweepArgs, run: &Run) -> impl Future<Output = Result<Outcome<SweepReport>>> + Send {
        self::run(a, run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::GzipChoice;
    use solr_client::TransportKind;

    fn args(extra: &[&str]) -> SweepArgs {
        crate::args::try_parse("sweep", extra).expect("parses")
    }

    #[test]
    fn an_argument_line_becomes_the_config() {
        let a = args(&[
            "--rtt",
            "0,20,80",
            "--tls-version",
            "both",
            "--jitter",
            "1.5",
            "--bandwidth",
            "100mbit",
            "--url",
            "http://127.0.0.1:8983/solr",
            "--collection",
            "c4",
            "--docs",
            "10",
            "--searches",
            "11",
            "--warmup",
            "2",
            "--reps",
            "3",
            "--rows",
            "4",
            "--transports",
            "fresh,pooled",
            "--gzip",
            "on",
            "--seed",
            "5",
            "--out",
            "/tmp/s",
            "--no-pcap",
            "--keep-solr",
            "--quiet",
            "--wan-prefix",
            "w",
        ]);
        assert_eq!(
            a.wan.target.url.as_deref(),
            Some("http://127.0.0.1:8983/solr")
        );
        assert!(a.wan.run.local.keep_solr);
        let c = SweepConfig::from(&a);
        assert_eq!(c.rtt, vec![0.0, 20.0, 80.0]);
        assert_eq!(c.tls_version, TlsChoice::Both);
        assert_eq!((c.jitter, c.bandwidth.as_deref()), (1.5, Some("100mbit")));
        assert_eq!(c.collection, "c4");
        assert_eq!(
            (c.docs, c.searches, c.warmup, c.reps, c.rows),
            (10, 11, 2, 3, 4)
        );
        assert_eq!(
            c.transports,
            vec![TransportKind::Fresh, TransportKind::Pooled]
        );
        assert_eq!((c.gzip, c.seed), (GzipChoice::On, 5));
        assert_eq!(
            (c.no_pcap, c.quiet, c.wan_prefix.as_str()),
            (true, true, "w")
        );
        assert!(a.wan.reject_misfits("sweep").is_ok());
    }

    #[test]
    fn tls_version_is_a_value_enum_with_the_old_spellings() {
        assert_eq!(SweepConfig::from(&args(&[])).tls_version, TlsChoice::Tls13);
        for (s, want) in [
            ("1.3", TlsChoice::Tls13),
            ("1.2", TlsChoice::Tls12),
            ("both", TlsChoice::Both),
        ] {
            assert_eq!(args(&["--tls-version", s]).tls_version, want);
        }
        let e = crate::args::try_parse::<SweepArgs>("sweep", &["--tls-version", "1.1"])
            .expect_err("rejected");
        assert!(e.to_string().contains("1.1"), "{e}");
    }

    #[test]
    fn shared_options_that_do_not_apply_are_errors() {
        for (bad, name) in [
            (&["--ca", "/tmp/ca.pem"], "--ca"),
            (&["--interface", "lo"], "--interface"),
        ] {
            let a = args(bad);
            let e = a.wan.reject_misfits("sweep").expect_err("rejected");
            assert!(e.to_string().starts_with(name), "{e}");
        }
    }
}
