//! A real HTTP proxy for the proxy tests: Debian's `tinyproxy` (installed by
//! `scripts/setup.sh`), started unprivileged in the foreground on a free loopback port with
//! its own configuration and log, stopped (by its pid) on drop.
//!
//! Its log at level `Connect` has one `Connect (file descriptor N): 127.0.0.1` line per
//! client connection it accepted and one `Request (file descriptor N): ...` line per
//! request line it read (`CONNECT host:port` or `GET http://...`): the proxy's own count.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The addresses of transport-bench's client namespaces (`198.19.X.2`, see
/// `transport_bench::witness::isolation`): a study run as root reaches the proxy from there.
pub const CLIENT_NAMESPACES: &str = "198.19.0.0/16";

/// What the proxy allows.
pub struct ProxyRules {
    /// The only port `CONNECT` may open (tinyproxy's `ConnectPort`; another port is 403).
    pub connect_port: u16,
    /// `BasicAuth user password`: the proxy answers 407 without them.
    pub basic_auth: Option<(&'static str, &'static str)>,
}

/// A running tinyproxy.
pub struct TinyProxy {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    log: PathBuf,
    _dir: TempDir,
}

/// A folder removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl TinyProxy {
    /// Starts tinyproxy with `rules`; waits until it accepts connections.
    pub fn start(rules: &ProxyRules) -> TinyProxy {
        let dir = std::env::temp_dir().join(crate::support::tag("tinyproxy"));
        std::fs::create_dir_all(&dir).expect("proxy dir");
        let port = free_port();
        let log = dir.join("tinyproxy.log");
        let mut conf = format!(
            "Port {port}\nListen 127.0.0.1\nTimeout 600\nMaxClients 100\nLogLevel Connect\n\
             LogFile \"{}\"\nAllow 127.0.0.1\nAllow {CLIENT_NAMESPACES}\nConnectPort {}\n",
            log.display(),
            rules.connect_port
        );
        if let Some((user, password)) = rules.basic_auth {
            conf.push_str(&format!("BasicAuth {user} {password}\n"));
        }
        let conf_path = dir.join("tinyproxy.conf");
        std::fs::write(&conf_path, conf).expect("proxy config");
        let child = Command::new("tinyproxy")
            .arg("-d")
            .arg("-c")
            .arg(&conf_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("tinyproxy starts (scripts/setup.sh installs it)");
        let proxy = TinyProxy {
            child,
            url: format!("http://127.0.0.1:{port}"),
            log,
            _dir: TempDir(dir),
        };
        proxy.wait_listening(port);
        proxy
    }

    fn wait_listening(&self, port: u16) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "tinyproxy did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // The probe was one connection: wait until it is logged, so counts start after it.
        while self.accepted() == 0 {
            assert!(Instant::now() < deadline, "tinyproxy logged no connection");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log_lines(&self, needle: &str) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(needle))
            .map(str::to_string)
            .collect()
    }

    /// Client connections the proxy accepted so far (its own log).
    pub fn accepted(&self) -> usize {
        self.log_lines("]: Connect (file descriptor").len()
    }

    /// Client connections the proxy accepted so far from addresses starting with `prefix`
    /// (`198.19.`: a client namespace; `127.`: the root namespace).
    pub fn accepted_from(&self, prefix: &str) -> usize {
        self.log_lines("]: Connect (file descriptor")
            .iter()
            .filter(|l| {
                l.rsplit_once("): ")
                    .is_some_and(|(_, from)| from.trim().starts_with(prefix))
            })
            .count()
    }

    /// The request lines the proxy read so far (`CONNECT 127.0.0.1:8984 HTTP/1.1`, ...).
    pub fn requests(&self) -> Vec<String> {
        self.log_lines("]: Request (file descriptor")
            .into_iter()
            .filter_map(|l| l.split_once("): ").map(|(_, r)| r.to_string()))
            .collect()
    }
}

impl Drop for TinyProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port free a moment ago (tinyproxy cannot be told to pick one).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    l.local_addr().expect("addr").port()
}
