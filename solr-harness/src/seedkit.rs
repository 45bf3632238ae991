//! Shared pieces of the commands: where Solr is (the project's
//! own local node, or `--url`), pooled clients, progress bars, exact document counts and
//! Solr's merge gauges.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use solr_client::{
    RequestKind, Select, SolrClient, TlsOptions, TransportKind, UpdateFormat, WireRequest,
};

use crate::local_solr::{LocalSolr, Mode};

/// The Solr a scenario runs against.
#[derive(Debug)]
pub struct Target {
    /// Base URL (`http://127.0.0.1:PORT/solr`).
    pub url: String,
    /// Core or collection.
    pub collection: String,
    /// CA certificate to trust for https.
    pub ca: Option<PathBuf>,
    /// The local instance this process started (stopped by [`Target::finish`]).
    pub local: Option<LocalSolr>,
}

impl Target {
    /// `url` when given; otherwise starts the project's local standalone Solr `name` with
    /// `extra` `solr.sh start` options.
    pub fn open(
        url: Option<String>,
        collection: &str,
        ca: Option<PathBuf>,
        name: &str,
        extra: &[&str],
    ) -> Result<Target> {
        match url {
            Some(url) => Ok(Target {
                url,
                collection: collection.to_string(),
                ca,
                local: None,
            }),
            None => {
                eprintln!("no --url: starting the project's local Solr (standalone, instance {name}); give --url to measure your own");
                let s = LocalSolr::start(Mode::Standalone, name, extra)?;
                Ok(Target {
                    url: s.url(None)?.to_string(),
                    collection: collection.to_string(),
                    ca: s.ca.clone().or(ca),
                    local: Some(s),
                })
            }
        }
    }

    /// A pooled (keep-alive) client sending updates in `format`.
    pub fn client(&self, format: UpdateFormat) -> Result<SolrClient> {
        let mut tls = TlsOptions::new();
        if let Some(ca) = &self.ca {
            tls = tls.add_ca_pem_file(ca)?;
        }
        Ok(crate::auth::apply(SolrClient::builder(&self.url))?
            .collection(&self.collection)
            .tls(tls)
            .transport(TransportKind::Pooled)
            .update_format(format)
            .build()?)
    }

    /// Stops the local Solr this process started, unless `keep`.
    pub fn finish(&self, keep: bool) {
        if let (Some(s), false) = (&self.local, keep) {
            if let Err(e) = s.stop() {
                eprintln!("warning: could not stop the local Solr: {e:#}");
            }
        }
    }
}

/// A progress bar of `len` steps (hidden when `quiet`).
pub fn progress(quiet: bool, len: u64, msg: impl Into<String>) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg:>30} [{bar:30}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(msg.into());
    pb
}

/// The query matching every document whose id starts with `prefix` (no escaping needed).
pub fn prefix_query(prefix: &str) -> String {
    format!("{{!prefix f=id}}{prefix}")
}

/// `numFound` of `q` (rows 0).
pub async fn count(client: &SolrClient, q: &str) -> Result<u64> {
    let r = client
        .select(&Select::new(q).rows(0))
        .await
        .with_context(|| format!("counting {q}"))?;
    Ok(r.num_found())
}

/// Solr's merge gauges (`INDEX.merge.*`, registered by the bench configset's
/// `<indexConfig><metrics><bool name="merge">true</bool>`), summed over the node's cores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Merges {
    /// Merges running now (major + minor).
    pub running: u64,
    /// Merges finished since the core started (major + minor).
    pub completed: u64,
}

/// Solr's `admin/metrics` of the node's cores (`group=core`) whose names start with
/// `prefix` (comma-separated prefixes allowed): the `metrics` object, one entry per core
/// registry (`solr.core.NAME`), each a map of metric name to value.
pub async fn core_metrics(
    client: &SolrClient,
    prefix: &str,
) -> Result<serde_json::Map<String, serde_json::Value>> {
    let mut req: WireRequest = client.wire(
        http::Method::GET,
        "admin",
        vec![
            ("group".into(), "core".into()),
            ("prefix".into(), prefix.into()),
            ("wt".into(), "json".into()),
        ],
        RequestKind::Admin,
    );
    req.path = "admin/metrics".into();
    let resp = client
        .send_raw(req)
        .await
        .context("reading admin/metrics")?;
    if !resp.status.is_success() {
        bail!("admin/metrics answered HTTP {}", resp.status);
    }
    let mut v: serde_json::Value =
        serde_json::from_slice(&resp.body).context("decoding admin/metrics")?;
    Ok(match v.get_mut("metrics").map(serde_json::Value::take) {
        Some(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    })
}

/// Reads the merge gauges; `None` when the node does not publish them.
pub async fn merges(client: &SolrClient) -> Result<Option<Merges>> {
    let cores = core_metrics(client, "INDEX.merge").await?;
    let mut m = Merges::default();
    let mut seen = false;
    for core in cores.values() {
        for kind in ["major", "minor"] {
            if let Some(r) = core
                .get(format!("INDEX.merge.{kind}.running"))
                .and_then(|x| x.as_u64())
            {
                seen = true;
                m.running += r;
            }
            if let Some(c) = core
                .get(format!("INDEX.merge.{kind}"))
                .and_then(|x| x.get("count"))
                .and_then(|x| x.as_u64())
            {
                m.completed += c;
            }
        }
    }
    Ok(seen.then_some(m))
}

/// Waits until no merge has been running for two polls 500 ms apart, at most `max`.
/// Returns the seconds waited and whether the gauges were available (without them it
/// waits `fallback` instead, as the seed's fixed `Wait(220)` did).
pub async fn wait_for_merges(
    client: &SolrClient,
    max: Duration,
    fallback: Duration,
) -> Result<(f64, bool)> {
    let t0 = Instant::now();
    let mut idle = 0;
    loop {
        match merges(client).await? {
            None => {
                tokio::time::sleep(fallback).await;
                return Ok((t0.elapsed().as_secs_f64(), false));
            }
            Some(m) if m.running == 0 => idle += 1,
            Some(_) => idle = 0,
        }
        if idle >= 2 || t0.elapsed() >= max {
            return Ok((t0.elapsed().as_secs_f64(), true));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Seconds since the Unix epoch (for default output folders and id prefixes).
pub fn unix_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Formats an optional millisecond figure.
pub fn opt_ms(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into())
}

/// The host's 1-minute load average (`/proc/loadavg`), to tell a busy machine from a slow
/// Solr.
pub fn load_1m() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
