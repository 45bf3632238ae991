//! The project's own local Solr: a thin Rust handle on `local-solr/solr.sh`, which starts
//! real Apache Solr 9 nodes (one JVM per node) from Maven Central artifacts.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use anyhow::{bail, Context, Result};

/// How the local Solr is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One node, core `bench`.
    Standalone,
    /// Leader + follower with user-managed replication, core `bench` on each.
    Pair,
    /// ZooKeeper + two nodes, collection `bench` with 1 shard x 2 replicas.
    Cloud,
}

impl Mode {
    fn as_str(&self) -> &'static str {
        match self {
            Mode::Standalone => "standalone",
            Mode::Pair => "pair",
            Mode::Cloud => "cloud",
        }
    }
}

/// The project's root folder: `SOLR_BENCH_ROOT`, or the workspace this crate was built in.
pub fn project_root() -> PathBuf {
    if let Ok(p) = std::env::var("SOLR_BENCH_ROOT") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn script() -> PathBuf {
    project_root().join("local-solr").join("solr.sh")
}

/// Serializes `solr.sh` calls from one process (two starts of one instance must not race).
static SCRIPT_LOCK: Mutex<()> = Mutex::new(());

fn run_script(args: &[&str]) -> Result<String> {
    let _guard = SCRIPT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let out = Command::new("bash")
        .arg(script())
        .args(args)
        .output()
        .with_context(|| format!("cannot run {}", script().display()))?;
    if !out.status.success() {
        bail!(
            "local-solr/solr.sh {} failed ({}):\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A running local Solr instance (a named set of nodes).
#[derive(Debug, Clone)]
pub struct LocalSolr {
    /// Instance name (folder under `local-solr/run/`).
    pub name: String,
    /// `(node name, base URL)` in start order.
    pub nodes: Vec<(String, String)>,
    /// The CA certificate clients must trust, when TLS is on.
    pub ca: Option<PathBuf>,
}

impl LocalSolr {
    /// Starts (or finds running) the instance `name` in `mode`; `extra` are more
    /// `solr.sh start` options such as `--tls` or `--poll-interval 1`.
    pub fn start(mode: Mode, name: &str, extra: &[&str]) -> Result<LocalSolr> {
        let mut args = vec!["start", mode.as_str(), "--name", name];
        args.extend_from_slice(extra);
        let out = run_script(&args)?;
        Self::parse(name, &out)
    }

    fn parse(name: &str, out: &str) -> Result<LocalSolr> {
        let mut nodes = Vec::new();
        let mut ca = None;
        for line in out.lines() {
            let parts: Vec<&str> = line.split_whitespace().collect();
            match parts.as_slice() {
                ["node", n, url] => nodes.push((n.to_string(), url.to_string())),
                ["ca", path] => ca = Some(PathBuf::from(path)),
                _ => {}
            }
        }
        if nodes.is_empty() {
            bail!("solr.sh printed no node for instance {name}: {out}");
        }
        Ok(LocalSolr {
            name: name.to_string(),
            nodes,
            ca,
        })
    }

    /// The base URL of `node` (e.g. `leader`), or of the first node when `node` is None.
    pub fn url(&self, node: Option<&str>) -> Result<&str> {
        match node {
            None => Ok(&self.nodes[0].1),
            Some(n) => self
                .nodes
                .iter()
                .find(|(name, _)| name == n)
                .map(|(_, u)| u.as_str())
                .with_context(|| format!("no node {n} in instance {}", self.name)),
        }
    }

    /// The pid of `node`'s JVM, from `local-solr/run/NAME/nodes.tsv` (None when unknown).
    pub fn pid(&self, node: &str) -> Option<u32> {
        let tsv = project_root()
            .join("local-solr")
            .join("run")
            .join(&self.name)
            .join("nodes.tsv");
        std::fs::read_to_string(tsv).ok()?.lines().find_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.first() == Some(&node)).then(|| f.get(2)?.parse().ok())?
        })
    }

    /// SIGKILLs one node (a crash).
    pub fn kill_node(&self, node: &str) -> Result<()> {
        run_script(&["kill-node", &self.name, node]).map(|_| ())
    }

    /// Starts one stopped node again on the same port and waits until it answers.
    pub fn start_node(&self, node: &str) -> Result<()> {
        run_script(&["start-node", &self.name, node]).map(|_| ())
    }

    /// Stops every node of the instance.
    pub fn stop(&self) -> Result<()> {
        run_script(&["stop", &self.name]).map(|_| ())
    }
}
