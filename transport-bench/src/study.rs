//! `study`: the seed-003 transport study (digest S1 of `shared/SCENARIOS.md`) against one
//! Solr: indexing in each update format, then the same seeded searches through every
//! transport with and without gzip, with the connection-reuse witnesses beside each run.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use solr_client::{Commit, Select, SolrClient, Timing, TlsOptions, TransportKind, UpdateFormat};

use crate::stats::{percentiles, Percentiles};
use crate::witness::{KernelTcp, PcapWitness};
use crate::workload::Generator;

/// What to run.
#[derive(Debug, Clone)]
pub struct StudyConfig {
    /// Solr base URL (e.g. `http://127.0.0.1:8983/solr`).
    pub url: String,
    /// Collection or core.
    pub collection: String,
    /// CA file to trust for https.
    pub ca: Option<std::path::PathBuf>,
    /// Documents indexed per update format.
    pub docs: usize,
    /// Documents per update request.
    pub batch: usize,
    /// Measured searches per transport and repetition.
    pub searches: usize,
    /// Warm-up searches per transport and repetition (tagged, excluded from figures).
    pub warmup: usize,
    /// Repetitions (transport order rotates between them).
    pub reps: usize,
    /// Rows per search.
    pub rows: u64,
    /// Concurrent workers (closed loop).
    pub concurrency: usize,
    /// Workload seed.
    pub seed: u64,
    /// Transports to compare.
    pub transports: Vec<TransportKind>,
    /// Gzip settings to compare.
    pub gzip: Vec<bool>,
    /// Vector dimension of the collection's `vector` field (0: no vectors in documents).
    pub vector_dim: usize,
    /// Interface for the pcap witness (None: no capture).
    pub pcap_interface: Option<String>,
    /// Save each transport's capture as pcapng in this folder (first repetition).
    pub capture_dir: Option<std::path::PathBuf>,
    /// No progress bars.
    pub quiet: bool,
}

/// One measured request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// Transport name (e.g. `pooled+gzip`).
    pub transport: String,
    /// Repetition.
    pub rep: usize,
    /// Warm-up requests are kept in the raw data but excluded from figures.
    pub warmup: bool,
    /// Error text, when the request failed.
    pub error: Option<String>,
    /// The client's timing record.
    pub timing: Option<Timing>,
}

/// The three witnesses of one transport run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Witnesses {
    /// Requests sent (warm-up included).
    pub requests: u64,
    /// The transport's own connector count.
    pub connector: u64,
    /// Kernel `Tcp: ActiveOpens` delta.
    pub kernel_active_opens: u64,
    /// Kernel SYN retransmissions delta.
    pub kernel_syn_retrans: u64,
    /// pcap: SYN-only packets to the Solr port (None when no capture ran).
    pub pcap_syns: Option<u64>,
    /// pcap: retransmitted SYNs (counted apart).
    pub pcap_syn_retransmits: Option<u64>,
    /// pcap: packets the capture dropped (kernel + interface); must be 0 to trust it.
    pub pcap_dropped: Option<u64>,
    /// pcap: frame bytes client -> Solr.
    pub pcap_bytes_out: Option<u64>,
    /// pcap: frame bytes Solr -> client.
    pub pcap_bytes_in: Option<u64>,
    /// What the transport should have opened.
    pub expected: u64,
    /// All witnesses agree with each other.
    pub agree: bool,
}

/// Figures of one transport over all repetitions.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TransportSummary {
    /// Transport name.
    pub transport: String,
    /// Wall (client total) latency.
    pub wall: Percentiles,
    /// Solr QTime.
    pub qtime: Percentiles,
    /// Overhead = total - QTime.
    pub overhead: Percentiles,
    /// Per-repetition medians of wall time (noise estimate for `compare`).
    pub rep_p50_ms: Vec<f64>,
    /// Mean of each phase in ms: blocked, dns, connect, tls, write, server_wait, transfer,
    /// decompress, parse.
    pub phases_mean_ms: Vec<(String, f64)>,
    /// Mean wire bytes in per request.
    pub bytes_in_mean: f64,
    /// Mean decoded bytes per request.
    pub decoded_bytes_mean: f64,
    /// Failed requests.
    pub errors: u64,
    /// Share of requests on a reused connection (None where the transport cannot tell).
    pub reuse_ratio: Option<f64>,
    /// Witnesses, summed over repetitions.
    pub witnesses: Witnesses,
    /// Throughput in requests per second (measured part).
    pub throughput_rps: f64,
}

/// Indexing figures of one update format.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IndexSummary {
    /// Format.
    pub format: String,
    /// Documents acknowledged.
    pub docs: usize,
    /// Wall time including the final commit, seconds.
    pub seconds: f64,
    /// Documents per second.
    pub docs_per_sec: f64,
    /// Request body bytes.
    pub body_bytes: u64,
    /// Request body bytes if gzipped.
    pub body_bytes_gzip: u64,
    /// Median QTime of the update requests.
    pub qtime_p50_ms: Option<f64>,
}

/// The study's result: what `summary.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StudyReport {
    /// Schema version of this JSON.
    pub schema_version: u32,
    /// Solr URL studied.
    pub url: String,
    /// Settings.
    pub settings: serde_json::Value,
    /// Indexing per update format.
    pub indexing: Vec<IndexSummary>,
    /// Searches per transport.
    pub transports: Vec<TransportSummary>,
    /// Wall-clock duration of the whole study, seconds.
    pub duration_s: f64,
    /// The one-line verdict.
    pub verdict: String,
}

fn progress(quiet: bool, len: u64, msg: String) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg:>24} [{bar:30}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(msg);
    pb
}

fn tls(cfg: &StudyConfig) -> Result<TlsOptions> {
    let mut t = TlsOptions::new();
    if let Some(ca) = &cfg.ca {
        t = t.add_ca_pem_file(ca)?;
    }
    Ok(t)
}

/// Indexes `cfg.docs` documents in each update format through a pooled client.
async fn index_formats(cfg: &StudyConfig) -> Result<Vec<IndexSummary>> {
    let mut out = Vec::new();
    for format in UpdateFormat::ALL {
        let client = SolrClient::builder(&cfg.url)
            .collection(&cfg.collection)
            .tls(tls(cfg)?)
            .transport(TransportKind::Pooled)
            .update_format(format)
            .build()?;
        let mut gen = Generator::new(cfg.seed, cfg.vector_dim);
        let prefix = format!("study-{}-", format.as_str());
        let pb = progress(cfg.quiet, cfg.docs as u64, format!("index {format}"));
        let t0 = Instant::now();
        let (mut body, mut body_gz, mut qtimes, mut acked) = (0u64, 0u64, Vec::new(), 0usize);
        let mut i = 0;
        while i < cfg.docs {
            let n = cfg.batch.min(cfg.docs - i);
            let docs: Vec<_> = (i..i + n).map(|j| gen.doc(&prefix, j)).collect();
            let encoded = client.encode_add(&docs)?;
            body += encoded.len() as u64;
            body_gz += solr_client::transport::gzip_bytes(&encoded).len() as u64;
            let r = client
                .add(&docs)
                .await
                .with_context(|| format!("indexing {format} batch at {i}"))?;
            qtimes.push(Duration::from_millis(u64::from(r.header.qtime)));
            acked += r.docs_sent;
            i += n;
            pb.inc(n as u64);
        }
        client.commit(Commit::default()).await?;
        let seconds = t0.elapsed().as_secs_f64();
        pb.finish_and_clear();
        out.push(IndexSummary {
            format: format.as_str().into(),
            docs: acked,
            seconds,
            docs_per_sec: acked as f64 / seconds.max(1e-9),
            body_bytes: body,
            body_bytes_gzip: body_gz,
            qtime_p50_ms: percentiles(qtimes).p50_ms,
        });
    }
    Ok(out)
}

/// Runs `n` searches from the seeded generator through `client` with `concurrency` workers.
async fn run_searches(
    client: &SolrClient,
    cfg: &StudyConfig,
    n: usize,
    seed: u64,
    pb: &ProgressBar,
) -> Vec<std::result::Result<Timing, String>> {
    let mut gen = Generator::new(seed, 0);
    let queries: Vec<Select> = (0..n)
        .map(|_| {
            let (q, fq) = gen.query();
            let s = Select::new(q).rows(cfg.rows);
            match fq {
                Some(f) => s.fq(f),
                None => s,
            }
        })
        .collect();
    let queries = Arc::new(queries);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut handles = Vec::new();
    for _ in 0..cfg.concurrency.max(1) {
        let (client, queries, next, pb) =
            (client.clone(), queries.clone(), next.clone(), pb.clone());
        handles.push(tokio::spawn(async move {
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(q) = queries.get(i) else { break };
                let r = client
                    .select(q)
                    .await
                    .map(|r| r.timing)
                    .map_err(|e| e.to_string());
                out.push((i, r));
                pb.inc(1);
            }
            out
        }));
    }
    let mut all = Vec::new();
    for h in handles {
        if let Ok(v) = h.await {
            all.extend(v);
        }
    }
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// What a transport should open for `requests` requests with `concurrency` workers. For
/// `reqwest` this is the ideal; its pool may open a few more (see the e2e witness test), so
/// its verdict checks only that the witnesses agree.
fn expected_connections(kind: TransportKind, requests: u64, concurrency: usize) -> u64 {
    match kind {
        TransportKind::Fresh => requests,
        TransportKind::Http2 => 1,
        TransportKind::Pooled | TransportKind::Reqwest => concurrency.max(1) as u64,
    }
}

/// Runs the whole study and returns the report plus every raw record.
pub async fn run(cfg: &StudyConfig) -> Result<(StudyReport, Vec<Record>)> {
    let t_start = Instant::now();
    let port = url::Url::parse(&cfg.url)?
        .port_or_known_default()
        .context("the Solr URL has no port")?;
    let indexing = index_formats(cfg).await?;

    let combos: Vec<(TransportKind, bool)> = cfg
        .transports
        .iter()
        .flat_map(|t| cfg.gzip.iter().map(move |g| (*t, *g)))
        .collect();
    let mut records = Vec::new();
    let mut wit: Vec<Witnesses> = vec![Witnesses::default(); combos.len()];
    let mut rep_p50: Vec<Vec<f64>> = vec![Vec::new(); combos.len()];
    let mut measured_time: Vec<Duration> = vec![Duration::ZERO; combos.len()];
    for rep in 0..cfg.reps.max(1) {
        for k in 0..combos.len() {
            let idx = (k + rep) % combos.len(); // rotate the order across repetitions
            let (kind, gzip) = combos[idx];
            let transport = kind.build(&tls(cfg)?, gzip)?;
            let name = transport.name();
            let client = SolrClient::builder(&cfg.url)
                .collection(&cfg.collection)
                .custom_transport(transport.clone())
                .build()?;
            let pb = progress(
                cfg.quiet,
                (cfg.warmup + cfg.searches) as u64,
                format!("{name} rep {}", rep + 1),
            );
            let capture = match &cfg.pcap_interface {
                Some(iface) => {
                    let save = match (&cfg.capture_dir, rep) {
                        (Some(d), 0) => {
                            std::fs::create_dir_all(d)?;
                            Some(d.join(format!("{}.pcapng", name.replace('+', "-"))))
                        }
                        _ => None,
                    };
                    Some(PcapWitness::start(iface, port, save)?)
                }
                None => None,
            };
            let k0 = KernelTcp::read()?;
            let warm = run_searches(&client, cfg, cfg.warmup, cfg.seed ^ 0xABCD, &pb).await;
            let t0 = Instant::now();
            let measured = run_searches(
                &client,
                cfg,
                cfg.searches,
                cfg.seed.wrapping_add(rep as u64),
                &pb,
            )
            .await;
            measured_time[idx] += t0.elapsed();
            let k1 = KernelTcp::read()?;
            let pcap = match capture {
                Some(c) => Some(c.stop()?),
                None => None,
            };
            pb.finish_and_clear();
            let stats = transport.stats();
            let kd = k1.since(&k0);
            let w = &mut wit[idx];
            w.requests += stats.requests;
            w.connector += stats.connections_opened;
            w.kernel_active_opens += kd.active_opens;
            w.kernel_syn_retrans += kd.syn_retrans;
            w.expected += expected_connections(kind, stats.requests, cfg.concurrency);
            if let Some(p) = pcap {
                let add = |acc: &mut Option<u64>, v: u64| *acc = Some(acc.unwrap_or(0) + v);
                add(&mut w.pcap_syns, p.syns);
                add(&mut w.pcap_syn_retransmits, p.syn_retransmits);
                add(&mut w.pcap_dropped, p.dropped + p.if_dropped);
                add(&mut w.pcap_bytes_out, p.wire_bytes_to_server);
                add(&mut w.pcap_bytes_in, p.wire_bytes_from_server);
            }
            let ok: Vec<Duration> = measured
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .map(|t| t.total())
                .collect();
            rep_p50[idx].push(percentiles(ok).p50_ms.unwrap_or(0.0));
            for (warmup, list) in [(true, warm), (false, measured)] {
                for r in list {
                    let (timing, error) = match r {
                        Ok(t) => (Some(t), None),
                        Err(e) => (None, Some(e)),
                    };
                    records.push(Record {
                        transport: name.clone(),
                        rep,
                        warmup,
                        error,
                        timing,
                    });
                }
            }
        }
    }

    let mut transports = Vec::new();
    for (idx, (kind, gzip)) in combos.iter().enumerate() {
        let name = kind.build(&TlsOptions::new(), *gzip)?.name();
        let recs: Vec<&Record> = records
            .iter()
            .filter(|r| r.transport == name && !r.warmup)
            .collect();
        let timings: Vec<&Timing> = recs.iter().filter_map(|r| r.timing.as_ref()).collect();
        let n = timings.len().max(1) as f64;
        let mean = |f: &dyn Fn(&Timing) -> Duration| {
            timings
                .iter()
                .map(|t| f(t).as_secs_f64() * 1000.0)
                .sum::<f64>()
                / n
        };
        let phases_mean_ms = vec![
            ("blocked".to_string(), mean(&|t| t.blocked)),
            ("dns".to_string(), mean(&|t| t.dns.unwrap_or_default())),
            (
                "connect".to_string(),
                mean(&|t| t.connect.unwrap_or_default()),
            ),
            ("tls".to_string(), mean(&|t| t.tls.unwrap_or_default())),
            ("write".to_string(), mean(&|t| t.write)),
            ("server_wait".to_string(), mean(&|t| t.server_wait)),
            ("transfer".to_string(), mean(&|t| t.transfer)),
            (
                "decompress".to_string(),
                mean(&|t| t.decompress.unwrap_or_default()),
            ),
            ("parse".to_string(), mean(&|t| t.parse.unwrap_or_default())),
        ];
        let mut w = wit[idx].clone();
        w.agree = w.connector == w.kernel_active_opens
            && w.pcap_syns.is_none_or(|p| p == w.connector)
            && (w.connector == w.expected || *kind == TransportKind::Reqwest);
        transports.push(TransportSummary {
            transport: name,
            wall: percentiles(timings.iter().map(|t| t.total())),
            qtime: percentiles(
                timings
                    .iter()
                    .map(|t| Duration::from_millis(u64::from(t.qtime_ms.unwrap_or(0)))),
            ),
            overhead: percentiles(timings.iter().map(|t| t.overhead())),
            rep_p50_ms: rep_p50[idx].clone(),
            phases_mean_ms,
            bytes_in_mean: timings.iter().map(|t| t.bytes_in as f64).sum::<f64>() / n,
            decoded_bytes_mean: timings.iter().map(|t| t.decoded_bytes as f64).sum::<f64>() / n,
            errors: recs.iter().filter(|r| r.error.is_some()).count() as u64,
            reuse_ratio: (*kind != TransportKind::Reqwest)
                .then(|| timings.iter().filter(|t| t.reused).count() as f64 / n),
            witnesses: w,
            throughput_rps: timings.len() as f64 / measured_time[idx].as_secs_f64().max(1e-9),
        });
    }
    let verdict = verdict(&transports, &indexing);
    let report = StudyReport {
        schema_version: 1,
        url: cfg.url.clone(),
        settings: serde_json::json!({
            "collection": cfg.collection, "docs": cfg.docs, "batch": cfg.batch,
            "searches": cfg.searches, "warmup": cfg.warmup, "reps": cfg.reps, "rows": cfg.rows,
            "concurrency": cfg.concurrency, "seed": cfg.seed,
        }),
        indexing,
        transports,
        duration_s: t_start.elapsed().as_secs_f64(),
        verdict,
    };
    Ok((report, records))
}

/// The one-line verdict: the best transport against `fresh`, with the connection counts.
pub fn verdict(ts: &[TransportSummary], indexing: &[IndexSummary]) -> String {
    let p50 = |t: &TransportSummary| t.wall.p50_ms.unwrap_or(f64::NAN);
    let mut parts = Vec::new();
    if let Some(bad) = ts.iter().find(|t| !t.witnesses.agree) {
        parts.push(format!(
            "WITNESSES DISAGREE for {} (connector {}, kernel {}, expected {})",
            bad.transport,
            bad.witnesses.connector,
            bad.witnesses.kernel_active_opens,
            bad.witnesses.expected
        ));
    }
    let fresh = ts.iter().find(|t| t.transport == "fresh");
    let best = ts
        .iter()
        .filter(|t| t.wall.p50_ms.is_some())
        .min_by(|a, b| p50(a).total_cmp(&p50(b)));
    match (fresh, best) {
        (Some(f), Some(b)) if b.transport != f.transport => {
            let cut = (1.0 - p50(b) / p50(f)) * 100.0;
            parts.push(format!(
                "{} cut p50 by {:.0}% vs fresh ({:.2} -> {:.2} ms; QTime p50 {:.0} ms); fresh opened {} connections, {} opened {}",
                b.transport,
                cut,
                p50(f),
                p50(b),
                b.qtime.p50_ms.unwrap_or(0.0),
                f.witnesses.connector,
                b.transport,
                b.witnesses.connector
            ));
        }
        (_, Some(b)) => parts.push(format!("fastest: {} (p50 {:.2} ms)", b.transport, p50(b))),
        _ => parts.push("no successful searches".into()),
    }
    let json = indexing.iter().find(|i| i.format == "json");
    let xml = indexing.iter().find(|i| i.format == "xml");
    if let (Some(j), Some(x)) = (json, xml) {
        parts.push(format!(
            "XML updates {:+.0}% bytes vs JSON ({:+.0}% gzipped)",
            (x.body_bytes as f64 / j.body_bytes.max(1) as f64 - 1.0) * 100.0,
            (x.body_bytes_gzip as f64 / j.body_bytes_gzip.max(1) as f64 - 1.0) * 100.0
        ));
    }
    format!("verdict: {}", parts.join("; "))
}
