//! The WAN options of `study` and `audit` (`--rtt`, `--jitter`, `--bandwidth`,
//! `--tls-version`): a flattened argument group that converts itself into a
//! [`WanSetup`]; and [`WanCommandArgs`], the options every command that always runs through
//! the WAN topology (`sweep`, `large-responses`) shares.

use anyhow::{bail, Result};
use std::time::Duration;

use super::groups::{CaptureArgs, OutputArgs, RunArgs, SolrTargetArgs};
use crate::engine::wan::WanSetup;
use wan_emu::{LinkParams, TlsVersion};

/// WAN options of `study` (need root). Any of `--rtt`/`--bandwidth` switches the topology
/// on: the study then talks to the front proxy at 198.18.0.2 through the delay line.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct WanArgs {
    /// Emulated round-trip time in ms (network namespaces + delay line; needs root).
    #[arg(value_parser = crate::args::delay_ms, allow_negative_numbers = true, long, value_name = "MS")]
    pub rtt: Option<f64>,
    /// Jitter in ms: uniform in [-J, +J] on each one-way delay, seeded, FIFO kept.
    #[arg(value_parser = crate::args::delay_ms, allow_negative_numbers = true, long, value_name = "MS", default_value_t = 0.0)]
    pub jitter: f64,
    /// Bandwidth cap per direction, e.g. 100mbit (IP bytes).
    #[arg(long, value_name = "RATE")]
    pub bandwidth: Option<String>,
    /// TLS version the WAN proxy terminates (implies TLS; `--tls` alone means 1.3).
    #[arg(long, value_name = "1.2|1.3")]
    pub tls_version: Option<TlsVersion>,
    /// Namespace prefix (`PREFIX-app`, `PREFIX-solr`).
    #[arg(long, default_value = "stb", hide = true)]
    pub wan_prefix: String,
}

impl WanArgs {
    /// Whether the WAN topology is asked for.
    pub fn enabled(&self) -> bool {
        self.rtt.is_some() || self.bandwidth.is_some()
    }

    /// Checks option combinations.
    pub fn validate(&self) -> Result<()> {
        if !self.enabled() && (self.jitter != 0.0 || self.tls_version.is_some()) {
            bail!("--jitter and --tls-version need --rtt (or --bandwidth): they shape the WAN topology");
        }
        for (name, v) in [
            ("--rtt", self.rtt.unwrap_or(0.0)),
            ("--jitter", self.jitter),
        ] {
            if !(v.is_finite() && (0.0..=10_000.0).contains(&v)) {
                bail!("{name} must be between 0 and 10000 ms, not {v}");
            }
        }
        Ok(())
    }

    /// The link these options describe.
    pub fn link(&self) -> Result<LinkParams> {
        Ok(LinkParams {
            rtt: Duration::from_secs_f64(self.rtt.unwrap_or(0.0) / 1000.0),
            jitter: Duration::from_secs_f64(self.jitter / 1000.0),
            bandwidth_bps: self
                .bandwidth
                .as_deref()
                .map(wan_emu::parse_rate)
                .transpose()?,
        })
    }
}

impl WanArgs {
    /// The topology these options ask for, or None when they ask for none.
    pub fn setup(&self) -> Result<Option<WanSetup>> {
        self.validate()?;
        if !self.enabled() {
            return Ok(None);
        }
        Ok(Some(WanSetup {
            link: self.link()?,
            rtt_ms: self.rtt.unwrap_or(0.0),
            jitter_ms: self.jitter,
            tls_version: self.tls_version,
            prefix: self.wan_prefix.clone(),
        }))
    }
}

/// The options of a command that always runs through the WAN topology against a Solr on this
/// machine's loopback (`sweep`, `large-responses`): the target, the run, the output and the
/// capture groups, and the hidden namespace prefix. `--ca` and `--interface` are hidden and
/// refused ([`WanCommandArgs::reject_misfits`]): the proxy terminates TLS, and the capture is
/// on the app-side device.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("ca", |a| a.hide(true)))]
#[command(mut_arg("interface", |a| a.hide(true)))]
pub struct WanCommandArgs {
    /// The Solr behind the proxy.
    #[command(flatten)]
    pub target: SolrTargetArgs,
    /// The workload's seed and the local Solr's fate.
    #[command(flatten)]
    pub run: RunArgs,
    /// Namespace prefix (`PREFIX-app`, `PREFIX-solr`).
    #[arg(long, default_value = "stb", hide = true)]
    pub wan_prefix: String,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
    /// The packet capture (on the app-side device; `--interface` does not apply).
    #[command(flatten)]
    pub capture: CaptureArgs,
}

impl WanCommandArgs {
    /// `--ca` and `--interface` of the shared groups, which a command through the WAN
    /// topology cannot use: an error naming the option, before anything starts.
    pub fn reject_misfits(&self, cmd: &str) -> Result<()> {
        if self.target.ca.is_some() {
            bail!("--ca does not apply to {cmd}: it talks plain http to a Solr on this machine's loopback (the proxy terminates TLS)");
        }
        if self.capture.interface.is_some() {
            bail!("--interface does not apply to {cmd}: it captures on the WAN topology's app-side device");
        }
        Ok(())
    }
}
