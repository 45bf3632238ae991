//! Argument groups shared by several commands, flattened into each with
//! `#[command(flatten)]`: the Solr target, the output folder, the packet capture, the
//! workload seed, whether the local Solr stays up, the run's document ids, the transports
//! and gzip settings. Each group
//! turns itself into what the scenarios take (a [`Target`], a run folder, a pcap interface),
//! so no command copies these fields by hand. A command whose help text of a shared option
//! says more than the group's (e.g. what happens without `--url`) sets it with `mut_arg`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::args::GzipChoice;
use solr_client::TransportKind;
use solr_harness::seedkit::Target;

/// The Solr to talk to: `--url`, `--collection`, `--ca`.
#[derive(Debug, Clone, clap::Args)]
pub struct SolrTargetArgs {
    /// Solr base URL. Without it the project's local Solr is started (and stopped after),
    /// with a one-line notice on stderr.
    #[arg(short, long, value_parser = crate::args::SolrUrl)]
    pub url: Option<String>,
    /// Collection or core.
    #[arg(short, long, default_value = "bench")]
    pub collection: String,
    /// CA certificate (PEM) to trust for https.
    #[arg(long)]
    pub ca: Option<PathBuf>,
}

impl SolrTargetArgs {
    /// `--url` when given; otherwise the project's local standalone Solr, instance `name`
    /// (`name-tls`, started with `--tls`, when `tls`).
    pub fn open(&self, name: &str, tls: bool) -> Result<Target> {
        let (url, ca) = (self.url.clone(), self.ca.clone());
        if tls {
            Target::open(
                url,
                &self.collection,
                ca,
                &format!("{name}-tls"),
                &["--tls"],
            )
        } else {
            Target::open(url, &self.collection, ca, name, &[])
        }
    }
}

/// Where the run's files go and how much is shown while it runs: `--out`, `--quiet`.
#[derive(Debug, Clone, clap::Args)]
pub struct OutputArgs {
    /// Output folder (default `results/<command>-<unix time>`).
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// No progress bars.
    #[arg(short, long)]
    pub quiet: bool,
}

impl OutputArgs {
    /// `--out`, or a new folder `{kind}-{unix time}` under the results folder
    /// ([`crate::engine::run_dir::out_dir`]).
    pub fn dir(&self, kind: &str) -> Result<PathBuf> {
        crate::engine::run_dir::out_dir(self.out.clone(), kind)
    }

    /// The end of a command: saves `report` into [`OutputArgs::dir`]`(kind)` with `save`,
    /// prints its text to stdout with `print`, and says on stderr where it went.
    pub fn save_and_print<R>(
        &self,
        kind: &str,
        report: &R,
        save: impl FnOnce(&Path, &R) -> Result<()>,
        print: impl FnOnce(&R, &mut std::io::StdoutLock<'static>) -> Result<()>,
    ) -> Result<()> {
        let out = self.dir(kind)?;
        save(&out, report).with_context(|| format!("saving to {}", out.display()))?;
        print(report, &mut std::io::stdout().lock())?;
        eprintln!("saved: {}", out.display());
        Ok(())
    }
}

/// What a run generates and leaves behind: `--seed`, `--keep-solr` and, for the commands
/// that write documents under ids of their own (`RunArgs<IdPrefixArgs>`), `--id-prefix`.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs<Ids: clap::Args = NoIdPrefix> {
    /// `--id-prefix` ([`IdPrefixArgs`]) or nothing ([`NoIdPrefix`]).
    #[command(flatten)]
    pub ids: Ids,
    /// Workload seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// `--keep-solr`.
    #[command(flatten)]
    pub local: KeepSolrArgs,
}

/// Whether the local Solr a command started (without `--url`) stays up: `--keep-solr`.
#[derive(Debug, Clone, clap::Args)]
pub struct KeepSolrArgs {
    /// Keep the local Solr running afterwards.
    #[arg(long)]
    pub keep_solr: bool,
}

/// The prefix of the document ids a run writes: `--id-prefix` (each command names its
/// default with `mut_arg`).
#[derive(Debug, Clone, clap::Args)]
pub struct IdPrefixArgs {
    /// Prefix of every document id this run writes.
    #[arg(long)]
    pub id_prefix: Option<String>,
}

/// No `--id-prefix`: for the commands whose document ids are fixed.
#[derive(Debug, Clone, clap::Args)]
pub struct NoIdPrefix {}

/// The matrix every search runs through: `--transports` and `--gzip`.
#[derive(Debug, Clone, clap::Args)]
pub struct TransportMatrixArgs {
    /// Transports, comma-separated.
    #[arg(
        short,
        long,
        value_delimiter = ',',
        default_value = "fresh,pooled,reqwest,http2"
    )]
    pub transports: Vec<TransportKind>,
    /// Gzip settings to compare: both, on or off.
    #[arg(long, value_enum, hide_possible_values = true, default_value_t = GzipChoice::Both)]
    pub gzip: GzipChoice,
}

/// The pcap SYN witness: `--interface`, `--no-pcap`.
#[derive(Debug, Clone, clap::Args)]
pub struct CaptureArgs {
    /// Interface for the pcap SYN witness (default: lo for a loopback URL, any otherwise).
    #[arg(short, long)]
    pub interface: Option<String>,
    /// Do not capture packets (the pcap witness needs root or CAP_NET_RAW).
    #[arg(long)]
    pub no_pcap: bool,
}

impl CaptureArgs {
    /// The interface to capture on for a Solr at `url`, or None with `--no-pcap`.
    pub fn interface_for(&self, url: &str) -> Option<String> {
        (!self.no_pcap).then(|| {
            self.interface
                .clone()
                .unwrap_or_else(|| default_interface(url))
        })
    }
}

/// `--witness-self-test` (hidden): checks that the witnesses can disagree.
#[derive(Debug, Clone, clap::Args)]
pub struct WitnessSelfTestArgs {
    /// Self-test of the witnesses, not a measurement: open this many extra TCP connections to
    /// Solr from the client's network namespace in each measured run, beside the transport.
    /// The kernel and pcap witnesses count them and the connector does not, so the report
    /// must say WITNESSES DISAGREE.
    #[arg(value_parser = crate::args::count::<u32, 0, 100>, long, hide = true, default_value_t = 0)]
    pub witness_self_test: u32,
}

/// `lo` for a loopback URL, `any` otherwise.
pub fn default_interface(url: &str) -> String {
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    if host == "localhost" || host.starts_with("127.") || host == "[::1]" {
        "lo".into()
    } else {
        "any".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_convert_themselves() {
        let c = CaptureArgs {
            interface: None,
            no_pcap: false,
        };
        assert_eq!(
            c.interface_for("http://127.0.0.1:8983/solr").as_deref(),
            Some("lo")
        );
        assert_eq!(
            c.interface_for("https://solr.example/solr").as_deref(),
            Some("any")
        );
        let off = CaptureArgs {
            interface: Some("eth0".into()),
            no_pcap: true,
        };
        assert_eq!(off.interface_for("http://127.0.0.1:1/solr"), None);
    }
}
