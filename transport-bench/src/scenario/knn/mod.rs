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
//! [`run`] does the work; [`render`] prints, saves and charts; [`procstat`] samples `/proc`.

pub mod procstat;
pub mod render;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use solr_client::{Commit, Knn, SolrClient, TlsOptions, TransportKind};

use crate::local_solr::{self, LocalSolr, Mode};
use crate::stats::{percentiles, Percentiles};
use crate::workload::Generator;

/// Where the second JDK of the machine lives (Temurin 25).
pub const TEMURIN25_HOME: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

/// Lucene 9.12 (in Solr 9.10) only enables its Panama vector code up to Java 23 unless this
/// system property raises the bound; it logs "You are running with Java 23 or later" otherwise.
pub const LUCENE_UPPER_JAVA_PROP: &str =
    "-Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=25";

/// The JVM setting names `--jvm` accepts.
pub const JVM_PRESETS: &[&str] = &[
    "java17",
    "temurin25",
    "temurin25+incubator",
    "temurin25+vector",
];

/// A Solr JVM setting: which java, which extra options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JvmSpec {
    /// Preset name, e.g. `temurin25+vector`.
    pub name: String,
    /// `--java-home` for `solr.sh` (None: the `java` on PATH, Java 17 on this machine).
    pub java_home: Option<PathBuf>,
    /// Extra JVM options.
    pub opts: Vec<String>,
}

impl JvmSpec {
    /// The preset `name`: `java17` (the default java), `temurin25` (Java 25, no incubator
    /// module), `temurin25+incubator` (`--add-modules jdk.incubator.vector` only, what the seed
    /// did on Java 21; Lucene 9.12 declines it on Java 25), `temurin25+vector` (the module plus
    /// the Lucene property that lets it use the Vector API on Java 25).
    pub fn preset(name: &str) -> Result<JvmSpec> {
        let t25 = Some(PathBuf::from(TEMURIN25_HOME));
        let incubator = vec!["--add-modules".to_string(), "jdk.incubator.vector".into()];
        let (java_home, opts) = match name {
            "java17" => (None, vec![]),
            "temurin25" => (t25, vec![]),
            "temurin25+incubator" => (t25, incubator),
            "temurin25+vector" => {
                let mut o = incubator;
                o.push(LUCENE_UPPER_JAVA_PROP.into());
                (t25, o)
            }
            other => bail!("unknown --jvm {other:?}; known: {}", JVM_PRESETS.join(", ")),
        };
        Ok(JvmSpec {
            name: name.to_string(),
            java_home,
            opts,
        })
    }

    /// The java binary this setting runs.
    pub fn java(&self) -> PathBuf {
        match &self.java_home {
            Some(h) => h.join("bin").join("java"),
            None => PathBuf::from("java"),
        }
    }

    /// `java -version`'s first line, or why this JVM cannot run here (not installed).
    pub fn probe(&self) -> std::result::Result<String, String> {
        if let Some(h) = &self.java_home {
            if !h.join("bin").join("java").is_file() {
                return Err(format!(
                    "{} is not installed here (no {}/bin/java); skipped",
                    self.name,
                    h.display()
                ));
            }
        }
        let out = std::process::Command::new(self.java())
            .arg("-version")
            .output()
            .map_err(|e| {
                format!(
                    "{}: cannot run {}: {e}; skipped",
                    self.name,
                    self.java().display()
                )
            })?;
        let text = String::from_utf8_lossy(&out.stderr);
        text.lines()
            .next()
            .map(str::to_string)
            .filter(|_| out.status.success())
            .ok_or_else(|| {
                format!(
                    "{}: {} -version failed; skipped",
                    self.name,
                    self.java().display()
                )
            })
    }

    /// A folder-safe instance name suffix.
    pub fn slug(&self) -> String {
        self.name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect()
    }
}

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
    /// Keep the local Solr running afterwards.
    pub keep_solr: bool,
    /// No progress bars.
    pub quiet: bool,
}

/// The host the figures come from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostInfo {
    /// Logical CPUs.
    pub cpus: usize,
    /// `/proc/cpuinfo` model name.
    pub cpu_model: String,
    /// SIMD flags of interest present (avx2, avx512f, fma, ...).
    pub simd_flags: Vec<String>,
}

/// Indexing of the corpus.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IndexRun {
    /// Documents sent and acknowledged.
    pub docs: usize,
    /// Seconds, adds plus the final commit.
    pub seconds: f64,
    /// Documents per second.
    pub docs_per_sec: f64,
    /// Update request bytes on the wire.
    pub bytes_out: u64,
}

/// One cell of the sweep: one concurrency x one topK.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cell {
    /// Closed-loop workers.
    pub concurrency: usize,
    /// topK (rows = topK).
    pub top_k: u32,
    /// Queries answered or failed.
    pub requests: u64,
    /// Queries that failed.
    pub errors: u64,
    /// Answered queries whose hit count differed from topK (a finding when > 0).
    pub hits_mismatches: u64,
    /// Fewest hits in one answer.
    pub hits_min: Option<u64>,
    /// Most hits in one answer.
    pub hits_max: Option<u64>,
    /// Answers whose first hit was the query's own document (HNSW recall sanity).
    pub self_top1: u64,
    /// Wall seconds of the cell.
    pub wall_s: f64,
    /// Answered queries per second.
    pub qps: f64,
    /// Client latency per query (send to decoded answer).
    pub latency: Percentiles,
    /// Solr's QTime, of the answers that carried one.
    pub qtime: Percentiles,
    /// Answers without a QTime (left out of `qtime`, not counted as 0).
    #[serde(default)]
    pub qtime_missing: u64,
    /// Little's law: concurrency / mean latency, queries per second.
    pub little_qps: f64,
    /// Measured QPS / Little's QPS (1 = every worker always busy).
    pub little_ratio: f64,
    /// Request bytes per query on the wire (headers + form body with the vector).
    pub bytes_out_per_query: f64,
    /// Response bytes per query on the wire.
    pub bytes_in_per_query: f64,
    /// Whether the byte counts are exact (HTTP/1.1 socket counts).
    pub bytes_exact: bool,
    /// Solr process CPU, mean %, one core = 100.
    pub solr_cpu_mean_pct: Option<f64>,
    /// Solr process CPU, max %.
    pub solr_cpu_max_pct: Option<f64>,
    /// Solr process RSS, max MiB.
    pub solr_rss_max_mib: Option<f64>,
    /// Host CPU, mean %, all cores = 100.
    pub host_cpu_mean_pct: Option<f64>,
    /// Host CPU, max %.
    pub host_cpu_max_pct: Option<f64>,
    /// Mean runnable threads on the host (`/proc/stat` procs_running): more than the CPU
    /// count means the machine was contended (a shared machine; figures then noisier).
    pub host_runnable_mean: Option<f64>,
    /// `/proc` samples in the cell.
    pub samples: usize,
    /// Solr queryResultCache hits during the cell (each vector once: expected 0).
    pub cache_hits: Option<u64>,
    /// First error text, if any.
    pub first_error: Option<String>,
}

/// One JVM setting's run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct JvmRun {
    /// Preset name (`external` with `--url`).
    pub name: String,
    /// JAVA_HOME used (None: the default java).
    pub java_home: Option<String>,
    /// Extra JVM options.
    pub jvm_opts: Vec<String>,
    /// `java -version` first line.
    pub java_version: Option<String>,
    /// Why this JVM was not run.
    pub skipped: Option<String>,
    /// Solr base URL.
    pub url: Option<String>,
    /// What Lucene logged about vectorization (console and solr.log lines).
    pub vectorization_log: Vec<String>,
    /// Lucene said "Java vector incubator API enabled".
    pub vectorized: bool,
    /// Indexing of the corpus.
    pub indexing: Option<IndexRun>,
    /// The sweep.
    pub cells: Vec<Cell>,
}

/// Response-time change of a contender JVM against the baseline (the first JVM run).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reduction {
    /// Baseline JVM.
    pub baseline: String,
    /// Contender JVM.
    pub contender: String,
    /// Concurrency.
    pub concurrency: usize,
    /// topK.
    pub top_k: u32,
    /// Baseline mean latency, ms.
    pub baseline_mean_ms: f64,
    /// Contender mean latency, ms.
    pub contender_mean_ms: f64,
    /// (baseline - contender) / baseline, % (positive = contender faster).
    pub mean_reduction_pct: f64,
    /// Baseline p50, ms.
    pub baseline_p50_ms: Option<f64>,
    /// Contender p50, ms.
    pub contender_p50_ms: Option<f64>,
    /// p50 reduction, %.
    pub p50_reduction_pct: Option<f64>,
    /// Baseline QPS.
    pub baseline_qps: f64,
    /// Contender QPS.
    pub contender_qps: f64,
    /// (contender - baseline) / baseline QPS, %.
    pub qps_gain_pct: f64,
}

/// The whole S2 report (`knn.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KnnReport {
    /// Documents indexed.
    pub docs: usize,
    /// Vector dimension.
    pub dim: usize,
    /// Workload seed.
    pub seed: u64,
    /// Concurrency levels swept.
    pub concurrency: Vec<usize>,
    /// topK values swept.
    pub top_k: Vec<u32>,
    /// Requests per cell asked for.
    pub requests_per_cell: usize,
    /// Cell time limit, seconds (0 = none).
    pub cell_seconds: f64,
    /// Warm-up queries per JVM.
    pub warmup: usize,
    /// Fields returned per hit.
    pub fl: String,
    /// Solr heap.
    pub heap: String,
    /// `/proc` sampling interval, ms.
    pub sample_ms: u64,
    /// The machine.
    pub host: HostInfo,
    /// One entry per JVM setting asked for (skipped ones say why).
    pub jvms: Vec<JvmRun>,
    /// Contender vs baseline per cell.
    pub reductions: Vec<Reduction>,
    /// The one-line verdict.
    pub verdict: String,
}

fn host_info() -> HostInfo {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.split_whitespace().collect())
        .unwrap_or_default();
    let simd_flags = [
        "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512vl", "asimd",
    ]
    .iter()
    .filter(|f| flags.contains(f))
    .map(|f| f.to_string())
    .collect();
    HostInfo {
        cpus: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        cpu_model,
        simd_flags,
    }
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
pub async fn run(cfg: &KnnConfig) -> Result<KnnReport> {
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
    let result = prepare_and_sweep(cfg, &corpus, &mut report, &mut targets).await;
    // Whatever happened: collect the logs and stop what we started.
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
            if !cfg.keep_solr {
                if let Err(e) = solr.stop() {
                    eprintln!("knn: warning: could not stop {}: {e:#}", solr.name);
                }
            }
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
            let solr = start_local(cfg, &spec, &run)?;
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

fn start_local(cfg: &KnnConfig, spec: &JvmSpec, run: &JvmRun) -> Result<LocalSolr> {
    let name = format!("{}-{}", cfg.instance_prefix, spec.slug());
    // A fresh JVM and an empty index for every setting, as the seed restarted Solr per case.
    let old = LocalSolr {
        name: name.clone(),
        nodes: Vec::new(),
        ca: None,
    };
    let _ = old.stop();
    // Per-request logging off, as in the seed (SOLR_REQUESTLOG_ENABLED=false, level ERROR).
    let mut opts = spec.opts.clone();
    opts.push("-Dsolr.log.requests=WARN".into());
    let opts = opts.join(" ");
    let dim = cfg.dim.to_string();
    let mut args: Vec<&str> = vec![
        "--vector-dim",
        &dim,
        "--heap",
        &cfg.heap,
        "--jvm-opts",
        &opts,
    ];
    let home = spec.java_home.as_ref().map(|p| p.display().to_string());
    if let Some(h) = &home {
        args.extend(["--java-home", h.as_str()]);
    }
    if !cfg.quiet {
        eprintln!(
            "knn: starting local Solr {name} ({}, {})",
            spec.name,
            run.java_version.as_deref().unwrap_or("?")
        );
    }
    LocalSolr::start(Mode::Standalone, &name, &args)
        .with_context(|| format!("starting Solr on {}", spec.name))
}

/// The pid of the first node of local instance `name`, from `local-solr/run/NAME/nodes.tsv`
/// (`node port pid base_url`).
pub fn node_pid(name: &str) -> Option<u32> {
    let f = local_solr::project_root()
        .join("local-solr")
        .join("run")
        .join(name)
        .join("nodes.tsv");
    let text = std::fs::read_to_string(f).ok()?;
    text.lines().next()?.split('\t').nth(2)?.trim().parse().ok()
}

/// The lines Lucene logged about vectorization in an instance folder (every node's
/// `console.log`, where java.util.logging writes, and `logs/solr.log`).
pub fn vectorization_log(instance_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(nodes) = std::fs::read_dir(instance_dir) else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = nodes
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        for f in [d.join("console.log"), d.join("logs").join("solr.log")] {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            for l in text.lines() {
                let low = l.to_ascii_lowercase();
                let about = ["incubator module", "vector incubator", "vector api"];
                if about.iter().any(|a| low.contains(a))
                    && !out.iter().any(|o: &String| o == l.trim())
                {
                    out.push(l.trim().to_string());
                }
            }
        }
    }
    out
}

/// The seeded corpus: documents (JSON) and their vectors.
#[derive(Debug)]
pub struct Corpus {
    /// Documents with ids `knn-{i}`.
    pub docs: Vec<serde_json::Value>,
    /// Document i's vector.
    pub vectors: Vec<Vec<f32>>,
}

impl Corpus {
    /// `n` documents with `dim`-dimensional unit vectors.
    pub fn generate(seed: u64, n: usize, dim: usize) -> Corpus {
        let mut g = Generator::new(seed, dim);
        let mut docs = Vec::with_capacity(n);
        let mut vectors = Vec::with_capacity(n);
        for i in 0..n {
            let d = g.doc("knn-", i);
            let v: Vec<f32> = d["vector"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_f64())
                        .map(|x| x as f32)
                        .collect()
                })
                .unwrap_or_default();
            vectors.push(v);
            docs.push(d);
        }
        Corpus { docs, vectors }
    }
}

fn client(cfg: &KnnConfig, url: &str) -> Result<SolrClient> {
    let mut tls = TlsOptions::new();
    if let Some(ca) = &cfg.ca {
        tls = tls.add_ca_pem_file(ca)?;
    }
    Ok(crate::auth::apply(SolrClient::builder(url))?
        .collection(&cfg.collection)
        .tls(tls)
        .transport(TransportKind::Pooled)
        .build()?)
}

/// queryResultCache hits so far (Solr's mbeans), None when Solr does not say.
async fn cache_hits(client: &SolrClient) -> Option<u64> {
    let req = client.wire(
        http::Method::GET,
        "admin/mbeans",
        vec![
            ("cat".into(), "CACHE".into()),
            ("key".into(), "queryResultCache".into()),
            ("stats".into(), "true".into()),
            ("wt".into(), "json".into()),
        ],
        solr_client::RequestKind::Admin,
    );
    let resp = client.send_raw(req).await.ok()?;
    if !resp.status.is_success() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&resp.body).ok()?;
    let beans = v.get("solr-mbeans")?.as_array()?;
    let cache = beans.iter().find_map(|b| b.get("queryResultCache"))?;
    let stats = cache.get("stats")?.as_object()?;
    stats
        .iter()
        .find(|(k, _)| k.ends_with("queryResultCache.hits") || k.as_str() == "hits")
        .and_then(|(_, v)| v.as_u64())
}

async fn index(cfg: &KnnConfig, client: &SolrClient, corpus: &Corpus) -> Result<IndexRun> {
    let pb = progress(cfg.quiet, corpus.docs.len() as u64, "indexing".into());
    let t0 = Instant::now();
    client
        .delete_by_query("id:knn-*")
        .await
        .context("clearing earlier kNN documents")?;
    let mut bytes_out = 0;
    for chunk in corpus.docs.chunks(cfg.batch) {
        let r = client.add(chunk).await.context("indexing the kNN corpus")?;
        bytes_out += r.timing.bytes_out;
        pb.inc(chunk.len() as u64);
    }
    client.commit(Commit::default()).await.context("commit")?;
    pb.finish_and_clear();
    let seconds = t0.elapsed().as_secs_f64();
    // Every document must be searchable before the sweep.
    let n = client
        .select(&solr_client::Select::new("id:knn-*").rows(0))
        .await?
        .num_found();
    if n != corpus.docs.len() as u64 {
        bail!("indexed {} documents but Solr finds {n}", corpus.docs.len());
    }
    Ok(IndexRun {
        docs: corpus.docs.len(),
        seconds,
        docs_per_sec: corpus.docs.len() as f64 / seconds.max(1e-9),
        bytes_out,
    })
}

/// One query's result.
#[derive(Debug, Clone)]
struct Shot {
    latency: Duration,
    outcome: std::result::Result<ShotOk, String>,
}

#[derive(Debug, Clone)]
struct ShotOk {
    hits: u64,
    self_top1: bool,
    bytes_out: u64,
    bytes_in: u64,
    exact: bool,
    qtime_ms: Option<u32>,
}

fn knn_query(field_fl: &str, v: &[f32], k: u32) -> solr_client::Select {
    let s = Knn::new("vector", v.to_vec())
        .top_k(k)
        .cache(false)
        .to_select();
    if field_fl.is_empty() {
        s
    } else {
        s.fl(field_fl)
    }
}

async fn one(client: &SolrClient, fl: &str, corpus: &Corpus, doc: usize, k: u32) -> Shot {
    let t0 = Instant::now();
    let r = if fl.is_empty() {
        client
            .knn(
                &Knn::new("vector", corpus.vectors[doc].clone())
                    .top_k(k)
                    .cache(false),
            )
            .await
    } else {
        client.select(&knn_query(fl, &corpus.vectors[doc], k)).await
    };
    let latency = t0.elapsed();
    let outcome = match r {
        Ok(r) => {
            let own = format!("knn-{doc}");
            Ok(ShotOk {
                hits: r.docs().len() as u64,
                self_top1: r
                    .docs()
                    .first()
                    .and_then(|d| d.get("id"))
                    .and_then(|v| v.as_str())
                    == Some(own.as_str()),
                bytes_out: r.timing.bytes_out,
                bytes_in: r.timing.bytes_in,
                exact: r.timing.bytes_exact,
                qtime_ms: r.timing.qtime_ms,
            })
        }
        Err(e) => Err(format!("{e:#}")),
    };
    Shot { latency, outcome }
}

/// Runs `n` queries (or until `limit`) from `order[start..]` with `c` workers.
#[allow(clippy::too_many_arguments)]
async fn closed_loop(
    client: &SolrClient,
    fl: &str,
    corpus: &Arc<Corpus>,
    order: &Arc<Vec<usize>>,
    start: usize,
    c: usize,
    k: u32,
    n: usize,
    limit: Option<Duration>,
    pb: &ProgressBar,
) -> (Vec<Shot>, Duration) {
    let next = Arc::new(AtomicUsize::new(0));
    let shots = Arc::new(Mutex::new(Vec::with_capacity(n)));
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..c {
        let (client, fl, corpus, order) = (
            client.clone(),
            fl.to_string(),
            corpus.clone(),
            order.clone(),
        );
        let (next, shots, pb) = (next.clone(), shots.clone(), pb.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                if limit.is_some_and(|l| t0.elapsed() >= l) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let doc = order[(start + i) % order.len()];
                let shot = one(&client, &fl, &corpus, doc, k).await;
                shots.lock().unwrap_or_else(|e| e.into_inner()).push(shot);
                pb.inc(1);
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let wall = t0.elapsed();
    let shots = std::mem::take(&mut *shots.lock().unwrap_or_else(|e| e.into_inner()));
    (shots, wall)
}

fn cell_from(
    c: usize,
    k: u32,
    shots: &[Shot],
    wall: Duration,
    usage: procstat::Usage,
    cache: Option<u64>,
) -> Cell {
    let ok: Vec<(&Shot, &ShotOk)> = shots
        .iter()
        .filter_map(|s| s.outcome.as_ref().ok().map(|o| (s, o)))
        .collect();
    let latency = percentiles(ok.iter().map(|(s, _)| s.latency));
    let qtime = percentiles(
        ok.iter()
            .filter_map(|(_, o)| o.qtime_ms)
            .map(|q| Duration::from_millis(u64::from(q))),
    );
    let answered = ok.len() as f64;
    let wall_s = wall.as_secs_f64();
    let qps = answered / wall_s.max(1e-9);
    let little_qps = if latency.mean_ms > 0.0 {
        c as f64 / (latency.mean_ms / 1000.0)
    } else {
        0.0
    };
    let per = |f: fn(&ShotOk) -> u64| {
        if ok.is_empty() {
            0.0
        } else {
            ok.iter().map(|(_, o)| f(o)).sum::<u64>() as f64 / answered
        }
    };
    Cell {
        concurrency: c,
        top_k: k,
        requests: shots.len() as u64,
        errors: (shots.len() - ok.len()) as u64,
        hits_mismatches: ok.iter().filter(|(_, o)| o.hits != u64::from(k)).count() as u64,
        hits_min: ok.iter().map(|(_, o)| o.hits).min(),
        hits_max: ok.iter().map(|(_, o)| o.hits).max(),
        self_top1: ok.iter().filter(|(_, o)| o.self_top1).count() as u64,
        wall_s,
        qps,
        latency,
        qtime,
        qtime_missing: ok.iter().filter(|(_, o)| o.qtime_ms.is_none()).count() as u64,
        little_qps,
        little_ratio: if little_qps > 0.0 {
            qps / little_qps
        } else {
            0.0
        },
        bytes_out_per_query: per(|o| o.bytes_out),
        bytes_in_per_query: per(|o| o.bytes_in),
        bytes_exact: !ok.is_empty() && ok.iter().all(|(_, o)| o.exact),
        solr_cpu_mean_pct: usage.proc_cpu_mean,
        solr_cpu_max_pct: usage.proc_cpu_max,
        solr_rss_max_mib: usage.proc_rss_max_mib,
        host_cpu_mean_pct: usage.host_cpu_mean,
        host_cpu_max_pct: usage.host_cpu_max,
        host_runnable_mean: usage.host_runnable_mean,
        samples: usage.samples,
        cache_hits: cache,
        first_error: shots.iter().find_map(|s| s.outcome.as_ref().err().cloned()),
    }
}

fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    v.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    v
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

/// Contender vs baseline (the first JVM that ran) for every cell both have.
pub fn reductions(jvms: &[JvmRun]) -> Vec<Reduction> {
    let ran: Vec<&JvmRun> = jvms
        .iter()
        .filter(|j| j.skipped.is_none() && !j.cells.is_empty())
        .collect();
    let Some((base, rest)) = ran.split_first() else {
        return Vec::new();
    };
    let pct = |a: f64, b: f64| if a > 0.0 { (a - b) / a * 100.0 } else { 0.0 };
    let mut out = Vec::new();
    for cont in rest {
        for bc in &base.cells {
            let Some(cc) = cont
                .cells
                .iter()
                .find(|c| c.concurrency == bc.concurrency && c.top_k == bc.top_k)
            else {
                continue;
            };
            out.push(Reduction {
                baseline: base.name.clone(),
                contender: cont.name.clone(),
                concurrency: bc.concurrency,
                top_k: bc.top_k,
                baseline_mean_ms: bc.latency.mean_ms,
                contender_mean_ms: cc.latency.mean_ms,
                mean_reduction_pct: pct(bc.latency.mean_ms, cc.latency.mean_ms),
                baseline_p50_ms: bc.latency.p50_ms,
                contender_p50_ms: cc.latency.p50_ms,
                p50_reduction_pct: bc
                    .latency
                    .p50_ms
                    .zip(cc.latency.p50_ms)
                    .map(|(a, b)| pct(a, b)),
                baseline_qps: bc.qps,
                contender_qps: cc.qps,
                qps_gain_pct: if bc.qps > 0.0 {
                    (cc.qps - bc.qps) / bc.qps * 100.0
                } else {
                    0.0
                },
            });
        }
    }
    out
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
            keep_solr: false,
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
