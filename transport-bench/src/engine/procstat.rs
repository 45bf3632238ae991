//! Resource sampling from `/proc` at a fixed interval: the Solr JVM's CPU (100 % = one core,
//! as `top` shows it) and resident memory, and the host's CPU (100 % = every core busy).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One sample, covering the interval that ended at `at`.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// When the interval ended.
    pub at: Instant,
    /// Solr process CPU over the interval, % of one core (None without a pid).
    pub proc_cpu_pct: Option<f64>,
    /// Solr process resident set size, bytes (None without a pid).
    pub proc_rss_bytes: Option<u64>,
    /// Host CPU busy over the interval, % of all cores.
    pub host_cpu_pct: f64,
    /// Threads runnable on the host at the end of the interval (`procs_running`, this
    /// sampler included): above the core count means others wait for a CPU.
    pub host_runnable: Option<u64>,
}

/// Aggregates of the samples within one time window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Samples in the window.
    pub samples: usize,
    /// Mean Solr CPU %, one core = 100.
    pub proc_cpu_mean: Option<f64>,
    /// Max Solr CPU %.
    pub proc_cpu_max: Option<f64>,
    /// Max Solr RSS, MiB.
    pub proc_rss_max_mib: Option<f64>,
    /// Mean host CPU %, all cores = 100.
    pub host_cpu_mean: Option<f64>,
    /// Max host CPU %.
    pub host_cpu_max: Option<f64>,
    /// Mean runnable threads on the host.
    pub host_runnable_mean: Option<f64>,
}

/// Clock ticks per second of `/proc/*/stat` times (`getconf CLK_TCK`; 100 on Linux).
pub(crate) fn clk_tck() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .filter(|v| *v > 0.0)
        .unwrap_or(100.0)
}

/// utime + stime of `pid`, in ticks.
pub(crate) fn proc_ticks(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces: fields start after the last ')'.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After ")": state is field 3, so utime (14) and stime (15) are at 11 and 12.
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

fn proc_rss(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// (busy, total) jiffies over all CPUs from `/proc/stat`.
fn host_ticks() -> Option<(u64, u64)> {
    let s = std::fs::read_to_string("/proc/stat").ok()?;
    let line = s.lines().next()?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    if v.len() < 5 {
        return None;
    }
    // user nice system idle iowait irq softirq steal (guest counted inside user).
    let total: u64 = v.iter().take(8).sum();
    let idle = v[3] + v[4];
    Some((total - idle, total))
}

/// `procs_running` from `/proc/stat`.
fn host_runnable() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/stat").ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("procs_running "))
        .and_then(|v| v.trim().parse().ok())
}

/// A background thread sampling `/proc` every `interval` until dropped or stopped.
#[derive(Debug)]
pub struct Sampler {
    stop: Arc<AtomicBool>,
    samples: Arc<Mutex<Vec<Sample>>>,
    handle: Option<JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling the process `pid` (None: host only) every `interval`.
    pub fn start(pid: Option<u32>, interval: Duration) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let (s2, v2) = (stop.clone(), samples.clone());
        let interval = interval.max(Duration::from_millis(10));
        let handle = std::thread::spawn(move || {
            let tck = clk_tck();
            let mut last_t = Instant::now();
            let mut last_p = pid.and_then(proc_ticks);
            let mut last_h = host_ticks();
            while !s2.load(Ordering::Relaxed) {
                std::thread::sleep(interval);
                let now = Instant::now();
                let dt = now.duration_since(last_t).as_secs_f64();
                let p = pid.and_then(proc_ticks);
                let h = host_ticks();
                let proc_cpu_pct = match (last_p, p) {
                    (Some(a), Some(b)) if dt > 0.0 => {
                        Some(b.saturating_sub(a) as f64 / tck / dt * 100.0)
                    }
                    _ => None,
                };
                let host_cpu_pct = match (last_h, h) {
                    (Some((ba, ta)), Some((bb, tb))) if tb > ta => {
                        bb.saturating_sub(ba) as f64 / (tb - ta) as f64 * 100.0
                    }
                    _ => 0.0,
                };
                let sample = Sample {
                    at: now,
                    proc_cpu_pct,
                    proc_rss_bytes: pid.and_then(proc_rss),
                    host_cpu_pct,
                    host_runnable: host_runnable(),
                };
                v2.lock().unwrap_or_else(|e| e.into_inner()).push(sample);
                (last_t, last_p, last_h) = (now, p, h);
            }
        });
        Sampler {
            stop,
            samples,
            handle: Some(handle),
        }
    }

    /// Aggregates the samples whose interval ended within `[from, to]`.
    pub fn usage(&self, from: Instant, to: Instant) -> Usage {
        let v = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        let w: Vec<&Sample> = v.iter().filter(|s| s.at >= from && s.at <= to).collect();
        let mean = |xs: &[f64]| (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64);
        let max = |xs: &[f64]| {
            xs.iter()
                .copied()
                .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
        };
        let pc: Vec<f64> = w.iter().filter_map(|s| s.proc_cpu_pct).collect();
        let hc: Vec<f64> = w.iter().map(|s| s.host_cpu_pct).collect();
        let rss: Vec<f64> = w
            .iter()
            .filter_map(|s| s.proc_rss_bytes)
            .map(|b| b as f64 / 1048576.0)
            .collect();
        let run: Vec<f64> = w
            .iter()
            .filter_map(|s| s.host_runnable)
            .map(|n| n as f64)
            .collect();
        Usage {
            host_runnable_mean: mean(&run),
            samples: w.len(),
            proc_cpu_mean: mean(&pc),
            proc_cpu_max: max(&pc),
            proc_rss_max_mib: max(&rss),
            host_cpu_mean: mean(&hc),
            host_cpu_max: max(&hc),
        }
    }

    /// Stops the thread.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_own_process() {
        let pid = std::process::id();
        let mut s = Sampler::start(Some(pid), Duration::from_millis(20));
        let t0 = Instant::now();
        // Burn some CPU so the process shows up busy.
        let mut x = 0u64;
        while t0.elapsed() < Duration::from_millis(150) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let u = s.usage(t0, Instant::now());
        s.stop();
        assert!(u.samples >= 2, "{u:?}");
        assert!(u.proc_rss_max_mib.unwrap_or(0.0) > 0.0, "{u:?}");
        assert!(u.proc_cpu_max.unwrap_or(0.0) > 0.0, "{u:?}");
        assert!(u.host_cpu_mean.is_some());
        assert!(u.host_runnable_mean.unwrap_or(0.0) >= 1.0, "{u:?}");
    }
}
