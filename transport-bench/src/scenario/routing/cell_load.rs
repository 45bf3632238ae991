//! The load of one routing cell: the indexer at the cell's write level, the closed-loop
//! readers, and the lag prober, each recording into the cell's [`Collected`].

use std::time::{Duration, Instant};

use solr_client::{Select, SolrClient};
use tokio::task::JoinHandle;

use super::cell::{search, with, CellRun, Collected};
use super::cells::Ctx;
use super::nodes::{key, lock};
use super::{RoutingConfig, WriteLevel};
use crate::engine::workload::Generator;

/// The indexer: batches through the leader at `level` (paced, or as fast as acknowledged).
pub(super) fn spawn_indexer(
    ctx: &Ctx<'_>,
    level: WriteLevel,
    n: usize,
    cell_prefix: &str,
    run: &CellRun,
) -> JoinHandle<()> {
    let a = ctx.a;
    let (w, col, deadline) = (ctx.writer.clone(), run.col.clone(), run.deadline);
    let batch = a.write_batch;
    let period = match level {
        WriteLevel::Rate(r) => Some(Duration::from_secs_f64(batch as f64 / r)),
        WriteLevel::Max => None,
    };
    let (prefix, seed) = (format!("{cell_prefix}w-"), a.seed ^ 0x1D ^ n as u64);
    tokio::spawn(async move {
        let mut gen = Generator::new(seed, 0);
        let mut next = Instant::now();
        let mut i = 0;
        loop {
            if let Some(p) = period {
                if next > Instant::now() {
                    tokio::time::sleep_until(next.into()).await;
                }
                next += p;
            }
            if Instant::now() >= deadline {
                break;
            }
            let docs: Vec<_> = (i..i + batch).map(|k| gen.doc(&prefix, k)).collect();
            i += batch;
            match w.add(&docs).await {
                Ok(r) => lock(&col).docs_acked += r.docs_sent as u64,
                Err(_) => lock(&col).write_errors += 1,
            }
        }
    })
}

/// The readers: `--readers` closed loops of searches until the deadline.
pub(super) fn spawn_readers(a: &RoutingConfig, n: usize, run: &CellRun) -> Vec<JoinHandle<()>> {
    (0..a.readers)
        .map(|t| {
            let (r, col, extra) = (run.reader.clone(), run.col.clone(), run.extra.clone());
            let (seed, rows) = (a.seed ^ ((n as u64) << 8) ^ t as u64, a.rows);
            let (cloud, deadline) = (run.cloud, run.deadline);
            tokio::spawn(async move {
                let mut gen = Generator::new(seed, 0);
                while Instant::now() < deadline {
                    let (q, fq) = gen.query();
                    let s = Select::new(q).rows(rows);
                    let s = match fq {
                        Some(f) => s.fq(f),
                        None => s,
                    };
                    let s = with(s, &extra);
                    let t0 = Instant::now();
                    let res = search(&r, &s, cloud).await;
                    let ms = t0.elapsed().as_secs_f64() * 1e3;
                    let mut c = lock(&col);
                    match res {
                        Ok((resp, served)) => {
                            let node = key(&resp.timing.node);
                            *c.reads_by_node.entry(node.clone()).or_default() += 1;
                            if let Some(core) = served {
                                *c.served_by_core.entry(core).or_default() += 1;
                            }
                            c.searches
                                .push((ms, resp.header.qtime.map(f64::from), node));
                        }
                        Err(_) => c.read_errors += 1,
                    }
                }
            })
        })
        .collect()
}

/// The lag prober: adds one document through the leader, searches for it through the
/// preference under test until found; then the next one, until the deadline.
pub(super) fn spawn_prober(
    ctx: &Ctx<'_>,
    n: usize,
    cell_prefix: &str,
    run: &CellRun,
) -> JoinHandle<()> {
    let a = ctx.a;
    let (w, r, col) = (ctx.writer.clone(), run.reader.clone(), run.col.clone());
    let (extra, cloud, deadline) = (run.extra.clone(), run.cloud, run.deadline);
    let prefix = format!("{cell_prefix}p-");
    let poll = Duration::from_millis(a.probe_poll_ms);
    let timeout = Duration::from_secs_f64(a.probe_timeout);
    let seed = a.seed ^ 0x9B ^ n as u64;
    tokio::spawn(async move {
        let mut gen = Generator::new(seed, 0);
        let mut i = 0;
        while Instant::now() < deadline {
            let id = format!("{prefix}{i}");
            let doc = gen.doc(&prefix, i);
            i += 1;
            let acked_at = match w.add(std::slice::from_ref(&doc)).await {
                Ok(_) => Instant::now(),
                Err(_) => {
                    lock(&col).write_errors += 1;
                    tokio::time::sleep(poll).await;
                    continue;
                }
            };
            lock(&col).lag.probes += 1;
            let s = with(
                Select::new(format!("{{!terms f=id}}{id}")).fl("id").rows(1),
                &extra,
            );
            let probe = Probe {
                reader: &r,
                select: &s,
                cloud,
                acked_at,
                timeout,
            };
            while !probe.once(&col).await {
                tokio::time::sleep(poll).await;
            }
        }
    })
}

/// One probe document being looked for.
struct Probe<'a> {
    reader: &'a SolrClient,
    select: &'a Select,
    cloud: bool,
    acked_at: Instant,
    timeout: Duration,
}

impl Probe<'_> {
    /// One search for the document; true once it was found or given up on (timeout).
    async fn once(&self, col: &std::sync::Mutex<Collected>) -> bool {
        let sent = Instant::now();
        let res = search(self.reader, self.select, self.cloud).await;
        let mut c = lock(col);
        c.lag.reads += 1;
        let mut found = false;
        match res {
            Ok((resp, served)) => {
                *c.reads_by_node.entry(key(&resp.timing.node)).or_default() += 1;
                if let Some(core) = served {
                    *c.served_by_core.entry(core).or_default() += 1;
                }
                if resp.num_found() > 0 {
                    c.lag.seen += 1;
                    let s = sent.saturating_duration_since(self.acked_at).as_secs_f64();
                    c.lags.push(s * 1e3);
                    found = true;
                }
            }
            Err(_) => c.read_errors += 1,
        }
        if !found && self.acked_at.elapsed() > self.timeout {
            c.lag.unseen += 1;
            found = true;
        }
        found
    }
}
