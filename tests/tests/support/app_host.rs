//! An application host of a fleet, on one machine: a network namespace of its own joined to
//! the root namespace by a veth pair (transport-bench's [`ClientNamespace`]: `198.19.X.2/30`
//! on the namespace's side, 127.0.0.0/8 routed through the veth, so a client in it reaches
//! the local Solr at its usual `http://127.0.0.1:PORT/solr` URL). Only the commands the test
//! runs in it open connections there, so a watcher on its veth sees that host's clients and
//! nobody else's.
//!
//! The watcher is `transport-bench watch --serve` run as a child process inside the
//! namespace (`ip netns exec`): this test binary again, told by [`WATCH_ARGS`] to run the
//! CLI with those arguments instead of the test ([`run_watch_child_if_asked`]). Dropping the
//! host kills the watcher (by its pid) and deletes the namespace and its veth pair.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use transport_bench::engine::witness::isolation::ClientNamespace;

/// Set in the watcher's process: the CLI arguments, as JSON.
pub const WATCH_ARGS: &str = "E2E_FLEET_WATCH_ARGS";

/// Port of the watcher's `/metrics` on the namespace's address (the namespace is the test's
/// own: nothing else listens there).
pub const METRICS_PORT: u16 = 9464;

/// One host: its namespace, its address, its watcher once started.
pub struct AppHost {
    /// The `host` label its watcher exports.
    pub label: String,
    addr: Ipv4Addr,
    watcher: Option<Child>,
    log: PathBuf,
    ns: ClientNamespace,
}

impl AppHost {
    /// Creates the namespace of host `label` (root needed).
    pub fn create(label: &str) -> AppHost {
        let ns = ClientNamespace::create().expect("a client namespace (root needed)");
        let addr = namespace_addr(ns.name(), ns.device());
        let log = std::env::temp_dir().join(crate::support::tag(&format!("watch-{label}")));
        AppHost {
            label: label.to_string(),
            addr,
            watcher: None,
            log,
            ns,
        }
    }

    /// `ADDR:PORT` where Prometheus scrapes the watcher (from the root namespace).
    pub fn target(&self) -> String {
        format!("{}:{METRICS_PORT}", self.addr)
    }

    /// Starts `watch --serve` on the namespace's veth, watching `solr_port`, exporting
    /// `--host-label LABEL` (a test named `test` of this binary, re-run as the watcher);
    /// waits until its `/metrics` answers and its capture runs (it says `watching tcp port`
    /// once the capture is open; the metrics are served a moment before).
    pub fn start_watch(&mut self, solr_port: u16, test: &str) {
        let args: Vec<String> = [
            "transport-bench",
            "watch",
            "--interface",
            self.ns.device(),
            "--port",
            &solr_port.to_string(),
            "--serve",
            &self.target(),
            "--host-label",
            &self.label,
            "--quiet",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([self.log.with_extension("out").display().to_string()])
        .collect();
        let log = std::fs::File::create(&self.log).expect("watcher log");
        let child = Command::new("ip")
            .args(["netns", "exec", self.ns.name()])
            .arg(std::env::current_exe().expect("test binary"))
            .args(["--exact", test, "--nocapture", "--test-threads=1"])
            .env(WATCH_ARGS, serde_json::to_string(&args).expect("json"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("ip netns exec runs");
        self.watcher = Some(child);
        self.wait_metrics();
    }

    fn wait_metrics(&mut self) {
        let url = format!("http://{}/metrics", self.target());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ok = Command::new("curl")
                .args(["-sf", "-o", "/dev/null", &url])
                .status()
                .is_ok_and(|s| s.success());
            if ok && self.watch_log().contains("watching tcp port") {
                return;
            }
            let exited = self
                .watcher
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "the watcher of {} never served {url} (exit {exited:?}):\n{}",
                self.label,
                self.watch_log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What the watcher printed.
    pub fn watch_log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Runs `program ARGS` inside the namespace; panics with its stderr unless it succeeds.
    pub fn run(&self, program: &str, args: &[String]) -> Output {
        let out = Command::new("ip")
            .args(["netns", "exec", self.ns.name(), program])
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program} in {}: {e}", self.label));
        assert!(
            out.status.success(),
            "{program} {args:?} in {} failed: {}",
            self.label,
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

impl Drop for AppHost {
    fn drop(&mut self) {
        if let Some(mut c) = self.watcher.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_file(&self.log);
        let _ = std::fs::remove_dir_all(self.log.with_extension("out"));
    }
}

/// The IPv4 address of `device` in namespace `ns`.
fn namespace_addr(ns: &str, device: &str) -> Ipv4Addr {
    let out = Command::new("ip")
        .args(["-n", ns, "-4", "-o", "addr", "show", "dev", device])
        .output()
        .expect("ip runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .skip_while(|w| *w != "inet")
        .nth(1)
        .and_then(|cidr| cidr.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no IPv4 address on {device} in {ns}: {text}"))
}

/// In the watcher's process ([`WATCH_ARGS`] set): runs the CLI with those arguments and
/// exits with its code, never returning. Otherwise returns at once.
pub async fn run_watch_child_if_asked() {
    let Some(json) = std::env::var_os(WATCH_ARGS) else {
        return;
    };
    let args: Vec<String> =
        serde_json::from_str(&json.to_string_lossy()).expect("watcher arguments");
    let cli = transport_bench::cli::Cli::parse_from(args);
    std::process::exit(transport_bench::cli::exit_code(cli).await);
}
