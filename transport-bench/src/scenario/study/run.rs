//! The study's measured runs: every (workload, repetition, transport, gzip, response format)
//! in rotated order, each with its witnesses and raw records; then the per-transport summaries
//! and the report.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use solr_client::transport::TransportStats;
use solr_client::{ResponseFormat, SolrClient, TlsOptions, TransportKind};

use super::witnesses::expected_connections;
use super::{
    all_failed, formats, index_formats, operations, pcap_start, progress, proxy, rep_median,
    run_ops, self_test_connects, summarize, tls, verdict, warnings, IndexSummary, Op, Record,
    StudyConfig, StudyReport, TransportSummary, Witnesses,
};
use crate::engine::load::{self, Load};
use crate::engine::witness::KernelTcp;
use solr_watch::libpcap::witness::PcapCount;

/// A (workload, run name) pair: what the per-transport figures are kept by.
type Key = (String, String);
/// A transport, with or without gzip, asking for one response format.
type Combo = (TransportKind, bool, ResponseFormat);
/// A workload: its name, its number of operations and its share of adds.
type Workload = (&'static str, usize, f64);

/// What the runs gathered so far.
#[derive(Default)]
struct Tally {
    records: Vec<Record>,
    witnesses: HashMap<Key, Witnesses>,
    rep_p50: HashMap<Key, Vec<f64>>,
    measured_time: HashMap<Key, Duration>,
    /// Repetitions left out of the noise estimate, said so.
    left_out: Vec<String>,
}

/// One run: a workload's repetition through one combination.
struct RunSpec<'a> {
    workload: Workload,
    rep: usize,
    combo: Combo,
    response_formats: &'a [ResponseFormat],
    port: u16,
    isolated: bool,
}

/// Runs the whole study and returns the report plus every raw record.
pub async fn run(cfg: &StudyConfig) -> Result<(StudyReport, Vec<Record>)> {
    let t_start = Instant::now();
    // The port the client's connections go to, which the pcap witness watches: the proxy's
    // when the run goes through one (every connection then opens to the proxy).
    let dialed = cfg.proxy.as_deref().unwrap_or(&cfg.url);
    let port = url::Url::parse(dialed)?
        .port_or_known_default()
        .context("the Solr (or proxy) URL has no port")?;
    let indexing = index_formats(cfg).await?;
    let response_formats = formats::normalized(&cfg.response_formats);
    let combos = combos(cfg, &response_formats);
    let workloads = workloads(cfg);
    let isolated = wan_emu::owned::thread_is_isolated();
    let mut tally = Tally::default();
    for &workload in &workloads {
        for rep in 0..cfg.reps.max(1) {
            for k in 0..combos.len() {
                // rotate across repetitions
                let spec = RunSpec {
                    workload,
                    rep,
                    combo: combos[(k + rep) % combos.len()],
                    response_formats: &response_formats,
                    port,
                    isolated,
                };
                run_one(cfg, &spec, &mut tally).await?;
            }
        }
    }
    let transports = transports(cfg, &workloads, &combos, &response_formats, &tally)?;
    if let Some(reason) = all_failed(&tally.records) {
        anyhow::bail!(reason);
    }
    let left_out = std::mem::take(&mut tally.left_out);
    let mut report = report(
        cfg,
        indexing,
        transports,
        &response_formats,
        left_out,
        &tally,
    );
    report.duration_s = t_start.elapsed().as_secs_f64();
    Ok((report, tally.records))
}

/// Every (transport, gzip, response format) combination.
fn combos(cfg: &StudyConfig, response_formats: &[ResponseFormat]) -> Vec<Combo> {
    cfg.transports
        .iter()
        .flat_map(|t| cfg.gzip.iter().map(move |g| (*t, *g)))
        .flat_map(|(t, g)| response_formats.iter().map(move |f| (t, g, *f)))
        .collect()
}

/// The workloads with operations: searches, then mixed reads and writes.
fn workloads(cfg: &StudyConfig) -> Vec<Workload> {
    [
        ("search", cfg.searches, 0.0),
        ("mixed", cfg.mixed, cfg.write_ratio),
    ]
    .into_iter()
    .filter(|(_, n, _)| *n > 0)
    .collect()
}

/// One run: warm-up, then the measured operations, with the kernel, pcap and connector
/// witnesses around them; its figures and records go into `tally`.
async fn run_one(cfg: &StudyConfig, spec: &RunSpec<'_>, tally: &mut Tally) -> Result<()> {
    let ((scenario, n, write_ratio), rep) = (spec.workload, spec.rep);
    let (kind, gzip, format) = spec.combo;
    let pooled = solr_client::transport::PooledConfig::default();
    let transport = kind.build_via(&tls(cfg)?, gzip, pooled, proxy(cfg)?.as_ref())?;
    let name = formats::run_name(&transport.name(), format, spec.response_formats);
    let key = (scenario.to_string(), name.clone());
    let client = solr_harness::auth::apply(SolrClient::builder(&cfg.url))?
        .collection(&cfg.collection)
        .custom_transport(transport.clone())
        .response_format(format)
        .build()?;
    let pb = progress(
        cfg.quiet,
        (cfg.warmup + n) as u64,
        format!("{scenario} {name} rep {}", rep + 1),
    );
    let capture = pcap_start(cfg, spec.port, &name, scenario, rep)?;
    let k0 = KernelTcp::read()?;
    let warm_ops = operations(
        cfg.warmup,
        cfg.seed ^ 0xABCD,
        cfg.rows,
        0.0,
        "warm",
        cfg.query.as_deref(),
    );
    let warm = run_ops(
        &client,
        warm_ops,
        Load::Closed { concurrency: 1 },
        cfg.seed,
        &pb,
    )
    .await;
    self_test_connects(&cfg.url, cfg.self_test_connects).await?;
    let tag = format!("{scenario}-{}-r{rep}", name.replace('+', "-"));
    let seed = cfg.seed.wrapping_add(rep as u64);
    let ops = operations(n, seed, cfg.rows, write_ratio, &tag, cfg.query.as_deref());
    let t0 = Instant::now();
    let measured = run_ops(&client, ops, cfg.load, seed, &pb).await;
    *tally.measured_time.entry(key.clone()).or_default() += t0.elapsed();
    let kd = KernelTcp::read()?.since(&k0);
    let pcap = match capture {
        Some(c) => Some(c.stop()?),
        None => None,
    };
    pb.finish_and_clear();
    let first = !tally.witnesses.contains_key(&key);
    let w = tally.witnesses.entry(key.clone()).or_default();
    let stats = transport.stats();
    let expected = expected_connections(kind, stats.requests, cfg.load);
    testify(w, first, &stats, &kd, pcap, spec.isolated, expected);
    let ok: Vec<Duration> = measured
        .iter()
        .filter_map(|(_, o, _)| o.result.as_ref().ok())
        .map(|t| t.total())
        .collect();
    // A repetition without a successful request has no median: it is left out
    // of the noise estimate (a 0 there widened the spread), and said so.
    let medians = tally.rep_p50.entry(key).or_default();
    rep_median(medians, &mut tally.left_out, ok, scenario, &name, rep);
    for (warmup, list) in [(true, warm), (false, measured)] {
        for outcome in list {
            tally
                .records
                .push(record(scenario, &name, rep, warmup, outcome));
        }
    }
    Ok(())
}

/// Adds one run's testimony to its transport's witnesses (the first run sets them).
fn testify(
    w: &mut Witnesses,
    first: bool,
    stats: &TransportStats,
    kd: &KernelTcp,
    pcap: Option<PcapCount>,
    isolated: bool,
    expected: u64,
) {
    // A sum with an unknown term is unknown.
    let sum = |acc: Option<u64>, v: Option<u64>| match (first, acc, v) {
        (true, _, v) => v,
        (false, Some(a), Some(v)) => Some(a + v),
        _ => None,
    };
    w.requests += stats.requests;
    w.connector += stats.connections_opened;
    w.kernel_active_opens += kd.active_opens;
    w.kernel_isolated = isolated;
    w.kernel_syn_retrans = sum(w.kernel_syn_retrans, kd.syn_retrans);
    w.expected += expected;
    if let Some(p) = pcap {
        let add = |acc: &mut Option<u64>, v: u64| *acc = Some(acc.unwrap_or(0) + v);
        add(&mut w.pcap_syns, p.syns);
        add(&mut w.pcap_syn_retransmits, p.syn_retransmits);
        w.pcap_dropped = sum(w.pcap_dropped, p.drops());
        add(&mut w.pcap_bytes_out, p.wire_bytes_to_server);
        add(&mut w.pcap_bytes_in, p.wire_bytes_from_server);
    }
}

/// The raw record of one operation.
fn record(
    scenario: &str,
    name: &str,
    rep: usize,
    warmup: bool,
    (op, o, num_found): (Op, load::Outcome, Option<u64>),
) -> Record {
    let (timing, error) = match o.result {
        Ok(t) => (Some(t), None),
        Err(e) => (None, Some(e)),
    };
    Record {
        scenario: scenario.into(),
        op: match op {
            Op::Search(_) => "select".into(),
            Op::Add(_) => "add".into(),
        },
        transport: name.into(),
        rep,
        warmup,
        error,
        timing,
        latency_ms: o.latency_from_schedule.map(|d| d.as_secs_f64() * 1000.0),
        start_delay_ms: o.start_delay.map(|d| d.as_secs_f64() * 1000.0),
        num_found,
        seq: Some(o.index),
    }
}

/// One summary per (workload, combination), in the configured order.
fn transports(
    cfg: &StudyConfig,
    workloads: &[Workload],
    combos: &[Combo],
    response_formats: &[ResponseFormat],
    tally: &Tally,
) -> Result<Vec<TransportSummary>> {
    let mut transports = Vec::new();
    for &(scenario, _, _) in workloads {
        for (kind, gzip, format) in combos {
            let name = formats::run_name(
                &kind.build(&TlsOptions::new(), *gzip)?.name(),
                *format,
                response_formats,
            );
            let key = (scenario.to_string(), name.clone());
            let recs: Vec<&Record> = tally
                .records
                .iter()
                .filter(|r| r.scenario == scenario && r.transport == name && !r.warmup)
                .collect();
            let mut w = tally.witnesses.get(&key).cloned().unwrap_or_default();
            w.judge(*kind, cfg.load);
            let elapsed = tally.measured_time.get(&key).copied().unwrap_or_default();
            let rep_p50 = tally.rep_p50.get(&key).cloned().unwrap_or_default();
            transports.push(summarize(
                scenario, &name, *kind, &recs, w, rep_p50, elapsed,
            ));
        }
    }
    Ok(transports)
}

/// The report (its duration left at 0 for the caller): format summaries, warnings, verdict
/// and settings.
fn report(
    cfg: &StudyConfig,
    indexing: Vec<IndexSummary>,
    transports: Vec<TransportSummary>,
    response_formats: &[ResponseFormat],
    left_out: Vec<String>,
    tally: &Tally,
) -> StudyReport {
    let format_summaries = if formats::studied(response_formats) {
        formats::summaries(&tally.records, &transports, response_formats)
    } else {
        Vec::new()
    };
    let mut warnings = warnings(&transports, cfg);
    warnings.extend(left_out);
    warnings.extend(formats::warnings(&format_summaries));
    let mut verdict = verdict(&transports, &indexing);
    if let Some(part) = formats::verdict_part(&format_summaries) {
        verdict.push_str(&format!("; {part}"));
    }
    let mut settings = serde_json::json!({
        "collection": cfg.collection, "docs": cfg.docs, "batch": cfg.batch,
        "searches": cfg.searches, "mixed": cfg.mixed, "write_ratio": cfg.write_ratio,
        "warmup": cfg.warmup, "reps": cfg.reps, "rows": cfg.rows,
        "load": cfg.load.to_string(), "seed": cfg.seed,
        "pcap_interface": cfg.pcap_interface,
    });
    if let Some(p) = &cfg.proxy {
        // The password never reaches the report.
        settings["proxy"] = serde_json::json!(crate::args::masked_proxy_url(p));
    }
    if formats::studied(response_formats) {
        settings["response_formats"] = serde_json::json!(response_formats
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>());
    }
    StudyReport {
        schema_version: 1,
        url: cfg.url.clone(),
        settings,
        indexing,
        findings: super::judge::findings(&transports),
        transports,
        warnings,
        duration_s: 0.0,
        verdict,
        idle: None,
        formats: format_summaries,
    }
}
