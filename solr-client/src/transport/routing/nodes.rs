//! The set of nodes the [`Routing`](super::Routing) decorator knows: per-node health
//! (marked down on a failed connect, re-probed with exponential backoff), load
//! (outstanding requests, EWMA of service time), counters, and the selection [`Policy`].
//!
//! Node selection is kept apart from sending, as elasticsearch-rs keeps its
//! `ConnectionPool` apart from its `Transport`: the pool orders candidates, the decorator
//! sends.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use url::Url;

use crate::error::{Error, Result};
use crate::transport::RequestKind;

/// How a node is chosen among equally preferred candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Policy {
    /// `round-robin`: each request starts at the next node (`fetch_add(1) % len`).
    #[default]
    RoundRobin,
    /// `least-outstanding`: the node with the fewest requests in flight from this client
    /// (ties broken round-robin).
    LeastOutstanding,
    /// `latency-aware`: the node with the lowest EWMA of service time, scaled by
    /// `outstanding + 1` so a fast node is not flooded; a node never measured goes first.
    LatencyAware,
}

impl Policy {
    /// All policies.
    pub const ALL: [Policy; 3] = [
        Policy::RoundRobin,
        Policy::LeastOutstanding,
        Policy::LatencyAware,
    ];

    /// The name used on command lines and in reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            Policy::RoundRobin => "round-robin",
            Policy::LeastOutstanding => "least-outstanding",
            Policy::LatencyAware => "latency-aware",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Policy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Policy::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown routing policy {s:?}; expected round-robin, least-outstanding or latency-aware"
                ))
            })
    }
}

/// When a node that failed to connect is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HealthPolicy {
    /// Backoff after the first failure. Default 500 ms.
    pub initial_backoff: Duration,
    /// Largest backoff; it doubles with each consecutive failure up to this. Default 30 s.
    pub max_backoff: Duration,
}

impl Default for HealthPolicy {
    fn default() -> Self {
        HealthPolicy {
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

/// Setters, for code outside this crate (the struct is `#[non_exhaustive]`: build it
/// from [`HealthPolicy::default()`] and change what differs).
impl HealthPolicy {
    /// Sets [`HealthPolicy::initial_backoff`]; see there for the default.
    pub const fn initial_backoff(mut self, v: Duration) -> Self {
        self.initial_backoff = v;
        self
    }
    /// Sets [`HealthPolicy::max_backoff`]; see there for the default.
    pub const fn max_backoff(mut self, v: Duration) -> Self {
        self.max_backoff = v;
        self
    }
}

/// A snapshot of one node's counters and state.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NodeStats {
    /// The node's base URL.
    pub node: String,
    /// False while the node is marked down.
    pub up: bool,
    /// Attempts of read requests sent to this node.
    pub reads: u64,
    /// Attempts of write requests sent to this node.
    pub writes: u64,
    /// Attempts of admin requests (ping, cluster status, probes) sent to this node.
    pub admin: u64,
    /// Attempts that got an HTTP response (any status).
    pub answered: u64,
    /// Attempts that ended in a transport error (connect, I/O, timeout).
    pub failed: u64,
    /// How many times the node was marked down.
    pub marked_down: u64,
    /// Requests in flight right now.
    pub outstanding: u64,
    /// EWMA of the service time of answered attempts; None before the first.
    pub ewma: Option<Duration>,
}

impl NodeStats {
    /// Attempts of any kind.
    pub fn requests(&self) -> u64 {
        self.reads + self.writes + self.admin
    }
}

#[derive(Debug, Default)]
struct Health {
    down: bool,
    consecutive_failures: u32,
    retry_at: Option<Instant>,
    ewma_secs: Option<f64>,
}

/// One node: counters, health and load.
#[derive(Debug)]
pub(crate) struct NodeState {
    pub(crate) url: Url,
    reads: AtomicU64,
    writes: AtomicU64,
    admin: AtomicU64,
    answered: AtomicU64,
    failed: AtomicU64,
    marked_down: AtomicU64,
    outstanding: AtomicU64,
    probing: AtomicBool,
    health: Mutex<Health>,
}

/// Weight of the newest sample in the service-time EWMA.
const EWMA_ALPHA: f64 = 0.3;

/// Where a node stands for selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Availability {
    /// Down, and its backoff has elapsed: the next request probes it.
    Probe,
    /// Up.
    Up,
    /// Down, backoff still running: only tried when nothing else is left.
    Down,
}

impl NodeState {
    fn new(url: Url) -> Self {
        NodeState {
            url,
            reads: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            admin: AtomicU64::new(0),
            answered: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            marked_down: AtomicU64::new(0),
            outstanding: AtomicU64::new(0),
            probing: AtomicBool::new(false),
            health: Mutex::new(Health::default()),
        }
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.health.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn availability(&self, now: Instant) -> Availability {
        let h = self.health();
        if !h.down {
            Availability::Up
        } else if h.retry_at.is_none_or(|t| t <= now) && !self.probing.load(Ordering::Acquire) {
            Availability::Probe
        } else {
            Availability::Down
        }
    }

    /// False while the node is marked down.
    pub(crate) fn is_up(&self) -> bool {
        !self.health().down
    }

    /// Claims the probe of a down node (only one request probes at a time).
    pub(crate) fn claim_probe(&self) -> bool {
        self.probing
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Counts an attempt and returns a guard that keeps it outstanding until dropped.
    pub(crate) fn begin(self: &Arc<Self>, kind: RequestKind) -> InFlight {
        match kind {
            RequestKind::Read => &self.reads,
            RequestKind::Write => &self.writes,
            RequestKind::Admin => &self.admin,
        }
        .fetch_add(1, Ordering::Relaxed);
        self.outstanding.fetch_add(1, Ordering::AcqRel);
        InFlight {
            node: Arc::clone(self),
            start: Instant::now(),
        }
    }

    /// An answer arrived: the node is up; its service time feeds the EWMA. Returns true when
    /// the node was marked down until now (it came back).
    pub(crate) fn answered(&self, took: Duration) -> bool {
        self.answered.fetch_add(1, Ordering::Relaxed);
        self.probing.store(false, Ordering::Release);
        let mut h = self.health();
        let was_down = h.down;
        h.down = false;
        h.consecutive_failures = 0;
        h.retry_at = None;
        let s = took.as_secs_f64();
        h.ewma_secs = Some(match h.ewma_secs {
            None => s,
            Some(e) => EWMA_ALPHA * s + (1.0 - EWMA_ALPHA) * e,
        });
        was_down
    }

    /// A transport error. When `connect` (no connection could be made) the node is marked
    /// down and its next probe is scheduled with exponential backoff.
    pub(crate) fn failed(&self, connect: bool, policy: &HealthPolicy) {
        self.failed.fetch_add(1, Ordering::Relaxed);
        self.probing.store(false, Ordering::Release);
        if connect {
            self.mark_down(policy);
        }
    }

    /// Marks the node down (a failed connect or probe, or a cluster state that does not list
    /// it as live) and schedules its next probe with exponential backoff.
    pub(crate) fn mark_down(&self, policy: &HealthPolicy) {
        self.probing.store(false, Ordering::Release);
        let mut h = self.health();
        if !h.down {
            self.marked_down.fetch_add(1, Ordering::Relaxed);
        }
        h.down = true;
        h.consecutive_failures = h.consecutive_failures.saturating_add(1);
        let exp = (h.consecutive_failures - 1).min(20);
        let backoff = policy
            .initial_backoff
            .saturating_mul(1u32 << exp)
            .min(policy.max_backoff);
        h.retry_at = Some(Instant::now() + backoff);
    }

    fn score(&self) -> f64 {
        let h = self.health();
        let out = self.outstanding.load(Ordering::Acquire) as f64;
        h.ewma_secs.unwrap_or(0.0) * (out + 1.0)
    }

    pub(crate) fn stats(&self) -> NodeStats {
        let h = self.health();
        NodeStats {
            node: crate::redact::node_label(&self.url),
            up: !h.down,
            reads: self.reads.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            admin: self.admin.load(Ordering::Relaxed),
            answered: self.answered.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            marked_down: self.marked_down.load(Ordering::Relaxed),
            outstanding: self.outstanding.load(Ordering::Acquire),
            ewma: h.ewma_secs.map(Duration::from_secs_f64),
        }
    }
}

/// An attempt in flight; dropping it (also on cancellation) ends it.
#[derive(Debug)]
pub(crate) struct InFlight {
    pub(crate) node: Arc<NodeState>,
    start: Instant,
}

impl InFlight {
    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.node.outstanding.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Every node ever seen, by URL (a node that leaves the cluster keeps its counters).
#[derive(Debug, Default)]
pub(crate) struct NodePool {
    nodes: RwLock<HashMap<String, Arc<NodeState>>>,
    order: RwLock<Vec<String>>,
    rr: AtomicU64,
}

/// The key of a node: its URL without a trailing slash.
pub(crate) fn node_key(url: &Url) -> String {
    crate::redact::node_label(url)
        .trim_end_matches('/')
        .to_string()
}

impl NodePool {
    /// The state of `url`, created on first sight.
    pub(crate) fn get(&self, url: &Url) -> Arc<NodeState> {
        let key = node_key(url);
        if let Some(n) = self
            .nodes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Arc::clone(n);
        }
        let mut map = self.nodes.write().unwrap_or_else(|e| e.into_inner());
        Arc::clone(map.entry(key.clone()).or_insert_with(|| {
            self.order
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .push(key);
            Arc::new(NodeState::new(url.clone()))
        }))
    }

    /// Orders `candidates` (one preference tier) by availability, then by `policy`.
    /// Probes come first (a probe is the next real request after the backoff), then up
    /// nodes, then nodes still in backoff (tried only when nothing else answers).
    pub(crate) fn order(
        &self,
        candidates: Vec<Arc<NodeState>>,
        policy: Policy,
    ) -> Vec<Arc<NodeState>> {
        if candidates.is_empty() {
            return candidates;
        }
        let now = Instant::now();
        let start = (self.rr.fetch_add(1, Ordering::Relaxed) % candidates.len() as u64) as usize;
        let mut v: Vec<(Availability, usize, Arc<NodeState>)> = candidates
            .into_iter()
            .enumerate()
            .map(|(i, n)| (n.availability(now), i, n))
            .collect();
        v.rotate_left(start);
        // Stable sorts keep the round-robin rotation as the tie-breaker.
        match policy {
            Policy::RoundRobin => {}
            Policy::LeastOutstanding => {
                v.sort_by_key(|(_, _, n)| n.outstanding.load(Ordering::Acquire));
            }
            Policy::LatencyAware => {
                v.sort_by(|a, b| a.2.score().total_cmp(&b.2.score()));
            }
        }
        v.sort_by_key(|(a, _, _)| *a);
        v.into_iter().map(|(_, _, n)| n).collect()
    }

    /// Counters of every node, in the order they were first seen.
    pub(crate) fn stats(&self) -> Vec<NodeStats> {
        let order = self.order.read().unwrap_or_else(|e| e.into_inner()).clone();
        let map = self.nodes.read().unwrap_or_else(|e| e.into_inner());
        order
            .iter()
            .filter_map(|k| map.get(k))
            .map(|n| n.stats())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(p: u16) -> Url {
        Url::parse(&format!("http://127.0.0.1:{p}/solr")).expect("url")
    }

    #[test]
    fn policy_names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(p.as_str().parse::<Policy>().expect("parses"), p);
        }
        assert!("fastest".parse::<Policy>().is_err());
    }

    #[test]
    fn round_robin_rotates_and_down_nodes_go_last() {
        let pool = NodePool::default();
        let a = pool.get(&url(1));
        let b = pool.get(&url(2));
        let firsts: Vec<String> = (0..4)
            .map(|_| {
                pool.order(vec![a.clone(), b.clone()], Policy::RoundRobin)[0]
                    .url
                    .to_string()
            })
            .collect();
        assert_eq!(firsts[0], firsts[2]);
        assert_ne!(firsts[0], firsts[1]);
        let slow = HealthPolicy {
            initial_backoff: Duration::from_secs(3600),
            max_backoff: Duration::from_secs(3600),
        };
        a.failed(true, &slow);
        assert!(!a.is_up());
        for _ in 0..3 {
            let o = pool.order(vec![a.clone(), b.clone()], Policy::RoundRobin);
            assert_eq!(o[0].url, b.url);
            assert_eq!(o[1].url, a.url);
        }
        a.answered(Duration::from_millis(1));
        assert!(a.is_up());
        assert_eq!(pool.stats()[0].marked_down, 1);
    }

    #[test]
    fn elapsed_backoff_makes_a_probe_first() {
        let pool = NodePool::default();
        let a = pool.get(&url(1));
        let b = pool.get(&url(2));
        let now = HealthPolicy {
            initial_backoff: Duration::ZERO,
            max_backoff: Duration::ZERO,
        };
        a.failed(true, &now);
        let o = pool.order(vec![b.clone(), a.clone()], Policy::LeastOutstanding);
        assert_eq!(o[0].url, a.url);
        assert!(a.claim_probe());
        assert!(!a.claim_probe());
        let o = pool.order(vec![b.clone(), a.clone()], Policy::LeastOutstanding);
        assert_eq!(
            o[0].url, b.url,
            "a probe in progress is not handed out twice"
        );
    }

    #[test]
    fn least_outstanding_and_latency_aware() {
        let pool = NodePool::default();
        let a = pool.get(&url(1));
        let b = pool.get(&url(2));
        let _busy = a.begin(RequestKind::Read);
        for _ in 0..3 {
            assert_eq!(
                pool.order(vec![a.clone(), b.clone()], Policy::LeastOutstanding)[0].url,
                b.url
            );
        }
        drop(_busy);
        a.answered(Duration::from_millis(1));
        b.answered(Duration::from_millis(50));
        for _ in 0..3 {
            assert_eq!(
                pool.order(vec![a.clone(), b.clone()], Policy::LatencyAware)[0].url,
                a.url
            );
        }
    }
}
