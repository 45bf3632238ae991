//! The kNN report types: host, index run, sweep cells, one JVM setting's run, reductions and the report.

use bench_report::stats::Percentiles;
use serde::{Deserialize, Serialize};

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
