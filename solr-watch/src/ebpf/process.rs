//! What user space adds to a pid: its command line, its cgroup (container) path and its TLS
//! library, read from /proc while the process lives.

use schemars::JsonSchema;
use serde::Serialize;

/// A process that talked to Solr.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProcessInfo {
    /// Process id.
    pub pid: u32,
    /// Command name (the kernel's `comm`).
    pub comm: String,
    /// Command line, arguments joined by spaces, secrets (passwords, tokens, a URL's user
    /// info) replaced by `***` ([`super::cmdline::redacted`]); empty when the process was
    /// gone.
    pub cmdline: String,
    /// cgroup v2 id.
    pub cgroup_id: u64,
    /// cgroup v2 path (a container's cgroup names it), when readable.
    pub cgroup: Option<String>,
    /// The container's id, when the cgroup path names one (Docker, containerd, CRI-O and
    /// Podman put the 64-hex-digit id in it).
    pub container_id: Option<String>,
    /// The TLS library it had mapped when first seen, if any.
    pub tls_library: Option<super::tls_library::TlsLibrary>,
}

/// The container id in a cgroup path: the last run of exactly 64 hex digits in it
/// (`/system.slice/docker-<id>.scope`, `/docker/<id>`,
/// `/kubepods.slice/…/cri-containerd-<id>.scope`, `/machine.slice/libpod-<id>.scope`).
pub fn container_id(cgroup: &str) -> Option<String> {
    cgroup
        .split(|c: char| !c.is_ascii_hexdigit())
        .rfind(|run| run.len() == 64)
        .map(str::to_string)
}

impl ProcessInfo {
    /// Reads /proc/PID for the command name, command line and cgroup path. `comm`, the name
    /// of the thread that made the call (a JVM names its threads: `qtp…-acceptor`), is kept
    /// only when the process is gone.
    pub fn read(pid: u32, comm: &str, cgroup_id: u64) -> Self {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .ok()
            .map(|c| c.trim_end().to_string())
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| comm.to_string());
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| {
                let args: Vec<String> = b
                    .split(|&c| c == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                super::cmdline::redacted(&args)
            })
            .unwrap_or_default();
        let cgroup = std::fs::read_to_string(format!("/proc/{pid}/cgroup"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("0::").map(str::to_string))
            });
        ProcessInfo {
            pid,
            comm,
            cmdline,
            cgroup_id,
            container_id: cgroup.as_deref().and_then(container_id),
            cgroup,
            tls_library: super::tls_library::of_process(pid),
        }
    }

    /// `pid 4242 (php-fpm)`.
    pub fn label(&self) -> String {
        format!("pid {} ({})", self.pid, self.comm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_reads_its_own_command_line_and_cgroup() {
        let me = std::process::id();
        let p = ProcessInfo::read(me, "self", 0);
        let exe = std::env::args().next().expect("argv[0]");
        assert!(p.cmdline.starts_with(&exe), "{} vs {exe}", p.cmdline);
        assert!(p.cgroup.is_some());
        let main_thread = std::fs::read_to_string("/proc/self/comm").expect("comm");
        assert_eq!(p.label(), format!("pid {me} ({})", main_thread.trim_end()));
        assert_ne!(
            main_thread.trim_end(),
            "self",
            "the process's name, not the caller's"
        );
    }

    #[test]
    fn container_ids_are_read_from_the_runtimes_cgroup_paths() {
        let id = "3f4e9c2a7b1d08e6f5a4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918abcd";
        for path in [
            format!("/system.slice/docker-{id}.scope"),
            format!("/docker/{id}"),
            format!("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1a2b.slice/cri-containerd-{id}.scope"),
            format!("/machine.slice/libpod-{id}.scope/container"),
        ] {
            assert_eq!(container_id(&path).as_deref(), Some(id), "{path}");
        }
        for path in [
            "/",
            "/user.slice/user-0.slice/session-3.scope",
            &format!("/x-{id}0"),
        ] {
            assert_eq!(container_id(path), None, "{path}");
        }
    }

    #[test]
    fn a_process_that_is_gone_keeps_the_callers_name() {
        // Pids are at most 2^22 on Linux: this one cannot exist.
        let p = ProcessInfo::read(u32::MAX, "curl", 7);
        assert_eq!((p.comm.as_str(), p.cmdline.as_str()), ("curl", ""));
        assert_eq!((p.cgroup_id, p.cgroup), (7, None));
    }
}
