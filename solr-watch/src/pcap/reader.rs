//! A streaming reader of saved captures in pure Rust: classic pcap (either byte order,
//! microsecond or nanosecond timestamps) and pcapng (sections in either byte order, any number
//! of interfaces, each with its own link type, snap length, timestamp resolution and offset).
//!
//! [`CaptureReader`] reads one record (pcap) or block (pcapng) at a time from any
//! [`Read`], so a capture of any size is analysed in the memory of its largest packet. Where
//! the file is cut short or contradicts itself, reading stops with a [`Flaw`] that names the
//! byte offset of the record or block, in the words of [`super::flaw`]; nothing in a file,
//! however damaged, makes it panic.
//!
//! ```
//! # fn main() -> Result<(), solr_watch::pcap::reader::ReadError> {
//! use solr_watch::pcap::reader::CaptureReader;
//! let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
//!     .join("../captures/search-pooled.pcapng");
//! let mut reader = CaptureReader::open(&path)?;
//! let mut packets = 0;
//! while let Some(p) = reader.next_packet()? {
//!     assert!(p.data.len() as u32 <= p.orig_len);
//!     packets += 1;
//! }
//! assert!(packets > 40);
//! # Ok(()) }
//! ```

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use super::flaw::{Flaw, FlawKind};

/// Largest pcapng block read (libpcap's limit too): a larger length is damage.
const MAX_BLOCK: u64 = 16 * 1024 * 1024;

/// Largest packet record accepted in a classic pcap file when its own snap length is smaller
/// (libpcap's largest snap length).
const MAX_RECORD: u64 = 262_144;

/// One packet of a capture, borrowed from the reader until the next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Byte offset of its record (pcap) or block (pcapng) in the file.
    pub offset: u64,
    /// Link type of its interface (LINKTYPE_ value, e.g. 1 Ethernet, 113 Linux cooked).
    pub link: i32,
    /// Capture time, microseconds since the epoch (finer resolutions are truncated).
    pub ts_us: u64,
    /// Length of the packet on the wire.
    pub orig_len: u32,
    /// Snap length of its interface (0: the file gives none).
    pub snaplen: u32,
    /// The bytes captured: fewer than `orig_len` when the snap length cut the packet.
    pub data: &'a [u8],
}

/// Why a capture cannot be read (further).
#[derive(Debug)]
pub enum ReadError {
    /// The file starts with neither the pcap nor the pcapng magic number.
    NotACapture,
    /// Reading failed.
    Io(io::Error),
    /// The file is cut short or damaged at a byte offset.
    Flaw(Flaw),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotACapture => f.write_str("not a pcap or pcapng file"),
            // The OS error once: its text is the message, it is no source of its own.
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Flaw(x) => write!(f, "{} at byte {}: {}", x.kind.name(), x.offset, x.what),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// The format of the file, from its magic number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Classic pcap.
    Pcap {
        /// Timestamps in nanoseconds (magic `a1b23c4d`), else microseconds.
        nanos: bool,
        /// Written little-endian.
        little_endian: bool,
    },
    /// pcapng.
    Pcapng,
}

/// One pcapng interface: what its packets need to be read.
#[derive(Debug, Clone, Copy)]
struct Interface {
    link: i32,
    snaplen: u32,
    /// Timestamp units per second (if_tsresol; default 10^6).
    units: u64,
    /// Seconds added to every timestamp (if_tsoffset).
    offset_s: i64,
}

/// Reads packets from a pcap or pcapng stream, one record at a time.
#[derive(Debug)]
pub struct CaptureReader<R> {
    r: R,
    format: Format,
    /// Byte offset of the next record or block.
    off: u64,
    /// Byte order of the file (pcap) or the current section (pcapng).
    le: bool,
    /// pcap: link type and snap length from the file header.
    link: i32,
    snaplen: u32,
    /// pcapng: the interfaces of the current section.
    ifaces: Vec<Interface>,
    buf: Vec<u8>,
    /// Bytes of the next block already in `buf` (the pcapng magic read by [`Self::new`]).
    held: usize,
    done: bool,
}

impl CaptureReader<BufReader<File>> {
    /// Opens a capture file (reading only its header).
    pub fn open(path: &Path) -> Result<Self, ReadError> {
        CaptureReader::new(BufReader::with_capacity(256 * 1024, File::open(path)?))
    }
}

fn u16_at(b: &[u8], i: usize, le: bool) -> u16 {
    let w = [b[i], b[i + 1]];
    if le {
        u16::from_le_bytes(w)
    } else {
        u16::from_be_bytes(w)
    }
}

fn u32_at(b: &[u8], i: usize, le: bool) -> u32 {
    let w = [b[i], b[i + 1], b[i + 2], b[i + 3]];
    if le {
        u32::from_le_bytes(w)
    } else {
        u32::from_be_bytes(w)
    }
}

fn flaw<T>(kind: FlawKind, offset: u64, what: String) -> Result<T, ReadError> {
    Err(ReadError::Flaw(Flaw { kind, offset, what }))
}

impl<R: Read> CaptureReader<R> {
    /// Starts reading `r`: checks the magic number, and reads a classic pcap file's header
    /// (a pcapng section header is read with the blocks).
    pub fn new(mut r: R) -> Result<Self, ReadError> {
        let mut buf = Vec::new();
        let got = read_up_to(&mut r, &mut buf, 4)?;
        let format = match buf.get(..got.min(4)) {
            Some([0x0a, 0x0d, 0x0d, 0x0a]) => Format::Pcapng,
            Some([0xd4, 0xc3, 0xb2, 0xa1]) => pcap(false, true),
            Some([0x4d, 0x3c, 0xb2, 0xa1]) => pcap(true, true),
            Some([0xa1, 0xb2, 0xc3, 0xd4]) => pcap(false, false),
            Some([0xa1, 0xb2, 0x3c, 0x4d]) => pcap(true, false),
            _ => return Err(ReadError::NotACapture),
        };
        let mut me = CaptureReader {
            r,
            format,
            off: 0,
            le: true,
            link: 0,
            snaplen: 0,
            ifaces: Vec::new(),
            buf,
            held: got.min(4),
            done: false,
        };
        if let Format::Pcap { little_endian, .. } = format {
            me.le = little_endian;
            let got = 4 + read_more(&mut me.r, &mut me.buf, 20)?;
            if got < 24 {
                return flaw(
                    FlawKind::Truncated,
                    0,
                    format!("the file header needs 24 bytes, the file has {got}"),
                );
            }
            // The link type's upper bits carry FCS information.
            me.link = (u32_at(&me.buf, 20, me.le) & 0xffff) as i32;
            me.snaplen = u32_at(&me.buf, 16, me.le);
            me.off = 24;
            me.held = 0;
        }
        Ok(me)
    }

    /// The file's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The next packet; `Ok(None)` at the end of the file. After an error, every call returns
    /// `Ok(None)`.
    pub fn next_packet(&mut self) -> Result<Option<Packet<'_>>, ReadError> {
        if self.done {
            return Ok(None);
        }
        let r = match self.format {
            Format::Pcap { nanos, .. } => self.pcap_record(nanos),
            Format::Pcapng => self.pcapng_packet(),
        };
        match r {
            Ok(Some(at)) => Ok(Some(self.packet_at(at))),
            Ok(None) => {
                self.done = true;
                Ok(None)
            }
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    fn packet_at(&self, at: At) -> Packet<'_> {
        Packet {
            offset: at.offset,
            link: at.link,
            ts_us: at.ts_us,
            orig_len: at.orig_len,
            snaplen: at.snaplen,
            data: &self.buf[at.data.0..at.data.1],
        }
    }

    /// Reads one pcap record into `buf`.
    fn pcap_record(&mut self, nanos: bool) -> Result<Option<At>, ReadError> {
        let at = self.off;
        let got = read_up_to(&mut self.r, &mut self.buf, 16)?;
        if got == 0 {
            return Ok(None);
        }
        if got < 16 {
            return flaw(
                FlawKind::Truncated,
                at,
                format!("a record header needs 16 bytes, the file has {got} left"),
            );
        }
        let le = self.le;
        let b = &self.buf;
        let (sec, frac) = (u32_at(b, 0, le), u32_at(b, 4, le));
        let (incl, orig) = (u32_at(b, 8, le), u32_at(b, 12, le));
        let max = u64::from(self.snaplen).max(MAX_RECORD);
        if u64::from(incl) > max || incl > orig {
            return flaw(
                FlawKind::Damaged,
                at,
                format!("record of {incl} bytes captured of {orig} (at most {max})"),
            );
        }
        let got = read_more(&mut self.r, &mut self.buf, incl as usize)?;
        if got < incl as usize {
            return flaw(
                FlawKind::Truncated,
                at,
                format!(
                    "the record needs {} bytes, the file has {} left",
                    16 + u64::from(incl),
                    16 + got
                ),
            );
        }
        self.off += 16 + u64::from(incl);
        let frac_us = if nanos { frac / 1000 } else { frac };
        Ok(Some(At {
            offset: at,
            link: self.link,
            ts_us: u64::from(sec) * 1_000_000 + u64::from(frac_us),
            orig_len: orig,
            snaplen: self.snaplen,
            data: (16, 16 + incl as usize),
        }))
    }

    /// Reads pcapng blocks until a packet block (or the end).
    fn pcapng_packet(&mut self) -> Result<Option<At>, ReadError> {
        loop {
            let at = self.off;
            let Some((kind, len)) = self.block()? else {
                return Ok(None);
            };
            self.off += len as u64;
            match kind {
                0x0a0d_0d0a => self.ifaces.clear(),
                1 => {
                    let iface = interface(&self.buf, self.le, at)?;
                    self.ifaces.push(iface);
                }
                2 | 6 => return self.enhanced_packet(kind, len, at).map(Some),
                3 => return self.simple_packet(len, at).map(Some),
                _ => {}
            }
        }
    }

    /// An enhanced (6) or obsolete (2) packet block of `len` bytes, whole in `buf`.
    fn enhanced_packet(&self, kind: u32, len: usize, at: u64) -> Result<At, ReadError> {
        let (le, b) = (self.le, &self.buf);
        if len < 32 {
            return flaw(
                FlawKind::Damaged,
                at,
                format!("packet block of {len} bytes (at least 32)"),
            );
        }
        let id = if kind == 2 {
            u32::from(u16_at(b, 8, le))
        } else {
            u32_at(b, 8, le)
        };
        let captured = u32_at(b, 20, le);
        if captured as usize > len - 32 {
            return flaw(
                FlawKind::Damaged,
                at,
                format!("packet of {captured} bytes in a block of {len}"),
            );
        }
        let i = self.iface(id, at)?;
        let ticks = (u64::from(u32_at(b, 12, le)) << 32) | u64::from(u32_at(b, 16, le));
        Ok(At {
            offset: at,
            link: i.link,
            ts_us: i.ts_us(ticks),
            orig_len: u32_at(b, 24, le),
            snaplen: i.snaplen,
            data: (28, 28 + captured as usize),
        })
    }

    /// A simple packet block of `len` bytes, whole in `buf`: no timestamp.
    fn simple_packet(&self, len: usize, at: u64) -> Result<At, ReadError> {
        if len < 16 {
            return flaw(
                FlawKind::Damaged,
                at,
                format!("simple packet block of {len} bytes (at least 16)"),
            );
        }
        let i = self.iface(0, at)?;
        let orig = u32_at(&self.buf, 8, self.le);
        let mut captured = (len - 16) as u64;
        captured = captured.min(u64::from(orig));
        if i.snaplen > 0 {
            captured = captured.min(u64::from(i.snaplen));
        }
        Ok(At {
            offset: at,
            link: i.link,
            ts_us: 0,
            orig_len: orig,
            snaplen: i.snaplen,
            data: (12, 12 + captured as usize),
        })
    }

    fn iface(&self, id: u32, at: u64) -> Result<Interface, ReadError> {
        match self.ifaces.get(id as usize) {
            Some(i) => Ok(*i),
            None => flaw(
                FlawKind::Damaged,
                at,
                format!(
                    "packet of interface {id}, the section describes {}",
                    self.ifaces.len()
                ),
            ),
        }
    }

    /// Reads one whole pcapng block into `buf`: its type and length, None at the end.
    fn block(&mut self) -> Result<Option<(u32, usize)>, ReadError> {
        let at = self.off;
        let Some((kind, len)) = self.block_header(at)? else {
            return Ok(None);
        };
        let got = read_more(&mut self.r, &mut self.buf, len - 12)?;
        if got < len - 12 {
            return flaw(
                FlawKind::Truncated,
                at,
                format!(
                    "the block needs {len} bytes, the file has {} left",
                    12 + got
                ),
            );
        }
        let trailer = u32_at(&self.buf, len - 4, self.le) as usize;
        if trailer != len {
            return flaw(
                FlawKind::Damaged,
                at,
                format!("block length {len} at its start but {trailer} at its end"),
            );
        }
        Ok(Some((kind, len)))
    }

    /// Reads the 12 bytes that open a pcapng block into `buf`: its type and checked length,
    /// None at the end. A section header sets the byte order.
    fn block_header(&mut self, at: u64) -> Result<Option<(u32, usize)>, ReadError> {
        let got = match std::mem::take(&mut self.held) {
            0 => read_up_to(&mut self.r, &mut self.buf, 12)?,
            held => held + read_more(&mut self.r, &mut self.buf, 12 - held)?,
        };
        if got == 0 {
            return Ok(None);
        }
        if got < 12 {
            return flaw(
                FlawKind::Truncated,
                at,
                format!("a block header needs 12 bytes, the file has {got} left"),
            );
        }
        if self.buf[..4] == [0x0a, 0x0d, 0x0d, 0x0a] {
            // Section header: its byte-order magic sets the order of the section.
            self.le = match self.buf[8..12] {
                [0x4d, 0x3c, 0x2b, 0x1a] => true,
                [0x1a, 0x2b, 0x3c, 0x4d] => false,
                _ => {
                    return flaw(
                        FlawKind::Damaged,
                        at,
                        "section header without its byte-order magic".into(),
                    )
                }
            };
        }
        let kind = u32_at(&self.buf, 0, self.le);
        let len = u64::from(u32_at(&self.buf, 4, self.le));
        if len < 12 || len % 4 != 0 {
            return flaw(
                FlawKind::Damaged,
                at,
                format!("block length {len} (a multiple of 4, at least 12)"),
            );
        }
        if len > MAX_BLOCK {
            return flaw(
                FlawKind::Damaged,
                at,
                format!("block length {len} (at most {MAX_BLOCK})"),
            );
        }
        Ok(Some((kind, len as usize)))
    }
}

/// Where a packet is in `buf` and what the record said of it.
#[derive(Debug, Clone, Copy)]
struct At {
    offset: u64,
    link: i32,
    ts_us: u64,
    orig_len: u32,
    snaplen: u32,
    data: (usize, usize),
}

fn pcap(nanos: bool, little_endian: bool) -> Format {
    Format::Pcap {
        nanos,
        little_endian,
    }
}

impl Interface {
    fn ts_us(&self, ticks: u64) -> u64 {
        let us = u128::from(ticks) * 1_000_000 / u128::from(self.units);
        let us = us as i128 + i128::from(self.offset_s) * 1_000_000;
        us.clamp(0, i128::from(u64::MAX)) as u64
    }
}

/// An interface description block (`b` holds the whole block).
fn interface(b: &[u8], le: bool, at: u64) -> Result<Interface, ReadError> {
    let len = b.len();
    if len < 20 {
        return flaw(
            FlawKind::Damaged,
            at,
            format!("interface block of {len} bytes (at least 20)"),
        );
    }
    let mut i = Interface {
        link: i32::from(u16_at(b, 8, le)),
        snaplen: u32_at(b, 12, le),
        units: 1_000_000,
        offset_s: 0,
    };
    // Options: code, length, value padded to 4 bytes; up to the trailing length.
    let end = len - 4;
    let mut o = 16;
    while o + 4 <= end {
        let (code, olen) = (u16_at(b, o, le), usize::from(u16_at(b, o + 2, le)));
        if code == 0 {
            break;
        }
        let v = o + 4;
        if v + olen > end {
            return flaw(
                FlawKind::Damaged,
                at,
                format!("interface option {code} of {olen} bytes runs past its block"),
            );
        }
        match (code, olen) {
            (9, 1) => i.units = resolution(b[v], at)?,
            (14, 8) => {
                let w: [u8; 8] = b[v..v + 8].try_into().unwrap_or([0; 8]);
                i.offset_s = if le {
                    i64::from_le_bytes(w)
                } else {
                    i64::from_be_bytes(w)
                };
            }
            _ => {}
        }
        o = v + olen.div_ceil(4) * 4;
    }
    Ok(i)
}

/// Timestamp units per second of an `if_tsresol` option `r`.
fn resolution(r: u8, at: u64) -> Result<u64, ReadError> {
    let units = if r & 0x80 != 0 {
        1u64.checked_shl(u32::from(r & 0x7f))
            .filter(|_| r & 0x7f < 64)
    } else {
        10u64.checked_pow(u32::from(r))
    };
    match units {
        Some(u) if u > 0 => Ok(u),
        _ => flaw(
            FlawKind::Damaged,
            at,
            format!("timestamp resolution {r:#04x} out of range"),
        ),
    }
}

/// Replaces `buf` with up to `n` bytes from `r`; returns how many came (fewer only at the end).
fn read_up_to<R: Read>(r: &mut R, buf: &mut Vec<u8>, n: usize) -> io::Result<usize> {
    buf.clear();
    read_more(r, buf, n)
}

/// Appends up to `n` bytes from `r` to `buf` (growing only as bytes arrive, so a damaged
/// length cannot make it allocate what the file does not hold).
fn read_more<R: Read>(r: &mut R, buf: &mut Vec<u8>, n: usize) -> io::Result<usize> {
    r.by_ref().take(n as u64).read_to_end(buf)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A packet as owned values: (offset, link, ts_us, orig_len, snaplen, data).
    pub(crate) type Owned = (u64, i32, u64, u32, u32, Vec<u8>);

    pub(crate) fn reference(name: &str) -> Vec<u8> {
        std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../captures")
                .join(name),
        )
        .expect("reference capture")
    }

    /// Every packet, then the error that stopped reading (None: the end of the file).
    pub(crate) fn read_all(bytes: &[u8]) -> (Vec<Owned>, Option<ReadError>) {
        let mut r = match CaptureReader::new(bytes) {
            Ok(r) => r,
            Err(e) => return (Vec::new(), Some(e)),
        };
        let mut out = Vec::new();
        loop {
            match r.next_packet() {
                Ok(Some(p)) => out.push((
                    p.offset,
                    p.link,
                    p.ts_us,
                    p.orig_len,
                    p.snaplen,
                    p.data.to_vec(),
                )),
                Ok(None) => return (out, None),
                Err(e) => {
                    assert!(r.next_packet().expect("done").is_none());
                    return (out, Some(e));
                }
            }
        }
    }

    /// Classic pcap of `pkts` (ts_us, data, orig_len), in either byte order and resolution.
    pub(crate) fn pcap_file(
        pkts: &[Owned],
        le: bool,
        nanos: bool,
        link: u32,
        snaplen: u32,
    ) -> Vec<u8> {
        let w32 =
            |b: &mut Vec<u8>, v: u32| b.extend(if le { v.to_le_bytes() } else { v.to_be_bytes() });
        let w16 =
            |b: &mut Vec<u8>, v: u16| b.extend(if le { v.to_le_bytes() } else { v.to_be_bytes() });
        let mut b = Vec::new();
        w32(&mut b, if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 });
        w16(&mut b, 2);
        w16(&mut b, 4);
        w32(&mut b, 0);
        w32(&mut b, 0);
        w32(&mut b, snaplen);
        w32(&mut b, link);
        for (_, _, ts, orig, _, data) in pkts {
            w32(&mut b, (ts / 1_000_000) as u32);
            let frac = (ts % 1_000_000) as u32;
            // Nanosecond files carry sub-microsecond digits the reader must truncate.
            w32(&mut b, if nanos { frac * 1000 + 999 } else { frac });
            w32(&mut b, data.len() as u32);
            w32(&mut b, *orig);
            b.extend(data);
        }
        b
    }

    /// A pcapng section in the byte order `le` with the interfaces `(link, snaplen, tsresol
    /// option)` and enhanced packet blocks `(interface, ts in its units, orig_len, data)`.
    pub(crate) fn pcapng_section(
        le: bool,
        ifaces: &[(u16, u32, Option<u8>)],
        pkts: &[(u32, u64, u32, Vec<u8>)],
    ) -> Vec<u8> {
        let w32 =
            |b: &mut Vec<u8>, v: u32| b.extend(if le { v.to_le_bytes() } else { v.to_be_bytes() });
        let w16 =
            |b: &mut Vec<u8>, v: u16| b.extend(if le { v.to_le_bytes() } else { v.to_be_bytes() });
        let mut b = Vec::new();
        b.extend([0x0a, 0x0d, 0x0d, 0x0a]);
        w32(&mut b, 28);
        w32(&mut b, 0x1a2b_3c4d);
        w16(&mut b, 1);
        w16(&mut b, 0);
        b.extend([0xff; 8]);
        w32(&mut b, 28);
        for &(link, snaplen, tsresol) in ifaces {
            let len = if tsresol.is_some() { 32 } else { 20 };
            w32(&mut b, 1);
            w32(&mut b, len);
            w16(&mut b, link);
            w16(&mut b, 0);
            w32(&mut b, snaplen);
            if let Some(r) = tsresol {
                w16(&mut b, 9);
                w16(&mut b, 1);
                b.extend([r, 0, 0, 0]);
                w32(&mut b, 0); // opt_endofopt
            }
            w32(&mut b, len);
        }
        for (iface, ts, orig, data) in pkts {
            let pad = (4 - data.len() % 4) % 4;
            let len = (32 + data.len() + pad) as u32;
            w32(&mut b, 6);
            w32(&mut b, len);
            w32(&mut b, *iface);
            w32(&mut b, (ts >> 32) as u32);
            w32(&mut b, *ts as u32);
            w32(&mut b, data.len() as u32);
            w32(&mut b, *orig);
            b.extend(data);
            b.extend(&[0u8; 3][..pad]);
            w32(&mut b, len);
        }
        b
    }

    /// The offset of each block of the pcapng `b` (its length at +4, little-endian, as the
    /// reference captures are written), up to the first that does not fit whole.
    fn block_starts(b: &[u8]) -> (Vec<u64>, Option<u64>) {
        let (mut starts, mut off) = (Vec::new(), 0usize);
        while off < b.len() {
            let len = b
                .get(off + 4..off + 8)
                .map(|l| u32::from_le_bytes(l.try_into().expect("4 bytes")) as usize);
            match len {
                Some(len) if off + len <= b.len() => {
                    starts.push(off as u64);
                    off += len;
                }
                _ => return (starts, Some(off as u64)),
            }
        }
        (starts, None)
    }

    #[test]
    fn reference_captures_read_whole() {
        for name in ["search-fresh.pcapng", "search-pooled.pcapng"] {
            let b = reference(name);
            let (pkts, err) = read_all(&b);
            assert!(err.is_none(), "{name}: {err:?}");
            let (blocks, cut) = block_starts(&b);
            assert_eq!(cut, None, "{name}: whole blocks");
            let offsets: Vec<u64> = pkts.iter().map(|p| p.0).collect();
            // The section header, then one interface, then one packet per block.
            assert_eq!(offsets, blocks[2..], "{name}: one packet per packet block");
            assert!(pkts.iter().all(|p| p.1 == 1 && p.5.len() as u32 == p.3));
        }
    }

    #[test]
    fn pcap_in_both_byte_orders_and_resolutions() {
        let (ng, _) = read_all(&reference("search-pooled.pcapng"));
        // Classic pcap: a 24-byte header, then a 16-byte header before each packet's bytes.
        let offsets: Vec<u64> = ng
            .iter()
            .scan(24u64, |at, p| {
                let here = *at;
                *at += 16 + p.5.len() as u64;
                Some(here)
            })
            .collect();
        for le in [true, false] {
            for nanos in [false, true] {
                let b = pcap_file(&ng, le, nanos, 1, 65535);
                let (got, err) = read_all(&b);
                assert!(err.is_none(), "le {le} nanos {nanos}: {err:?}");
                assert_eq!(got.len(), ng.len());
                for (g, w) in got.iter().zip(&ng) {
                    assert_eq!((g.1, g.2, g.3, g.4, &g.5), (1, w.2, w.3, 65535, &w.5));
                }
                assert_eq!(got.iter().map(|p| p.0).collect::<Vec<_>>(), offsets);
            }
        }
    }

    /// A classic pcap file of two 4-byte records: the records at 24 and 44; cut inside the
    /// second, it is truncated there; a record claiming more bytes than its packet had on the
    /// wire is damage at its header.
    #[test]
    fn classic_pcap_records() {
        let mut b = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
        b.extend([0; 8]);
        b.extend(65535u32.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        for _ in 0..2 {
            b.extend(1_700_000_000u32.to_le_bytes());
            b.extend([0; 4]);
            b.extend(4u32.to_le_bytes());
            b.extend(4u32.to_le_bytes());
            b.extend([1, 2, 3, 4]);
        }
        let (got, err) = read_all(&b);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got.iter().map(|p| p.0).collect::<Vec<_>>(), [24, 44]);
        match read_all(&b[..50]) {
            (p, Some(ReadError::Flaw(f))) => {
                assert_eq!(p.len(), 1);
                assert_eq!((f.kind, f.offset), (FlawKind::Truncated, 44), "{}", f.what);
            }
            other => panic!("{other:?}"),
        }
        b[44 + 8] = 9; // captured 9 of 4
        match read_all(&b) {
            (p, Some(ReadError::Flaw(f))) => {
                assert_eq!(p.len(), 1);
                assert_eq!((f.kind, f.offset), (FlawKind::Damaged, 44), "{}", f.what);
            }
            other => panic!("{other:?}"),
        }
    }

    /// A packet block whose length is flipped (still a multiple of 4, now unlike its
    /// trailer) is damage at that block; the packets before it are read.
    #[test]
    fn a_flipped_block_length_is_damage_at_its_block() {
        let mut b = reference("search-pooled.pcapng");
        let (pkts, _) = read_all(&b);
        let at = pkts[5].0 as usize;
        b[at + 4] ^= 0x04;
        match read_all(&b) {
            (p, Some(ReadError::Flaw(f))) => {
                assert_eq!(p.len(), 5);
                assert_eq!(
                    (f.kind, f.offset),
                    (FlawKind::Damaged, at as u64),
                    "{}",
                    f.what
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn pcapng_interfaces_carry_link_type_snap_length_and_resolution() {
        let t = 1_700_000_000_123_456u64; // µs
        let data = vec![0xab; 10];
        let mut b = pcapng_section(
            false,
            &[
                (1, 96, Some(9)),
                (113, 0, None),
                (276, 200, Some(0x80 | 20)),
            ],
            &[
                (0, t * 1000 + 789, 1500, data.clone()),
                (1, t, 10, data.clone()),
                (
                    2,
                    (t as u128 * (1 << 20)).div_ceil(1_000_000) as u64,
                    60,
                    data.clone(),
                ),
            ],
        );
        // A second section, little-endian, whose interface 0 is raw IP in milliseconds.
        b.extend(pcapng_section(
            true,
            &[(101, 0, Some(3))],
            &[(0, t / 1000, 10, data.clone())],
        ));
        let (got, err) = read_all(&b);
        assert!(err.is_none(), "{err:?}");
        let facts: Vec<(i32, u64, u32, u32)> = got.iter().map(|p| (p.1, p.2, p.3, p.4)).collect();
        assert_eq!(
            facts,
            vec![
                (1, t, 1500, 96),
                (113, t, 10, 0),
                (276, t, 60, 200),
                (101, t / 1000 * 1000, 10, 0)
            ]
        );
        // A packet of an interface the section does not describe is damage at its block.
        let bad = pcapng_section(true, &[(1, 0, None)], &[(1, t, 10, data)]);
        let at = 28 + 20;
        match read_all(&bad) {
            (p, Some(ReadError::Flaw(f))) => {
                assert!(p.is_empty());
                assert_eq!(
                    (f.kind, f.offset),
                    (FlawKind::Damaged, at as u64),
                    "{}",
                    f.what
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// Every prefix of a capture reads the packets of the blocks (records) it holds whole,
    /// then stops truncated at the first block (record) it cuts; never a panic.
    #[test]
    fn every_cut_is_truncated_at_the_block_it_cuts() {
        let ng = reference("search-pooled.pcapng");
        let (whole, _) = read_all(&ng);
        let ng = &ng[..ng.len().min(3000)];
        for cut in 4..ng.len() {
            let (got, err) = read_all(&ng[..cut]);
            let (blocks, at) = block_starts(&ng[..cut]);
            let kept: Vec<u64> = whole
                .iter()
                .map(|p| p.0)
                .filter(|o| blocks.contains(o))
                .collect();
            assert_eq!(
                got.iter().map(|p| p.0).collect::<Vec<_>>(),
                kept,
                "cut {cut}"
            );
            match (err, at) {
                (None, None) => {}
                (Some(ReadError::Flaw(f)), Some(at)) => {
                    assert_eq!((f.kind, f.offset), (FlawKind::Truncated, at), "cut {cut}")
                }
                (e, at) => panic!("cut {cut}: {e:?} vs a cut block at {at:?}"),
            }
        }
        let pcap_be = pcap_file(&whole[..6], false, true, 1, 65535);
        let ends: Vec<usize> = whole[..6]
            .iter()
            .scan(24usize, |at, p| {
                *at += 16 + p.5.len();
                Some(*at)
            })
            .collect();
        for cut in 4..pcap_be.len() {
            let (got, err) = read_all(&pcap_be[..cut]);
            let n = ends.iter().filter(|e| **e <= cut).count();
            assert_eq!(got.len(), n, "cut {cut}");
            let at = if cut < 24 {
                0
            } else {
                n.checked_sub(1).map_or(24, |i| ends[i])
            };
            match err {
                None => assert!(
                    cut >= 24 && ends[..n].last() == Some(&cut) || (cut == 24 && n == 0),
                    "cut {cut}"
                ),
                Some(ReadError::Flaw(f)) => {
                    assert_eq!(
                        (f.kind, f.offset as usize),
                        (FlawKind::Truncated, at),
                        "cut {cut}"
                    )
                }
                Some(e) => panic!("cut {cut}: {e:?}"),
            }
        }
        for short in [&b""[..], b"\x0a\x0d", b"not a capture"] {
            assert!(matches!(read_all(short).1, Some(ReadError::NotACapture)));
        }
    }

    /// Flipped bytes anywhere: never a panic, never more than the packets of the file.
    #[test]
    fn flipped_bytes_never_panic() {
        let ng = reference("search-pooled.pcapng");
        let b = &ng[..ng.len().min(2000)];
        let n = read_all(b).0.len();
        for i in 0..b.len() {
            for x in [0x01, 0x40, 0xff] {
                let mut f = b.to_vec();
                f[i] ^= x;
                let (got, _) = read_all(&f);
                assert!(got.len() <= n + 1, "flip at {i}");
            }
        }
    }
}
