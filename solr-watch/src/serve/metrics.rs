//! The aggregator behind `/metrics`: the metric families of the names contract, fed one
//! finished request at a time, and the processes they belong to, each dropped from the
//! exposition `forget_after` once it has exited.
//!
//! Time is passed in (`now`, from any fixed start), so tests drive it with a simulated
//! clock. Each process owns at most [`SERIES_PER_PROCESS`] series (every extra label takes
//! values from a closed set), so the exposition holds at most that many per process alive
//! or within its grace period.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};

use super::labels::{Labels, Who};

/// Encodings, update formats, findings and TLS libraries a process can have a series for,
/// plus the six label-free families: a bound on the series of one process.
pub const SERIES_PER_PROCESS: usize = 6 + 6 + 6 + FINDING_KINDS + 4;

/// Distinct finding ids (`report::findings`) that can hold for one process, at most.
const FINDING_KINDS: usize = 24;

/// One finished request (a response was read for it).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSample {
    /// First request byte to last response byte, seconds.
    pub wall_s: f64,
    /// The response's QTime, seconds, when it carried one.
    pub qtime_s: Option<f64>,
    /// Response body bytes as sent (content-encoded).
    pub response_bytes: u64,
    /// The response's content encoding ([`super::labels::encoding`]).
    pub encoding: &'static str,
    /// An update body: its format and bytes.
    pub update: Option<(&'static str, u64)>,
    /// It went on a connection that had already carried a request.
    pub reused: bool,
}

/// Which family a series is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Fam {
    Requests,
    Opened,
    Reused,
    Wall,
    Qtime,
    Outside,
    ResponseBytes,
    UpdateBytes,
    Findings,
    Unreadable,
}

/// A process and the series it owns.
#[derive(Debug)]
struct Proc {
    who: Who,
    series: HashSet<(Fam, Labels)>,
    exited_at: Option<Duration>,
}

type Hist = Family<Labels, Histogram, fn() -> Histogram>;

/// Latency buckets: 0.5 ms to about 16 s, doubling.
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

/// The metric families and the processes they hold series for.
#[derive(Debug)]
pub struct Metrics {
    host: String,
    registry: Registry,
    requests: Family<Labels, Counter>,
    opened: Family<Labels, Counter>,
    reused: Family<Labels, Counter>,
    wall: Hist,
    qtime: Hist,
    outside: Hist,
    response_bytes: Family<Labels, Counter>,
    update_bytes: Family<Labels, Counter>,
    findings: Family<Labels, Gauge>,
    unreadable: Family<Labels, Counter>,
    procs: HashMap<Option<u32>, Proc>,
}

impl Metrics {
    /// Empty families for `host` (the `host` label of every series).
    pub fn new(host: &str) -> Self {
        let mut m = Metrics {
            host: host.to_string(),
            registry: Registry::default(),
            requests: Family::default(),
            opened: Family::default(),
            reused: Family::default(),
            wall: Hist::new_with_constructor(seconds),
            qtime: Hist::new_with_constructor(seconds),
            outside: Hist::new_with_constructor(seconds),
            response_bytes: Family::default(),
            update_bytes: Family::default(),
            findings: Family::default(),
            unreadable: Family::default(),
            procs: HashMap::new(),
        };
        m.register();
        m
    }

    fn register(&mut self) {
        let r = &mut self.registry;
        r.register(
            "solr_watch_requests",
            "Requests that got a response",
            self.requests.clone(),
        );
        r.register(
            "solr_watch_connections_opened",
            "Connections to Solr opened while watched",
            self.opened.clone(),
        );
        r.register(
            "solr_watch_connections_reused_requests",
            "Requests that went on an already-used connection",
            self.reused.clone(),
        );
        let s = Unit::Seconds;
        let wall = "First request byte to last response byte";
        r.register_with_unit(
            "solr_watch_request_wall",
            wall,
            s.clone(),
            self.wall.clone(),
        );
        let q = "QTime the response carried";
        r.register_with_unit("solr_watch_qtime", q, s.clone(), self.qtime.clone());
        let o = "Wall time minus QTime, per request with a QTime";
        r.register_with_unit("solr_watch_outside_solr", o, s, self.outside.clone());
        let b = "Response body bytes as sent, by content encoding";
        let f = self.response_bytes.clone();
        r.register_with_unit("solr_watch_response", b, Unit::Bytes, f);
        let u = "Update request body bytes, by format";
        let f = self.update_bytes.clone();
        r.register_with_unit("solr_watch_update", u, Unit::Bytes, f);
        let h = "1 while the finding holds for the process";
        r.register("solr_watch_findings", h, self.findings.clone());
        let t = "TLS connections whose requests could not be read";
        let f = self.unreadable.clone();
        r.register("solr_watch_unreadable_connections", t, f);
    }

    /// The process `who`, known from now on (a pid seen again with another name or cgroup
    /// is a new process: the old one's series go).
    fn proc(&mut self, who: &Who) -> &mut Proc {
        if self.procs.get(&who.pid).is_some_and(|p| &p.who != who) {
            self.forget(who.pid);
        }
        self.procs.entry(who.pid).or_insert_with(|| Proc {
            who: who.clone(),
            series: HashSet::new(),
            exited_at: None,
        })
    }

    fn labels(&mut self, fam: Fam, who: &Who, extra: Option<(&'static str, &str)>) -> Labels {
        let l = who.labels(&self.host, extra);
        self.proc(who).series.insert((fam, l.clone()));
        l
    }

    fn add(&mut self, fam: Fam, who: &Who, extra: Option<(&'static str, &str)>, n: u64) {
        let l = self.labels(fam, who, extra);
        let f = match fam {
            Fam::Requests => &self.requests,
            Fam::Opened => &self.opened,
            Fam::Reused => &self.reused,
            Fam::ResponseBytes => &self.response_bytes,
            Fam::UpdateBytes => &self.update_bytes,
            Fam::Unreadable => &self.unreadable,
            Fam::Wall | Fam::Qtime | Fam::Outside | Fam::Findings => return,
        };
        f.get_or_create(&l).inc_by(n);
    }

    fn observe(&mut self, fam: Fam, who: &Who, v: f64) {
        let l = self.labels(fam, who, None);
        let h = match fam {
            Fam::Wall => &self.wall,
            Fam::Qtime => &self.qtime,
            _ => &self.outside,
        };
        h.get_or_create(&l).observe(v);
    }

    /// One finished request of `who`.
    pub fn request(&mut self, who: &Who, r: &RequestSample) {
        self.add(Fam::Requests, who, None, 1);
        if r.reused {
            self.add(Fam::Reused, who, None, 1);
        }
        self.observe(Fam::Wall, who, r.wall_s);
        if let Some(q) = r.qtime_s {
            self.observe(Fam::Qtime, who, q);
            self.observe(Fam::Outside, who, (r.wall_s - q).max(0.0));
        }
        let enc = Some(("encoding", r.encoding));
        self.add(Fam::ResponseBytes, who, enc, r.response_bytes);
        if let Some((format, bytes)) = r.update {
            self.add(Fam::UpdateBytes, who, Some(("format", format)), bytes);
        }
    }

    /// `who` opened a connection to Solr.
    pub fn connection_opened(&mut self, who: &Who) {
        self.add(Fam::Opened, who, None, 1);
    }

    /// A TLS connection of `who` whose requests could not be read.
    pub fn unreadable_connection(&mut self, who: &Who, tls_library: &str) {
        self.add(Fam::Unreadable, who, Some(("tls_library", tls_library)), 1);
    }

    /// The findings (stable ids) that hold for `who` now: 1 for each, the others' series
    /// removed.
    pub fn set_findings(&mut self, who: &Who, ids: &BTreeSet<String>) {
        let holds = |l: &Labels| ids.iter().any(|i| l.last().is_some_and(|v| &v.1 .0 == i));
        let p = self.proc(who);
        let stale: Vec<Labels> = p
            .series
            .iter()
            .filter(|(f, l)| *f == Fam::Findings && !holds(l))
            .map(|(_, l)| l.clone())
            .collect();
        for l in &stale {
            p.series.remove(&(Fam::Findings, l.clone()));
        }
        for l in &stale {
            self.findings.remove(l);
        }
        for id in ids.iter().take(FINDING_KINDS) {
            let l = self.labels(Fam::Findings, who, Some(("finding", id)));
            self.findings.get_or_create(&l).set(1);
        }
    }

    /// Marks the processes that `alive` says are gone as exited at `now`, and drops the
    /// series of those that exited `forget_after` or more ago. The pids forgotten.
    pub fn sweep(
        &mut self,
        now: Duration,
        forget_after: Duration,
        alive: impl Fn(u32) -> bool,
    ) -> Vec<u32> {
        let mut gone = Vec::new();
        for (pid, p) in &mut self.procs {
            let Some(pid) = *pid else { continue };
            if p.exited_at.is_none() && !alive(pid) {
                p.exited_at = Some(now);
            }
            if p.exited_at
                .is_some_and(|t| now.saturating_sub(t) >= forget_after)
            {
                gone.push(pid);
            }
        }
        for pid in &gone {
            self.forget(Some(*pid));
        }
        gone
    }

    /// Drops every series of process `pid`.
    fn forget(&mut self, pid: Option<u32>) {
        let Some(p) = self.procs.remove(&pid) else {
            return;
        };
        for (fam, l) in p.series {
            let _ = match fam {
                Fam::Requests => self.requests.remove(&l),
                Fam::Opened => self.opened.remove(&l),
                Fam::Reused => self.reused.remove(&l),
                Fam::Wall => self.wall.remove(&l),
                Fam::Qtime => self.qtime.remove(&l),
                Fam::Outside => self.outside.remove(&l),
                Fam::ResponseBytes => self.response_bytes.remove(&l),
                Fam::UpdateBytes => self.update_bytes.remove(&l),
                Fam::Findings => self.findings.remove(&l),
                Fam::Unreadable => self.unreadable.remove(&l),
            };
        }
    }

    /// Whether process `pid` has series.
    pub fn knows(&self, pid: u32) -> bool {
        self.procs.contains_key(&Some(pid))
    }

    /// Processes known (alive or within their grace period).
    pub fn processes(&self) -> usize {
        self.procs.len()
    }

    /// Series in the exposition (a histogram counts once): those the processes own.
    pub fn series(&self) -> usize {
        self.procs.values().map(|p| p.series.len()).sum()
    }

    /// The OpenMetrics text exposition (ends with `# EOF`).
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut out = String::new();
        encode(&mut out, &self.registry)?;
        Ok(out)
    }
}
