//! Argument groups shared by several commands, flattened into each with
//! `#[command(flatten)]`: the Solr target, the output folder, the packet capture, the
//! workload seed, whether the local Solr stays up, the run's document ids, the transports
//! and gzip settings. Each group
//! turns itself into what the scenarios take (a [`Target`], a run folder, a pcap interface),
//! so no command copies these fields by hand. A command whose help text of a shared option
//! says more than the group's (e.g. what happens without `--url`) sets it with `mut_arg`.

use std::path::PathBuf;

use anyhow::Result;

use crate::args::json::JsonArgs;
use crate::args::GzipChoice;
use crate::engine::local::LocalSolrs;
use solr_client::TransportKind;
use solr_harness::local_solr::Mode;
use solr_harness::seedkit::Target;

/// The Solr to talk to: `--url` (or `SOLR_URL`), `--local`, `--collection`, `--ca`.
#[derive(Debug, Clone, clap::Args)]
pub struct SolrTargetArgs {
    /// Solr base URL (default: the `SOLR_URL` environment variable). Without either, the
    /// project's local Solr is started (and stopped after), with a one-line notice on stderr.
    #[arg(short, long, value_parser = crate::args::SolrUrl)]
    pub url: Option<String>,
    /// Start the project's local Solr (and stop it after), even when `SOLR_URL` is set,
    /// without the notice.
    #[arg(long, conflicts_with = "url")]
    pub local: bool,
    /// Collection or core.
    #[arg(short, long, default_value = "bench")]
    pub collection: String,
    /// CA certificate (PEM) to trust for https.
    #[arg(long)]
    pub ca: Option<PathBuf>,
}

/// The environment variable a Solr URL is taken from when `--url` is not given.
pub const SOLR_URL_ENV: &str = "SOLR_URL";

impl SolrTargetArgs {
    /// The Solr URL the run is pointed at: `--url`, else `SOLR_URL` (checked as `--url` is; an
    /// empty value is none), else None, which means the project's local Solr; always None
    /// with `--local`.
    pub fn configured_url(&self) -> Result<Option<String>> {
        if self.local {
            return Ok(None);
        }
        if let Some(url) = &self.url {
            return Ok(Some(url.clone()));
        }
        match std::env::var(SOLR_URL_ENV) {
            Ok(v) if !v.trim().is_empty() => crate::args::check_solr_url(v.trim())
                .map(Some)
                .map_err(|e| anyhow::anyhow!("{SOLR_URL_ENV}: {e}")),
            _ => Ok(None),
        }
    }

    /// The one-line notice printed on stderr before the local Solr (instance `name`) is
    /// started for a run that configured no URL at all (no `--url`, no `SOLR_URL`, no
    /// `--local`); None when there is nothing to say.
    pub fn local_notice(&self, name: &str) -> Result<Option<String>> {
        if self.local || self.configured_url()?.is_some() {
            return Ok(None);
        }
        Ok(Some(format!(
            "transport-bench: no --url and no {SOLR_URL_ENV}: starting the project's local Solr \
             (instance {name}); give --url or set {SOLR_URL_ENV} to measure your own Solr, or \
             --local to start it without this notice"
        )))
    }

    /// The configured URL ([`SolrTargetArgs::configured_url`]); otherwise the project's local
    /// standalone Solr, instance `name` (`name-tls`, started with `--tls`, when `tls`), after
    /// the notice ([`SolrTargetArgs::local_notice`]) unless `--local`, started through `local`
    /// (which stops it when the run ends).
    pub fn open(&self, local: &LocalSolrs, name: &str, tls: bool) -> Result<Target> {
        let collection = self.collection.clone();
        if let Some(url) = self.configured_url()? {
            return Ok(Target {
                url,
                collection,
                ca: self.ca.clone(),
                local: None,
            });
        }
        let (instance, extra): (String, &[&str]) = if tls {
            (format!("{name}-tls"), &["--tls"])
        } else {
            (name.to_string(), &[])
        };
        if let Some(notice) = self.local_notice(&instance)? {
            eprintln!("{notice}");
        }
        let s = local.start(Mode::Standalone, &instance, extra)?;
        Ok(Target {
            url: s.url(None)?.to_string(),
            collection,
            ca: s.ca.clone().or_else(|| self.ca.clone()),
            local: Some(s),
        })
    }
}

/// Where the run's files go and how the report is shown: `--out`, `--quiet`, `--json`.
#[derive(Debug, Clone, clap::Args)]
pub struct OutputArgs {
    /// Output folder (default `results/<command>-<unix time>`).
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// No progress bars.
    #[arg(short, long)]
    pub quiet: bool,
    /// `--json`.
    #[command(flatten)]
    pub json: JsonArgs,
}

impl OutputArgs {
    /// `--out`, or a new folder `{kind}-{unix time}` under the results folder
    /// ([`crate::engine::run_dir::out_dir`]).
    pub fn dir(&self, kind: &str) -> Result<PathBuf> {
        crate::engine::run_dir::out_dir(self.out.clone(), kind)
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

    /// `--url` is the URL and no notice; `--local` means the local Solr, without the notice,
    /// and does not combine with `--url`. (Without either, what `SOLR_URL` holds decides: the
    /// e2e tests run the binary with and without it.)
    #[test]
    fn url_and_local_decide_whether_the_notice_is_printed() {
        let parse = |extra: &[&str]| crate::args::try_parse::<SolrTargetArgs>("t", extra);
        let url = parse(&["--url", "http://127.0.0.1:8983/solr"]).expect("parses");
        assert_eq!(
            url.configured_url().expect("checked").as_deref(),
            Some("http://127.0.0.1:8983/solr")
        );
        assert_eq!(url.local_notice("audit").expect("checked"), None);
        let local = parse(&["--local"]).expect("parses");
        assert_eq!(local.configured_url().expect("checked"), None);
        assert_eq!(local.local_notice("audit").expect("checked"), None);
        let both = parse(&["--local", "--url", "http://127.0.0.1:8983/solr"]);
        assert_eq!(
            both.expect_err("conflict").kind(),
            clap::error::ErrorKind::ArgumentConflict
        );
    }

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
