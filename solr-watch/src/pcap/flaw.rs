//! What can be wrong in a saved pcap or pcapng file, in the words the capture reader
//! ([`super::reader`]) names it by: a [`Flaw`] (the file cut short, [`FlawKind::Truncated`], or
//! inconsistent, [`FlawKind::Damaged`], at a byte offset), and the timestamps no capture can
//! hold ([`TimestampCheck`]).

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
