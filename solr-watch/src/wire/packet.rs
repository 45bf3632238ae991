//! Minimal, total (never panicking) parsing of captured frames down to the TCP header:
//! link layers Ethernet (loopback on Linux), Linux cooked v1/v2 (`any`), raw IP and BSD
//! loopback; IPv4 and IPv6 (with extension headers skipped).

/// The TCP facts a witness needs from one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpPacket {
    /// Source IP (v4 mapped into v6 form for uniform keys).
    pub src: [u8; 16],
    /// Destination IP.
    pub dst: [u8; 16],
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// TCP flags byte (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10).
    pub flags: u8,
    /// TCP payload length in bytes.
    pub payload_len: usize,
    /// Offset of the TCP payload in the frame.
    pub payload_offset: usize,
    /// True for IPv6.
    pub v6: bool,
}

impl TcpPacket {
    /// SYN set, ACK clear: a connection attempt.
    pub fn is_syn_only(&self) -> bool {
        self.flags & 0x02 != 0 && self.flags & 0x10 == 0
    }
}

/// libpcap link-layer types handled here.
pub mod linktype {
    /// BSD loopback (4-byte family header).
    pub const NULL: i32 = 0;
    /// Ethernet (Linux `lo` presents as this).
    pub const ETHERNET: i32 = 1;
    /// Raw IP.
    pub const RAW: i32 = 101;
    /// Raw IP (OpenBSD value).
    pub const RAW_ALT: i32 = 12;
    /// Linux cooked capture v1.
    pub const LINUX_SLL: i32 = 113;
    /// Linux cooked capture v2.
    pub const LINUX_SLL2: i32 = 276;
}

fn be16(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?]))
}

fn be32(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_be_bytes([
        *b.get(i)?,
        *b.get(i + 1)?,
        *b.get(i + 2)?,
        *b.get(i + 3)?,
    ]))
}

/// Parses a frame of link type `link`; None for anything that is not TCP over IP or is cut
/// short.
pub fn parse(link: i32, frame: &[u8]) -> Option<TcpPacket> {
    let (ip_off, ethertype) = match link {
        linktype::ETHERNET => {
            let mut off = 12;
            let mut et = be16(frame, off)?;
            while et == 0x8100 || et == 0x88a8 {
                off += 4;
                et = be16(frame, off)?;
            }
            (off + 2, Some(et))
        }
        linktype::LINUX_SLL => (16, Some(be16(frame, 14)?)),
        linktype::LINUX_SLL2 => (20, Some(be16(frame, 0)?)),
        linktype::RAW | linktype::RAW_ALT => (0, None),
        linktype::NULL => (4, None),
        _ => return None,
    };
    let version = frame.get(ip_off)? >> 4;
    match (ethertype, version) {
        (Some(0x0800), 4) | (None, 4) => parse_v4(frame, ip_off),
        (Some(0x86DD), 6) | (None, 6) => parse_v6(frame, ip_off),
        _ => None,
    }
}

fn parse_v4(f: &[u8], off: usize) -> Option<TcpPacket> {
    let ihl = usize::from(f.get(off)? & 0x0f) * 4;
    if ihl < 20 || *f.get(off + 9)? != 6 {
        return None;
    }
    let total = usize::from(be16(f, off + 2)?);
    // TSO/GSO segments captured before segmentation can carry total length 0: use the frame.
    let total = if total == 0 {
        f.len().saturating_sub(off)
    } else {
        total
    };
    let frag = be16(f, off + 6)? & 0x1fff;
    if frag != 0 {
        return None;
    }
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src[10] = 0xff;
    src[11] = 0xff;
    dst[10] = 0xff;
    dst[11] = 0xff;
    src[12..].copy_from_slice(f.get(off + 12..off + 16)?);
    dst[12..].copy_from_slice(f.get(off + 16..off + 20)?);
    let ip_payload = total.checked_sub(ihl)?;
    tcp(f, off + ihl, ip_payload, src, dst, false)
}

fn parse_v6(f: &[u8], off: usize) -> Option<TcpPacket> {
    let payload_len = usize::from(be16(f, off + 4)?);
    let mut next = *f.get(off + 6)?;
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src.copy_from_slice(f.get(off + 8..off + 24)?);
    dst.copy_from_slice(f.get(off + 24..off + 40)?);
    let mut hdr = off + 40;
    let mut remaining = payload_len;
    // Skip extension headers: hop-by-hop 0, routing 43, destination options 60.
    for _ in 0..8 {
        match next {
            6 => return tcp(f, hdr, remaining, src, dst, true),
            0 | 43 | 60 => {
                let len = (usize::from(*f.get(hdr + 1)?) + 1) * 8;
                next = *f.get(hdr)?;
                hdr += len;
                remaining = remaining.checked_sub(len)?;
            }
            _ => return None,
        }
    }
    None
}

fn tcp(
    f: &[u8],
    off: usize,
    seg_len: usize,
    src: [u8; 16],
    dst: [u8; 16],
    v6: bool,
) -> Option<TcpPacket> {
    let data_off = usize::from(f.get(off + 12)? >> 4) * 4;
    if data_off < 20 {
        return None;
    }
    Some(TcpPacket {
        src,
        dst,
        src_port: be16(f, off)?,
        dst_port: be16(f, off + 2)?,
        seq: be32(f, off + 4)?,
        flags: *f.get(off + 13)?,
        payload_len: seg_len.saturating_sub(data_off),
        payload_offset: off + data_off,
        v6,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eth_v4_syn() -> Vec<u8> {
        let mut f = vec![0u8; 14];
        f[12] = 0x08;
        f[13] = 0x00;
        let mut ip = vec![
            0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
        ];
        let tcp = [
            0x9c, 0x40, 0x1f, 0x90, 0, 0, 0, 7, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0,
        ];
        ip.extend_from_slice(&tcp);
        f.extend(ip);
        f
    }

    #[test]
    fn ipv4_syn_on_loopback_ethernet() {
        let p = parse(linktype::ETHERNET, &eth_v4_syn()).expect("parses");
        assert!(p.is_syn_only());
        assert_eq!(
            (p.src_port, p.dst_port, p.seq, p.payload_len),
            (40000, 8080, 7, 0)
        );
    }

    #[test]
    fn ipv6_syn_raw() {
        let mut f = vec![0x60, 0, 0, 0, 0, 20, 6, 64];
        f.extend([0u8; 15]);
        f.push(1); // ::1
        f.extend([0u8; 15]);
        f.push(1);
        f.extend([
            0x9c, 0x40, 0x1f, 0x90, 0, 0, 0, 9, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0,
        ]);
        let p = parse(linktype::RAW, &f).expect("parses v6");
        assert!(p.v6 && p.is_syn_only() && p.dst_port == 8080);
    }

    #[test]
    fn truncated_and_garbage_frames_are_none() {
        let f = eth_v4_syn();
        for cut in 0..f.len() {
            let _ = parse(linktype::ETHERNET, &f[..cut]); // never panics
        }
        assert!(parse(linktype::ETHERNET, &f[..30]).is_none());
        assert!(parse(999, &f).is_none());
        let garbage: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
        for link in [0, 1, 12, 101, 113, 276] {
            let _ = parse(link, &garbage);
        }
    }
}
