//! The kNN load test: a seeded corpus of N documents with D-dimensional unit
//! vectors, indexed into the project's real Solr, then a closed-loop sweep of concurrency x
//! topK whose queries are the documents' own vectors (each once per topK stream, shuffled),
//! on one or more Solr JVM settings (Java 17; Java 25 with and without Lucene's Panama
//! vectorization). Per cell: QPS, latency percentiles, hits == topK checked exactly, Little's
//! law, Solr and host CPU and RSS sampled from `/proc`, bytes per query on the wire.
//!
//! Every JVM's Solr is started and filled first; the sweep then runs the JVMs interleaved
//! cell by cell (rotating order), so the background load of a shared machine falls on all of
//! them alike (run one after the other, Java 17 came out 80 % slower in one run and the
//! fastest in the next).
//!
//! [`run`] does the work; `render` prints, saves and charts; [`procstat`] samples `/proc`.

pub mod cli;
mod corpus;
mod jvm;
mod model;
mod render;
mod shots;

use crate::engine::procstat;
use corpus::*;
pub use jvm::*;
pub use model::*;
pub use render::*;
use shots::*;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use solr_client::{SolrClient, TlsOptions, TransportKind};

use solr_harness::local_solr::{self, LocalSolr};

use crate::engine::local::LocalSolrs;

/// What to run.
#[derive(Debug, Clone)]
pub struct KnnConfig {
    /// An existing Solr (base URL); None starts the project's local Solr per JVM setting.
    pub url: Option<String>,
    /// Collection or core.
    pub collection: String,
    /// CA certificate for https.
    pub ca: Option<PathBuf>,
    /// With `url`: the Solr pid to sample (None: host CPU only).
    pub solr_pid: Option<u32>,
    /// Documents (seed: 7,367).
    pub docs: usize,
    /// Vector dimension (seed: 768).
    pub dim: usize,
    /// Workload seed.
    pub seed: u64,
    /// Documents per update request.
    pub batch: usize,
    /// Concurrency levels (closed-loop workers).
    pub concurrency: Vec<usize>,
    /// topK values.
    pub top_k: Vec<u32>,
    /// Requests per cell (0: one per document).
    pub requests: usize,
    /// Longest a cell runs, seconds (0: no limit).
    pub cell_seconds: f64,
    /// Warm-up queries per JVM before the sweep (not measured).
    pub warmup: usize,
    /// JVM settings, by preset name.
    pub jvms: Vec<String>,
    /// Solr heap (`-Xms` = `-Xmx`).
    pub heap: String,
    /// Fields returned per hit (empty: Solr's default, every stored field incl. the vector).
    pub fl: String,
    /// `/proc` sampling interval.
    pub sample_interval: Duration,
    /// Local Solr instance names are `{prefix}-{jvm}`.
    pub instance_prefix: String,
    /// No progress bars.
    pub quiet: bool,
}

fn progress(quiet: bool, len: u64, msg: String) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg:>34} [{bar:30}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(msg);
    pb
}

/// Checks the configuration; bad input is an error, never a panic.
pub fn validate(cfg: &KnnConfig) -> Result<()> {
    if cfg.docs == 0 {
        bail!("--docs must be at least 1");
    }
    if cfg.dim == 0 || cfg.dim > 4096 {
        bail!(
            "--dim must be between 1 and 4096 (Solr's DenseVectorField limit), not {}",
            cfg.dim
        );
    }
    if cfg.concurrency.is_empty() || cfg.concurrency.contains(&0) {
        bail!("--concurrency needs one or more positive values");
    }
    if cfg.top_k.is_empty() || cfg.top_k.contains(&0) {
        bail!("--topk needs one or more positive values");
    }
    if let Some(k) = cfg.top_k.iter().find(|k| **k as usize > cfg.docs) {
        bail!(
            "--topk {k} is larger than --docs {}: Solr cannot return topK hits",
            cfg.docs
        );
    }
    if !cfg.cell_seconds.is_finite() || cfg.cell_seconds < 0.0 {
        bail!("--cell-seconds must be >= 0");
    }
    if cfg.batch == 0 {
        bail!("--batch must be at least 1");
    }
    if cfg.url.is_none() {
        if cfg.jvms.is_empty() {
            bail!("give at least one --jvm ({})", JVM_PRESETS.join(", "));
        }
        for j in &cfg.jvms {
            JvmSpec::preset(j)?;
        }
    }
    Ok(())
}

/// Runs the sweep on every JVM setting (or on `url`) and builds the report.
pub async fn run(cfg: &KnnConfig, local: &LocalSolrs) -> Result<KnnReport> {
    validate(cfg)?;
    let mut report = KnnReport {
        docs: cfg.docs,
        dim: cfg.dim,
        seed: cfg.seed,
        concurrency: cfg.concurrency.clone(),
        top_k: cfg.top_k.clone(),
        requests_per_cell: if cfg.requests == 0 {
            cfg.docs
        } else {
            cfg.requests
        },
        cell_seconds: cfg.cell_seconds,
        warmup: cfg.warmup,
        fl: cfg.fl.clone(),
        heap: cfg.heap.clone(),
        sample_ms: cfg.sample_interval.as_millis() as u64,
        host: host_info(),
        ..Default::default()
    };
    // The corpus once: every JVM indexes the same documents.
    let corpus = Arc::new(Corpus::generate(cfg.seed, cfg.docs, cfg.dim));
    let mut targets: Vec<Target> = Vec::new();
    let result = prepare_and_sweep(cfg, local, &corpus, &mut report, &mut targets).await;
    // Whatever happened: collect the logs (the run's end stops the local Solr).
    for t in targets {
        let mut run = t.run;
        if let Some(solr) = &t.solr {
            run.vectorization_log = vectorization_log(
                &local_solr::project_root()
                    .join("local-solr")
                    .join("run")
                    .join(&solr.name),
            );
            run.vectorized = run
                .vectorization_log
                .iter()
                .any(|l| l.contains("vector incubator API enabled"));
        }
        let at = report
            .jvms
            .iter()
            .position(|j| j.name == run.name && j.cells.is_empty() && j.skipped.is_none());
        match at {
            Some(i) => report.jvms[i] = run,
            None => report.jvms.push(run),
        }
    }
    result?;
    report.reductions = reductions(&report.jvms);
    report.verdict = render::verdict(&report);
    Ok(report)
}

/// One Solr under test: its run record, client, pid and (when local) the instance.
struct Target {
    run: JvmRun,
    client: SolrClient,
    pid: Option<u32>,
    solr: Option<LocalSolr>,
}

/// Starts and fills every Solr, then runs the sweep with the JVMs interleaved cell by cell
/// (the order rotating), so that the background load of a shared machine falls on all of
/// them alike instead of on whichever ran last.
async fn prepare_and_sweep(
    cfg: &KnnConfig,
    local: &LocalSolrs,
    corpus: &Arc<Corpus>,
    report: &mut KnnReport,
    targets: &mut Vec<Target>,
) -> Result<()> {
    if let Some(url) = &cfg.url {
        let run = JvmRun {
            name: "external".into(),
            url: Some(url.clone()),
            ..Default::default()
        };
        report.jvms.push(run.clone());
        targets.push(Target {
            run,
            client: client(cfg, url)?,
            pid: cfg.solr_pid,
            solr: None,
        });
    } else {
        for name in &cfg.jvms {
            let spec = JvmSpec::preset(name)?;
            let mut run = JvmRun {
                name: spec.name.clone(),
                java_home: spec.java_home.as_ref().map(|p| p.display().to_string()),
                jvm_opts: spec.opts.clone(),
                ..Default::default()
            };
            match spec.probe() {
                Err(why) => {
                    eprintln!("knn: {why}");
                    run.skipped = Some(why);
                    report.jvms.push(run);
                    continue;
                }
                Ok(v) => run.java_version = Some(v),
            }
            report.jvms.push(run.clone());
            let solr = start_local(cfg, local, &spec, &run)?;
            let url = solr.url(None)?.to_string();
            run.url = Some(url.clone());
            let pid = node_pid(&solr.name);
            if pid.is_none() {
                eprintln!(
                    "knn: no pid in local-solr/run/{}/nodes.tsv: Solr CPU and RSS not sampled",
                    solr.name
                );
            }
            targets.push(Target {
                run,
                client: client(cfg, &url)?,
                pid,
                solr: Some(solr),
            });
        }
    }
    for t in targets.iter_mut() {
        prepare(cfg, corpus, t).await?;
    }
    sweep(cfg, corpus, targets).await
}

fn client(cfg: &KnnConfig, url: &str) -> Result<SolrClient> {
    let mut tls = TlsOptions::new();
    if let Some(ca) = &cfg.ca {
        tls = tls.add_ca_pem_file(ca)?;
    }
    Ok(solr_harness::auth::apply(SolrClient::builder(url))?
        .collection(&cfg.collection)
        .tls(tls)
        .transport(TransportKind::Pooled)
        .build()?)
}

/// Ping, index, commit and warm up one Solr.
async fn prepare(cfg: &KnnConfig, corpus: &Arc<Corpus>, t: &mut Target) -> Result<()> {
    let url = t.run.url.clone().unwrap_or_default();
    t.client
        .ping()
        .await
        .with_context(|| format!("Solr at {url} does not answer ping"))?;
    t.run.indexing = Some(index(cfg, &t.client, corpus).await?);
    // Warm-up with a topK outside the sweep, so no warm-up answer sits in Solr's
    // queryResultCache under a key the sweep will ask for.
    if cfg.warmup > 0 {
        let wk = (1..)
            .find(|k| !cfg.top_k.contains(k))
            .unwrap_or(1)
            .min(cfg.docs as u32);
        let order = Arc::new(shuffled(corpus.docs.len(), cfg.seed ^ 0x5eed));
        let pb = progress(
            cfg.quiet,
            cfg.warmup as u64,
            format!("{} warm-up (topK {wk})", t.run.name),
        );
        let c = cfg.concurrency.iter().copied().max().unwrap_or(1).min(4);
        let (shots, _) = closed_loop(
            &t.client, &cfg.fl, corpus, &order, 0, c, wk, cfg.warmup, None, &pb,
        )
        .await;
        pb.finish_and_clear();
        if let Some(e) = shots.iter().find_map(|s| s.outcome.as_ref().err()) {
            bail!("warm-up query failed on {}: {e}", t.run.name);
        }
    }
    Ok(())
}

async fn sweep(cfg: &KnnConfig, corpus: &Arc<Corpus>, targets: &mut [Target]) -> Result<()> {
    if targets.is_empty() {
        return Ok(());
    }
    let per_cell = if cfg.requests == 0 {
        corpus.docs.len()
    } else {
        cfg.requests
    };
    let limit = (cfg.cell_seconds > 0.0).then(|| Duration::from_secs_f64(cfg.cell_seconds));
    let total = (per_cell * cfg.concurrency.len() * cfg.top_k.len() * targets.len()) as u64;
    let pb = progress(cfg.quiet, total, "sweep".into());
    let mut samplers: Vec<procstat::Sampler> = targets
        .iter()
        .map(|t| procstat::Sampler::start(t.pid, cfg.sample_interval))
        .collect();
    let mut cell_no = 0;
    for &k in &cfg.top_k {
        // One shuffled stream per topK, the same for every JVM: each vector once until the
        // stream wraps around.
        let order = Arc::new(shuffled(
            corpus.docs.len(),
            cfg.seed.wrapping_add(u64::from(k)),
        ));
        let mut cursors = vec![0usize; targets.len()];
        for &c in &cfg.concurrency {
            for step in 0..targets.len() {
                let ti = (cell_no + step) % targets.len();
                let t = &mut targets[ti];
                pb.set_message(format!("{} c={c} topK={k}", t.run.name));
                let hits0 = cache_hits(&t.client).await;
                let from = Instant::now();
                let (shots, wall) = closed_loop(
                    &t.client,
                    &cfg.fl,
                    corpus,
                    &order,
                    cursors[ti],
                    c,
                    k,
                    per_cell,
                    limit,
                    &pb,
                )
                .await;
                let to = Instant::now();
                // Let the sampler close the interval that covers the end of the cell.
                tokio::time::sleep(cfg.sample_interval.min(Duration::from_millis(500))).await;
                let usage = samplers[ti].usage(from, to + cfg.sample_interval);
                let hits1 = cache_hits(&t.client).await;
                let cache = match (hits0, hits1) {
                    (Some(a), Some(b)) => Some(b.saturating_sub(a)),
                    _ => None,
                };
                // Skipped requests of a time-limited cell still count on the bar.
                pb.inc((per_cell - shots.len()) as u64);
                cursors[ti] += shots.len();
                let cell = cell_from(c, k, &shots, wall, usage, cache);
                if cell.errors > 0 && !cfg.quiet {
                    pb.suspend(|| {
                        eprintln!(
                            "knn: {} c={c} topK={k}: {} of {} queries failed: {}",
                            t.run.name,
                            cell.errors,
                            cell.requests,
                            cell.first_error.as_deref().unwrap_or("")
                        )
                    });
                }
                t.run.cells.push(cell);
            }
            cell_no += 1;
        }
    }
    for s in &mut samplers {
        s.stop();
    }
    pb.finish_and_clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_bad_names() {
        assert!(JvmSpec::preset("nope").is_err());
        let v = JvmSpec::preset("temurin25+vector").expect("preset");
        assert!(v.opts.iter().any(|o| o == "jdk.incubator.vector"));
        assert!(v.opts.iter().any(|o| o == LUCENE_UPPER_JAVA_PROP));
        assert_eq!(v.slug(), "temurin25-vector");
        let missing = JvmSpec {
            name: "ghost".into(),
            java_home: Some(PathBuf::from("/nonexistent/jdk")),
            opts: vec![],
        };
        assert!(missing.probe().unwrap_err().contains("not installed"));
    }

    #[test]
    fn corpus_is_seeded_unit_vectors() {
        let a = Corpus::generate(3, 5, 8);
        let b = Corpus::generate(3, 5, 8);
        assert_eq!(a.vectors, b.vectors);
        assert_eq!(a.vectors.len(), 5);
        for v in &a.vectors {
            assert_eq!(v.len(), 8);
            let n: f32 = v.iter().map(|x| x * x).sum();
            assert!((n - 1.0).abs() < 1e-3);
        }
        assert_eq!(a.docs[4]["id"], "knn-4");
        let mut o = shuffled(100, 1);
        o.sort_unstable();
        assert_eq!(o, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn little_and_mismatches() {
        let ok = |hits| Shot {
            latency: Duration::from_millis(10),
            outcome: Ok(ShotOk {
                hits,
                self_top1: true,
                bytes_out: 100,
                bytes_in: 50,
                exact: true,
                qtime_ms: Some(5),
            }),
        };
        let shots = vec![
            ok(10),
            ok(10),
            ok(9),
            Shot {
                latency: Duration::from_millis(1),
                outcome: Err("boom".into()),
            },
        ];
        let c = cell_from(
            2,
            10,
            &shots,
            Duration::from_millis(15),
            procstat::Usage::default(),
            Some(0),
        );
        assert_eq!((c.requests, c.errors, c.hits_mismatches), (4, 1, 1));
        assert_eq!((c.hits_min, c.hits_max), (Some(9), Some(10)));
        assert!((c.little_qps - 200.0).abs() < 1.0, "{}", c.little_qps);
        assert!((c.qps - 200.0).abs() < 1.0, "{}", c.qps);
        assert!((c.bytes_out_per_query - 100.0).abs() < 1e-9);
        assert_eq!(c.first_error.as_deref(), Some("boom"));
    }

    #[test]
    fn bad_config_is_an_error() {
        let cfg = KnnConfig {
            url: None,
            collection: "bench".into(),
            ca: None,
            solr_pid: None,
            docs: 100,
            dim: 8,
            seed: 1,
            batch: 10,
            concurrency: vec![1],
            top_k: vec![10],
            requests: 0,
            cell_seconds: 0.0,
            warmup: 0,
            jvms: vec!["java17".into()],
            heap: "512m".into(),
            fl: "id,score".into(),
            sample_interval: Duration::from_millis(100),
            instance_prefix: "knn".into(),
            quiet: true,
        };
        assert!(validate(&cfg).is_ok());
        assert!(validate(&KnnConfig {
            top_k: vec![1000],
            ..cfg.clone()
        })
        .is_err());
        assert!(validate(&KnnConfig {
            concurrency: vec![0],
            ..cfg.clone()
        })
        .is_err());
        assert!(validate(&KnnConfig {
            jvms: vec!["java8".into()],
            ..cfg.clone()
        })
        .is_err());
        assert!(validate(&KnnConfig { dim: 0, ..cfg }).is_err());
    }
}
