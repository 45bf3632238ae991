//! An HPACK decoder (RFC 7541) for one direction of an HTTP/2 connection: the static table,
//! a dynamic table with size updates and eviction, prefixed integers, string literals plain or
//! Huffman-coded (the RFC's canonical code, Appendix B), and never-indexed literals.
//!
//! Malformed input is an [`Error`] (the caller stops decoding that direction), never a panic.
//! Neither errors nor `Debug` output show a header value: a block may carry `authorization`.

use std::collections::VecDeque;
use std::fmt;

/// Why a header block could not be decoded. Never holds a header value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The block ended inside a representation.
    Truncated,
    /// An integer does not fit in 32 bits.
    IntegerOverflow,
    /// An index points past both tables.
    BadIndex(u64),
    /// A Huffman string holds EOS, or padding longer than 7 bits or not all ones.
    BadHuffman,
    /// A dynamic table size update above the limit the peer's SETTINGS allow, or after the
    /// first field of a block.
    BadSizeUpdate(u64),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated => write!(f, "HPACK block cut short"),
            Error::IntegerOverflow => write!(f, "HPACK integer over 32 bits"),
            Error::BadIndex(i) => write!(f, "HPACK index {i} out of range"),
            Error::BadHuffman => write!(f, "bad HPACK Huffman string"),
            Error::BadSizeUpdate(n) => write!(f, "bad HPACK table size update to {n}"),
        }
    }
}

impl std::error::Error for Error {}

/// One decoded header field.
#[derive(Clone, PartialEq, Eq)]
pub struct Field {
    /// Name (lower case in valid HTTP/2).
    pub name: String,
    /// Value.
    pub value: String,
    /// Sent as "never indexed" (RFC 7541 6.2.3): a sensitive value.
    pub never_indexed: bool,
}

impl fmt::Debug for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The value may be a credential: only its length is shown.
        f.debug_struct("Field")
            .field("name", &self.name)
            .field("value_len", &self.value.len())
            .field("never_indexed", &self.never_indexed)
            .finish()
    }
}

/// The static table (RFC 7541 Appendix A), index 1 first.
const STATIC: [(&str, &str); 61] = [
    (":authority", ""),
    (":method", "GET"),
    (":method", "POST"),
    (":path", "/"),
    (":path", "/index.html"),
    (":scheme", "http"),
    (":scheme", "https"),
    (":status", "200"),
    (":status", "204"),
    (":status", "206"),
    (":status", "304"),
    (":status", "400"),
    (":status", "404"),
    (":status", "500"),
    ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"),
    ("accept-language", ""),
    ("accept-ranges", ""),
    ("accept", ""),
    ("access-control-allow-origin", ""),
    ("age", ""),
    ("allow", ""),
    ("authorization", ""),
    ("cache-control", ""),
    ("content-disposition", ""),
    ("content-encoding", ""),
    ("content-language", ""),
    ("content-length", ""),
    ("content-location", ""),
    ("content-range", ""),
    ("content-type", ""),
    ("cookie", ""),
    ("date", ""),
    ("etag", ""),
    ("expect", ""),
    ("expires", ""),
    ("from", ""),
    ("host", ""),
    ("if-match", ""),
    ("if-modified-since", ""),
    ("if-none-match", ""),
    ("if-range", ""),
    ("if-unmodified-since", ""),
    ("last-modified", ""),
    ("link", ""),
    ("location", ""),
    ("max-forwards", ""),
    ("proxy-authenticate", ""),
    ("proxy-authorization", ""),
    ("range", ""),
    ("referer", ""),
    ("refresh", ""),
    ("retry-after", ""),
    ("server", ""),
    ("set-cookie", ""),
    ("strict-transport-security", ""),
    ("transfer-encoding", ""),
    ("user-agent", ""),
    ("vary", ""),
    ("via", ""),
    ("www-authenticate", ""),
];

/// The default dynamic table size (SETTINGS_HEADER_TABLE_SIZE before any SETTINGS).
pub const DEFAULT_TABLE_SIZE: usize = 4096;

/// The decoding context of one direction: its dynamic table.
#[derive(Clone)]
pub struct Decoder {
    /// Newest first.
    table: VecDeque<(String, String)>,
    /// Sum of entry sizes (name + value + 32 each).
    size: usize,
    /// Current maximum size (the last size update, or the limit).
    max_size: usize,
    /// Largest size the decoding side allowed in its SETTINGS.
    limit: usize,
}

impl fmt::Debug for Decoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Entries may hold credentials: sizes only.
        f.debug_struct("Decoder")
            .field("entries", &self.table.len())
            .field("size", &self.size)
            .field("max_size", &self.max_size)
            .field("limit", &self.limit)
            .finish()
    }
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            table: VecDeque::new(),
            size: 0,
            max_size: DEFAULT_TABLE_SIZE,
            limit: DEFAULT_TABLE_SIZE,
        }
    }
}

fn entry_size(name: &str, value: &str) -> usize {
    name.len() + value.len() + 32
}

impl Decoder {
    /// A decoder with the default 4096-byte table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The decoding side announced SETTINGS_HEADER_TABLE_SIZE `n`. A passive observer cannot
    /// tell when the encoder saw it, so the limit is the largest value ever announced.
    pub fn set_limit(&mut self, n: usize) {
        self.limit = self.limit.max(n);
    }

    /// Current dynamic table size in bytes (RFC 7541 4.1).
    pub fn table_size(&self) -> usize {
        self.size
    }

    /// Dynamic table entries, newest (index 62) first.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.table.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    fn evict_to(&mut self, max: usize) {
        while self.size > max {
            match self.table.pop_back() {
                Some((n, v)) => self.size -= entry_size(&n, &v),
                None => break,
            }
        }
    }

    fn insert(&mut self, name: String, value: String) {
        let s = entry_size(&name, &value);
        // An entry larger than the table empties it and is not added (RFC 7541 4.4).
        self.evict_to(self.max_size.saturating_sub(s));
        if s <= self.max_size {
            self.size += s;
            self.table.push_front((name, value));
        }
    }

    fn get(&self, index: u64) -> Result<(String, String), Error> {
        let i = usize::try_from(index).map_err(|_| Error::BadIndex(index))?;
        if i == 0 {
            return Err(Error::BadIndex(index));
        }
        if i <= STATIC.len() {
            let (n, v) = STATIC[i - 1];
            return Ok((n.to_string(), v.to_string()));
        }
        self.table
            .get(i - STATIC.len() - 1)
            .cloned()
            .ok_or(Error::BadIndex(index))
    }

    /// Decodes one complete header block (HEADERS or PUSH_PROMISE plus its CONTINUATIONs),
    /// updating the dynamic table. On error the table may be part-updated: the connection's
    /// later blocks in this direction cannot be trusted.
    pub fn decode(&mut self, block: &[u8]) -> Result<Vec<Field>, Error> {
        let mut out = Vec::new();
        let mut p = block;
        while let Some(&b) = p.first() {
            if b & 0x80 != 0 {
                let i = integer(&mut p, 7)?;
                let (name, value) = self.get(i)?;
                out.push(Field {
                    name,
                    value,
                    never_indexed: false,
                });
            } else if b & 0x40 != 0 {
                let (name, value) = self.literal(&mut p, 6)?;
                self.insert(name.clone(), value.clone());
                out.push(Field {
                    name,
                    value,
                    never_indexed: false,
                });
            } else if b & 0x20 != 0 {
                let n = integer(&mut p, 5)?;
                // Size updates come first in a block (RFC 7541 4.2).
                if !out.is_empty() || n > self.limit as u64 {
                    return Err(Error::BadSizeUpdate(n));
                }
                self.max_size = n as usize;
                self.evict_to(self.max_size);
            } else {
                let never_indexed = b & 0x10 != 0;
                let (name, value) = self.literal(&mut p, 4)?;
                out.push(Field {
                    name,
                    value,
                    never_indexed,
                });
            }
        }
        Ok(out)
    }

    /// A literal field: index of its name (prefix `bits`, 0 = literal name), then its value.
    fn literal(&self, p: &mut &[u8], bits: u8) -> Result<(String, String), Error> {
        let i = integer(p, bits)?;
        let name = if i == 0 { string(p)? } else { self.get(i)?.0 };
        Ok((name, string(p)?))
    }
}

/// A prefixed integer (RFC 7541 5.1) whose prefix is the low `bits` bits of the first byte.
fn integer(p: &mut &[u8], bits: u8) -> Result<u64, Error> {
    let (&first, rest) = p.split_first().ok_or(Error::Truncated)?;
    *p = rest;
    let max = (1u64 << bits) - 1;
    let mut v = u64::from(first) & max;
    if v < max {
        return Ok(v);
    }
    let mut shift = 0u32;
    loop {
        let (&b, rest) = p.split_first().ok_or(Error::Truncated)?;
        *p = rest;
        if shift > 28 {
            return Err(Error::IntegerOverflow);
        }
        v += u64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    if v > u64::from(u32::MAX) {
        return Err(Error::IntegerOverflow);
    }
    Ok(v)
}

/// A string literal (RFC 7541 5.2), Huffman-decoded when flagged.
fn string(p: &mut &[u8]) -> Result<String, Error> {
    let huffman = p.first().is_some_and(|b| b & 0x80 != 0);
    let len = integer(p, 7)?;
    let len = usize::try_from(len).map_err(|_| Error::Truncated)?;
    if p.len() < len {
        return Err(Error::Truncated);
    }
    let (raw, rest) = p.split_at(len);
    *p = rest;
    let bytes = if huffman {
        huffman_decode(raw)?
    } else {
        raw.to_vec()
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Code length in bits of each symbol 0..=256 (256 is EOS), from RFC 7541 Appendix B. The
/// code is canonical: codes of one length are consecutive in symbol order, and each length
/// starts where the shorter ones end (shifted), so the lengths alone define it.
const HUFFMAN_LEN: [u8; 257] = [
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0-15
    28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 16-31
    6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, // 32-47
    5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, // 48-63
    13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, // 64-79
    7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, // 80-95
    15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, // 96-111
    6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, // 112-127
    20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 128-143
    24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 144-159
    22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 160-175
    21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 176-191
    26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 192-207
    19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 208-223
    20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 224-239
    26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 240-255
    30, // EOS
];

/// The canonical code in decoding form: per length, the first code, how many codes, and
/// where its symbols start in `symbols` (sorted by length, then symbol).
struct Canonical {
    first: [u32; 31],
    count: [u32; 31],
    offset: [u32; 31],
    symbols: [u16; 257],
}

const CANONICAL: Canonical = canonical();

const fn canonical() -> Canonical {
    let mut c = Canonical {
        first: [0; 31],
        count: [0; 31],
        offset: [0; 31],
        symbols: [0; 257],
    };
    let mut s = 0;
    while s < 257 {
        c.count[HUFFMAN_LEN[s] as usize] += 1;
        s += 1;
    }
    let mut code = 0u32;
    let mut at = 0u32;
    let mut len = 1;
    while len < 31 {
        code = (code + if len > 1 { c.count[len - 1] } else { 0 }) << 1;
        c.first[len] = code;
        c.offset[len] = at;
        let mut s = 0;
        while s < 257 {
            if HUFFMAN_LEN[s] as usize == len {
                c.symbols[at as usize] = s as u16;
                at += 1;
            }
            s += 1;
        }
        len += 1;
    }
    c
}

/// Decodes a Huffman-coded string (RFC 7541 5.2).
fn huffman_decode(raw: &[u8]) -> Result<Vec<u8>, Error> {
    let c = &CANONICAL;
    let mut out = Vec::with_capacity(raw.len() * 8 / 5);
    let (mut code, mut len) = (0u32, 0usize);
    // Whether the bits since the last symbol are all ones (they may be EOS padding).
    let mut all_ones = true;
    for &byte in raw {
        for k in (0..8).rev() {
            let bit = u32::from(byte >> k) & 1;
            code = (code << 1) | bit;
            len += 1;
            all_ones &= bit == 1;
            if len > 30 {
                return Err(Error::BadHuffman);
            }
            let n = code.wrapping_sub(c.first[len]);
            if code >= c.first[len] && n < c.count[len] {
                let sym = c.symbols[(c.offset[len] + n) as usize];
                if sym == 256 {
                    return Err(Error::BadHuffman);
                }
                out.push(sym as u8);
                code = 0;
                len = 0;
                all_ones = true;
            }
        }
    }
    if len > 7 || !all_ones {
        return Err(Error::BadHuffman);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    }

    fn fields(v: &[Field]) -> Vec<(&str, &str)> {
        v.iter()
            .map(|f| (f.name.as_str(), f.value.as_str()))
            .collect()
    }

    fn table(d: &Decoder) -> Vec<(&str, &str)> {
        d.entries().collect()
    }

    /// The code a symbol gets from the lengths alone.
    fn code_of(sym: usize) -> (u32, u8) {
        let c = &CANONICAL;
        let len = HUFFMAN_LEN[sym] as usize;
        let pos = (0..c.count[len])
            .find(|&n| c.symbols[(c.offset[len] + n) as usize] as usize == sym)
            .expect("symbol placed");
        (c.first[len] + pos, len as u8)
    }

    #[test]
    fn huffman_code_is_complete_and_matches_appendix_b() {
        // Kraft: a complete prefix code sums to exactly 1.
        let kraft: u64 = HUFFMAN_LEN.iter().map(|&l| 1u64 << (30 - l)).sum();
        assert_eq!(kraft, 1 << 30);
        // Codes as printed in Appendix B, across every length.
        for (sym, code, len) in [
            (0, 0x1ff8, 13),
            (1, 0x7f_ffd8, 23),
            (9, 0xff_ffea, 24),
            (10, 0x3fff_fffc, 30),
            (22, 0x3fff_fffe, 30),
            (31, 0xfff_fffb, 28),
            (b' ' as usize, 0x14, 6),
            (b'!' as usize, 0x3f8, 10),
            (b'\'' as usize, 0x7fa, 11),
            (b'#' as usize, 0xffa, 12),
            (b'/' as usize, 0x18, 6),
            (b'0' as usize, 0x0, 5),
            (b':' as usize, 0x5c, 7),
            (b'<' as usize, 0x7ffc, 15),
            (b'X' as usize, 0xfc, 8),
            (b'\\' as usize, 0x7fff0, 19),
            (b'^' as usize, 0x3ffc, 14),
            (b'z' as usize, 0x7b, 7),
            (b'~' as usize, 0x1ffd, 13),
            (127, 0xfff_fffc, 28),
            (128, 0xf_ffe6, 20),
            (153, 0x1f_ffdc, 21),
            (172, 0x1f_ffdf, 21),
            (192, 0x3ff_ffe0, 26),
            (199, 0x1ff_ffec, 25),
            (203, 0x7ff_ffde, 27),
            (220, 0xfff_fffd, 28),
            (228, 0x3f_ffe9, 22),
            (239, 0x7f_fff4, 23),
            (249, 0xfff_fffe, 28),
            (254, 0x7ff_fff0, 27),
            (255, 0x3ff_ffee, 26),
            (256, 0x3fff_ffff, 30),
        ] {
            assert_eq!(code_of(sym), (code, len), "symbol {sym}");
        }
    }

    #[test]
    fn integers_c1() {
        // C.1.1: 10 on a 5-bit prefix; C.1.2: 1337; C.1.3: 42 on 8 bits.
        let mut p: &[u8] = &[0xea];
        assert_eq!(integer(&mut p, 5), Ok(10));
        let mut p: &[u8] = &[0x1f, 0x9a, 0x0a];
        assert_eq!(integer(&mut p, 5), Ok(1337));
        assert!(p.is_empty());
        let mut p: &[u8] = &[0x2a];
        assert_eq!(integer(&mut p, 8), Ok(42));
        let mut p: &[u8] = &[0x1f, 0x9a];
        assert_eq!(integer(&mut p, 5), Err(Error::Truncated));
        let mut p: &[u8] = &[0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f];
        assert_eq!(integer(&mut p, 5), Err(Error::IntegerOverflow));
    }

    #[test]
    fn field_representations_c2() {
        // C.2.1: literal with indexing.
        let mut d = Decoder::new();
        let f = d
            .decode(&hex(
                "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
            ))
            .expect("C.2.1");
        assert_eq!(fields(&f), [("custom-key", "custom-header")]);
        assert_eq!(table(&d), [("custom-key", "custom-header")]);
        assert_eq!(d.table_size(), 55);
        // C.2.2: literal without indexing.
        let mut d = Decoder::new();
        let f = d
            .decode(&hex("040c 2f73 616d 706c 652f 7061 7468"))
            .expect("C.2.2");
        assert_eq!(fields(&f), [(":path", "/sample/path")]);
        assert_eq!(d.table_size(), 0);
        // C.2.3: never indexed.
        let mut d = Decoder::new();
        let f = d
            .decode(&hex("1008 7061 7373 776f 7264 0673 6563 7265 74"))
            .expect("C.2.3");
        assert_eq!(fields(&f), [("password", "secret")]);
        assert!(f[0].never_indexed);
        assert_eq!(d.table_size(), 0);
        assert!(!format!("{f:?}").contains("secret"), "Debug hides values");
        // C.2.4: indexed.
        let mut d = Decoder::new();
        let f = d.decode(&hex("82")).expect("C.2.4");
        assert_eq!(fields(&f), [(":method", "GET")]);
        assert_eq!(d.table_size(), 0);
    }

    fn requests(blocks: [&str; 3]) {
        let mut d = Decoder::new();
        let f = d.decode(&hex(blocks[0])).expect("first request");
        assert_eq!(
            fields(&f),
            [
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com")
            ]
        );
        assert_eq!(table(&d), [(":authority", "www.example.com")]);
        assert_eq!(d.table_size(), 57);
        let f = d.decode(&hex(blocks[1])).expect("second request");
        assert_eq!(
            fields(&f),
            [
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com"),
                ("cache-control", "no-cache")
            ]
        );
        assert_eq!(
            table(&d),
            [
                ("cache-control", "no-cache"),
                (":authority", "www.example.com")
            ]
        );
        assert_eq!(d.table_size(), 110);
        let f = d.decode(&hex(blocks[2])).expect("third request");
        assert_eq!(
            fields(&f),
            [
                (":method", "GET"),
                (":scheme", "https"),
                (":path", "/index.html"),
                (":authority", "www.example.com"),
                ("custom-key", "custom-value")
            ]
        );
        assert_eq!(
            table(&d),
            [
                ("custom-key", "custom-value"),
                ("cache-control", "no-cache"),
                (":authority", "www.example.com")
            ]
        );
        assert_eq!(d.table_size(), 164);
    }

    #[test]
    fn requests_without_huffman_c3() {
        requests([
            "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "8286 84be 5808 6e6f 2d63 6163 6865",
            "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
        ]);
    }

    #[test]
    fn requests_with_huffman_c4() {
        requests([
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
            "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
        ]);
    }

    fn responses(blocks: [&str; 3]) {
        // SETTINGS_HEADER_TABLE_SIZE 256, as the examples say: set by a size update here.
        let mut d = Decoder::new();
        d.decode(&[0x3f, 0xe1, 0x01]).expect("size update to 256");
        let date1 = "Mon, 21 Oct 2013 20:13:21 GMT";
        let loc = "https://www.example.com";
        let f = d.decode(&hex(blocks[0])).expect("first response");
        let first = [
            (":status", "302"),
            ("cache-control", "private"),
            ("date", date1),
            ("location", loc),
        ];
        assert_eq!(fields(&f), first);
        assert_eq!(
            table(&d),
            [
                ("location", loc),
                ("date", date1),
                ("cache-control", "private"),
                (":status", "302")
            ]
        );
        assert_eq!(d.table_size(), 222);
        let f = d.decode(&hex(blocks[1])).expect("second response");
        assert_eq!(
            fields(&f),
            [
                (":status", "307"),
                ("cache-control", "private"),
                ("date", date1),
                ("location", loc)
            ]
        );
        assert_eq!(
            table(&d),
            [
                (":status", "307"),
                ("location", loc),
                ("date", date1),
                ("cache-control", "private")
            ]
        );
        assert_eq!(d.table_size(), 222);
        let f = d.decode(&hex(blocks[2])).expect("third response");
        let date2 = "Mon, 21 Oct 2013 20:13:22 GMT";
        let cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";
        assert_eq!(
            fields(&f),
            [
                (":status", "200"),
                ("cache-control", "private"),
                ("date", date2),
                ("location", loc),
                ("content-encoding", "gzip"),
                ("set-cookie", cookie)
            ]
        );
        assert_eq!(
            table(&d),
            [
                ("set-cookie", cookie),
                ("content-encoding", "gzip"),
                ("date", date2)
            ]
        );
        assert_eq!(d.table_size(), 215);
    }

    #[test]
    fn responses_without_huffman_c5() {
        responses([
            "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 \
             2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 \
             6c65 2e63 6f6d",
            "4803 3330 37c1 c0bf",
            "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d \
             54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 \
             5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e \
             3d31",
        ]);
    }

    #[test]
    fn responses_with_huffman_c6() {
        responses([
            "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 \
             2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
            "4883 640e ffc1 c0bf",
            "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab \
             77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f \
             9587 3160 65c0 03ed 4ee5 b106 3d50 07",
        ]);
    }

    #[test]
    fn size_updates_evict_and_are_bounded() {
        let mut d = Decoder::new();
        d.decode(&hex(
            "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
        ))
        .expect("insert");
        assert_eq!(d.table_size(), 55);
        // Size update to 0 empties the table; back to 4096 is allowed.
        d.decode(&[0x20]).expect("to 0");
        assert_eq!(d.table_size(), 0);
        assert_eq!(d.decode(&hex("be")), Err(Error::BadIndex(62)));
        d.decode(&[0x3f, 0xe1, 0x1f]).expect("to 4096");
        // Above the limit, or after a field: errors.
        assert_eq!(
            d.decode(&[0x3f, 0xe2, 0x1f]),
            Err(Error::BadSizeUpdate(4097))
        );
        d.set_limit(8192);
        d.decode(&[0x3f, 0xe2, 0x1f]).expect("to 4097 once allowed");
        assert_eq!(d.decode(&[0x82, 0x20]), Err(Error::BadSizeUpdate(0)));
    }

    #[test]
    fn malformed_blocks_are_errors_not_panics() {
        let mut d = Decoder::new();
        assert_eq!(d.decode(&[0x80]), Err(Error::BadIndex(0)));
        assert_eq!(d.decode(&[0xff, 0x80]), Err(Error::Truncated));
        assert_eq!(d.decode(&[0x40, 0x05, b'a']), Err(Error::Truncated));
        // Huffman: EOS inside, padding of 8 bits, padding with a zero bit.
        assert_eq!(
            d.decode(&[0x00, 0x84, 0xff, 0xff, 0xff, 0xff, 0x00]),
            Err(Error::BadHuffman)
        );
        assert_eq!(
            d.decode(&[0x00, 0x82, 0x07, 0xff, 0x00]),
            Err(Error::BadHuffman)
        );
        assert_eq!(d.decode(&[0x00, 0x81, 0x0e, 0x00]), Err(Error::BadHuffman));
        // Every prefix of a valid block is an error or a shorter list, never a panic.
        let block = hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf");
        for n in 0..block.len() {
            let _ = Decoder::new().decode(&block[..n]);
        }
    }
}
