//! A real auth gateway in front of the local Solr: Debian's `nginx` (installed by
//! `scripts/setup.sh`), started by the test as a foreground process on a free loopback port
//! with a config the test writes. It admits a request only with `Authorization: Bearer T`
//! for a token T the test has allowed ([`Gateway::allow`]); the check is nginx's
//! `auth_request` to an internal location that tests whether the file `tokens/T` exists, so
//! a token is revoked at once, without a reload ([`Gateway::revoke`]). Refused requests get
//! `401` with a `WWW-Authenticate: Bearer` challenge. The access log records, per request,
//! the method, URI, status, the `X-Tenant` and `X-Request-Tag` headers and the
//! `Authorization` scheme (never its value), and the W3C `traceparent` header.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::skip::{self, Installable};

const NGINX: &str = "/usr/sbin/nginx";

/// A running nginx gateway; stopped (and its directory removed) on drop.
pub struct Gateway {
    child: Child,
    dir: PathBuf,
    port: u16,
}

impl Gateway {
    /// Starts the gateway in front of the Solr node at `solr_url` (`http://127.0.0.1:P/solr`).
    /// None, recorded in the skip ledger, when nginx is not installed.
    pub fn start(solr_url: &str, name: &str) -> Option<Gateway> {
        if !Path::new(NGINX).exists() {
            skip::record(
                name,
                "nginx is not installed (scripts/setup.sh installs it)",
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
        let dir = std::env::temp_dir().join(crate::support::tag("nginx-gw"));
        for sub in ["tokens", "tmp", "logs"] {
            std::fs::create_dir_all(dir.join(sub)).expect("gateway dirs");
        }
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            std::fs::write(dir.join("nginx.conf"), config(&dir, port, &upstream))
                .expect("write nginx.conf");
            match launch(&dir, port) {
                Ok(child) => return Some(Gateway { child, dir, port }),
                Err(e) => last = e,
            }
        }
        panic!("nginx gateway did not start: {last}");
    }

    /// The gateway's Solr base URL (`http://127.0.0.1:PORT/solr`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/solr", self.port)
    }

    /// Admits `token` from now on.
    pub fn allow(&self, token: &str) {
        std::fs::write(self.dir.join("tokens").join(token), b"").expect("allow token");
    }

    /// Refuses `token` from now on (the next request carrying it gets 401).
    pub fn revoke(&self, token: &str) {
        std::fs::remove_file(self.dir.join("tokens").join(token)).expect("revoke token");
    }

    /// The access log lines so far.
    pub fn log_lines(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("logs/access.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The access log lines containing `needle` (a tag is logged as `tag="T"`, a tenant as
    /// `tenant="T"`).
    pub fn matching(&self, needle: &str) -> Vec<String> {
        self.log_lines()
            .into_iter()
            .filter(|l| l.contains(needle))
            .collect()
    }
}

impl Drop for Gateway {
    /// Stops nginx through its own `-s stop` (SIGTERM to the master, which stops its
    /// workers: a SIGKILL to the master would leave them running), then removes the state.
    fn drop(&mut self) {
        let _ = nginx(&self.dir)
            .args(["-s", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let until = Instant::now() + Duration::from_secs(5);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The nginx command on the gateway state in `dir`.
fn nginx(dir: &Path) -> Command {
    let mut c = Command::new(NGINX);
    c.arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .arg("-e")
        .arg(dir.join("logs/error.log"));
    c
}

/// A loopback port free now (bound by the kernel, then released for nginx).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    l.local_addr().expect("addr").port()
}

/// Starts nginx on `dir`'s config and waits until it accepts connections on `port`.
fn launch(dir: &Path, port: u16) -> Result<Child, String> {
    let mut child = nginx(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {NGINX}: {e}"))?;
    let until = Instant::now() + Duration::from_secs(15);
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(dir.join("logs/error.log")).unwrap_or_default();
            return Err(format!("nginx exited ({status}): {log}"));
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(child);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err("nginx did not listen within 15 s".into())
}

/// The gateway's nginx.conf. Run by root, nginx's workers drop to `nobody`: the state
/// directory is made readable for them, and bodies are streamed (no temporary files).
fn config(dir: &Path, port: u16, upstream: &str) -> String {
    let d = dir.display();
    let root = runs_as_root();
    if root {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
    }
    let user = if root { "user nobody nogroup;" } else { "" };
    format!(
        r#"daemon off;
master_process on;
worker_processes 1;
{user}
pid {d}/nginx.pid;
error_log {d}/logs/error.log info;
events {{ worker_connections 256; }}
http {{
  log_format gw '$request_method $uri status=$status tenant="$http_x_tenant" tag="$http_x_request_tag" scheme=$auth_scheme traceparent="$http_traceparent"';
  access_log {d}/logs/access.log gw;
  client_body_temp_path {d}/tmp/body;
  proxy_temp_path {d}/tmp/proxy;
  fastcgi_temp_path {d}/tmp/fastcgi;
  uwsgi_temp_path {d}/tmp/uwsgi;
  scgi_temp_path {d}/tmp/scgi;
  map $http_authorization $bearer {{
    "~^Bearer (?<t>[A-Za-z0-9_~-]+)$" $t;
    default "-";
  }}
  map $http_authorization $auth_scheme {{
    "~^(?<s>[A-Za-z]+) " $s;
    default none;
  }}
  server {{
    listen 127.0.0.1:{port};
    client_max_body_size 0;
    location /solr/ {{
      auth_request /_token;
      error_page 401 = @denied;
      proxy_pass http://{upstream};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_request_buffering off;
      proxy_buffering off;
    }}
    location = /_token {{
      internal;
      if (-f {d}/tokens/$bearer) {{ return 204; }}
      return 401;
    }}
    location @denied {{
      add_header WWW-Authenticate 'Bearer realm="solr-gateway"' always;
      default_type application/json;
      return 401 '{{"error":"invalid or expired bearer token"}}';
    }}
  }}
}}
"#
    )
}

/// True when this process runs as root (nginx then needs a `user` for its workers).
fn runs_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}
