//! The aggregator's exposition, escaping and cardinality, and days of churn on a simulated
//! clock through the same code the daemon runs.

mod exposition;
#[cfg(feature = "live")]
mod soak;
#[cfg(feature = "ebpf")]
mod soak_ebpf;

use std::collections::BTreeSet;

use super::labels::Who;
use super::metrics::{Metrics, RequestSample};

/// A process `pid` named `comm`.
fn proc(pid: u32, comm: &str) -> Who {
    Who {
        pid: Some(pid),
        comm: Some(comm.into()),
        cgroup: Some("/user.slice".into()),
        container: None,
    }
}

/// A search answered in 10 ms with QTime 4 ms, gzip-encoded.
fn search(reused: bool) -> RequestSample {
    RequestSample {
        wall_s: 0.010,
        qtime_s: Some(0.004),
        response_bytes: 300,
        encoding: "gzip",
        update: None,
        reused,
    }
}

/// The exposition's lines.
fn lines(m: &Metrics) -> Vec<String> {
    let text = m.encode().expect("encode");
    text.lines().map(String::from).collect()
}

/// Series in an exposition: one sample line each, a histogram counted by its `_count`.
fn exposed_series(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| !l.contains("_bucket{") && !l.contains("_sum{"))
        .count()
}

/// The `pid` label values in an exposition.
fn pids(lines: &[String]) -> BTreeSet<u32> {
    lines
        .iter()
        .filter_map(|l| l.split("pid=\"").nth(1))
        .filter_map(|rest| rest.split('"').next())
        .map(|p| p.parse().expect("a pid"))
        .collect()
}
