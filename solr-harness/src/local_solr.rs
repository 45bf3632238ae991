//! A running local Solr: a thin Rust handle on the instances `solr.sh` starts (real Apache
//! Solr 9 nodes, one JVM per node, from Maven Central artifacts) in a [`Harness`]'s home.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::harness::Harness;

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
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Mode::Standalone => "standalone",
            Mode::Pair => "pair",
            Mode::Cloud => "cloud",
        }
    }
}

/// This repository's root folder: `SOLR_BENCH_ROOT`, or the workspace this crate was built
/// in. For the repository's own bench and tests (results, captures, docs); the local Solr
/// itself lives in the [`Harness`]'s home, which is not tied to this path.
pub fn project_root() -> PathBuf {
    if let Ok(p) = std::env::var("SOLR_BENCH_ROOT") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// A running local Solr instance (a named set of nodes).
#[derive(Debug, Clone)]
pub struct LocalSolr {
    /// Instance name (folder under the home's `run/`).
    pub name: String,
    /// `(node name, base URL)` in start order.
    pub nodes: Vec<(String, String)>,
    /// The CA certificate clients must trust, when TLS is on.
    pub ca: Option<PathBuf>,
    harness: Harness,
}

impl LocalSolr {
    /// Starts (or finds running) the instance `name` in `mode` in the default home
    /// ([`Harness::new`]); `extra` are more `solr.sh start` options such as `--tls` or
    /// `--poll-interval 1`.
    pub fn start(mode: Mode, name: &str, extra: &[&str]) -> Result<LocalSolr> {
        Harness::new()?.start(mode, name, extra)
    }

    pub(crate) fn parse(harness: Harness, name: &str, out: &str) -> Result<LocalSolr> {
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
            return Err(Error::NoNodes {
                name: name.to_string(),
                stdout: out.to_string(),
            });
        }
        Ok(LocalSolr {
            name: name.to_string(),
            nodes,
            ca,
            harness,
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
                .ok_or_else(|| Error::NoSuchNode {
                    name: self.name.clone(),
                    node: n.to_string(),
                }),
        }
    }

    /// The harness (home folder) the instance runs in.
    pub fn harness(&self) -> &Harness {
        &self.harness
    }

    /// The instance's folder: `HOME/run/NAME` (logs and data of each node, `nodes.tsv`).
    pub fn dir(&self) -> PathBuf {
        self.harness.run_dir().join(&self.name)
    }

    /// The pid of `node`'s JVM, from `HOME/run/NAME/nodes.tsv` (None when unknown).
    pub fn pid(&self, node: &str) -> Option<u32> {
        let tsv = self.dir().join("nodes.tsv");
        std::fs::read_to_string(tsv).ok()?.lines().find_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.first() == Some(&node)).then(|| f.get(2)?.parse().ok())?
        })
    }

    /// SIGKILLs one node (a crash).
    pub fn kill_node(&self, node: &str) -> Result<()> {
        self.harness
            .script(&["kill-node", &self.name, node])
            .map(|_| ())
    }

    /// Starts one stopped node again on the same port and waits until it answers.
    pub fn start_node(&self, node: &str) -> Result<()> {
        self.harness
            .script(&["start-node", &self.name, node])
            .map(|_| ())
    }

    /// Stops every node of the instance.
    pub fn stop(&self) -> Result<()> {
        self.harness.stop(&self.name)
    }
}
