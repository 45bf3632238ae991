//! `study`: the seed-003 transport study (digest S1 of `shared/SCENARIOS.md`) against one
//! Solr. Three workloads, as the seed's author timed them: reindexing (in each update
//! format), searches, and mixed read/write operations; the searches and mixed operations run
//! through every transport with and without gzip, repetitions in rotated order, with the
//! connection-reuse witnesses beside each run.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use solr_client::{
    Commit, ResponseFormat, Select, SolrClient, TlsOptions, TransportKind, UpdateFormat,
};

pub mod audit;
pub mod cli;
pub mod compare;
pub mod compare_command;
pub mod formats;
pub mod judge;
pub mod response_format;
pub mod sweep;
pub mod wan;
pub mod witnesses;
pub use self::witnesses::Witnesses;
use crate::engine::load::{self, Load};
use crate::engine::workload::Generator;
use bench_report::stats::percentiles;
use solr_watch::libpcap::witness::PcapWitness;

pub mod idle;
mod model;
mod render;
mod run;
mod saved;
mod summary;

pub use model::*;
pub use render::{print_text, save, save_report};
pub use run::run;
pub use saved::{load_summary, rerender};
pub use summary::*;

/// What to run.
#[derive(Debug, Clone)]
pub struct StudyConfig {
    /// Solr base URL (e.g. `http://127.0.0.1:8983/solr`).
    pub url: String,
    /// Collection or core.
    pub collection: String,
    /// CA file to trust for https.
    pub ca: Option<std::path::PathBuf>,
    /// HTTP proxy every measured transport goes through (`--proxy`; None: direct).
    pub proxy: Option<String>,
    /// Documents reindexed per update format (0: skip the indexing workload).
    pub docs: usize,
    /// Documents per update request.
    pub batch: usize,
    /// Measured searches per transport and repetition (0: skip).
    pub searches: usize,
    /// Measured mixed operations per transport and repetition (0: skip).
    pub mixed: usize,
    /// Share of writes in the mixed workload (0..1).
    pub write_ratio: f64,
    /// Warm-up requests per transport and repetition (tagged, excluded from figures).
    pub warmup: usize,
    /// Repetitions (transport order rotates between them).
    pub reps: usize,
    /// Rows per search.
    pub rows: u64,
    /// A fixed query for every search instead of the seeded generator's (e.g. `*:*` for a
    /// Solr whose schema is not this project's).
    pub query: Option<String>,
    /// How requests are issued.
    pub load: Load,
    /// Workload seed.
    pub seed: u64,
    /// Transports to compare.
    pub transports: Vec<TransportKind>,
    /// Gzip settings to compare.
    pub gzip: Vec<bool>,
    /// Response formats (`wt`) of the searches: every format runs the same workload
    /// ([`formats`]). JSON alone (or empty) leaves the study as it was.
    pub response_formats: Vec<ResponseFormat>,
    /// Vector dimension of the collection's `vector` field (0: no vectors in documents).
    pub vector_dim: usize,
    /// Interface for the pcap witness (None: no capture).
    pub pcap_interface: Option<String>,
    /// Save each transport's capture as pcapng in this folder (first repetition).
    pub capture_dir: Option<std::path::PathBuf>,
    /// No progress bars.
    pub quiet: bool,
    /// Self-test of the witnesses: TCP connections to Solr opened (and closed) beside the
    /// transport in each measured run, from the client's own thread and namespace. The kernel
    /// and pcap witnesses count them, the connector does not, so a report with any must say
    /// WITNESSES DISAGREE. 0 in every real measurement (`--witness-self-test`, hidden).
    pub self_test_connects: u32,
}

fn progress(quiet: bool, len: u64, msg: String) -> ProgressBar {
    solr_harness::seedkit::progress(quiet, len, msg)
}

fn tls(cfg: &StudyConfig) -> Result<TlsOptions> {
    let mut t = TlsOptions::new();
    if let Some(ca) = &cfg.ca {
        t = t.add_ca_pem_file(ca)?;
    }
    Ok(t)
}

/// The `--proxy` of the run, if any.
fn proxy(cfg: &StudyConfig) -> Result<Option<solr_client::Proxy>> {
    Ok(cfg
        .proxy
        .as_deref()
        .map(solr_client::Proxy::new)
        .transpose()?)
}

/// Reindexes `cfg.docs` documents in each update format through a pooled client.
async fn index_formats(cfg: &StudyConfig) -> Result<Vec<IndexSummary>> {
    let mut out = Vec::new();
    if cfg.docs == 0 {
        return Ok(out);
    }
    for format in UpdateFormat::ALL {
        let mut builder = solr_harness::auth::apply(SolrClient::builder(&cfg.url))?
            .collection(&cfg.collection)
            .tls(tls(cfg)?)
            .transport(TransportKind::Pooled)
            .update_format(format);
        if let Some(p) = proxy(cfg)? {
            builder = builder.proxy(p);
        }
        let client = builder.build()?;
        let mut gen = Generator::new(cfg.seed, cfg.vector_dim);
        let prefix = format!("study-{}-", format.as_str());
        let pb = progress(cfg.quiet, cfg.docs as u64, format!("reindex ({format})"));
        let t0 = Instant::now();
        let (mut body, mut body_gz, mut qtimes, mut acked) = (0u64, 0u64, Vec::new(), 0usize);
        let mut qtime_missing = 0u64;
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
            match r.header.qtime {
                Some(q) => qtimes.push(Duration::from_millis(u64::from(q))),
                None => qtime_missing += 1,
            }
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
            qtime_missing,
        });
    }
    Ok(out)
}

/// One operation of a workload.
#[derive(Debug, Clone)]
enum Op {
    Search(Select),
    Add(serde_json::Value),
}

/// The seeded operations of a workload: `searches` only, or a mix with `write_ratio` adds.
fn operations(
    n: usize,
    seed: u64,
    rows: u64,
    write_ratio: f64,
    tag: &str,
    fixed: Option<&str>,
) -> Vec<Op> {
    use rand::{Rng, SeedableRng};
    let mut gen = Generator::new(seed, 0);
    let mut coin = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5EED);
    (0..n)
        .map(|i| {
            if write_ratio > 0.0 && coin.random_bool(write_ratio.clamp(0.0, 1.0)) {
                Op::Add(gen.doc(&format!("{tag}-"), i))
            } else {
                let (q, fq) = gen.query();
                if let Some(q) = fixed {
                    return Op::Search(Select::new(q).rows(rows));
                }
                let s = Select::new(q).rows(rows);
                Op::Search(match fq {
                    Some(f) => s.fq(f),
                    None => s,
                })
            }
        })
        .collect()
}

/// Runs `ops` under `load`: each operation with its outcome and, for a search, the
/// `numFound` of its answer.
async fn run_ops(
    client: &SolrClient,
    ops: Vec<Op>,
    load: Load,
    seed: u64,
    pb: &ProgressBar,
) -> Vec<(Op, load::Outcome, Option<u64>)> {
    let ops = Arc::new(ops);
    let found: Arc<std::sync::Mutex<Vec<Option<u64>>>> =
        Arc::new(std::sync::Mutex::new(vec![None; ops.len()]));
    let (c, o, f) = (client.clone(), ops.clone(), found.clone());
    let pb2 = pb.clone();
    let outcomes = load::run(
        load,
        ops.len(),
        seed,
        move |i| {
            let (c, o, f) = (c.clone(), o.clone(), f.clone());
            async move {
                match &o[i] {
                    Op::Search(s) => c
                        .select(s)
                        .await
                        .map(|r| {
                            if let (Ok(mut found), Some(res)) = (f.lock(), r.response.as_ref()) {
                                found[i] = Some(res.num_found);
                            }
                            r.timing
                        })
                        .map_err(|e| e.to_string()),
                    Op::Add(d) => c
                        .add(std::slice::from_ref(d))
                        .await
                        .map(|r| r.timing)
                        .map_err(|e| e.to_string()),
                }
            }
        },
        move || pb2.inc(1),
    )
    .await;
    let found = found.lock().map(|f| f.clone()).unwrap_or_default();
    outcomes
        .into_iter()
        .map(|out| {
            let n = found.get(out.index).copied().flatten();
            (ops[out.index].clone(), out, n)
        })
        .collect()
}

/// Opens and closes `n` TCP connections to the host and port of `url`, beside the transport
/// ([`StudyConfig::self_test_connects`]).
async fn self_test_connects(url: &str, n: u32) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let u = url::Url::parse(url)?;
    let host = u.host_str().context("the Solr URL has no host")?;
    let port = u
        .port_or_known_default()
        .context("the Solr URL has no port")?;
    for _ in 0..n {
        tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port))
            .await
            .with_context(|| format!("witness self-test: cannot connect to {host}:{port}"))?;
    }
    Ok(())
}

fn pcap_start(
    cfg: &StudyConfig,
    port: u16,
    name: &str,
    scenario: &str,
    rep: usize,
) -> Result<Option<PcapWitness>> {
    let Some(iface) = &cfg.pcap_interface else {
        return Ok(None);
    };
    let save = match (&cfg.capture_dir, rep) {
        (Some(d), 0) => {
            std::fs::create_dir_all(d)?;
            Some(d.join(format!("{scenario}-{}.pcapng", name.replace('+', "-"))))
        }
        _ => None,
    };
    Ok(Some(PcapWitness::start(iface, port, save)?))
}

/// Runs the study with the client in its own namespace when [`crate::engine::witness::isolation::why_not_isolated`] allows it
/// (the pcap witness then captures on the namespace's veth), else as it is, with the
/// kernel witness marked not isolated. The report's settings say which
/// (`kernel_witness`).
pub async fn run_isolated(mut cfg: StudyConfig) -> Result<(StudyReport, Vec<Record>)> {
    use crate::engine::witness::isolation::{why_not_isolated, ClientNamespace};
    let scope;
    // The client's connections go to the proxy when there is one.
    let dialed = cfg.proxy.clone().unwrap_or_else(|| cfg.url.clone());
    let result = match why_not_isolated(&dialed) {
        None => {
            let ns = ClientNamespace::create().context("isolating the client")?;
            if cfg.pcap_interface.is_some() {
                cfg.pcap_interface = Some(ns.device().to_string());
            }
            scope = format!("isolated: the client in network namespace {}", ns.name());
            let rx = ns.spawn(move || async move { run(&cfg).await });
            let r = rx
                .await
                .context("the study thread ended without a result")?;
            drop(ns);
            r
        }
        Some(why) => {
            scope = format!("not isolated: {why}");
            run(&cfg).await
        }
    };
    let (mut report, records) = result?;
    report.settings["kernel_witness"] = serde_json::Value::String(scope);
    Ok((report, records))
}

#[cfg(test)]
mod tests {
    use super::*;
    use solr_client::Timing;

    fn rec(qtime_ms: Option<u32>, error: Option<&str>) -> Record {
        Record {
            scenario: "search".into(),
            op: "select".into(),
            transport: "pooled".into(),
            rep: 0,
            warmup: false,
            error: error.map(str::to_string),
            timing: error.is_none().then(|| {
                let mut t = Timing::default();
                t.server_wait = Duration::from_millis(10);
                t.qtime_ms = qtime_ms;
                t
            }),
            latency_ms: None,
            start_delay_ms: None,
            num_found: None,
            seq: None,
        }
    }

    /// A response without QTime is counted apart, not averaged in as QTime 0
    /// (which made its overhead the whole total).
    #[test]
    fn responses_without_qtime_are_counted_not_zero() {
        let recs = [rec(Some(4), None), rec(None, None), rec(None, None)];
        let refs: Vec<&Record> = recs.iter().collect();
        let s = summarize(
            "search",
            "pooled",
            TransportKind::Pooled,
            &refs,
            Witnesses::default(),
            vec![],
            Duration::from_secs(1),
        );
        assert_eq!(
            (s.wall.n, s.qtime.n, s.qtime_missing, s.overhead.n),
            (3, 1, 2, 1)
        );
        let q = s.qtime.p50_ms.expect("one QTime");
        assert!((3.9..=4.1).contains(&q), "{q}");
        let o = s.overhead.p50_ms.expect("one overhead");
        assert!((5.9..=6.1).contains(&o), "10 ms total - 4 ms QTime: {o}");
        assert!(findings(&[s])[0].contains("2 responses without QTime"));

        let none = [rec(None, None)];
        let s = summarize(
            "search",
            "pooled",
            TransportKind::Pooled,
            &none.iter().collect::<Vec<_>>(),
            Witnesses::default(),
            vec![],
            Duration::from_secs(1),
        );
        assert_eq!((s.qtime.p50_ms, s.overhead.p50_ms), (None, None));
        assert!(findings(&[s])[0].contains("time outside Solr unknown"));
    }

    /// A kernel count taken beside other processes is absent, never a disagreement; an
    /// isolated one that differs is; the connector alone is never called agreement. The
    /// findings and the verdict say how many witnesses counted.
    #[test]
    fn reports_say_which_witnesses_counted_and_never_agree_alone() {
        let w = Witnesses {
            requests: 20,
            connector: 20,
            kernel_active_opens: 23, // 3 connects of other processes
            kernel_isolated: false,
            pcap_syns: Some(20),
            pcap_dropped: Some(0),
            expected: 20,
            ..Default::default()
        };
        let recs = [rec(Some(1), None)];
        let refs: Vec<&Record> = recs.iter().collect();
        let summary = |mut w: Witnesses| {
            w.judge(TransportKind::Fresh, Load::Closed { concurrency: 1 });
            summarize(
                "search",
                "fresh",
                TransportKind::Fresh,
                &refs,
                w,
                vec![],
                Duration::from_secs(1),
            )
        };
        let shared = [summary(w.clone())];
        let line = &findings(&shared)[0];
        assert!(
            line.ends_with("; 2 of 3 witnesses agree (connector, pcap: 20; kernel: not isolated)"),
            "{line}"
        );
        let v = verdict(&shared, &[]);
        assert!(
            v.starts_with(
                "verdict: 2 of 3 witnesses counted (connector, pcap; kernel: not isolated) and agree; "
            ),
            "{v}"
        );

        let own = [summary(Witnesses {
            kernel_isolated: true,
            ..w.clone()
        })];
        assert!(
            verdict(&own, &[]).starts_with(
                "verdict: WITNESSES DISAGREE for search fresh (connector 20, kernel 23, pcap 20); \
                 3 of 3 witnesses counted (connector, kernel, pcap); "
            ),
            "{}",
            verdict(&own, &[])
        );
        assert!(
            findings(&own)[0]
                .ends_with("; 3 of 3 witnesses DISAGREE (connector 20, kernel 23, pcap 20)"),
            "{}",
            findings(&own)[0]
        );

        // No root, --no-pcap: the connector alone; no agreement is claimed.
        let alone = [summary(Witnesses {
            pcap_syns: None,
            pcap_dropped: None,
            ..w
        })];
        assert_eq!(alone[0].witnesses.agree, None);
        let v = verdict(&alone, &[]);
        assert!(
            v.starts_with(
                "verdict: 1 of 3 witnesses: connector only (kernel: not isolated, pcap: no capture): \
                 no agreement checked; "
            ),
            "{v}"
        );
        assert!(!v.contains("agree;") && !v.contains("DISAGREE"), "{v}");
    }

    /// A repetition where every request failed has no median; it used to record
    /// p50 0 and widen compare's noise margin to the whole median.
    #[test]
    fn a_repetition_without_success_is_left_out_of_the_medians() {
        let (mut medians, mut left_out) = (Vec::new(), Vec::new());
        let ms = Duration::from_millis;
        rep_median(
            &mut medians,
            &mut left_out,
            vec![ms(10), ms(12), ms(11)],
            "search",
            "fresh",
            0,
        );
        rep_median(&mut medians, &mut left_out, vec![], "search", "fresh", 1);
        rep_median(
            &mut medians,
            &mut left_out,
            vec![ms(13)],
            "search",
            "fresh",
            2,
        );
        assert_eq!(medians.len(), 2, "{medians:?}");
        assert!(
            medians.iter().all(|m| (10.9..=13.1).contains(m)),
            "{medians:?}"
        );
        assert_eq!(
            left_out,
            ["search fresh rep 2: no successful request; left out of the per-repetition medians (the noise estimate of compare)"]
        );
    }

    /// A run is a failure only when every measured request failed.
    #[test]
    fn all_failed_names_the_count_and_the_most_frequent_error() {
        let mut recs = vec![
            rec(None, Some("refused")),
            rec(None, Some("refused")),
            rec(None, Some("timeout")),
        ];
        let why = all_failed(&recs).expect("all failed");
        assert_eq!(
            why,
            "every request failed (3 of 3); the most frequent error (2x): refused"
        );
        recs.push(rec(Some(1), None));
        assert_eq!(all_failed(&recs), None);
        assert_eq!(all_failed(&[]), None);
    }
}
