//! One direction of a TCP connection put back in order: retransmitted bytes are dropped,
//! segments that arrive early wait for the bytes before them, and a hole that never fills
//! (a packet the capture missed, or a frame cut short by the snap length) becomes an explicit
//! [`Delivery::Gap`] so the protocol parser above knows it lost sync.

use std::collections::BTreeMap;

/// Most bytes held out of order before the hole is given up on.
const MAX_PENDING: usize = 8 * 1024 * 1024;

/// What the reassembler hands to the parser above it, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// In-order bytes, with the timestamp (µs) of the packet that completed them.
    Data(u64, Vec<u8>),
    /// This many bytes are missing from the stream.
    Gap(u64),
}

/// Reassembles one direction of a TCP stream.
#[derive(Debug, Default)]
pub struct Reassembler {
    /// Sequence number of the next byte expected; None until the first SYN or data segment.
    next: Option<u32>,
    /// Stream offset of `next`.
    delivered: u64,
    /// Early segments by stream offset: (timestamp, bytes).
    pending: BTreeMap<u64, (u64, Vec<u8>)>,
    pending_bytes: usize,
    /// Segments whose bytes had all been delivered already.
    pub retransmitted: u64,
    /// Segments that arrived ahead of a hole.
    pub out_of_order: u64,
    /// Bytes never seen (holes given up on, frames cut short).
    pub gap_bytes: u64,
    /// Bytes delivered in order.
    pub bytes: u64,
}

impl Reassembler {
    /// Starts the stream at the byte after the SYN with sequence number `isn`. A SYN seen again
    /// (retransmitted) changes nothing once data has flowed.
    pub fn syn(&mut self, isn: u32) {
        if self.next.is_none() {
            self.next = Some(isn.wrapping_add(1));
        }
    }

    /// True once the stream has a starting point.
    pub fn started(&self) -> bool {
        self.next.is_some()
    }

    /// Adds a segment starting at `seq` whose payload is `claimed` bytes long of which `data`
    /// were captured; returns what can now be delivered in order.
    pub fn push(&mut self, seq: u32, data: &[u8], claimed: usize, ts: u64) -> Vec<Delivery> {
        let mut out = Vec::new();
        if claimed == 0 {
            return out;
        }
        let next = *self.next.get_or_insert(seq);
        let rel = self.delivered as i64 + i64::from(seq.wrapping_sub(next) as i32);
        let data = &data[..data.len().min(claimed)];
        if rel + (claimed as i64) <= self.delivered as i64 {
            self.retransmitted += 1;
            return out;
        }
        let (rel, data, claimed) = if rel < 0 {
            let cut = (-rel) as usize;
            (0, data.get(cut..).unwrap_or(&[]), claimed - cut)
        } else {
            (rel as u64, data, claimed)
        };
        if rel > self.delivered {
            self.out_of_order += 1;
            let keep = self.pending.entry(rel).or_insert((ts, Vec::new()));
            if data.len() > keep.1.len() {
                self.pending_bytes += data.len() - keep.1.len();
                *keep = (ts, data.to_vec());
            }
            // A frame cut short leaves its own hole; it is filled as a gap when reached.
            if self.pending_bytes > MAX_PENDING {
                self.give_up_hole(&mut out);
            }
            return out;
        }
        self.accept(rel, data, claimed, ts, &mut out);
        self.drain(&mut out);
        out
    }

    /// Delivers `data` (claimed `claimed` bytes) at offset `rel` <= delivered.
    fn accept(&mut self, rel: u64, data: &[u8], claimed: usize, ts: u64, out: &mut Vec<Delivery>) {
        let skip = (self.delivered - rel) as usize;
        if skip < data.len() {
            let fresh = &data[skip..];
            self.bytes += fresh.len() as u64;
            self.advance(fresh.len() as u64);
            out.push(Delivery::Data(ts, fresh.to_vec()));
        }
        let end = rel + claimed as u64;
        if end > self.delivered {
            let missing = end - self.delivered;
            self.gap_bytes += missing;
            self.advance(missing);
            out.push(Delivery::Gap(missing));
        }
    }

    fn advance(&mut self, n: u64) {
        self.delivered += n;
        if let Some(next) = self.next.as_mut() {
            *next = next.wrapping_add(n as u32);
        }
    }

    /// Delivers every pending segment that now touches the delivered edge.
    fn drain(&mut self, out: &mut Vec<Delivery>) {
        while let Some((&rel, _)) = self.pending.first_key_value() {
            if rel > self.delivered {
                break;
            }
            let Some((_, (ts, data))) = self.pending.pop_first() else {
                break;
            };
            self.pending_bytes -= data.len();
            if rel + data.len() as u64 > self.delivered {
                let len = data.len();
                self.accept(rel, &data, len, ts, out);
            } else {
                self.retransmitted += 1;
            }
        }
    }

    /// Skips to the first pending segment, recording the hole as a gap.
    fn give_up_hole(&mut self, out: &mut Vec<Delivery>) {
        if let Some((&rel, _)) = self.pending.first_key_value() {
            if rel > self.delivered {
                let missing = rel - self.delivered;
                self.gap_bytes += missing;
                self.advance(missing);
                out.push(Delivery::Gap(missing));
            }
            self.drain(out);
        }
    }

    /// End of the stream (FIN, RST or end of capture): every hole left becomes a gap and what
    /// waited behind it is delivered.
    pub fn finish(&mut self) -> Vec<Delivery> {
        let mut out = Vec::new();
        while !self.pending.is_empty() {
            self.give_up_hole(&mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(d: &[Delivery]) -> Vec<u8> {
        d.iter()
            .flat_map(|x| match x {
                Delivery::Data(_, b) => b.clone(),
                Delivery::Gap(n) => vec![b'?'; *n as usize],
            })
            .collect()
    }

    #[test]
    fn in_order_out_of_order_and_retransmitted() {
        let mut r = Reassembler::default();
        r.syn(999);
        let mut got = r.push(1000, b"hello ", 6, 1);
        // "world" arrives before " big " and is held.
        assert!(r.push(1011, b"world", 5, 3).is_empty());
        got.extend(r.push(1006, b"big, ", 5, 2));
        // Retransmissions of both, and an overlapping one that adds the tail.
        got.extend(r.push(1000, b"hello ", 6, 4));
        got.extend(r.push(1006, b"big, ", 5, 4));
        got.extend(r.push(1011, b"world!", 6, 5));
        assert_eq!(data(&got), b"hello big, world!");
        assert_eq!(r.out_of_order, 1);
        assert_eq!(r.retransmitted, 2);
        assert_eq!(r.gap_bytes, 0);
    }

    #[test]
    fn sequence_wraparound() {
        let mut r = Reassembler::default();
        r.syn(u32::MAX - 2);
        let mut got = r.push(u32::MAX - 1, b"ab", 2, 1);
        got.extend(r.push(0, b"cd", 2, 2));
        assert_eq!(data(&got), b"abcd");
    }

    #[test]
    fn missing_segment_becomes_a_gap_at_the_end() {
        let mut r = Reassembler::default();
        r.syn(0);
        let mut got = r.push(1, b"abc", 3, 1);
        got.extend(r.push(7, b"ghi", 3, 2));
        got.extend(r.finish());
        assert_eq!(data(&got), b"abc???ghi");
        assert_eq!(r.gap_bytes, 3);
    }

    #[test]
    fn frame_cut_short_is_a_gap() {
        let mut r = Reassembler::default();
        r.syn(0);
        let got = r.push(1, b"ab", 5, 1);
        assert_eq!(data(&got), b"ab???");
        assert_eq!(r.gap_bytes, 3);
    }
}
