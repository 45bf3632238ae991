//! A real HTTP proxy that wants credentials: Debian's `squid` (installed by
//! `scripts/setup.sh`; its own service is not used), started by the test in the foreground
//! (`-N`) on a free loopback port with its own config, log and `basic_ncsa_auth` password
//! file in a temporary folder, and stopped (by its pid) on drop.
//!
//! It allows `CONNECT` only to the ports it is given (another port: 403) and anything else
//! only with the user's password (else 407, to `CONNECT` and to forwarded requests alike).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::skip::{self, Installable};

const SQUID: &str = "/usr/sbin/squid";
const NCSA: &str = "/usr/lib/squid/basic_ncsa_auth";

/// A running squid; stopped (and its directory removed) on drop.
pub struct Squid {
    child: Child,
    dir: PathBuf,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Squid {
    /// Starts squid allowing `CONNECT` to `connect_ports` and requests from `user` with
    /// `password`. None, recorded in the skip ledger, when squid is not installed.
    pub fn start(connect_ports: &[u16], user: &str, password: &str, name: &str) -> Option<Squid> {
        if !Path::new(SQUID).exists() || !Path::new(NCSA).exists() {
            skip::record(
                name,
                "squid is not installed (scripts/setup.sh installs it)",
                Installable::BySetup,
            );
            return None;
        }
        let dir = std::env::temp_dir().join(crate::support::tag("squid"));
        std::fs::create_dir_all(&dir).expect("squid dir");
        // Run by root, squid drops to its own user: the folder must be theirs to write.
        use std::os::unix::fs::PermissionsExt;
        let open = std::fs::Permissions::from_mode(0o777);
        std::fs::set_permissions(&dir, open).expect("squid dir mode");
        let hash = Command::new("openssl")
            .args(["passwd", "-apr1", password])
            .output()
            .expect("openssl passwd");
        let hash = String::from_utf8(hash.stdout).expect("hash");
        std::fs::write(dir.join("passwd"), format!("{user}:{}\n", hash.trim()))
            .expect("password file");
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            std::fs::write(dir.join("squid.conf"), config(&dir, port, connect_ports))
                .expect("squid.conf");
            match launch(&dir, port) {
                Ok(child) => {
                    let url = format!("http://127.0.0.1:{port}");
                    return Some(Squid { child, dir, url });
                }
                Err(e) => last = e,
            }
        }
        panic!("squid did not start: {last}");
    }
}

impl Drop for Squid {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A loopback port free now (bound by the kernel, then released for squid).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    l.local_addr().expect("addr").port()
}

/// Starts squid on `dir`'s config and waits until it accepts connections on `port`.
fn launch(dir: &Path, port: u16) -> Result<Child, String> {
    let log = std::fs::File::create(dir.join("stderr.log")).map_err(|e| e.to_string())?;
    let mut child = Command::new(SQUID)
        .args(["-N", "-f"])
        .arg(dir.join("squid.conf"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot run {SQUID}: {e}"))?;
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(dir.join("stderr.log")).unwrap_or_default();
            let cache = std::fs::read_to_string(dir.join("cache.log")).unwrap_or_default();
            return Err(format!("squid exited ({status}): {log} {cache}"));
        }
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(child);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err("squid did not listen within 30 s".into())
}

/// The config: basic auth from the password file, `CONNECT` to `connect_ports` only, no
/// cache, every file in `dir`.
fn config(dir: &Path, port: u16, connect_ports: &[u16]) -> String {
    let d = dir.display();
    let ports: Vec<String> = connect_ports.iter().map(u16::to_string).collect();
    let ports = ports.join(" ");
    format!(
        r#"http_port 127.0.0.1:{port}
pid_filename {d}/squid.pid
cache_log {d}/cache.log
access_log stdio:{d}/access.log
cache deny all
cache_mem 8 MB
coredump_dir {d}
netdb_filename none
pinger_enable off
shutdown_lifetime 0 seconds
auth_param basic program {NCSA} {d}/passwd
auth_param basic realm solr-proxy
acl tunnel_ports port {ports}
acl CONNECT method CONNECT
acl authed proxy_auth REQUIRED
http_access deny CONNECT !tunnel_ports
http_access allow authed
http_access deny all
"#
    )
}
