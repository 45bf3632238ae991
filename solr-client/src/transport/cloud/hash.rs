//! SolrCloud's `compositeId` document router, bit for bit as SolrJ computes it
//! (`org.apache.solr.common.cloud.CompositeIdRouter` and `Hash.murmurhash3_x86_32`).
//!
//! A plain id (no `!`) hashes to MurmurHash3 x86_32 of its UTF-8 bytes with seed 0. A
//! composite id `route!id` takes the upper 16 bits from the route key's hash and the lower
//! 16 from the id's; `a!b!id` takes 8 + 8 + 16; `route/N!id` gives the route key N bits.
//! A shard owns a signed hash range such as `80000000-7fffffff` (the whole ring); a document
//! belongs to the active shard whose range includes its hash.
//!
//! Java semantics are kept where they matter: shift counts are taken modulo 32 (Java masks
//! them, so does `wrapping_shl`), and a bit count is parsed with Java's wrapping `int`
//! arithmetic, so odd ids such as `a/99!b` land on the same shard as with SolrJ.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// MurmurHash3 x86_32 of `data` with `seed`, as a signed 32-bit value (Java's `int`).
#[doc(hidden)]
pub fn murmurhash3_x86_32(data: &[u8], seed: u32) -> i32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h1 = seed;
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k1 = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k1 = k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h1 ^= k1;
        h1 = h1.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let mut k1 = 0u32;
        for (i, b) in tail.iter().enumerate() {
            k1 |= u32::from(*b) << (8 * i);
        }
        k1 = k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h1 ^= k1;
    }
    h1 ^= data.len() as u32;
    h1 ^= h1 >> 16;
    h1 = h1.wrapping_mul(0x85eb_ca6b);
    h1 ^= h1 >> 13;
    h1 = h1.wrapping_mul(0xc2b2_ae35);
    h1 ^= h1 >> 16;
    h1 as i32
}

fn hash_str(s: &str) -> i32 {
    murmurhash3_x86_32(s.as_bytes(), 0)
}

/// The hash `CompositeIdRouter.sliceHash` gives a document id (or route field value).
pub fn composite_id_hash(id: &str) -> i32 {
    if !id.contains('!') {
        return hash_str(id);
    }
    KeyParser::new(id).hash()
}

/// Java's `-1 << n` (n taken modulo 32).
fn shl_ones(n: i32) -> i32 {
    (-1i32).wrapping_shl(n as u32)
}

struct KeyParser {
    hashes: Vec<i32>,
    masks: Vec<i32>,
}

impl KeyParser {
    fn new(key: &str) -> Self {
        let mut parts: Vec<&str> = Vec::with_capacity(3);
        match key.find('!') {
            None => parts.push(key),
            Some(first) => {
                parts.push(&key[..first]);
                let last_pos = key.len() - 1;
                if first < last_pos {
                    match key[first + 1..].find('!').map(|p| p + first + 1) {
                        None => parts.push(&key[first + 1..]),
                        Some(second) if second == last_pos => {
                            if first < second - 1 {
                                parts.push(&key[first + 1..second]);
                            }
                        }
                        Some(second) => {
                            parts.push(&key[first + 1..second]);
                            parts.push(&key[second + 1..]);
                        }
                    }
                }
            }
        }
        let mut pieces = parts.len();
        if key.ends_with('!') && pieces < 3 {
            pieces += 1;
        }
        let tri = pieces == 3;
        let mut num_bits: [i32; 2] = if tri { [8, 8] } else { [16, 0] };
        let mut hashes = vec![0i32; pieces];
        for (i, h) in hashes.iter_mut().enumerate() {
            if i + 1 < pieces {
                if let Some(comma) = parts[i].find('/').filter(|&c| c > 0) {
                    num_bits[i] = num_bits_of(parts[i], comma);
                    parts[i] = &parts[i][..comma];
                }
            }
            *h = parts.get(i).map_or_else(|| hash_str(""), |p| hash_str(p));
        }
        let masks = if tri {
            let (fb, sb) = (num_bits[0], num_bits[1]);
            let m0 = if fb == 0 {
                0
            } else {
                shl_ones(32i32.wrapping_sub(fb))
            };
            let both = fb.wrapping_add(sb);
            let m1 = if both == 0 {
                0
            } else {
                shl_ones(32i32.wrapping_sub(both))
            };
            let m1 = m0 ^ m1;
            let m2 = if both == 32 { 0 } else { !(m0 | m1) };
            vec![m0, m1, m2]
        } else {
            let fb = num_bits[0];
            let m0 = if fb == 0 {
                0
            } else {
                shl_ones(32i32.wrapping_sub(fb))
            };
            let m1 = if fb == 32 {
                0
            } else {
                u32::MAX.wrapping_shr(fb as u32) as i32
            };
            vec![m0, m1]
        };
        KeyParser { hashes, masks }
    }

    fn hash(&self) -> i32 {
        self.hashes
            .iter()
            .zip(&self.masks)
            .fold(0, |acc, (h, m)| acc | (h & m))
    }
}

/// `getNumBits`: the digits after `/`, with Java's wrapping int arithmetic; -1 when a
/// non-digit follows or the value exceeds 32.
fn num_bits_of(part: &str, comma: usize) -> i32 {
    let mut v: i32 = 0;
    for ch in part[comma + 1..].chars() {
        if !ch.is_ascii_digit() {
            return -1;
        }
        v = v.wrapping_mul(10).wrapping_add(ch as i32 - '0' as i32);
    }
    if v > 32 {
        -1
    } else {
        v
    }
}

/// A shard's signed hash range, inclusive at both ends (Solr's `DocRouter.Range`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HashRange {
    /// Lowest hash in the range.
    pub min: i32,
    /// Highest hash in the range.
    pub max: i32,
}

impl HashRange {
    /// The whole ring, `80000000-7fffffff`.
    pub const FULL: HashRange = HashRange {
        min: i32::MIN,
        max: i32::MAX,
    };

    /// True when `hash` lies in the range.
    pub fn includes(&self, hash: i32) -> bool {
        self.min <= hash && hash <= self.max
    }
}

impl FromStr for HashRange {
    type Err = Error;
    /// Parses Solr's `min-max` form in hexadecimal, e.g. `80000000-ffffffff`.
    fn from_str(s: &str) -> Result<Self> {
        let bad = || Error::Decode {
            node: Default::default(),
            what: "shard hash range",
            message: format!("expected two hex numbers joined by '-', got {s:?}").into(),
            snippet: Default::default(),
        };
        let (a, b) = s.split_once('-').ok_or_else(bad)?;
        let parse = |x: &str| -> Result<i32> {
            if x.is_empty() || x.len() > 8 {
                return Err(bad());
            }
            u32::from_str_radix(x, 16)
                .map(|v| v as i32)
                .map_err(|_| bad())
        };
        Ok(HashRange {
            min: parse(a)?,
            max: parse(b)?,
        })
    }
}

impl fmt::Display for HashRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:x}-{:x}", self.min as u32, self.max as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur_matches_solrj_documented_values() {
        // Values from the CompositeIdRouter class comment.
        assert_eq!(hash_str("contact"), -541_354_036);
        assert_eq!(hash_str("0000000KISS"), 2_099_700_320);
        assert_eq!(
            composite_id_hash("contact!0000000KISS") as u32,
            0b1101_1111_1011_1011_1110_0010_0110_0000
        );
    }

    #[test]
    fn murmur_reference_vectors() {
        // Reference values of MurmurHash3_x86_32 (Appleby's SMHasher).
        assert_eq!(murmurhash3_x86_32(b"", 0), 0);
        assert_eq!(murmurhash3_x86_32(b"", 1) as u32, 0x514e_28b7);
        assert_eq!(murmurhash3_x86_32(b"hello", 0) as u32, 0x248b_fa47);
        assert_eq!(
            murmurhash3_x86_32(b"The quick brown fox jumps over the lazy dog", 0) as u32,
            0x2e4f_f723
        );
    }

    #[test]
    fn bits_and_levels() {
        let a = hash_str("a");
        let b = hash_str("b");
        let id = hash_str("id");
        // Two levels, 16 bits each.
        assert_eq!(
            composite_id_hash("a!id"),
            (a & 0xffff_0000u32 as i32) | (id & 0xffff)
        );
        // Explicit bits for the route key.
        assert_eq!(
            composite_id_hash("a/4!id"),
            (a & 0xf000_0000u32 as i32) | (id & 0x0fff_ffff)
        );
        // Three levels, 8 + 8 + 16.
        assert_eq!(
            composite_id_hash("a!b!id"),
            (a & 0xff00_0000u32 as i32) | (b & 0x00ff_0000) | (id & 0xffff)
        );
        // Zero bits: the id alone decides.
        assert_eq!(composite_id_hash("a/0!id"), id);
        // A trailing '!' hashes an empty last part.
        assert_eq!(
            composite_id_hash("a!"),
            (a & 0xffff_0000u32 as i32) | (hash_str("") & 0xffff)
        );
    }

    #[test]
    fn ranges_parse_and_include() {
        let full: HashRange = "80000000-7fffffff".parse().expect("parses");
        assert_eq!(full, HashRange::FULL);
        let lower: HashRange = "80000000-ffffffff".parse().expect("parses");
        assert!(lower.includes(-1) && lower.includes(i32::MIN) && !lower.includes(0));
        assert_eq!(lower.to_string(), "80000000-ffffffff");
        assert!("nonsense".parse::<HashRange>().is_err());
        assert!("1-".parse::<HashRange>().is_err());
        assert!("123456789-1".parse::<HashRange>().is_err());
    }
}
