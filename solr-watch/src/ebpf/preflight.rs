//! What `watch --ebpf` needs before it loads anything: root (or CAP_BPF with CAP_PERFMON),
//! the kernel's BTF, and a kernel new enough for BTF tracepoints, ring buffers and bpf_loop
//! (5.17). Anything missing is said in one message that also points at the pcap path.

use std::path::{Path, PathBuf};

/// The kernel's BTF, unless `SOLR_WATCH_BTF` names another path (tests point it at a
/// missing file).
pub fn btf_path() -> PathBuf {
    std::env::var_os("SOLR_WATCH_BTF")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/sys/kernel/btf/vmlinux"))
}

/// The oldest kernel the probes load on.
pub const MIN_KERNEL: (u32, u32) = (5, 17);

const CAP_PERFMON: u32 = 38;
const CAP_BPF: u32 = 39;
const CAP_SYS_ADMIN: u32 = 21;

/// Effective capabilities of this process, from /proc/self/status.
fn effective_caps() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .unwrap_or(0)
}

/// `major.minor` of a kernel release string such as `6.18.44-fc`.
pub fn parse_release(release: &str) -> Option<(u32, u32)> {
    let mut it = release.split(|c: char| !c.is_ascii_digit());
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

/// What is missing, each said plainly (empty: ready).
pub fn missing(btf: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let caps = effective_caps();
    let has = |bit: u32| caps & (1u64 << bit) != 0;
    if !(has(CAP_SYS_ADMIN) || (has(CAP_BPF) && has(CAP_PERFMON))) {
        out.push("root (or the capabilities CAP_BPF and CAP_PERFMON)".to_string());
    }
    if !btf.exists() {
        out.push(format!(
            "the kernel's BTF type information ({} is absent)",
            btf.display()
        ));
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    match parse_release(release.trim()) {
        Some(v) if v >= MIN_KERNEL => {}
        _ => out.push(format!(
            "a Linux kernel {}.{} or newer (this one is {})",
            MIN_KERNEL.0,
            MIN_KERNEL.1,
            if release.trim().is_empty() {
                "unknown"
            } else {
                release.trim()
            }
        )),
    }
    out
}

/// The one message for a refusal.
pub fn refusal(missing: &[String]) -> String {
    format!(
        "watch --ebpf cannot run here: it needs {}. Nothing was loaded. The pcap path still works: \
         `transport-bench watch --port N` (live, libpcap) or `--read FILE` (a saved capture).",
        missing.join(", and ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_releases_read_as_major_minor() {
        assert_eq!(parse_release("6.18.44-fc-v1098"), Some((6, 18)));
        assert_eq!(parse_release("5.4.0"), Some((5, 4)));
        assert_eq!(parse_release("junk"), None);
        assert!(parse_release("5.4.0").unwrap() < MIN_KERNEL);
    }

    #[test]
    fn a_missing_btf_file_is_named_with_the_pcap_way_out() {
        let m = missing(Path::new("/nonexistent/btf/vmlinux"));
        assert!(
            m.iter()
                .any(|x| x.contains("/nonexistent/btf/vmlinux is absent")),
            "{m:?}"
        );
        let msg = refusal(&m);
        assert!(
            msg.contains("--read FILE") && msg.contains("--port N"),
            "{msg}"
        );
    }
}
