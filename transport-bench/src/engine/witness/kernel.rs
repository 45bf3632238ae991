//! Connection-reuse witnesses that do not depend on the client: the kernel's own count of
//! active TCP opens (`Tcp: ActiveOpens` in `/proc/net/snmp`, per network namespace) and
//! of retransmitted SYNs (`TcpExt: TCPSynRetrans` in `/proc/net/netstat`).

use anyhow::{Context, Result};

/// Reads one counter from a `/proc/net/{snmp,netstat}`-style file: a header line and a
/// value line per protocol prefix.
pub fn proc_counter(path: &str, prefix: &str, name: &str) -> Result<u64> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    parse_counter(&text, prefix, name)
        .with_context(|| format!("{prefix} {name} not found in {path}"))
}

fn parse_counter(text: &str, prefix: &str, name: &str) -> Option<u64> {
    let mut lines = text.lines().filter(|l| l.starts_with(prefix));
    while let (Some(head), Some(vals)) = (lines.next(), lines.next()) {
        if let Some(idx) = head.split_whitespace().position(|h| h == name) {
            return vals.split_whitespace().nth(idx)?.parse().ok();
        }
    }
    None
}

/// Kernel TCP counters at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct KernelTcp {
    /// Active opens (connect() calls that sent a SYN).
    pub active_opens: u64,
    /// SYN retransmissions (None: the counter could not be read, e.g. a kernel without
    /// `TcpExt: TCPSynRetrans`; never a silent 0).
    pub syn_retrans: Option<u64>,
}

impl KernelTcp {
    /// Reads the counters of the calling thread's network namespace. `/proc/net` is the
    /// namespace of the process's main thread; `/proc/thread-self/net` (Linux 3.17+) is the
    /// calling thread's, which differs for code running in a thread that entered another
    /// namespace (the WAN topology's app side).
    pub fn read() -> Result<KernelTcp> {
        let dir = if std::path::Path::new("/proc/thread-self/net/snmp").exists() {
            "/proc/thread-self/net"
        } else {
            "/proc/net"
        };
        Ok(KernelTcp {
            active_opens: proc_counter(&format!("{dir}/snmp"), "Tcp:", "ActiveOpens")?,
            syn_retrans: proc_counter(&format!("{dir}/netstat"), "TcpExt:", "TCPSynRetrans").ok(),
        })
    }

    /// Counter increase since `before`.
    pub fn since(&self, before: &KernelTcp) -> KernelTcp {
        KernelTcp {
            active_opens: self.active_opens.saturating_sub(before.active_opens),
            syn_retrans: match (self.syn_retrans, before.syn_retrans) {
                (Some(a), Some(b)) => Some(a.saturating_sub(b)),
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_snmp_layout() {
        let t = "Ip: Forwarding DefaultTTL\nIp: 1 64\nTcp: RtoAlgorithm RtoMin ActiveOpens\nTcp: 1 200 42\n";
        assert_eq!(parse_counter(t, "Tcp:", "ActiveOpens"), Some(42));
        assert_eq!(parse_counter(t, "Tcp:", "Nope"), None);
    }

    #[test]
    fn reads_this_machine() {
        let k = KernelTcp::read().expect("proc counters readable");
        let _ = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| {
            let a = l.local_addr()?;
            std::net::TcpStream::connect(a)
        });
        let k2 = KernelTcp::read().expect("proc counters readable");
        assert!(k2.since(&k).active_opens >= 1);
    }

    /// A counter that cannot be read is unknown, not 0.
    #[test]
    fn an_unreadable_counter_is_unknown_not_zero() {
        let known = KernelTcp {
            active_opens: 5,
            syn_retrans: Some(3),
        };
        let unknown = KernelTcp {
            active_opens: 7,
            syn_retrans: None,
        };
        assert_eq!(unknown.since(&known).syn_retrans, None);
        assert_eq!(known.since(&unknown).syn_retrans, None);
        assert_eq!(
            KernelTcp {
                active_opens: 9,
                syn_retrans: Some(4)
            }
            .since(&known),
            KernelTcp {
                active_opens: 4,
                syn_retrans: Some(1)
            }
        );
    }
}
