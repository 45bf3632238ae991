//! The events the kernel side sends through its ring buffer, read from their bytes (the
//! layout of `struct hdr` in `bpf/watch.bpf.c`, little-endian, then the payload).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Size of the fixed header before the payload.
pub const HEADER_LEN: usize = 104;
const AF_INET6: u8 = 10;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A connect() to a watched port (SYN sent).
    Open,
    /// The socket reached TCP_CLOSE.
    Close,
    /// A segment was retransmitted.
    Retransmit,
    /// Bytes of a send or receive (socket bytes or TLS plaintext).
    Data,
    /// Bytes of a send or receive that could not be copied.
    Gap,
    /// A server on this host accepted a connection on a watched port (local: the server's
    /// address, remote: the client's).
    Accept,
}

/// One event.
#[derive(Debug, Clone)]
pub struct Event {
    /// What happened.
    pub kind: Kind,
    /// Data: client to server. Close: the TCP state the socket left.
    pub to_server: bool,
    /// Close: the TCP state the socket left.
    pub old_state: u8,
    /// Data and gaps: read at the TLS library (plaintext) rather than at the socket.
    pub tls_plaintext: bool,
    /// Process (thread group) id.
    pub pid: u32,
    /// Kernel monotonic time, µs.
    pub ts_us: u64,
    /// The socket's kernel address: the connection's identity while it lives.
    pub sk: u64,
    /// cgroup v2 id of the task.
    pub cgroup: u64,
    /// Close: smoothed RTT (µs). Gap: the bytes missing.
    pub extra: u64,
    /// Close: total retransmitted segments.
    pub retransmits: u32,
    /// Local (client) address and port.
    pub local: (IpAddr, u16),
    /// Remote (server) address and port.
    pub remote: (IpAddr, u16),
    /// The task's command name.
    pub comm: String,
    /// The payload (Data).
    pub data: Vec<u8>,
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}

fn addr(b: &[u8], family: u8) -> IpAddr {
    if family == AF_INET6 {
        let mut a = [0u8; 16];
        a.copy_from_slice(&b[..16]);
        // A dual-stack server's socket shows an IPv4 client as ::ffff:a.b.c.d: the same
        // address its client's own socket has.
        let v6 = Ipv6Addr::from(a);
        v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)
    } else {
        IpAddr::V4(Ipv4Addr::new(b[0], b[1], b[2], b[3]))
    }
}

/// Reads one event; None for a record too short or of an unknown kind.
pub fn parse(b: &[u8]) -> Option<Event> {
    if b.len() < HEADER_LEN {
        return None;
    }
    let kind = match b[0] {
        1 => Kind::Open,
        2 => Kind::Close,
        3 => Kind::Retransmit,
        4 => Kind::Data,
        5 => Kind::Gap,
        6 => Kind::Accept,
        _ => return None,
    };
    let family = b[3];
    let len = (u32_at(b, 12) as usize).min(b.len() - HEADER_LEN);
    let comm_raw = &b[84..100];
    let comm_end = comm_raw.iter().position(|&c| c == 0).unwrap_or(16);
    Some(Event {
        kind,
        to_server: b[1] == 1,
        old_state: b[1],
        tls_plaintext: b[2] == 1,
        pid: u32_at(b, 4),
        ts_us: u64_at(b, 16) / 1000,
        sk: u64_at(b, 24),
        cgroup: u64_at(b, 32),
        extra: u64_at(b, 40),
        retransmits: u32_at(b, 100),
        local: (addr(&b[52..68], family), u16_at(b, 48)),
        remote: (addr(&b[68..84], family), u16_at(b, 50)),
        comm: String::from_utf8_lossy(&comm_raw[..comm_end]).into_owned(),
        data: if kind == Kind::Data {
            b[HEADER_LEN..HEADER_LEN + len].to_vec()
        } else {
            Vec::new()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_event_reads_back_field_by_field() {
        let mut b = vec![0u8; HEADER_LEN + 5];
        b[0] = 4;
        b[1] = 1;
        b[2] = 1;
        b[3] = 2;
        b[4..8].copy_from_slice(&4242u32.to_le_bytes());
        b[12..16].copy_from_slice(&3u32.to_le_bytes());
        b[16..24].copy_from_slice(&5_000_000u64.to_le_bytes());
        b[24..32].copy_from_slice(&0xffff_8888u64.to_le_bytes());
        b[48..50].copy_from_slice(&40000u16.to_le_bytes());
        b[50..52].copy_from_slice(&8983u16.to_le_bytes());
        b[52..56].copy_from_slice(&[127, 0, 0, 1]);
        b[68..72].copy_from_slice(&[127, 0, 0, 2]);
        b[84..87].copy_from_slice(b"php");
        b[HEADER_LEN..HEADER_LEN + 5].copy_from_slice(b"GET /");
        let e = parse(&b).expect("a whole event");
        assert_eq!(e.kind, Kind::Data);
        assert!(e.to_server && e.tls_plaintext);
        assert_eq!((e.pid, e.ts_us, e.sk), (4242, 5000, 0xffff_8888));
        assert_eq!(e.local, (IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)), 40000));
        assert_eq!(e.remote, (IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), 8983));
        assert_eq!(e.comm, "php");
        assert_eq!(e.data, b"GET"); // len says 3 of the 5 bytes
    }

    #[test]
    fn short_or_unknown_records_are_refused() {
        assert!(parse(&[4u8; 10]).is_none());
        let mut b = vec![0u8; HEADER_LEN];
        b[0] = 9;
        assert!(parse(&b).is_none());
    }
}
