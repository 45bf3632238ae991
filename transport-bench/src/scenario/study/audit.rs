//! `transport-bench audit`: a quick audit of any Solr, with the idle-penalty probe.

use std::future::Future;
use std::sync::Arc;

use anyhow::Result;
use solr_client::transport::{PooledConfig, Transport};
use solr_client::{Proxy, TransportKind};

use super::response_format::ResponseFormatArgs;
use crate::args::fail_on::FailOnArgs;
use crate::args::groups::{CaptureArgs, OutputArgs, SolrTargetArgs, WitnessSelfTestArgs};
use crate::args::wan::WanArgs;
use crate::scenario::shape::{Ending, Outcome, Run, Scenario};
use crate::scenario::study::wan;
use crate::scenario::study::{self, idle};
use solr_harness::{auth, seedkit};
use solr_watch::report::Finding;

/// Options of `audit`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("url", |a| a.help(
    "Solr base URL, e.g. `https://solr.example:8983/solr`. Without it or `SOLR_URL` the project's local \
     Solr is started (and stopped after)"
)))]
#[command(mut_arg("out", |a| a.help("Output folder (default `results/audit-<unix time>`)")))]
#[command(mut_arg("no_pcap", |a| a.help("Do not capture packets")))]
pub struct AuditArgs {
    /// The Solr to audit.
    #[command(flatten)]
    pub target: SolrTargetArgs,
    /// The local Solr with TLS; with `--rtt`, TLS 1.3 at the WAN proxy instead.
    #[arg(long)]
    pub tls: bool,
    /// Proxy every measured transport goes through: HTTP (`http://host:port`; `CONNECT`
    /// tunnels for https, absolute-form requests for http; `host:port` means
    /// `http://host:port`) or SOCKS5 (`socks5://`, `socks5h://`); `user:password@` in the
    /// URL are its credentials (never shown). The witnesses then count connections to the
    /// proxy. Not with WAN emulation. Default: direct.
    #[arg(long, value_name = "URL", value_parser = crate::args::ProxyUrl)]
    pub proxy: Option<String>,
    /// The query each search sends (any Solr answers `*:*`).
    #[arg(long, default_value = "*:*")]
    pub query: String,
    /// Rows per search.
    #[arg(value_parser = crate::args::count::<u64, 0, 1_000_000>, allow_negative_numbers = true, long, default_value_t = 10)]
    pub rows: u64,
    /// Searches per transport.
    #[arg(value_parser = crate::args::count::<usize, 1, 10_000_000>, allow_negative_numbers = true, long, default_value_t = 50)]
    pub searches: usize,
    /// Response formats of the searches (`--response-format`).
    #[command(flatten)]
    pub formats: ResponseFormatArgs,
    /// The pcap SYN witness.
    #[command(flatten)]
    pub capture: CaptureArgs,
    /// The witnesses' self-test (hidden).
    #[command(flatten)]
    pub self_test: WitnessSelfTestArgs,
    /// Where the run's files go.
    #[command(flatten)]
    pub output: OutputArgs,
    /// `--fail-on`: exit code 3 on a finding at that severity or above.
    #[command(flatten)]
    pub fail_on: FailOnArgs,
    /// Idle gaps (ms) for the idle-penalty probe: the same search on one kept-alive pooled
    /// connection, back to back (0) and after each gap. Not through `--rtt`.
    #[arg(value_parser = crate::args::count::<u64, 0, 3_600_000>, allow_negative_numbers = true, long, value_delimiter = ',', default_value = idle::DEFAULT_GAPS)]
    pub idle_gaps: Vec<u64>,
    /// Searches per idle gap.
    #[arg(value_parser = crate::args::count::<usize, 1, 100_000>, allow_negative_numbers = true, long, default_value_t = idle::DEFAULT_SEARCHES)]
    pub idle_searches: usize,
    /// Skip the idle-penalty probe.
    #[arg(long)]
    pub no_idle: bool,
    /// Then measure the longest idle gap again while a warmer sends `*:*` with no rows
    /// every this many ms on a second connection (0: no warmer).
    #[arg(value_parser = crate::args::count::<u64, 0, 60_000>, allow_negative_numbers = true, long, value_name = "MS", default_value_t = 20)]
    pub idle_warmer: u64,
    /// WAN emulation (`--rtt`, `--jitter`, `--bandwidth`, `--tls-version`; root): only for
    /// the project's local Solr or another Solr on this machine's loopback.
    #[command(flatten)]
    pub wan: Box<WanArgs>,
}

impl AuditArgs {
    /// The audit's study configuration against the Solr at `url` (trusting `ca`), indexing
    /// `docs` documents first.
    pub fn config(
        &self,
        url: String,
        ca: Option<std::path::PathBuf>,
        docs: usize,
    ) -> study::StudyConfig {
        study::StudyConfig {
            // Every connection goes to the proxy when there is one.
            pcap_interface: self
                .capture
                .interface_for(self.proxy.as_deref().unwrap_or(&url)),
            url,
            collection: self.target.collection.clone(),
            ca,
            proxy: self.proxy.clone(),
            docs,
            batch: 100,
            searches: self.searches,
            mixed: 0,
            write_ratio: 0.0,
            warmup: 0,
            reps: 1,
            rows: self.rows,
            query: Some(self.query.clone()),
            load: crate::engine::load::Load::Closed { concurrency: 1 },
            seed: 42,
            transports: TransportKind::ALL.to_vec(),
            gzip: vec![false, true],
            response_formats: self.formats.formats(),
            vector_dim: 0,
            capture_dir: None,
            quiet: self.output.quiet,
            self_test_connects: self.self_test.witness_self_test,
        }
    }
}

/// Runs `audit`; the report's text is headed by the target and the findings.
pub async fn run(a: AuditArgs, run: &Run) -> Result<Outcome<study::StudyReport>> {
    let wan_setup = a.wan.setup()?;
    if a.proxy.is_some() && wan_setup.is_some() {
        anyhow::bail!(
            "--proxy does not combine with WAN emulation (--rtt/--bandwidth): the emulated \
             link has its own front proxy"
        );
    }
    if let (Some(url), true) = (&a.target.configured_url()?, wan_setup.is_some()) {
        if let Err(e) = crate::engine::wan::upstream_of(url) {
            anyhow::bail!(
                "WAN emulation (--rtt/--bandwidth) applies only to the project's local Solr or \
                 another plain-http Solr on this machine's loopback, and {url} is not one ({e:#}). \
                 Drop --rtt/--bandwidth to audit it over the real network, or drop --url to \
                 audit the local Solr through the emulated link."
            );
        }
    }
    // Through the WAN topology the proxy terminates TLS; Solr itself stays plain http.
    let solr_tls = a.tls && wan_setup.is_none();
    let target = a.target.open(&run.local, "audit", solr_tls)?;
    let url = target.url.clone();
    // An empty local core would answer every search with nothing: index a few documents.
    let docs = if target.local.is_some() { 100 } else { 0 };
    let mut cfg = a.config(url.clone(), target.ca.clone(), docs);
    // The captures are kept for the paced-response analysis, then removed.
    let captures = cfg
        .pcap_interface
        .as_ref()
        .map(|_| std::env::temp_dir().join(format!("tb-audit-{}", std::process::id())));
    cfg.capture_dir = captures.clone();
    let result = match &wan_setup {
        Some(w) => wan::run_study(w, a.tls, cfg).await,
        None => measure(&a, cfg).await,
    };
    let paced = captures
        .as_deref()
        .map(crate::engine::witness::pacing::findings_in_dir)
        .unwrap_or_default();
    if let Some(dir) = &captures {
        let _ = std::fs::remove_dir_all(dir);
    }
    let (mut report, records) = result?;
    report.warnings.extend(paced.iter().cloned());
    report.findings.extend(study::judge::paced(&paced));
    let heading = heading(&a, &url, &report);
    Ok(Outcome::new(report)
        .beside(move |dir| {
            crate::engine::run_dir::write_jsonl(&dir.join("records.jsonl"), &records)
        })
        .heading(heading))
}

/// The study on the Solr itself, then the idle-penalty probe unless `--no-idle`.
async fn measure(
    a: &AuditArgs,
    cfg: study::StudyConfig,
) -> Result<(study::StudyReport, Vec<study::Record>)> {
    let (mut report, records) = study::run_isolated(cfg.clone()).await?;
    if !(a.no_idle || a.idle_gaps.is_empty()) {
        match idle_probe(&cfg, &a.idle_gaps, a.idle_searches, a.idle_warmer).await {
            Ok(p) => report.idle = Some(p),
            Err(e) => report
                .warnings
                .push(format!("idle-penalty probe failed: {e:#}")),
        }
    }
    Ok((report, records))
}

/// `Audit of URL [through ...]: N searches per transport`, then the findings, one a line.
fn heading(a: &AuditArgs, url: &str, report: &study::StudyReport) -> String {
    let through = match report.settings.get("wan") {
        Some(w) => format!(
            " through the emulated link (RTT {} ms, proxy {})",
            w["rtt_ms"],
            w["proxy"].as_str().unwrap_or("-")
        ),
        None => match &a.proxy {
            Some(p) => format!(" through {}", crate::args::proxy_phrase(p)),
            None => String::new(),
        },
    };
    let mut h = format!(
        "Audit of {url}{through}: {} searches per transport\n",
        a.searches
    );
    for line in study::judge::lines(&report.findings) {
        h.push_str(&format!("  {line}\n"));
    }
    h.push('\n');
    h
}

/// The idle-penalty probe of `audit` ([`idle::probe`]) on a new pooled client, with a warmer
/// on a second one every `warmer_ms` (0: none); both through the run's `--proxy`, if any.
async fn idle_probe(
    cfg: &study::StudyConfig,
    gaps: &[u64],
    n: usize,
    warmer_ms: u64,
) -> Result<idle::IdleProbe> {
    let mut tls = solr_client::TlsOptions::new();
    if let Some(ca) = &cfg.ca {
        tls = tls.add_ca_pem_file(ca)?;
    }
    let proxy = cfg.proxy.as_deref().map(Proxy::new).transpose()?;
    let pooled_via =
        || TransportKind::Pooled.build_via(&tls, false, PooledConfig::default(), proxy.as_ref());
    let pooled = pooled_via()?;
    let auth = auth::from_env()?;
    let client = |transport: Arc<dyn Transport>| {
        let b = solr_client::SolrClient::builder(&cfg.url)
            .collection(&cfg.collection)
            .custom_transport(transport);
        match auth.clone() {
            Some(c) => b.credentials(c),
            None => b,
        }
        .build()
    };
    let measured = client(pooled.clone())?;
    let warm_client = client(pooled_via()?)?;
    let select =
        solr_client::Select::new(cfg.query.clone().unwrap_or_else(|| "*:*".into())).rows(cfg.rows);
    let warmer = (warmer_ms > 0).then(|| idle::Warmer {
        client: &warm_client,
        select: solr_client::Select::new("*:*").rows(0),
        interval: std::time::Duration::from_millis(warmer_ms),
    });
    let steps = (gaps.len() + usize::from(warmer.is_some())) * n;
    let pb = seedkit::progress(cfg.quiet, steps as u64, "idle-penalty probe");
    let opened = {
        let pooled = pooled.clone();
        move || pooled.stats().connections_opened
    };
    let p = idle::probe(&measured, &opened, &select, gaps, n, warmer, &pb).await;
    pb.finish_and_clear();
    p
}

/// `audit` in the scenario list ([`crate::cli::registry::SCENARIOS`]).
#[derive(Debug)]
pub struct Audit;

impl Scenario for Audit {
    const NAME: &'static str = "audit";
    const ABOUT: &'static str =
        "A quick audit of any Solr: each transport with and without gzip, a few searches, \
        connection reuse proven by the witnesses, the phase breakdown and overhead over QTime. \
        Without `--url` it audits the project's local Solr, through the WAN topology with \
        `--rtt`/`--bandwidth` (emulation applies only to a Solr on this machine's loopback)";
    const SCHEMA: &'static str = "summary";
    type Args = AuditArgs;
    type Report = study::StudyReport;

    fn ending(a: &AuditArgs) -> Ending {
        Ending::new(&a.output).fail_on(a.fail_on.fail_on)
    }

    fn run(
        a: AuditArgs,
        run: &Run,
    ) -> impl Future<Output = Result<Outcome<study::StudyReport>>> + Send {
        self::run(a, run)
    }

    fn findings(r: &study::StudyReport) -> &[Finding] {
        &r.findings
    }
}

#[cfg(test)]
mod tests {
    use super::AuditArgs;

    #[test]
    fn audit_idle_options() {
        let gaps = |extra: &[&str]| {
            let a: AuditArgs = crate::args::try_parse("audit", extra).expect("parses");
            (a.idle_gaps, a.idle_searches, a.idle_warmer, a.no_idle)
        };
        assert_eq!(gaps(&[]), (vec![0, 20, 100, 300], 15, 20, false));
        assert_eq!(
            gaps(&["--idle-gaps", "0,50", "--idle-warmer", "0", "--no-idle"]),
            (vec![0, 50], 15, 0, true)
        );
    }
}
