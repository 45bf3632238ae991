//! The block structure of a saved pcap or pcapng file, walked before libpcap's reading of it
//! is trusted: where each packet record starts (so a problem can be named by its byte
//! offset), and where the file is cut short ([`FlawKind::Truncated`]) or inconsistent
//! ([`FlawKind::Damaged`]). libpcap alone stops at such a place with a message that names
//! neither, or reads on through a damaged timestamp.

/// What is wrong at a [`Flaw`]'s offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlawKind {
    /// The file ends inside a header or a record: cut short (an interrupted copy or capture).
    Truncated,
    /// A record contradicts itself or the file (lengths, timestamps).
    Damaged,
}

impl FlawKind {
    /// `truncated` or `damaged`.
    pub fn name(self) -> &'static str {
        match self {
            FlawKind::Truncated => "truncated",
            FlawKind::Damaged => "damaged",
        }
    }
}

/// Where and how a capture file goes wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flaw {
    /// Truncated or damaged.
    pub kind: FlawKind,
    /// Byte offset of the record (or header) where it goes wrong.
    pub offset: u64,
    /// What is wrong there.
    pub what: String,
}

/// The packet records of a capture file, up to its first flaw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Byte offset of each packet record, in file order (pcapng: enhanced, simple and
    /// obsolete packet blocks; pcap: record headers).
    pub packets: Vec<u64>,
    /// The first flaw; the records after it are not listed.
    pub flaw: Option<Flaw>,
}

/// Largest packet record accepted in a classic pcap file when its own snap length is smaller
/// (libpcap's largest snap length).
const MAX_RECORD: u64 = 262_144;

/// Walks `bytes` as pcapng or classic pcap. None when it is neither (libpcap then says so).
pub fn walk(bytes: &[u8]) -> Option<Layout> {
    match bytes.get(..4)? {
        [0x0a, 0x0d, 0x0d, 0x0a] => Some(pcapng(bytes)),
        [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => Some(pcap(bytes, true)),
        [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => Some(pcap(bytes, false)),
        _ => None,
    }
}

fn u32_at(b: &[u8], off: usize, le: bool) -> u64 {
    let w = [b[off], b[off + 1], b[off + 2], b[off + 3]];
    u64::from(if le {
        u32::from_le_bytes(w)
    } else {
        u32::from_be_bytes(w)
    })
}

fn flaw(kind: FlawKind, offset: usize, what: String) -> Option<Flaw> {
    Some(Flaw {
        kind,
        offset: offset as u64,
        what,
    })
}

fn pcapng(b: &[u8]) -> Layout {
    let mut out = Layout::default();
    let (mut off, mut le) = (0usize, true);
    while off < b.len() {
        match pcapng_block(b, off, &mut le) {
            Ok((kind, len)) => {
                if matches!(kind, 2 | 3 | 6) {
                    out.packets.push(off as u64);
                }
                off += len;
            }
            Err(f) => {
                out.flaw = Some(f);
                break;
            }
        }
    }
    out
}

/// The type and length of the pcapng block at `off`, checked; a section header sets the
/// byte order `le` of what follows.
fn pcapng_block(b: &[u8], off: usize, le: &mut bool) -> Result<(u64, usize), Flaw> {
    let bad = |kind, what: String| {
        Err(Flaw {
            kind,
            offset: off as u64,
            what,
        })
    };
    let left = b.len() - off;
    if left < 12 {
        return bad(
            FlawKind::Truncated,
            format!("a block header needs 12 bytes, the file has {left} left"),
        );
    }
    if b[off..off + 4] == [0x0a, 0x0d, 0x0d, 0x0a] {
        // Section header: its byte-order magic sets the order of the section.
        match b[off + 8..off + 12] {
            [0x4d, 0x3c, 0x2b, 0x1a] => *le = true,
            [0x1a, 0x2b, 0x3c, 0x4d] => *le = false,
            _ => {
                return bad(
                    FlawKind::Damaged,
                    "section header without its byte-order magic".into(),
                )
            }
        }
    }
    let le = *le;
    let kind = u32_at(b, off, le);
    let len = u32_at(b, off + 4, le);
    if len < 12 || !len.is_multiple_of(4) {
        return bad(
            FlawKind::Damaged,
            format!("block length {len} (a multiple of 4, at least 12)"),
        );
    }
    if len > left as u64 {
        let what = format!("the block needs {len} bytes, the file has {left} left");
        return bad(FlawKind::Truncated, what);
    }
    let len = len as usize;
    let trailer = u32_at(b, off + len - 4, le);
    if trailer != len as u64 {
        let what = format!("block length {len} at its start but {trailer} at its end");
        return bad(FlawKind::Damaged, what);
    }
    if kind == 6 && len >= 32 {
        let captured = u32_at(b, off + 20, le);
        if captured > (len - 32) as u64 {
            let what = format!("packet of {captured} bytes in a block of {len}");
            return bad(FlawKind::Damaged, what);
        }
    }
    Ok((kind, len))
}

fn pcap(b: &[u8], le: bool) -> Layout {
    let n = b.len();
    let mut out = Layout::default();
    if n < 24 {
        out.flaw = flaw(
            FlawKind::Truncated,
            0,
            format!("the file header needs 24 bytes, the file has {n}"),
        );
        return out;
    }
    let max = u32_at(b, 16, le).max(MAX_RECORD);
    let mut off = 24usize;
    while off < n {
        let left = n - off;
        if left < 16 {
            out.flaw = flaw(
                FlawKind::Truncated,
                off,
                format!("a record header needs 16 bytes, the file has {left} left"),
            );
            break;
        }
        let (incl, orig) = (u32_at(b, off + 8, le), u32_at(b, off + 12, le));
        if incl > max || incl > orig {
            out.flaw = flaw(
                FlawKind::Damaged,
                off,
                format!("record of {incl} bytes captured of {orig} (at most {max})"),
            );
            break;
        }
        if 16 + incl > left as u64 {
            out.flaw = flaw(
                FlawKind::Truncated,
                off,
                format!(
                    "the record needs {} bytes, the file has {left} left",
                    16 + incl
                ),
            );
            break;
        }
        out.packets.push(off as u64);
        off += 16 + incl as usize;
    }
    out
}

/// Earliest plausible capture time: 1990-01-01, µs since the epoch.
pub const EARLIEST_US: u64 = 631_152_000 * 1_000_000;

/// Furthest a packet's timestamp may go back from the latest one before it, µs (1 minute):
/// a capture's clock may step a little, never this much.
pub const MAX_BACKWARDS_US: u64 = 60 * 1_000_000;

/// The first impossible timestamp of `ts` (µs since the epoch, file order): before 1990,
/// after `now_us` + 1 day, or more than [`MAX_BACKWARDS_US`] before an earlier packet's.
/// Returns its index and why.
pub fn impossible_timestamp(
    ts: impl IntoIterator<Item = u64>,
    now_us: u64,
) -> Option<(usize, String)> {
    let mut check = TimestampCheck::new(now_us);
    ts.into_iter()
        .enumerate()
        .find_map(|(i, t)| check.check(t).map(|why| (i, why)))
}

/// [`impossible_timestamp`] one packet at a time, for a capture read as a stream.
#[derive(Debug, Clone)]
pub struct TimestampCheck {
    latest_ok: u64,
    max: u64,
}

impl TimestampCheck {
    /// A check against the clock `now_us` (µs since the epoch).
    pub fn new(now_us: u64) -> Self {
        TimestampCheck {
            latest_ok: now_us.saturating_add(86_400 * 1_000_000),
            max: 0,
        }
    }

    /// Why the next packet's timestamp `t` (µs since the epoch) is impossible, if it is.
    pub fn check(&mut self, t: u64) -> Option<String> {
        let secs = t as f64 / 1e6;
        if t < EARLIEST_US {
            return Some(format!("timestamp {secs:.6} s since 1970 is before 1990"));
        }
        if t > self.latest_ok {
            return Some(format!(
                "timestamp {secs:.6} s since 1970 is after tomorrow"
            ));
        }
        if t.saturating_add(MAX_BACKWARDS_US) < self.max {
            return Some(format!(
                "timestamp goes back {:.3} s from the packet before",
                (self.max - t) as f64 / 1e6
            ));
        }
        self.max = self.max.max(t);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture() -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../captures/search-pooled.pcapng"),
        )
        .expect("reference capture")
    }

    #[test]
    fn the_reference_capture_is_whole() {
        let b = capture();
        let l = walk(&b).expect("pcapng");
        assert_eq!(l.flaw, None);
        assert!(!l.packets.is_empty());
    }

    #[test]
    fn a_cut_file_is_truncated_at_the_record_it_cuts() {
        let b = capture();
        let l = walk(&b).expect("pcapng");
        let at = l.packets[10] as usize;
        let cut = walk(&b[..at + 20]).expect("pcapng");
        assert_eq!(cut.packets.len(), 10);
        let f = cut.flaw.expect("flaw");
        assert_eq!(
            (f.kind, f.offset),
            (FlawKind::Truncated, at as u64),
            "{}",
            f.what
        );
    }

    #[test]
    fn a_flipped_length_is_damage_at_its_block() {
        let mut b = capture();
        let l = walk(&b).expect("pcapng");
        let at = l.packets[5] as usize;
        b[at + 4] ^= 0x04; // the block length, still a multiple of 4, now unlike its trailer
        let f = walk(&b).expect("pcapng").flaw.expect("flaw");
        assert_eq!(
            (f.kind, f.offset),
            (FlawKind::Damaged, at as u64),
            "{}",
            f.what
        );
    }

    #[test]
    fn classic_pcap_records() {
        let mut b = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
        b.extend([0; 8]);
        b.extend(65535u32.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        for _ in 0..2 {
            b.extend([0; 8]);
            b.extend(4u32.to_le_bytes());
            b.extend(4u32.to_le_bytes());
            b.extend([1, 2, 3, 4]);
        }
        let l = walk(&b).expect("pcap");
        assert_eq!((l.packets, l.flaw), (vec![24, 44], None));
        let f = walk(&b[..50]).expect("pcap").flaw.expect("cut");
        assert_eq!((f.kind, f.offset), (FlawKind::Truncated, 44));
        b[44 + 8] = 9; // captured 9 of 4
        let f = walk(&b).expect("pcap").flaw.expect("damaged");
        assert_eq!((f.kind, f.offset), (FlawKind::Damaged, 44));
        assert_eq!(walk(b"not a capture"), None);
    }

    #[test]
    fn impossible_timestamps() {
        let now = 1_800_000_000 * 1_000_000;
        let t0 = 1_700_000_000 * 1_000_000;
        assert_eq!(impossible_timestamp([t0, t0 + 1, t0 + 5], now), None);
        assert_eq!(impossible_timestamp([t0, 5], now).map(|x| x.0), Some(1));
        assert_eq!(
            impossible_timestamp([t0, now * 2], now).map(|x| x.0),
            Some(1)
        );
        let back = impossible_timestamp([t0, t0 - 61_000_000], now).expect("back");
        assert_eq!(back.0, 1);
        assert!(back.1.contains("goes back 61.000 s"), "{}", back.1);
        // A little disorder (captures on "any" interleave interfaces) is fine.
        assert_eq!(impossible_timestamp([t0, t0 - 1_000], now), None);
    }
}
