//! `watch --ebpf --serve`: the kernel's events into the aggregator, labelled by process
//! (`pid`, `comm`, `cgroup`, `container` where known). After every drain of the ring
//! buffer (about every 100 ms) the answered requests of each open connection are taken
//! out, and the connections that closed are ended and dropped.
//!
//! Exit: once a second, every process with series whose `/proc/PID` is gone is marked
//! exited at that moment; its series leave the exposition `forget_after` later (a pid
//! taken again by another command or cgroup before then starts new series at once).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::findings::Windows;
use super::harvest::{end, harvest, Cursor};
use super::http::Shared;
use super::labels::Who;
use crate::ebpf::probes::Probes;
use crate::ebpf::process::ProcessInfo;
use crate::ebpf::session::Session;
use crate::ebpf::EbpfOptions;

/// Whether process `pid` still runs: its `/proc` entry is there.
pub fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// The labels of process `pid`.
fn who(processes: &BTreeMap<u32, ProcessInfo>, pid: u32) -> Who {
    match processes.get(&pid) {
        Some(p) => Who {
            pid: Some(pid),
            comm: Some(p.comm.clone()),
            cgroup: p.cgroup.clone(),
            container: p.container_id.clone(),
        },
        None => Who {
            pid: Some(pid),
            ..Who::default()
        },
    }
}

/// The harvesting state between passes.
#[derive(Debug)]
pub struct EbpfServe {
    metrics: Shared,
    forget_after: Duration,
    cursors: HashMap<usize, Cursor>,
    windows: Windows,
    start: Instant,
    last_sweep: Option<Duration>,
}

impl EbpfServe {
    /// Harvests the connections to `port` into `metrics`; exited processes go
    /// `forget_after` after their exit.
    pub fn new(port: u16, metrics: Shared, forget_after: Duration) -> Self {
        EbpfServe {
            metrics,
            forget_after,
            cursors: HashMap::new(),
            windows: Windows::new(port),
            start: Instant::now(),
            last_sweep: None,
        }
    }

    /// Connections whose harvest state is held (open ones that carried a request).
    pub fn held(&self) -> usize {
        self.cursors.len()
    }

    /// The findings windows: (processes, connections) held.
    pub fn windows(&self) -> (usize, usize) {
        self.windows.held()
    }

    /// One pass, now: see [`EbpfServe::pass_at`].
    pub fn pass(&mut self, s: &mut Session) {
        self.pass_at(s, self.start.elapsed(), &alive);
    }

    /// One pass at `now` (from the start): the open connections' answered requests, the
    /// ended connections, and once a second the processes `alive` says have exited.
    pub fn pass_at(&mut self, s: &mut Session, now: Duration, alive: &dyn Fn(u32) -> bool) {
        let mut m = self.metrics.lock().unwrap_or_else(|e| e.into_inner());
        let (live, procs) = s.live_mut();
        for k in live {
            let cur = self.cursors.entry(k.conn.id).or_default();
            harvest(&mut k.conn, cur, &who(procs, k.pid), &mut m);
        }
        for mut k in s.take_done() {
            let mut cur = self.cursors.remove(&k.conn.id).unwrap_or_default();
            let w = who(&s.processes, k.pid);
            end(&mut k.conn, &mut cur, &w, &mut m, "unknown");
            self.windows.ended(&w, k.conn, cur.recent);
        }
        s.clear_accepted();
        self.windows.judge(now, &mut m);
        if self
            .last_sweep
            .is_some_and(|t| now.saturating_sub(t) < Duration::from_secs(1))
        {
            return;
        }
        self.last_sweep = Some(now);
        for pid in m.sweep(now, self.forget_after, alive) {
            s.forget_process(pid);
            self.windows.forget(pid);
        }
        let stale: Vec<u32> = s
            .processes
            .keys()
            .copied()
            .filter(|&p| !m.knows(p) && !alive(p))
            .collect();
        for pid in stale {
            s.forget_process(pid);
        }
    }

    /// The watch stops: every open connection ends.
    pub fn end_all(&mut self, s: &mut Session) {
        self.pass(s);
        let mut m = self.metrics.lock().unwrap_or_else(|e| e.into_inner());
        let (live, procs) = s.live_mut();
        for k in live {
            let mut cur = self.cursors.remove(&k.conn.id).unwrap_or_default();
            end(&mut k.conn, &mut cur, &who(procs, k.pid), &mut m, "unknown");
        }
    }
}

/// Watches with `probes` into `metrics` until `opts.duration` passes or `stop` is set.
pub fn serve(
    probes: &Probes,
    opts: &EbpfOptions,
    stop: &AtomicBool,
    metrics: Shared,
    forget_after: Duration,
) -> Result<()> {
    let session = Rc::new(RefCell::new(Session::default()));
    let port = opts.ports.first().copied().unwrap_or(0);
    let mut st = EbpfServe::new(port, metrics, forget_after);
    let s = session.clone();
    probes.run_with(session, opts.duration, stop, || {
        st.pass(&mut s.borrow_mut())
    })?;
    st.end_all(&mut s.borrow_mut());
    Ok(())
}
