//! `large-responses`: large responses across a slow link. Pages of
//! {10, 40, 100, 1000} documents, with and without gzip, fetched through the WAN topology
//! (default RTT 20 ms, 100 Mbit/s per direction) from the project's real Solr.
//!
//! Figures per page size and gzip setting: wire bytes per response (socket bytes counted by
//! the transport, cross-checked against the TCP payload a pcap capture saw on the app-side
//! device), decoded bytes, wall p50/p95, Solr QTime, and the client's CPU time per response:
//! the measuring thread runs a current-thread tokio runtime, so the thread's CPU clock
//! (`CLOCK_THREAD_CPUTIME_ID`) read around each request covers every bit of client work for
//! it (socket reads, TLS, gunzip, JSON decode) and nothing else (Solr, the proxy and the
//! delay line run on other threads).
//!
//! Requests are interleaved: step i sends one request of every (rows, gzip) cell in rotated
//! order, with the same page offset for gzip on and off, so both see the same machine load
//! and the same documents.
//!
//! The seed publishes no response size (only 12,000 KB/s of traffic in total); the corpus
//! here is `--docs` documents of about `--doc-bytes` JSON each (default 2,000 x 2 KB, so
//! rows=1000 is a ~2 MB response), with text drawn from a Zipf-distributed vocabulary of
//! 4,000 pseudo-words so that it compresses like prose rather than like a repeated string.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use solr_client::{Select, SolrClient, Timing, TlsOptions, TransportKind};

use crate::engine::wan::{header, interrupted, termination, tls_dir, upstream_of};
use bench_report::stats::percentiles;
use wan_emu::{TlsVersion, Wan, WanConfig};

/// Configuration of `large-responses` (built by the command line from its options; see `transport-bench large-responses --help`).
#[derive(Debug, Clone)]
pub struct LargeConfig {
    /// Page sizes (rows per search), comma-separated.
    pub rows: Vec<u64>,
    /// Gzip settings to compare: both, on or off.
    pub gzip: crate::args::GzipChoice,
    /// Emulated round-trip time, ms.
    pub rtt: f64,
    /// Jitter in ms (uniform in [-J, +J] on each one-way delay).
    pub jitter: f64,
    /// Bandwidth cap per direction (e.g. 100mbit, 1gbit), or `none`.
    pub bandwidth: String,
    /// TLS at the proxy (1.2 or 1.3); plain http without it.
    pub tls_version: Option<TlsVersion>,
    /// Measured requests per cell (page size x gzip).
    pub requests: usize,
    /// Warm-up requests per cell (excluded from figures, counted in the byte accounting).
    pub warmup: usize,
    /// Documents in the corpus (at least the largest page).
    pub docs: usize,
    /// Approximate JSON size of one document, bytes.
    pub doc_bytes: usize,
    /// Transport (the seed's client pools connections).
    pub transport: TransportKind,
    /// Collection or core.
    pub collection: String,
    /// Seed of the corpus and of the page offsets.
    pub seed: u64,
    /// Do not capture packets (no byte cross-check).
    pub no_pcap: bool,
    /// No progress bars.
    pub quiet: bool,
    /// Namespace prefix (`PREFIX-app`, `PREFIX-solr`).
    pub wan_prefix: String,
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(|t| Duration::new(t.tv_sec().max(0) as u64, t.tv_nsec().max(0) as u32))
        .unwrap_or_default()
}

/// What the measuring thread hands back.
struct Measured {
    records: Vec<LargeRecord>,
    connections: u64,
    pcap: Option<solr_watch::libpcap::witness::PcapCount>,
}

struct Plan {
    url: String,
    collection: String,
    ca: Option<PathBuf>,
    transport: TransportKind,
    cells: Vec<(u64, bool)>,
    requests: usize,
    warmup: usize,
    docs: u64,
    tag: String,
    seed: u64,
    pcap: Option<(String, u16)>,
    quiet: bool,
}

/// Runs in the app namespace on a current-thread runtime (so the thread CPU clock is the
/// client's whole CPU cost).
async fn measure(p: Plan) -> Result<Measured> {
    let mut tls = TlsOptions::new();
    if let Some(ca) = &p.ca {
        tls = tls.add_ca_pem_file(ca)?;
    }
    let mut clients = Vec::new();
    for g in [false, true] {
        clients.push(
            solr_harness::auth::apply(SolrClient::builder(&p.url))?
                .collection(&p.collection)
                .transport(p.transport)
                .gzip(g)
                .tls(tls.clone())
                .build()?,
        );
    }
    let capture = match &p.pcap {
        Some((dev, port)) => Some(solr_watch::libpcap::witness::PcapWitness::start(
            dev, *port, None,
        )?),
        None => None,
    };
    let steps = p.warmup + p.requests;
    let pb = if p.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        let pb = indicatif::ProgressBar::new((steps * p.cells.len()) as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{msg:>20} [{bar:30}] {pos}/{len} {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        pb.set_message("large responses");
        pb
    };
    let mut rng = StdRng::seed_from_u64(p.seed ^ 0x0FF5E7);
    let mut records = Vec::with_capacity(steps * p.cells.len());
    for step in 0..steps {
        // One offset per page size and step, shared by gzip on and off.
        let mut by_rows: Vec<(u64, u64)> = Vec::new();
        for (rows, _) in &p.cells {
            if !by_rows.iter().any(|(r, _)| r == rows) {
                by_rows.push((*rows, rng.random_range(0..=p.docs.saturating_sub(*rows))));
            }
        }
        let starts: Vec<u64> = p
            .cells
            .iter()
            .map(|(rows, _)| {
                by_rows
                    .iter()
                    .find(|(r, _)| r == rows)
                    .map(|(_, s)| *s)
                    .unwrap_or(0)
            })
            .collect();
        for k in 0..p.cells.len() {
            let c = (k + step) % p.cells.len();
            let (rows, gzip) = p.cells[c];
            let start = starts[c];
            let q = Select::new(format!("set_s:{}", p.tag))
                .rows(rows)
                .start(start);
            let client = &clients[usize::from(gzip)];
            let cpu0 = thread_cpu();
            let r = client.select(&q).await;
            let cpu_ms = (thread_cpu().saturating_sub(cpu0)).as_secs_f64() * 1000.0;
            let (timing, docs, error) = match r {
                Ok(r) => (Some(r.timing.clone()), r.docs().len() as u64, None),
                Err(e) => (None, 0, Some(e.to_string())),
            };
            records.push(LargeRecord {
                rows,
                gzip,
                step,
                warmup: step < p.warmup,
                start,
                docs,
                cpu_ms,
                timing,
                error,
            });
            pb.inc(1);
        }
    }
    pb.finish_and_clear();
    // Stop the capture before the clients close their connections.
    let pcap = match capture {
        Some(c) => Some(c.stop()?),
        None => None,
    };
    let connections = clients
        .iter()
        .map(|c| c.transport().stats().connections_opened)
        .sum();
    Ok(Measured {
        records,
        connections,
        pcap,
    })
}

fn digits(n: u32) -> u64 {
    n.to_string().len() as u64
}

/// Builds the cells, comparisons and verdict from the raw records.
pub fn summarize(records: &[LargeRecord], rows: &[u64], gzip: &[bool]) -> LargeSummary {
    let mut cells = Vec::new();
    for &r in rows {
        for &g in gzip {
            let recs: Vec<&LargeRecord> = records
                .iter()
                .filter(|x| x.rows == r && x.gzip == g && !x.warmup)
                .collect();
            let ok: Vec<(&LargeRecord, &Timing)> = recs
                .iter()
                .filter_map(|x| x.timing.as_ref().map(|t| (*x, t)))
                .collect();
            let n = ok.len().max(1) as f64;
            let mean = |f: &dyn Fn(&Timing) -> f64| ok.iter().map(|(_, t)| f(t)).sum::<f64>() / n;
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            let curve = bench_report::stats::curve(ok.iter().map(|(_, t)| t.total()));
            let wall = percentiles(ok.iter().map(|(_, t)| t.total()));
            let cpu: Vec<f64> = ok.iter().map(|(x, _)| x.cpu_ms).collect();
            cells.push(LargeCell {
                rows: r,
                gzip: g,
                n: ok.len() as u64,
                errors: recs.iter().filter(|x| x.error.is_some()).count() as u64,
                docs_exact: !ok.is_empty() && ok.iter().all(|(x, _)| x.docs == r),
                wire_bytes_mean: mean(&|t| t.bytes_in as f64),
                decoded_bytes_mean: mean(&|t| t.decoded_bytes as f64),
                p50_ms: wall.p50_ms,
                p95_ms: curve
                    .iter()
                    .find(|(p, _)| (*p - 95.0).abs() < 1e-9)
                    .map(|(_, v)| *v),
                mean_ms: wall.mean_ms,
                qtime_p50_ms: percentiles(
                    ok.iter()
                        .filter_map(|(_, t)| t.qtime_ms)
                        .map(|q| Duration::from_millis(u64::from(q))),
                )
                .p50_ms,
                qtime_missing: ok.iter().filter(|(_, t)| t.qtime_ms.is_none()).count() as u64,
                transfer_mean_ms: mean(&|t| ms(t.transfer)),
                decompress_mean_ms: mean(&|t| ms(t.decompress.unwrap_or_default())),
                parse_mean_ms: mean(&|t| ms(t.parse.unwrap_or_default())),
                cpu_mean_ms: cpu.iter().sum::<f64>() / n,
                cpu_p50_ms: bench_report::stats::median(cpu.iter().copied()).unwrap_or(0.0),
            });
        }
    }
    let mut comparisons = Vec::new();
    for &r in rows {
        let off = cells.iter().find(|c| c.rows == r && !c.gzip);
        let on = cells.iter().find(|c| c.rows == r && c.gzip);
        let (Some(off), Some(on)) = (off, on) else {
            continue;
        };
        let red = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if a > 0.0 => Some((1.0 - b / a) * 100.0),
            _ => None,
        };
        // Same step, same page: identical bodies except the digits of QTime.
        let body = |g: bool, step: usize| {
            records
                .iter()
                .find(|x| x.rows == r && x.gzip == g && x.step == step)
                .and_then(|x| x.timing.as_ref())
                .map(|t| t.decoded_bytes - t.qtime_ms.map_or(0, digits))
        };
        let steps = records.iter().map(|x| x.step + 1).max().unwrap_or(0);
        let decoded_identical = (0..steps).all(|s| body(false, s) == body(true, s));
        comparisons.push(LargeComparison {
            rows: r,
            wire_reduction_pct: (1.0 - on.wire_bytes_mean / off.wire_bytes_mean.max(1.0)) * 100.0,
            p50_reduction_pct: red(off.p50_ms, on.p50_ms),
            p95_reduction_pct: red(off.p95_ms, on.p95_ms),
            cpu_delta_ms: on.cpu_mean_ms - off.cpu_mean_ms,
            decoded_identical,
        });
    }
    let mut pays = None;
    for c in comparisons.iter().rev() {
        if c.p50_reduction_pct.is_some_and(|p| p > 0.0) {
            pays = Some(c.rows);
        } else {
            break;
        }
    }
    LargeSummary {
        cells,
        comparisons,
        gzip_pays_from_rows: pays,
    }
}

pub mod cli;
mod corpus;
mod model;
mod render;

pub use corpus::*;
pub use model::*;
pub use render::*;

/// Runs the scenario against `url` (a loopback Solr).
pub async fn scenario(a: &LargeConfig, url: &str) -> Result<(LargeReport, Vec<LargeRecord>)> {
    let t0 = Instant::now();
    let gzip = a.gzip.settings();
    let rows = checked_rows(a)?;
    let bandwidth = match a.bandwidth.as_str() {
        "none" | "0" => None,
        b => Some(wan_emu::parse_rate(b)?),
    };
    let upstream = upstream_of(url)?;
    let tag = corpus_tag(a.seed, a.doc_bytes, a.docs);
    ensure_corpus(a, url, &tag).await?;
    let link = wan_emu::LinkParams {
        rtt: Duration::from_secs_f64(a.rtt / 1000.0),
        jitter: Duration::from_secs_f64(a.jitter / 1000.0),
        bandwidth_bps: bandwidth,
    };
    let wan = Wan::start(WanConfig {
        prefix: a.wan_prefix.clone(),
        link,
        seed: a.seed,
        upstream,
        tls: a.tls_version.map(termination),
    })?;
    eprintln!("wan: calibrating...");
    let calibration = wan.calibrate(21)?;
    let head = header(&wan, &link, &calibration);
    eprintln!("{head}");
    let plan = plan(a, &wan, url, &rows, &gzip, tag)?;
    let measured = measure_through(&wan, plan).await?;
    let (_, down) = wan.link_stats();
    let link_name = link_name(a, bandwidth);
    wan.stop()?;
    let summary = summarize(&measured.records, &rows, &gzip);
    let bytes = byte_account(&measured);
    let warnings = warnings(&bytes, &down, &summary);
    let verdict = verdict(&summary, &link_name);
    let report = LargeReport {
        schema_version: 1,
        upstream: url.to_string(),
        settings: json!({
            "rows": rows, "gzip": a.gzip.as_str(), "rtt_ms": a.rtt, "jitter_ms": a.jitter,
            "bandwidth_bps": bandwidth, "tls_version": a.tls_version.map(|v| v.to_string()),
            "requests": a.requests, "warmup": a.warmup, "docs": a.docs,
            "doc_bytes": a.doc_bytes, "transport": a.transport.as_str(), "seed": a.seed,
            "link": link_name, "wan_header": head, "calibration": calibration,
            "delay_line_to_client": { "packets": down.packets, "bytes": down.bytes, "dropped": down.dropped },
        }),
        cells: summary.cells,
        comparisons: summary.comparisons,
        bytes,
        gzip_pays_from_rows: summary.gzip_pays_from_rows,
        warnings,
        duration_s: t0.elapsed().as_secs_f64(),
        verdict,
    };
    Ok((report, measured.records))
}

/// The page sizes, sorted and deduplicated, after checking the options that bound them
/// (`--rows`, `--docs`, `--requests`, `--rtt`, `--jitter`).
fn checked_rows(a: &LargeConfig) -> Result<Vec<u64>> {
    let mut rows = a.rows.clone();
    rows.sort_unstable();
    rows.dedup();
    if rows.is_empty() || rows[0] == 0 {
        bail!("--rows needs page sizes of at least 1");
    }
    if rows.last().copied().unwrap_or(0) > a.docs as u64 {
        bail!(
            "--docs {} is smaller than the largest page (--rows {})",
            a.docs,
            rows.last().copied().unwrap_or(0)
        );
    }
    if a.requests == 0 {
        bail!("--requests must be at least 1");
    }
    let in_range = |v: f64| v.is_finite() && (0.0..=10_000.0).contains(&v);
    if !(in_range(a.rtt) && in_range(a.jitter)) {
        bail!("--rtt and --jitter must be between 0 and 10000 ms");
    }
    Ok(rows)
}

/// What the measuring thread runs: every (rows, gzip) cell through the WAN's URL.
fn plan(
    a: &LargeConfig,
    wan: &Wan,
    url: &str,
    rows: &[u64],
    gzip: &[bool],
    tag: String,
) -> Result<Plan> {
    let path = url::Url::parse(url)?.path().to_string();
    let cells: Vec<(u64, bool)> = rows
        .iter()
        .flat_map(|r| gzip.iter().map(move |g| (*r, *g)))
        .collect();
    Ok(Plan {
        url: wan.url(&path),
        collection: a.collection.clone(),
        ca: a.tls_version.map(|_| tls_dir().join("ca.pem")),
        transport: a.transport,
        cells,
        requests: a.requests,
        warmup: a.warmup,
        docs: a.docs as u64,
        tag,
        seed: a.seed,
        pcap: (!a.no_pcap).then(|| (wan.app_device().to_string(), wan.proxy_addr().port())),
        quiet: a.quiet,
    })
}

/// Runs `plan` on a thread inside the WAN's application namespace; an interrupt removes the
/// namespaces and fails.
async fn measure_through(wan: &Wan, plan: Plan) -> Result<Measured> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let app = wan.app();
    std::thread::spawn(move || {
        let r = app.run(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("measuring runtime")?;
            rt.block_on(measure(plan))
        });
        let _ = tx.send(r);
    });
    tokio::select! {
        r = rx => r.context("the measuring thread ended without a result")?,
        s = interrupted() => {
            let name = s?;
            bail!("interrupted by {name}: WAN namespaces removed");
        }
    }
}

/// The link as the report names it: RTT, bandwidth cap, TLS version.
fn link_name(a: &LargeConfig, bandwidth: Option<u64>) -> String {
    format!(
        "RTT {} ms, {}{}",
        a.rtt,
        bandwidth
            .map(|b| format!("{:.0} Mbit/s", b as f64 / 1e6))
            .unwrap_or_else(|| "no bandwidth cap".into()),
        a.tls_version
            .map(|v| format!(", TLS {v}"))
            .unwrap_or_default()
    )
}

/// The bytes the transport read beside what the capture saw, connections and SYNs.
fn byte_account(measured: &Measured) -> ByteAccount {
    let client_bytes_in: u64 = measured
        .records
        .iter()
        .filter_map(|x| x.timing.as_ref())
        .map(|t| t.bytes_in)
        .sum();
    ByteAccount {
        client_bytes_in,
        pcap_payload_in: measured.pcap.as_ref().map(|p| p.payload_from_server_unique),
        pcap_payload_in_with_retransmits: measured.pcap.as_ref().map(|p| p.payload_from_server),
        pcap_dropped: measured.pcap.as_ref().and_then(|p| p.drops()),
        connections: measured.connections,
        pcap_syns: measured.pcap.as_ref().map(|p| p.syns),
    }
}

/// Byte counts that disagree, packets the delay line dropped, failed requests.
fn warnings(bytes: &ByteAccount, down: &wan_emu::DirStats, summary: &LargeSummary) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(p) = bytes.pcap_payload_in {
        if p != bytes.client_bytes_in {
            warnings.push(format!(
                "byte accounting: the capture saw {p} payload bytes from the server, the transport read {}",
                bytes.client_bytes_in
            ));
        }
    }
    if down.dropped > 0 {
        warnings.push(format!(
            "the delay line dropped {} of {} packets towards the client (drop-tail buffer of one bandwidth-delay product: TCP retransmitted them)",
            down.dropped, down.packets
        ));
    }
    let errors: u64 = summary.cells.iter().map(|c| c.errors).sum();
    if errors > 0 {
        warnings.push(format!("{errors} requests failed"));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(rows: u64, gzip: bool, step: usize, ms: u64, bytes: u64, decoded: u64) -> LargeRecord {
        LargeRecord {
            rows,
            gzip,
            step,
            warmup: false,
            start: 0,
            docs: rows,
            cpu_ms: if gzip { 2.0 } else { 1.0 },
            timing: Some({
                let mut t = Timing::default();
                t.server_wait = Duration::from_millis(ms);
                t.bytes_in = bytes;
                t.decoded_bytes = decoded;
                t.qtime_ms = Some(if step.is_multiple_of(2) { 3 } else { 12 });
                t
            }),
            error: None,
        }
    }

    #[test]
    fn reductions_and_where_gzip_pays() {
        let mut recs = Vec::new();
        for step in 0..4 {
            // QTime differs between the two settings at odd steps: 1 vs 2 digits.
            let d = if step % 2 == 1 { 1 } else { 0 };
            recs.push(rec(10, false, step, 20, 5_000, 4_800));
            recs.push(rec(10, true, step, 22, 1_500, 4_800));
            recs.push(rec(1000, false, step, 200, 2_000_000, 1_990_000 + d));
            recs.push(rec(1000, true, step, 80, 500_000, 1_990_000 + d));
        }
        let s = summarize(&recs, &[10, 1000], &[false, true]);
        assert_eq!(s.cells.len(), 4);
        let big = s.comparisons.iter().find(|c| c.rows == 1000).unwrap();
        assert!((big.wire_reduction_pct - 75.0).abs() < 1e-9);
        assert!((big.p50_reduction_pct.unwrap() - 60.0).abs() < 0.5);
        assert!(big.decoded_identical);
        assert!((big.cpu_delta_ms - 1.0).abs() < 1e-9);
        assert_eq!(s.gzip_pays_from_rows, Some(1000));
        let v = verdict(&s, "RTT 20 ms, 100 Mbit/s");
        assert!(v.contains("gzip starts to pay at rows=1000"), "{v}");
        assert!(v.contains("met"), "{v}");
        assert!(s.cells.iter().all(|c| c.docs_exact));
    }

    #[test]
    fn zipf_documents_have_the_asked_size() {
        let mut g = LargeDocs::new(1, 2048);
        let d = g.doc("t", 0);
        let n = serde_json::to_vec(&d).unwrap().len();
        assert!((1800..2400).contains(&n), "{n}");
        let mut h = LargeDocs::new(1, 2048);
        assert_eq!(d, h.doc("t", 0), "seeded");
    }
}
