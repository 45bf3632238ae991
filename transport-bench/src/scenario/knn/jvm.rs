//! The JVM settings a kNN run compares: presets, how each starts a local Solr node, its pid and vectorization log.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

use solr_harness::local_solr::{self, LocalSolr, Mode};

use crate::engine::local::LocalSolrs;

use super::*;

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

pub(super) fn start_local(
    cfg: &KnnConfig,
    local: &LocalSolrs,
    spec: &JvmSpec,
    run: &JvmRun,
) -> Result<LocalSolr> {
    let name = format!("{}-{}", cfg.instance_prefix, spec.slug());
    // A fresh JVM and an empty index for every setting, as the seed restarted Solr per case.
    if let Ok(h) = solr_harness::Harness::new() {
        let _ = h.stop(&name);
    }
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
    local
        .start(Mode::Standalone, &name, &args)
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

pub(super) fn host_info() -> HostInfo {
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
