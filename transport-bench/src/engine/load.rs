//! Load drivers: a closed loop (N workers, each sends its next request when the previous
//! answered) and an open loop (requests scheduled at a target rate, constant or Poisson).
//!
//! In the open loop each request's latency is measured from its *scheduled* start, so a
//! slow server cannot hide behind requests that were never sent (coordinated omission, as
//! wrk2 and rally correct it); the service time from the actual start is kept beside it.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use solr_client::Timing;
use tokio::time::Instant;

/// How requests are issued.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Load {
    /// `concurrency` workers back to back.
    Closed {
        /// Workers.
        concurrency: usize,
    },
    /// A target rate in requests per second.
    Open {
        /// Requests per second.
        rate: f64,
        /// Exponential inter-arrival times (Poisson process) instead of a constant gap.
        poisson: bool,
        /// Most requests in flight at once; a start beyond it is late.
        max_in_flight: usize,
    },
}

/// How a run's parameters show the load: `closed, concurrency 4`, or `open, 50 req/s,
/// poisson, at most 64 in flight` (`constant` instead of `poisson` for a fixed gap).
impl std::fmt::Display for Load {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Load::Closed { concurrency } => write!(f, "closed, concurrency {concurrency}"),
            Load::Open {
                rate,
                poisson,
                max_in_flight,
            } => write!(
                f,
                "open, {rate} req/s, {}, at most {max_in_flight} in flight",
                if poisson { "poisson" } else { "constant" }
            ),
        }
    }
}

/// What happened to one request.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Index of the operation in the workload.
    pub index: usize,
    /// The client's timing record, or the error text.
    pub result: Result<Timing, String>,
    /// Open loop: from the scheduled start to the end (corrected latency).
    pub latency_from_schedule: Option<Duration>,
    /// Open loop: how late the request started compared with its schedule.
    pub start_delay: Option<Duration>,
}

/// Runs operations `0..n` under `load`; `op(i)` performs operation `i`.
pub async fn run<F, Fut>(
    load: Load,
    n: usize,
    seed: u64,
    op: F,
    on_done: impl Fn() + Send + Sync + Clone + 'static,
) -> Vec<Outcome>
where
    F: Fn(usize) -> Fut + Send + Sync + Clone + 'static,
    Fut: Future<Output = Result<Timing, String>> + Send + 'static,
{
    let mut out = match load {
        Load::Closed { concurrency } => closed(concurrency.max(1), n, op, on_done).await,
        Load::Open {
            rate,
            poisson,
            max_in_flight,
        } => open(rate, poisson, max_in_flight.max(1), n, seed, op, on_done).await,
    };
    out.sort_by_key(|o| o.index);
    out
}

async fn closed<F, Fut>(
    concurrency: usize,
    n: usize,
    op: F,
    on_done: impl Fn() + Send + Sync + Clone + 'static,
) -> Vec<Outcome>
where
    F: Fn(usize) -> Fut + Send + Sync + Clone + 'static,
    Fut: Future<Output = Result<Timing, String>> + Send + 'static,
{
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..concurrency {
        let (next, op, on_done) = (next.clone(), op.clone(), on_done.clone());
        workers.push(tokio::spawn(async move {
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let result = op(i).await;
                on_done();
                done.push(Outcome {
                    index: i,
                    result,
                    latency_from_schedule: None,
                    start_delay: None,
                });
            }
            done
        }));
    }
    let mut all = Vec::with_capacity(n);
    for w in workers {
        if let Ok(v) = w.await {
            all.extend(v);
        }
    }
    all
}

/// The scheduled offsets of `n` requests at `rate` per second.
pub fn schedule(rate: f64, poisson: bool, n: usize, seed: u64) -> Vec<Duration> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut t = 0.0f64;
    (0..n)
        .map(|_| {
            let at = Duration::from_secs_f64(t);
            let gap = if poisson {
                let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
                -u.ln() / rate
            } else {
                1.0 / rate
            };
            t += gap;
            at
        })
        .collect()
}

async fn open<F, Fut>(
    rate: f64,
    poisson: bool,
    max_in_flight: usize,
    n: usize,
    seed: u64,
    op: F,
    on_done: impl Fn() + Send + Sync + Clone + 'static,
) -> Vec<Outcome>
where
    F: Fn(usize) -> Fut + Send + Sync + Clone + 'static,
    Fut: Future<Output = Result<Timing, String>> + Send + 'static,
{
    let slots = Arc::new(tokio::sync::Semaphore::new(max_in_flight));
    let t0 = Instant::now();
    let mut tasks = Vec::with_capacity(n);
    for (i, offset) in schedule(rate, poisson, n, seed).into_iter().enumerate() {
        let scheduled = t0 + offset;
        tokio::time::sleep_until(scheduled).await;
        let Ok(permit) = slots.clone().acquire_owned().await else {
            break;
        };
        let (op, on_done) = (op.clone(), on_done.clone());
        tasks.push(tokio::spawn(async move {
            let started = Instant::now();
            let result = op(i).await;
            let end = Instant::now();
            drop(permit);
            on_done();
            Outcome {
                index: i,
                result,
                latency_from_schedule: Some(end - scheduled),
                start_delay: Some(started.saturating_duration_since(scheduled)),
            }
        }));
    }
    let mut all = Vec::with_capacity(n);
    for t in tasks {
        if let Ok(o) = t.await {
            all.push(o);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_reads_as_words_not_as_a_struct() {
        let closed = Load::Closed { concurrency: 4 };
        assert_eq!(closed.to_string(), "closed, concurrency 4");
        let open = Load::Open {
            rate: 50.5,
            poisson: true,
            max_in_flight: 64,
        };
        assert_eq!(
            open.to_string(),
            "open, 50.5 req/s, poisson, at most 64 in flight"
        );
    }

    #[test]
    fn constant_and_poisson_schedules_hit_the_rate() {
        let c = schedule(100.0, false, 101, 1);
        assert_eq!(c[100], Duration::from_secs(1));
        let p = schedule(100.0, true, 10_001, 1);
        let secs = p[10_000].as_secs_f64();
        assert!(
            (90.0..110.0).contains(&secs),
            "10k Poisson arrivals at 100/s span {secs} s"
        );
        assert_eq!(
            schedule(50.0, true, 10, 9),
            schedule(50.0, true, 10, 9),
            "seeded"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn open_loop_counts_lateness_from_the_schedule() {
        // A 50 ms operation at 100/s with 1 slot: each start is later than scheduled.
        let out = run(
            Load::Open {
                rate: 100.0,
                poisson: false,
                max_in_flight: 1,
            },
            5,
            1,
            |_| async {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Ok(Timing::default())
            },
            || {},
        )
        .await;
        assert_eq!(out.len(), 5);
        let last = &out[4];
        assert!(last.start_delay.expect("open loop") >= Duration::from_millis(150));
        assert!(last.latency_from_schedule.expect("open loop") >= Duration::from_millis(200));
    }
}
