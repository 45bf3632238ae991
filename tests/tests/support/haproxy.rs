//! A real TLS terminator that requires a client certificate: Debian's `haproxy` (installed
//! by `scripts/setup.sh`; its own service is not used), started by the test in the
//! foreground, unprivileged, on free loopback ports with a config the test writes, and
//! stopped (by its pid) on drop.
//!
//! Three frontends in front of one Solr node: `https` with `verify required` against the
//! local CA (`local-solr/run/tls/ca.pem`), TLS 1.3 allowed (the default: negotiated); the
//! same at most TLS 1.2; and plain HTTP/1.1 only (h2c off), for an HTTP/2 client that
//! expects h2c.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::skip::{self, Installable};

const HAPROXY: &str = "/usr/sbin/haproxy";

/// A running HAProxy; stopped (and its directory removed) on drop.
pub struct Haproxy {
    child: Child,
    dir: PathBuf,
    /// The `verify required` frontend, TLS 1.2 or 1.3.
    pub tls13: u16,
    /// The `verify required` frontend, at most TLS 1.2.
    pub tls12: u16,
    /// The plain HTTP/1.1 frontend (no h2c).
    pub plain: u16,
}

impl Haproxy {
    /// Starts HAProxy in front of the Solr node at `solr_url`, with the TLS material in
    /// `tls_dir` (`server.pem`, `server.key`, `ca.pem`). None, recorded in the skip ledger,
    /// when haproxy is not installed.
    pub fn start(solr_url: &str, tls_dir: &Path, name: &str) -> Option<Haproxy> {
        if !Path::new(HAPROXY).exists() {
            skip::record(
                name,
                "haproxy is not installed (scripts/setup.sh installs it)",
                Installable::BySetup,
            );
            return None;
        }
        let upstream = url::Url::parse(solr_url).expect("Solr URL");
        let upstream = format!(
            "{}:{}",
            upstream.host_str().expect("host"),
            upstream.port().expect("port")
        );
        let dir = std::env::temp_dir().join(crate::support::tag("haproxy"));
        std::fs::create_dir_all(&dir).expect("haproxy dir");
        let mut pem = std::fs::read(tls_dir.join("server.pem")).expect("server.pem");
        pem.extend(std::fs::read(tls_dir.join("server.key")).expect("server.key"));
        std::fs::write(dir.join("server.pem"), pem).expect("combined pem");
        let mut last = String::new();
        for _ in 0..3 {
            let ports = [free_port(), free_port(), free_port()];
            let conf = config(&dir, tls_dir, ports, &upstream);
            std::fs::write(dir.join("haproxy.cfg"), conf).expect("haproxy.cfg");
            match launch(&dir, &ports) {
                Ok(child) => {
                    return Some(Haproxy {
                        child,
                        dir,
                        tls13: ports[0],
                        tls12: ports[1],
                        plain: ports[2],
                    })
                }
                Err(e) => last = e,
            }
        }
        panic!("haproxy did not start: {last}");
    }

    /// The Solr base URL behind `port` (`https` for the TLS frontends).
    pub fn url(&self, port: u16) -> String {
        let scheme = if port == self.plain { "http" } else { "https" };
        format!("{scheme}://127.0.0.1:{port}/solr")
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A loopback port free now (bound by the kernel, then released for haproxy).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    l.local_addr().expect("addr").port()
}

/// Starts haproxy on `dir`'s config and waits until every frontend accepts connections.
fn launch(dir: &Path, ports: &[u16]) -> Result<Child, String> {
    let log = std::fs::File::create(dir.join("haproxy.log")).map_err(|e| e.to_string())?;
    let mut child = Command::new(HAPROXY)
        .arg("-db")
        .arg("-f")
        .arg(dir.join("haproxy.cfg"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot run {HAPROXY}: {e}"))?;
    let until = Instant::now() + Duration::from_secs(15);
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(dir.join("haproxy.log")).unwrap_or_default();
            return Err(format!("haproxy exited ({status}): {log}"));
        }
        let up = ports
            .iter()
            .all(|p| std::net::TcpStream::connect(("127.0.0.1", *p)).is_ok());
        if up {
            return Ok(child);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err("haproxy did not listen within 15 s".into())
}

/// The config: two `verify required` TLS frontends and a plain HTTP/1.1 one, all to Solr.
fn config(dir: &Path, tls: &Path, ports: [u16; 3], upstream: &str) -> String {
    let (d, t) = (dir.display(), tls.display());
    let [p13, p12, plain] = ports;
    format!(
        r#"global
  maxconn 256
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend tls13
  bind 127.0.0.1:{p13} ssl crt {d}/server.pem ca-file {t}/ca.pem verify required alpn h2,http/1.1
  default_backend solr
frontend tls12
  bind 127.0.0.1:{p12} ssl crt {d}/server.pem ca-file {t}/ca.pem verify required alpn h2,http/1.1 ssl-max-ver TLSv1.2
  default_backend solr
frontend plain
  bind 127.0.0.1:{plain} proto h1
  option disable-h2-upgrade
  default_backend solr
backend solr
  server solr {upstream}
"#
    )
}
