//! The study run through the WAN topology ([`run_study`]), as `study`, `audit` and `sweep`
//! run it with `--rtt`/`--bandwidth`.

use anyhow::{bail, Context, Result};

use crate::engine::wan::{header, interrupted, termination, tls_dir, upstream_of, WanSetup};
use crate::scenario::study::{self, Record, StudyConfig, StudyReport};
use wan_emu::{TlsVersion, Wan, WanConfig};

/// Runs the study through the WAN topology: starts it, calibrates, prints the calibration
/// header, runs `study::run` in the app namespace with the proxy's URL and the app-side
/// pcap device, and tears down (also on Ctrl-C/SIGTERM).
pub async fn run_study(
    args: &WanSetup,
    tls: bool,
    mut cfg: StudyConfig,
) -> Result<(StudyReport, Vec<Record>)> {
    let link = args.link;
    let upstream = upstream_of(&cfg.url)?;
    let path = url::Url::parse(&cfg.url)?.path().to_string();
    let tls_dir = tls_dir();
    let version = match (tls, args.tls_version) {
        (_, Some(v)) => Some(v),
        (true, None) => Some(TlsVersion::Tls13),
        (false, None) => None,
    };
    let termination = version.map(termination);
    let wan = Wan::start(WanConfig {
        prefix: args.prefix.clone(),
        link,
        seed: cfg.seed,
        upstream,
        tls: termination,
    })?;
    eprintln!("wan: calibrating...");
    let calibration = wan.calibrate(21)?;
    // On stderr with the progress: stdout is the report's (or with --json its JSON's) alone.
    eprintln!("{}", header(&wan, &link, &calibration));
    cfg.url = wan.url(&path);
    if version.is_some() {
        cfg.ca = Some(tls_dir.join("ca.pem"));
    }
    if cfg.pcap_interface.is_some() {
        cfg.pcap_interface = Some(wan.app_device().to_string());
    }
    let rx = wan
        .app()
        .spawn(move || async move { study::run(&cfg).await });
    let result = tokio::select! {
        r = rx => r.context("the study thread ended without a result")?,
        s = interrupted() => {
            let name = s?;
            drop(wan);
            bail!("interrupted by {name}: WAN namespaces removed");
        }
    };
    let (mut report, records) = result?;
    report.settings["wan"] = serde_json::json!({
        "rtt_ms": args.rtt_ms,
        "jitter_ms": args.jitter_ms,
        "bandwidth_bps": link.bandwidth_bps,
        "tls_version": version.map(|v| v.to_string()),
        "proxy": wan.url(&path),
        "upstream": upstream.to_string(),
        "pcap_device": wan.app_device(),
        "calibration": calibration,
    });
    wan.stop()?;
    Ok((report, records))
}
