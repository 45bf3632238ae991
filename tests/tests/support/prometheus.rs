//! A real Prometheus for the fleet test: Debian's `prometheus` (installed by
//! `scripts/setup.sh`; its packaged service is stopped), started by the test in the
//! foreground with a config it writes (one job scraping the given targets every second), its
//! storage in a temporary folder, its web API on a free loopback port; stopped (by its pid)
//! and its folder removed on drop. Queried through its HTTP API (`/api/v1/query`) with curl.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::skip::{self, Installable};

const PROMETHEUS: &str = "/usr/bin/prometheus";

/// The job name the test's config gives its targets (the `job` label of every series).
pub const JOB: &str = "solr-watch";

/// One series of an instant query's answer: its labels and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The series' labels (`__name__` absent after an aggregation).
    pub labels: BTreeMap<String, String>,
    /// Its value at the query's time.
    pub value: f64,
}

/// A running Prometheus; stopped (and its folder removed) on drop.
pub struct Prometheus {
    child: Child,
    dir: PathBuf,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Prometheus {
    /// Starts Prometheus scraping `targets` (`host:port`, path `/metrics`) every second and
    /// evaluating the rule file `rules` (if any) every second; waits until its API answers.
    /// None, recorded in the skip ledger, when Prometheus is not installed.
    pub fn start(targets: &[String], rules: Option<&Path>, name: &str) -> Option<Prometheus> {
        if !Path::new(PROMETHEUS).exists() {
            skip::record(
                name,
                "prometheus is not installed (scripts/setup.sh installs it)",
                Installable::BySetup,
            );
            return None;
        }
        let dir = std::env::temp_dir().join(crate::support::tag("prometheus"));
        std::fs::create_dir_all(dir.join("data")).expect("prometheus dir");
        let list: Vec<String> = targets.iter().map(|t| format!("'{t}'")).collect();
        let rule_files = rules.map_or(String::new(), |r| {
            format!("rule_files:\n  - '{}'\n", r.display())
        });
        let conf = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             {rule_files}scrape_configs:\n  - job_name: {JOB}\n    static_configs:\n      \
             - targets: [{}]\n",
            list.join(", ")
        );
        std::fs::write(dir.join("prometheus.yml"), conf).expect("prometheus.yml");
        let port = free_port();
        let log = std::fs::File::create(dir.join("prometheus.log")).expect("log file");
        let child = Command::new(PROMETHEUS)
            .arg(format!(
                "--config.file={}",
                dir.join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .arg("--log.level=warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("prometheus starts");
        let p = Prometheus {
            child,
            dir,
            url: format!("http://127.0.0.1:{port}"),
        };
        p.wait_ready();
        Some(p)
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ok = Command::new("curl")
                .args(["-sf", "-o", "/dev/null", &format!("{}/-/ready", self.url)])
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "prometheus not ready in 30 s: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What Prometheus logged (warnings and errors).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("prometheus.log")).unwrap_or_default()
    }

    /// The answer to the instant query `promql` (now), one [`Sample`] per series, sorted by
    /// labels. Panics with Prometheus' own error on a bad query.
    pub fn query(&self, promql: &str) -> Vec<Sample> {
        let out = Command::new("curl")
            .args(["-sS", "--get", "--data-urlencode"])
            .arg(format!("query={promql}"))
            .arg(format!("{}/api/v1/query", self.url))
            .output()
            .expect("curl runs");
        let body: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{promql}: not JSON ({e}): {out:?}"));
        assert_eq!(body["status"], "success", "{promql}: {body}");
        assert_eq!(body["data"]["resultType"], "vector", "{promql}: {body}");
        let mut samples: Vec<Sample> = body["data"]["result"]
            .as_array()
            .expect("result list")
            .iter()
            .map(|r| Sample {
                labels: serde_json::from_value(r["metric"].clone()).expect("labels"),
                value: r["value"][1]
                    .as_str()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("{promql}: value of {r}")),
            })
            .collect();
        samples.sort_by(|a, b| a.labels.cmp(&b.labels));
        samples
    }

    /// `promql`'s answer as `label value -> value`, for a query aggregated `by (label)`.
    pub fn by(&self, label: &str, promql: &str) -> BTreeMap<String, f64> {
        self.query(promql)
            .into_iter()
            .map(|s| {
                let key = s.labels.get(label).cloned();
                (
                    key.unwrap_or_else(|| panic!("{promql}: no {label}")),
                    s.value,
                )
            })
            .collect()
    }

    /// The one value of a query that answers one series (a `sum` over everything).
    pub fn scalar(&self, promql: &str) -> f64 {
        match self.query(promql).as_slice() {
            [one] => one.value,
            other => panic!("{promql}: expected one series, got {other:?}"),
        }
    }

    /// Every rule Prometheus loaded: its name and health (`ok`, `err` with the error, or
    /// `unknown` before its first evaluation).
    pub fn rules(&self) -> Vec<(String, String)> {
        let out = Command::new("curl")
            .args(["-sS", &format!("{}/api/v1/rules", self.url)])
            .output()
            .expect("curl runs");
        let body: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(body["status"], "success", "{body}");
        let groups = body["data"]["groups"].as_array().expect("groups");
        groups
            .iter()
            .flat_map(|g| g["rules"].as_array().expect("rules"))
            .map(|r| {
                let health = match r["health"].as_str().expect("health") {
                    "err" => format!("err: {}", r["lastError"]),
                    h => h.to_string(),
                };
                (r["name"].as_str().expect("name").to_string(), health)
            })
            .collect()
    }

    /// Waits until every target of the job was scraped successfully at or after `after`
    /// (Unix seconds): what the query answers from then on reflects what the targets
    /// exported at that time. Panics after `limit`.
    pub fn wait_scraped_after(&self, targets: usize, after: f64, limit: Duration) {
        let deadline = Instant::now() + limit;
        // `timestamp()` of a bare selector is the sample's (scrape's) time; of `up == 1` it
        // would be the query's.
        let q = format!("timestamp(up{{job=\"{JOB}\"}}) and up{{job=\"{JOB}\"}} == 1");
        loop {
            let seen = self.query(&q);
            if seen.len() == targets && seen.iter().all(|s| s.value >= after) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "not every target scraped after {after}: {seen:?}\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Unix time now, in seconds.
pub fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// A loopback port free a moment ago (Prometheus cannot be told to pick one).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    l.local_addr().expect("addr").port()
}
