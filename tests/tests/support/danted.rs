//! A real SOCKS5 proxy for the SOCKS tests: Debian's `danted` (package `dante-server`,
//! installed by `scripts/setup.sh`), started in the foreground on a free loopback port with
//! its own configuration and log, stopped (by its pid) on drop.
//!
//! Its log has one `pass(1): tcp/connect [: ...` line per tunnel it opened to a node, and a
//! `block(1): tcp/accept ]: ...` line per client it refused (with the reason): the proxy's
//! own count.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How clients authenticate to the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocksMethod {
    /// `socksmethod: none`.
    None,
    /// `socksmethod: username` (RFC 1929, checked against the system's password database).
    Username,
}

/// A running danted.
pub struct Danted {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    log: PathBuf,
    dir: PathBuf,
}

impl Danted {
    /// Starts danted with `method`; waits until it accepts connections. None (recorded in
    /// the skip ledger) when danted is not installed.
    pub fn start(method: SocksMethod) -> Option<Danted> {
        let dir = std::env::temp_dir().join(crate::support::tag("danted"));
        std::fs::create_dir_all(&dir).expect("danted dir");
        let port = free_port();
        let log = dir.join("danted.log");
        let method = match method {
            SocksMethod::None => "none",
            SocksMethod::Username => "username",
        };
        // Run as root (as the tests may be), danted switches to `user.unprivileged` for its
        // work; the log is opened before that.
        let conf = format!(
            "logoutput: {log}\ninternal: 127.0.0.1 port = {port}\nexternal: 127.0.0.1\n\
             clientmethod: none\nsocksmethod: {method}\nuser.privileged: root\n\
             user.unprivileged: nobody\n\
             client pass {{\n  from: 127.0.0.0/8 to: 0.0.0.0/0\n  log: connect disconnect error\n}}\n\
             socks pass {{\n  from: 127.0.0.0/8 to: 0.0.0.0/0\n  command: connect\n  \
             log: connect disconnect error\n}}\n",
            log = log.display()
        );
        let conf_path = dir.join("danted.conf");
        std::fs::write(&conf_path, conf).expect("danted config");
        let child = match Command::new("danted")
            .arg("-f")
            .arg(&conf_path)
            .arg("-p")
            .arg(dir.join("danted.pid"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                crate::support::skip::record(
                    "SOCKS5 through danted",
                    &format!("danted does not start ({e}): apt-get install dante-server"),
                    crate::support::skip::Installable::BySetup,
                );
                let _ = std::fs::remove_dir_all(&dir);
                return None;
            }
        };
        let d = Danted {
            child,
            addr: format!("127.0.0.1:{port}"),
            log,
            dir,
        };
        d.wait_listening(port);
        Some(d)
    }

    /// `scheme://127.0.0.1:PORT`, with `user:password@` when given.
    pub fn url(&self, scheme: &str, user: Option<(&str, &str)>) -> String {
        match user {
            Some((u, p)) => format!("{scheme}://{u}:{p}@{}", self.addr),
            None => format!("{scheme}://{}", self.addr),
        }
    }

    fn wait_listening(&self, port: u16) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "danted did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        // The probe was one client that closed without a request: wait until danted logged
        // it, so the counts start after it.
        while self.log_lines("tcp/accept ]").is_empty() {
            assert!(Instant::now() < deadline, "danted logged no connection");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The log lines containing `needle`.
    pub fn log_lines(&self, needle: &str) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(needle))
            .map(str::to_string)
            .collect()
    }

    /// Tunnels to a node the proxy opened so far (one per client connection it passed).
    pub fn tunnels(&self) -> usize {
        self.log_lines("pass(1): tcp/connect [:").len()
    }

    /// Tunnels opened so far to `127.0.0.1:port` (danted writes it `127.0.0.1.port`, last
    /// on the line).
    pub fn tunnels_to(&self, port: u16) -> usize {
        let to = format!(" 127.0.0.1.{port}");
        self.log_lines("pass(1): tcp/connect [:")
            .iter()
            .filter(|l| l.trim_end().ends_with(&to))
            .count()
    }

    /// The reasons of the clients the proxy refused so far.
    pub fn refusals(&self) -> Vec<String> {
        self.log_lines("block(1): tcp/accept ]")
            .into_iter()
            .filter_map(|l| l.split_once(" seconds: ").map(|(_, r)| r.to_string()))
            .collect()
    }

    /// The refusals once there are `want` (danted logs from its own processes, a moment
    /// after the client saw the refusal; a refused password goes through PAM first, which on
    /// a loaded machine has taken over two seconds), or what there are after twenty seconds.
    pub fn refusals_reaching(&self, want: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let r = self.refusals();
            if r.len() >= want || Instant::now() >= deadline {
                return r;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Danted {
    /// SIGTERM first, so danted stops (and reaps) the processes it forked; SIGKILL if it
    /// has not exited within two seconds.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(2);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A loopback port free a moment ago (danted cannot be told to pick one).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    l.local_addr().expect("addr").port()
}
