//! Isolating the kernel witness: the client runs in a network namespace of its own, so the
//! namespace's `Tcp: ActiveOpens` counts the client's connects and nobody else's.
//!
//! `/proc/net/snmp` counts per network namespace. On a shared machine, other processes'
//! connects land in the root namespace's counter (+0 to +6 per window were seen), so a
//! client measured there cannot be told apart from them. Loopback runs therefore put the
//! client's sockets in a project-owned namespace, `stbc-PID-N`, joined to the root namespace
//! by a veth pair, with kernel routing only (no proxy, no extra hop in user space):
//!
//! ```text
//! namespace stbc-PID-N  device stbcPID-Nc  198.19.X.2/30  route 127.0.0.0/8 dev stbcPID-Nc
//!     | veth (MTU 65535, like loopback's 65536)
//! root namespace        device stbcPID-Nr  198.19.X.1/30  Solr listening on 127.0.0.1
//! ```
//!
//! N counts the namespaces this process created (modulo 100), so that runs at once in one
//! process (tests, a library user) each have their own names, devices and subnet.
//!
//! The client keeps its URL (`http://127.0.0.1:PORT/solr`): in its namespace, 127.0.0.0/8
//! is not local (the address is removed from `lo`) but routed through the veth, and both
//! veth ends accept 127/8 addresses (`route_localnet=1`, per device). Solr's answers leave
//! from 127.0.0.1 to the client's 198.19.X.2. Each connection is one TCP connection from
//! the client to Solr, as on loopback; only the client's sockets live in the namespace.
//!
//! Which witness counts what, so that they agree by construction:
//! - kernel `Tcp: ActiveOpens` of the client's namespace: `connect()` calls that sent a
//!   SYN (refused and timed-out ones included); `TcpExt: TCPSynRetrans`: SYNs sent again;
//! - pcap on the namespace's veth: first SYNs to the Solr port (retransmitted SYNs apart);
//! - the connector: TCP connects that succeeded.
//!
//! All three are equal when every connect succeeded; a refused or timed-out connect shows
//! in the kernel and pcap counts and as a connect error among the requests.
//!
//! Isolation needs root (namespaces, veth) and a Solr at an IPv4 loopback address
//! ([`why_not_isolated`]). Otherwise the kernel's count is reported but marked "not
//! isolated" and left out of the witnesses' agreement. The WAN topology's app namespace
//! ([`wan_emu`]) is isolated the same way and registers itself ([`register_owned`]).

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use wan_emu::namespaces::{ip, run_in};

/// Name prefix of the client namespaces (`stbc-PID-N`).
pub const PREFIX: &str = "stbc-";

/// N of the next namespace this process creates.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// Held while a namespace is set up: the free-subnet check and the address it finds are one
/// step for the threads of this process.
static SETTING_UP: Mutex<()> = Mutex::new(());

use wan_emu::owned::register_owned;
use wan_emu::owned::{forget_owned, ns_id};

/// Why the client cannot be isolated for `url` (the Solr, or the proxy the client connects
/// to), or None when it can: root is needed, and a host at an IPv4 loopback address (a remote Solr's connections cross the machine's own
/// network stack; `localhost` may resolve to `::1` first, which cannot be routed).
pub fn why_not_isolated(url: &str) -> Option<String> {
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) if a.is_loopback() => {}
        _ => {
            return Some(format!(
                "the host the client connects to, {host:?}, is not an IPv4 loopback address: other processes' \
                 connects in this network namespace are counted too"
            ))
        }
    }
    if !nix::unistd::geteuid().is_root() {
        return Some(
            "not root: the client cannot get a network namespace of its own, so other \
             processes' connects are counted too"
                .into(),
        );
    }
    if std::process::Command::new("ip").arg("-V").output().is_err() {
        return Some("the `ip` command (iproute2) is missing".into());
    }
    None
}

/// The client's own network namespace and its veth link to the root namespace. Dropping it
/// deletes both.
#[derive(Debug)]
pub struct ClientNamespace {
    name: String,
    device: String,
    id: (u64, u64),
    removed: bool,
}

fn pid_alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
}

/// The pid in a client namespace's name (`stbc-PID-N`, or `stbc-PID` from older runs).
fn owner_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?;
    rest.split('-').next()?.parse().ok()
}

/// Deletes `stbc-PID-N` namespaces whose process is gone (a crashed run's).
fn remove_stale() {
    let Ok(dir) = std::fs::read_dir("/run/netns") else {
        return;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(pid) = owner_pid(&name) {
            if !pid_alive(pid) {
                let _ = ip(&["netns", "del", &name]);
            }
        }
    }
}

/// Runs `sysctl -w` inside namespace `ns` (None: the root namespace) on a device setting.
fn device_sysctl(ns: Option<&str>, dev: &str, key: &str, value: &str) -> Result<()> {
    let path = PathBuf::from(format!("/proc/sys/net/ipv4/conf/{dev}/{key}"));
    let value = value.to_string();
    let write = move || {
        std::fs::write(&path, value).with_context(|| format!("cannot write {}", path.display()))
    };
    match ns {
        Some(ns) => run_in(ns, write),
        None => write(),
    }
}

/// The /30 subnet `198.19.X.0/30` for a namespace (root side `.1`, client side `.2`),
/// chosen by `seed` and skipped past any address already in use in the root namespace.
fn subnet(seed: u32) -> Result<(Ipv4Addr, Ipv4Addr)> {
    let out = std::process::Command::new("ip")
        .args(["-4", "-o", "addr", "show"])
        .output()
        .context("cannot run `ip`")?;
    let used = String::from_utf8_lossy(&out.stdout).to_string();
    for k in 0..16_384u32 {
        let idx = seed.wrapping_add(k) % 16_384;
        let base = u32::from(Ipv4Addr::new(198, 19, 0, 0)) + idx * 4;
        let (root, client) = (Ipv4Addr::from(base + 1), Ipv4Addr::from(base + 2));
        if !used.contains(&format!(" {root}/")) && !used.contains(&format!(" {client}/")) {
            return Ok((root, client));
        }
    }
    bail!("no free /30 subnet in 198.19.0.0/16")
}

impl ClientNamespace {
    /// Creates `stbc-PID-N` with its veth pair and routes (see the module docs); deletes a
    /// crashed run's namespaces first. Needs root.
    pub fn create() -> Result<ClientNamespace> {
        let _one_at_a_time = SETTING_UP.lock().unwrap_or_else(|e| e.into_inner());
        remove_stale();
        let pid = std::process::id();
        let n = NEXT.fetch_add(1, Ordering::Relaxed) % 100;
        let name = format!("{PREFIX}{pid}-{n}");
        // At most 15 bytes (IFNAMSIZ): "stbc" + a pid of up to 7 digits + "-" + N + side.
        let (root_dev, device) = (format!("stbc{pid}-{n}r"), format!("stbc{pid}-{n}c"));
        if Path::new("/run/netns").join(&name).exists() {
            ip(&["netns", "del", &name])?;
        }
        ip(&["netns", "add", &name])?;
        let path = Path::new("/run/netns").join(&name);
        let mut ns = ClientNamespace {
            id: ns_id(&path)?,
            name,
            device,
            removed: false,
        };
        ns.set_up(&root_dev, pid.wrapping_mul(100).wrapping_add(n))
            .inspect_err(|_| {
                let _ = ns.remove();
            })?;
        register_owned(&path)?;
        Ok(ns)
    }

    fn set_up(&mut self, root_dev: &str, seed: u32) -> Result<()> {
        let (name, dev) = (self.name.as_str(), self.device.as_str());
        let (root_addr, client_addr) = subnet(seed)?;
        // A veth of a same-named namespace deleted earlier may linger while the kernel frees
        // it; deleting one end deletes the pair (no such device: nothing to do).
        let _ = ip(&["link", "del", root_dev]);
        ip(&[
            "link", "add", root_dev, "type", "veth", "peer", "name", dev, "netns", name,
        ])?;
        ip(&["addr", "add", &format!("{root_addr}/30"), "dev", root_dev])?;
        ip(&["link", "set", root_dev, "mtu", "65535", "up"])?;
        device_sysctl(None, root_dev, "route_localnet", "1")?;
        ip(&[
            "-n",
            name,
            "addr",
            "add",
            &format!("{client_addr}/30"),
            "dev",
            dev,
        ])?;
        ip(&["-n", name, "link", "set", dev, "mtu", "65535", "up"])?;
        ip(&["-n", name, "link", "set", "lo", "up"])?;
        ip(&["-n", name, "addr", "del", "127.0.0.1/8", "dev", "lo"])?;
        device_sysctl(Some(name), dev, "route_localnet", "1")?;
        ip(&[
            "-n",
            name,
            "route",
            "add",
            "127.0.0.0/8",
            "dev",
            dev,
            "src",
            &client_addr.to_string(),
        ])?;
        Ok(())
    }

    /// The namespace's name (`stbc-PID-N`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The client side's veth device: the pcap witness captures there.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Builds a tokio runtime (2 workers) on a thread inside the namespace and runs `f()` to
    /// the end; the result arrives on the returned channel. Every socket `f` opens is the
    /// namespace's, and so are its `/proc/thread-self/net` counters.
    pub fn spawn<T, F, Fut>(&self, f: F) -> tokio::sync::oneshot::Receiver<Result<T>>
    where
        T: Send + 'static,
        F: FnOnce() -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<T>>,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let name = self.name.clone();
        std::thread::spawn(move || {
            let r = run_in(&name, move || {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("client-ns")
                    .enable_all()
                    .build()
                    .context("client runtime")?;
                let r = rt.block_on(f());
                rt.shutdown_timeout(Duration::from_secs(1));
                r
            });
            let _ = tx.send(r);
        });
        rx
    }

    /// Deletes the namespace (its veth pair goes with it); idempotent.
    pub fn remove(&mut self) -> Result<()> {
        if self.removed {
            return Ok(());
        }
        self.removed = true;
        forget_owned(self.id);
        if Path::new("/run/netns").join(&self.name).exists() {
            ip(&["netns", "del", &self.name])?;
        }
        Ok(())
    }
}

impl Drop for ClientNamespace {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wan_emu::owned::thread_is_isolated;

    #[test]
    fn only_ipv4_loopback_solr_can_be_isolated() {
        for url in [
            "http://localhost:8983/solr",
            "http://[::1]:8983/solr",
            "https://solr.example:8983/solr",
            "http://10.0.0.5:8983/solr",
        ] {
            let why = why_not_isolated(url).expect("not isolatable");
            assert!(why.contains("not an IPv4 loopback address"), "{url}: {why}");
        }
    }

    #[test]
    fn the_owner_is_read_from_both_name_forms() {
        assert_eq!(owner_pid("stbc-4194304-99"), Some(4_194_304));
        assert_eq!(owner_pid("stbc-812"), Some(812));
        assert_eq!(owner_pid("stbc-x-1"), None);
        assert_eq!(owner_pid("wan-812"), None);
    }

    #[test]
    fn the_root_namespace_is_not_isolated() {
        assert!(!thread_is_isolated());
    }
}
