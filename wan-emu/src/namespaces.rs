//! The two network namespaces, `PREFIX-app` and `PREFIX-solr`, made with iproute2's `ip`.
//!
//! Set-up is idempotent: namespaces of the same prefix left by a crashed run (its pid file
//! names a dead process) are deleted first; a prefix in use by a live process is an error.
//! Teardown ([`Namespaces::remove`], also on drop) deletes both and the pid file.
//!
//! A thread enters a namespace with `setns(CLONE_NEWNET)`; everything it creates afterwards
//! (sockets, threads, a tokio runtime's workers) lives there, while sockets created before
//! keep their own namespace. [`run_in`] and [`bind_in`] use that.

use std::fs::File;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};
use nix::sched::CloneFlags;

/// Where the pid files of running topologies live.
const PID_DIR: &str = "/run/transport-bench";

/// Checks what the WAN topology needs and names what is missing.
pub fn check_prerequisites() -> Result<()> {
    let mut missing = Vec::new();
    if !nix::unistd::geteuid().is_root() {
        missing.push(
            "root (network namespaces need CAP_SYS_ADMIN, TUN devices CAP_NET_ADMIN): \
             run as root or with sudo, or drop --rtt/--bandwidth to stay on loopback",
        );
    }
    if Command::new("ip").arg("-V").output().is_err() {
        missing.push("the `ip` command (Debian package iproute2: apt-get install iproute2)");
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        missing.push("/dev/net/tun (the tun kernel module: modprobe tun)");
    }
    if missing.is_empty() {
        Ok(())
    } else {
        bail!("WAN emulation needs {}", missing.join("; and "))
    }
}

/// Runs `ip ARGS`, failing with its stderr.
pub fn ip(args: &[&str]) -> Result<()> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .context("cannot run `ip` (iproute2)")?;
    if !out.status.success() {
        bail!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

fn ns_exists(name: &str) -> bool {
    std::path::Path::new("/run/netns").join(name).exists()
}

fn pid_alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
}

/// The namespace pair of one topology.
#[derive(Debug)]
pub struct Namespaces {
    /// Client side, e.g. `stb-app`.
    pub app: String,
    /// Server side, e.g. `stb-solr`.
    pub solr: String,
    pid_file: PathBuf,
    removed: bool,
}

impl Namespaces {
    /// Creates `PREFIX-app` and `PREFIX-solr` (loopback up in each), removing stale ones of a
    /// crashed run first.
    pub fn create(prefix: &str) -> Result<Namespaces> {
        check_prerequisites()?;
        if prefix.is_empty()
            || prefix.len() > 10
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            bail!("bad namespace prefix {prefix:?} (1 to 10 of [A-Za-z0-9-])");
        }
        std::fs::create_dir_all(PID_DIR).with_context(|| format!("cannot create {PID_DIR}"))?;
        let pid_file = PathBuf::from(PID_DIR).join(format!("{prefix}.pid"));
        let me = std::process::id() as i32;
        if let Ok(text) = std::fs::read_to_string(&pid_file) {
            if let Ok(pid) = text.trim().parse::<i32>() {
                if pid != me && pid_alive(pid) {
                    bail!(
                        "WAN namespaces {prefix}-app/{prefix}-solr are in use by process {pid} \
                         ({}); wait for it or pick another prefix",
                        pid_file.display()
                    );
                }
            }
        }
        let ns = Namespaces {
            app: format!("{prefix}-app"),
            solr: format!("{prefix}-solr"),
            pid_file,
            removed: false,
        };
        for name in [&ns.app, &ns.solr] {
            if ns_exists(name) {
                eprintln!("wan: removing stale namespace {name} from an earlier run");
                ip(&["netns", "del", name])?;
            }
        }
        std::fs::write(&ns.pid_file, format!("{me}\n"))
            .with_context(|| format!("cannot write {}", ns.pid_file.display()))?;
        for name in [&ns.app, &ns.solr] {
            ip(&["netns", "add", name])?;
            ip(&["-n", name, "link", "set", "lo", "up"])?;
        }
        // Only the client runs in the app namespace: its kernel counters are the client's.
        crate::owned::register_owned(&std::path::Path::new("/run/netns").join(&ns.app))?;
        Ok(ns)
    }

    /// Deletes both namespaces and the pid file (idempotent).
    pub fn remove(&mut self) -> Result<()> {
        if self.removed {
            return Ok(());
        }
        self.removed = true;
        let mut first_err = None;
        crate::owned::forget_owned_path(&std::path::Path::new("/run/netns").join(&self.app));
        for name in [&self.app, &self.solr] {
            if ns_exists(name) {
                if let Err(e) = ip(&["netns", "del", name]) {
                    first_err.get_or_insert(e);
                }
            }
        }
        let _ = std::fs::remove_file(&self.pid_file);
        first_err.map_or(Ok(()), Err)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        if let Err(e) = self.remove() {
            eprintln!("wan: teardown: {e:#}");
        }
    }
}

/// Moves the calling thread into namespace `name` for the rest of its life.
pub fn enter(name: &str) -> Result<()> {
    let path = PathBuf::from("/run/netns").join(name);
    let f = File::open(&path).with_context(|| format!("no namespace {}", path.display()))?;
    nix::sched::setns(&f, CloneFlags::CLONE_NEWNET)
        .with_context(|| format!("setns into {name}"))?;
    Ok(())
}

/// Runs `f` on a new thread inside namespace `name` and returns its result. Threads `f`
/// spawns (for example a tokio runtime's workers) inherit the namespace.
pub fn run_in<T, F>(name: &str, f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    let name = name.to_string();
    std::thread::Builder::new()
        .name(format!("ns-{name}"))
        .spawn(move || {
            enter(&name)?;
            f()
        })
        .context("cannot spawn a thread")?
        .join()
        .map_err(|_| anyhow::anyhow!("the thread in namespace panicked"))?
}

/// A listening TCP socket bound to `addr` inside namespace `name` (non-blocking, ready for
/// tokio). The socket stays in that namespace whichever thread uses it later.
pub fn bind_in(name: &str, addr: SocketAddr) -> Result<TcpListener> {
    run_in(name, move || {
        let l = TcpListener::bind(addr).with_context(|| format!("bind {addr}"))?;
        l.set_nonblocking(true)?;
        Ok(l)
    })
}
