//! Bulk indexing of update files, with the files in the OS page
//! cache ("hot") and after evicting them ("cold").
//!
//! The seed posted 420 XML files (~2.68 MB, ~1,100 docs each) to Solr in a loop with soft
//! commits, timing the loop with `time`, hot and after `echo 3 > /proc/sys/vm/drop_caches`.
//! Here the files are generated from the seeded workload, posted one request per file in
//! order (each read from disk just before its post), a soft commit ends the run, and the
//! page-cache residency of the files is measured before every run (`fincore`) so a cold
//! run that was not cold shows.

pub mod cli;
mod model;
mod render;

pub use model::*;
pub use render::*;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use solr_client::codec::{self, ResponseFormat};
use solr_client::{Commit, RequestKind, SolrClient, UpdateFormat};

use crate::engine::workload::Generator;
use bench_report::stats::percentiles;
use solr_harness::seedkit::{self, Target};

/// How the cold run evicts the files from the page cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ColdMode {
    /// `sync; echo 3 > /proc/sys/vm/drop_caches` as the seed did (root only; evicts every
    /// file of the machine, Solr's index included).
    DropCaches,
    /// `posix_fadvise(DONTNEED)` on the update files only (no root needed; Solr's index
    /// stays cached).
    Fadvise,
    /// No cold run.
    None,
}

/// When the run commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommitMode {
    /// One soft commit after the last file (timed as part of the run).
    End,
    /// `softCommit=true` on every file's post.
    PerFile,
}

/// Configuration of `bulk-files` (built by the command line from its options; see `transport-bench bulk-files --help`).
#[derive(Debug, Clone)]
pub struct BulkConfig {
    /// Update files (seed: 420), multiplied by `--scale`.
    pub files: usize,
    /// Documents per file (seed: ~1,100).
    pub docs_per_file: usize,
    /// Target size of one encoded document in bytes (seed: 2.68 MB / 1,100 docs).
    pub doc_bytes: usize,
    /// Scale factor on the number of files (0.25 = 105 files).
    pub scale: f64,
    /// File format: xml (seed) or json (or cbor).
    pub format: UpdateFormat,
    /// Files posted (then deleted) before the first timed run, untimed, so the JVM's JIT
    /// and Solr's caches are warm (the first run on a fresh node was 4x slower without).
    pub warmup_files: usize,
    /// Repetitions of the hot/cold pair (the seed ran 2).
    pub reps: usize,
    /// Run hot then cold in every repetition, as the seed did (default: ABBA order, hot/cold
    /// then cold/hot, so a drift over the runs cancels out of the difference).
    pub seed_order: bool,
    /// How the cold run evicts the files.
    pub cold: ColdMode,
    /// When to soft-commit.
    pub commit: CommitMode,
    /// Folder of the update files (default `results/bulk-files-data/<format>-<files>x<docs>`);
    /// files already there with the same parameters are reused.
    pub dir: Option<PathBuf>,
    /// Regenerate the files even when they match.
    pub regenerate: bool,
    /// Delete the update files afterwards.
    pub remove_files: bool,
    /// Prefix of every document id (default `bulk-<format>-`).
    pub id_prefix: Option<String>,
    /// Workload seed.
    pub seed: u64,
    /// No progress bars.
    pub quiet: bool,
}

/// The generated files, as recorded in `manifest.json` next to them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Manifest {
    files: usize,
    docs_per_file: usize,
    doc_bytes: usize,
    format: UpdateFormat,
    id_prefix: String,
    seed: u64,
    total_bytes: u64,
}

impl BulkConfig {
    /// The number of files (`files` x `scale`), or an error naming the option that makes it
    /// nothing.
    pub fn files_scaled(&self) -> Result<usize> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            bail!("--scale must be positive");
        }
        let n = (self.files as f64 * self.scale).round() as usize;
        if n == 0 || self.docs_per_file == 0 {
            bail!("nothing to post: --files x --scale and --docs-per-file must give >= 1");
        }
        if self.reps == 0 {
            bail!("--reps must be >= 1");
        }
        Ok(n)
    }
}

/// Runs `bulk-files` against `target`: generates (or reuses) the files, then runs the
/// hot/cold pairs.
pub async fn run(a: &BulkConfig, target: &Target) -> Result<BulkReport> {
    let files = a.files_scaled()?;
    run_files(a, files, target).await
}

fn file_name(i: usize, format: UpdateFormat) -> String {
    format!("{i:05}.{}", format.as_str())
}

/// Writes the update files unless `dir` already holds the same ones.
fn generate(a: &BulkConfig, files: usize, dir: &Path, prefix: &str) -> Result<Manifest> {
    let want = Manifest {
        files,
        docs_per_file: a.docs_per_file,
        doc_bytes: a.doc_bytes,
        format: a.format,
        id_prefix: prefix.to_string(),
        seed: a.seed,
        total_bytes: 0,
    };
    let mpath = dir.join("manifest.json");
    if !a.regenerate {
        if let Ok(old) = std::fs::read(&mpath) {
            if let Ok(m) = serde_json::from_slice::<Manifest>(&old) {
                let same = Manifest {
                    total_bytes: 0,
                    ..m.clone()
                } == want;
                let present = (0..files).all(|i| dir.join(file_name(i, a.format)).is_file());
                if same && present {
                    return Ok(m);
                }
            }
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let _ = std::fs::remove_file(&mpath);
    let pb = seedkit::progress(
        a.quiet,
        files as u64,
        format!("generating {} files", a.format),
    );
    let mut gen = Generator::new(a.seed, 0);
    let mut total = 0u64;
    for f in 0..files {
        let docs: Vec<solr_client::Document> = (0..a.docs_per_file)
            .map(|j| {
                let mut d = gen.doc(&format!("{prefix}{f}-"), j);
                // Pad the body with more generated text up to the target document size.
                let mut body = d["body"].as_str().unwrap_or_default().to_string();
                let want = a.doc_bytes.saturating_sub(260).max(16);
                while body.len() < want {
                    let more = gen.doc("", 0);
                    body.push(' ');
                    body.push_str(more["body"].as_str().unwrap_or_default());
                }
                if body.len() > want {
                    body.truncate(want);
                    if let Some(cut) = body.rfind(' ') {
                        body.truncate(cut);
                    }
                }
                d["body"] = serde_json::Value::String(body);
                match d {
                    serde_json::Value::Object(m) => m,
                    _ => unreachable!("generator documents are objects"),
                }
            })
            .collect();
        let bytes = a.format.encode_add(&docs)?;
        total += bytes.len() as u64;
        let path = dir.join(file_name(f, a.format));
        let mut file =
            std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        std::io::Write::write_all(&mut file, &bytes)?;
        file.sync_all()?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    let m = Manifest {
        total_bytes: total,
        ..want
    };
    std::fs::write(&mpath, serde_json::to_vec_pretty(&m)?)?;
    Ok(m)
}

/// MB of `paths` resident in the page cache, by `fincore` (util-linux).
fn resident_mb(paths: &[PathBuf]) -> Option<f64> {
    let out = std::process::Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .args(paths)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let bytes: u64 = text
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .sum();
    Some(bytes as f64 / 1e6)
}

/// Reads every file once (`cat f > /dev/null`).
fn warm(paths: &[PathBuf]) -> Result<()> {
    for p in paths {
        let mut f = std::fs::File::open(p).with_context(|| format!("opening {}", p.display()))?;
        std::io::copy(&mut f, &mut std::io::sink())?;
    }
    Ok(())
}

/// Evicts the files from the page cache; Err(reason) when this mode cannot.
fn evict(mode: ColdMode, paths: &[PathBuf]) -> std::result::Result<(), String> {
    match mode {
        ColdMode::None => Err("--cold none".into()),
        ColdMode::DropCaches => {
            nix::unistd::sync();
            std::fs::write("/proc/sys/vm/drop_caches", "3").map_err(|e| {
                format!(
                    "cannot write /proc/sys/vm/drop_caches ({e}; uid {}): dropping caches needs root on a writable /proc/sys; use --cold fadvise to evict only the update files",
                    nix::unistd::getuid()
                )
            })
        }
        ColdMode::Fadvise => {
            for p in paths {
                let f = std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
                f.sync_all().map_err(|e| format!("{}: {e}", p.display()))?;
                nix::fcntl::posix_fadvise(
                    &f,
                    0,
                    0,
                    nix::fcntl::PosixFadviseAdvice::POSIX_FADV_DONTNEED,
                )
                .map_err(|e| format!("posix_fadvise {}: {e}", p.display()))?;
            }
            Ok(())
        }
    }
}

async fn post_file(
    client: &SolrClient,
    body: bytes::Bytes,
    format: UpdateFormat,
    soft_commit: bool,
) -> Result<()> {
    let mut query = vec![("wt".to_string(), "json".to_string())];
    if soft_commit {
        query.push(("softCommit".into(), "true".into()));
    }
    let mut req = client.wire(http::Method::POST, "update", query, RequestKind::Write);
    req.headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(format.content_type()),
    );
    req.body = body;
    let resp = client.send_raw(req).await?;
    if !resp.status.is_success() {
        bail!(
            "HTTP {}: {}",
            resp.status,
            String::from_utf8_lossy(&resp.body[..resp.body.len().min(300)])
        );
    }
    let ct = resp
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let r: solr_client::UpdateResponse =
        codec::decode(ResponseFormat::Json, resp.status.as_u16(), ct, &resp.body)?;
    let failed = r.header.errors.clone().unwrap_or_default();
    if r.header.status != 0 || !failed.is_empty() {
        bail!(
            "Solr status {} with {} rejected documents (first: {:?})",
            r.header.status,
            failed.len(),
            failed.first()
        );
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
async fn timed_run(
    a: &BulkConfig,
    client: &SolrClient,
    paths: &[PathBuf],
    m: &Manifest,
    rep: usize,
    cache: &str,
    resident_mb: Option<f64>,
) -> Result<BulkRun> {
    let q = seedkit::prefix_query(&m.id_prefix);
    client
        .delete_by_query(&q)
        .await
        .context("deleting the previous run's documents")?;
    client.commit(Commit::default()).await?;
    let pb = seedkit::progress(
        a.quiet,
        paths.len() as u64,
        format!("rep {} {cache}: posting", rep + 1),
    );
    let load_1m = seedkit::load_1m();
    let (mut reads, mut posts) = (Vec::new(), Vec::new());
    let mut bytes = 0u64;
    let t0 = Instant::now();
    for p in paths {
        let r0 = Instant::now();
        let body = tokio::fs::read(p)
            .await
            .with_context(|| format!("reading {}", p.display()))?;
        let r1 = Instant::now();
        bytes += body.len() as u64;
        post_file(
            client,
            bytes::Bytes::from(body),
            a.format,
            a.commit == CommitMode::PerFile,
        )
        .await
        .with_context(|| format!("posting {}", p.display()))?;
        let p1 = Instant::now();
        reads.push(r1 - r0);
        posts.push(p1 - r1);
        pb.inc(1);
    }
    let c0 = Instant::now();
    client
        .commit(Commit::default().soft(true).wait_searcher(true))
        .await
        .context("soft commit")?;
    let commit_s = c0.elapsed().as_secs_f64();
    let wall_s = t0.elapsed().as_secs_f64();
    pb.finish_and_clear();
    let indexed = seedkit::count(client, &q).await?;
    let docs = (paths.len() * m.docs_per_file) as u64;
    let mb = bytes as f64 / 1e6;
    let sum = |v: &[Duration]| v.iter().map(Duration::as_secs_f64).sum::<f64>();
    Ok(BulkRun {
        rep,
        cache: cache.into(),
        resident_mb,
        wall_s,
        read_s: sum(&reads),
        post_s: sum(&posts),
        commit_s,
        docs,
        mb,
        docs_per_s: docs as f64 / wall_s.max(1e-9),
        mb_per_s: mb / wall_s.max(1e-9),
        read_per_file: percentiles(reads),
        post_per_file: percentiles(posts),
        indexed,
        ok: indexed == docs,
        load_1m,
    })
}

/// Generates the files (or reuses them), warms Solr up, runs hot and cold in turn for every
/// repetition, and reports.
async fn run_files(a: &BulkConfig, files: usize, target: &Target) -> Result<BulkReport> {
    let client = target.client(a.format)?;
    client
        .ping()
        .await
        .with_context(|| format!("Solr at {} does not answer", target.url))?;
    let prefix = a
        .id_prefix
        .clone()
        .unwrap_or_else(|| format!("bulk-{}-", a.format));
    let dir = a.dir.clone().unwrap_or_else(|| {
        solr_harness::local_solr::project_root()
            .join("results")
            .join("bulk-files-data")
            .join(format!("{}-{files}x{}", a.format, a.docs_per_file))
    });
    let m = {
        let (a2, dir2, prefix2) = (a.clone(), dir.clone(), prefix.clone());
        tokio::task::spawn_blocking(move || generate(&a2, files, &dir2, &prefix2))
            .await
            .context("generator panicked")??
    };
    let paths: Vec<PathBuf> = (0..files)
        .map(|i| dir.join(file_name(i, a.format)))
        .collect();
    warm_up(a, &client, &paths).await?;
    let (runs, cold_skipped) = hot_and_cold(a, &client, &paths, &m).await?;
    if a.remove_files {
        for p in &paths {
            let _ = std::fs::remove_file(p);
        }
        let _ = std::fs::remove_file(dir.join("manifest.json"));
    }
    let mut report = report(a, target, files, &dir, &m, runs, cold_skipped);
    report.verdict = verdict(&report);
    Ok(report)
}

/// Posts the first `--warmup-files` files, untimed.
async fn warm_up(a: &BulkConfig, client: &SolrClient, paths: &[PathBuf]) -> Result<()> {
    if a.warmup_files == 0 {
        return Ok(());
    }
    let n = a.warmup_files.min(paths.len());
    let pb = seedkit::progress(a.quiet, n as u64, "warm-up (untimed)");
    for p in &paths[..n] {
        let body = tokio::fs::read(p)
            .await
            .with_context(|| format!("reading {}", p.display()))?;
        post_file(client, bytes::Bytes::from(body), a.format, false)
            .await
            .with_context(|| format!("warm-up post of {}", p.display()))?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(())
}

/// Every repetition's hot and cold runs; cold runs stop (with the reason) once the page
/// cache cannot be emptied.
async fn hot_and_cold(
    a: &BulkConfig,
    client: &SolrClient,
    paths: &[PathBuf],
    m: &Manifest,
) -> Result<(Vec<BulkRun>, Option<String>)> {
    let mut runs = Vec::new();
    let mut cold_skipped = None;
    for rep in 0..a.reps {
        // ABBA order (hot, cold, cold, hot, ...) unless --seed-order: a drift of the machine
        // or of Solr over the runs then cancels out of the hot-cold difference.
        let cold_first = !a.seed_order && rep % 2 == 1;
        let order: [&str; 2] = if cold_first {
            ["cold", "hot"]
        } else {
            ["hot", "cold"]
        };
        for cache in order {
            if cache == "hot" {
                warm(paths)?;
                let res = resident_mb(paths);
                runs.push(timed_run(a, client, paths, m, rep, "hot", res).await?);
            } else if cold_skipped.is_none() {
                match evict(a.cold, paths) {
                    Ok(()) => {
                        let res = resident_mb(paths);
                        runs.push(timed_run(a, client, paths, m, rep, "cold", res).await?);
                    }
                    Err(why) => {
                        eprintln!("cold run skipped: {why}");
                        cold_skipped = Some(why);
                    }
                }
            }
        }
    }
    Ok((runs, cold_skipped))
}

/// Runs that indexed fewer documents than they sent, cold runs whose files were still cached.
fn warnings(runs: &[BulkRun], m: &Manifest) -> Vec<String> {
    let mut warnings = Vec::new();
    for r in runs {
        if !r.ok {
            warnings.push(format!(
                "rep {} {}: {} docs indexed of {} sent",
                r.rep + 1,
                r.cache,
                r.indexed,
                r.docs
            ));
        }
        if r.cache == "cold" {
            if let Some(res) = r.resident_mb {
                if res > 0.1 * m.total_bytes as f64 / 1e6 {
                    warnings.push(format!(
                        "rep {} cold: {res:.1} MB of the files were still cached before the run",
                        r.rep + 1
                    ));
                }
            }
        }
    }
    warnings
}

/// The report of the runs (its verdict left empty for the caller).
fn report(
    a: &BulkConfig,
    target: &Target,
    files: usize,
    dir: &Path,
    m: &Manifest,
    runs: Vec<BulkRun>,
    cold_skipped: Option<String>,
) -> BulkReport {
    let walls = |cache: &str| -> Vec<Duration> {
        runs.iter()
            .filter(|r| r.cache == cache)
            .map(|r| Duration::from_secs_f64(r.wall_s))
            .collect()
    };
    let diffs: Vec<f64> = (0..a.reps)
        .filter_map(|rep| {
            let hot = runs.iter().find(|r| r.rep == rep && r.cache == "hot")?;
            let cold = runs.iter().find(|r| r.rep == rep && r.cache == "cold")?;
            Some(cold.wall_s - hot.wall_s)
        })
        .collect();
    let mb = m.total_bytes as f64 / 1e6;
    BulkReport {
        url: target.url.clone(),
        settings: serde_json::json!({
            "collection": target.collection,
            "files": files,
            "docs_per_file": a.docs_per_file,
            "doc_bytes": a.doc_bytes,
            "scale": a.scale,
            "format": a.format,
            "reps": a.reps,
            "warmup_files": a.warmup_files,
            "order": if a.seed_order { "hot,cold" } else { "ABBA" },
            "cold": a.cold,
            "commit": a.commit,
            "transport": "pooled",
            "seed": a.seed,
        }),
        dir: dir.display().to_string(),
        files,
        docs: (files * m.docs_per_file) as u64,
        mb,
        mean_file_mb: mb / files as f64,
        cold_skipped,
        hot_wall: percentiles(walls("hot")),
        cold_wall: percentiles(walls("cold")),
        cold_minus_hot_mean_s: (!diffs.is_empty())
            .then(|| diffs.iter().sum::<f64>() / diffs.len() as f64),
        cold_minus_hot_s: diffs,
        warnings: warnings(&runs, m),
        runs,
        verdict: String::new(),
    }
}
