//! Paced responses: a server writes a response at once, yet its TCP segments reach the
//! client spread over a good part of a round trip.
//!
//! Seen through the WAN topology at RTT 40 ms: Solr wrote each 5.6 KB search
//! response in one write (one segment on loopback), the proxy forwarded it at once, and
//! the proxy's TCP (Linux BBR, this machine's default) sent it as pairs of segments 1.4
//! and 2.8 ms apart. BBR (and any sender under the `fq` qdisc) paces at about
//! `gain x delivered bytes / RTT`, so the spread grows with the RTT: ~0.04-0.1 RTT for a
//! 4-segment answer. A gzipped answer fits one segment and is not paced. With Reno in the
//! proxy's namespace the same answers arrived within 0.07 ms.
//!
//! The analysis is passive and works on any TCP request/response traffic, captured at the
//! client or the server: per connection, the handshake round trip (SYN to SYN-ACK, or
//! SYN-ACK to ACK, whichever is longer), and per response (the server's data between two
//! client requests) the time from its first to its last data segment.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use solr_watch::capture::saved::SavedCapture;
use solr_watch::report::{Finding, Severity};
use solr_watch::wire::packet::{self, TcpPacket};

/// A response counts as spread when its segments take at least this long after the first…
pub const MIN_SPREAD_MS: f64 = 0.5;
/// …and at least this share of the round trip (when the handshake was captured).
pub const MIN_SPREAD_RTT_SHARE: f64 = 0.02;

/// What the capture shows about how responses were delivered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Pacing {
    /// The server port analysed.
    pub port: u16,
    /// Median handshake round trip of the connections whose handshake was captured, ms.
    pub rtt_ms: Option<f64>,
    /// Responses of 3 or more data segments.
    pub multi_segment: u64,
    /// Of those, the responses spread over at least [`MIN_SPREAD_MS`] and
    /// [`MIN_SPREAD_RTT_SHARE`] of the round trip.
    pub spread: u64,
    /// Median first-to-last data segment time of the multi-segment responses, ms.
    pub spread_p50_ms: Option<f64>,
    /// Median data segments per multi-segment response.
    pub segments_p50: Option<u64>,
}

#[derive(Default)]
struct Flow {
    syn: Option<u64>,
    syn_ack: Option<u64>,
    ack: Option<u64>,
    /// The current response: first and last data segment time, segment count.
    response: Option<(u64, u64, u64)>,
    /// Responses finished on this connection so far.
    answered: u64,
}

use bench_report::stats::median;

impl Pacing {
    /// Analyses frames `(timestamp µs, bytes)` of link type `link` for server port `port`.
    pub fn analyse<'a>(
        link: i32,
        frames: impl IntoIterator<Item = (u64, &'a [u8])>,
        port: u16,
    ) -> Pacing {
        let mut flows: HashMap<([u8; 16], u16), Flow> = HashMap::new();
        let mut done: Vec<(u64, u64)> = Vec::new(); // (spread µs, segments)
        let mut rtts = Vec::new();
        // The first answer on a connection is left out: it is sent in slow start (a fresh
        // connection's 11th segment waits a whole round trip for the initial window, which is
        // not pacing) and BBR does not pace its start-up either.
        let close = |f: &mut Flow, done: &mut Vec<(u64, u64)>| {
            if let Some((first, last, n)) = f.response.take() {
                f.answered += 1;
                if n >= 3 && f.answered > 1 {
                    done.push((last - first, n));
                }
            }
        };
        for (ts, frame) in frames {
            let Some(p): Option<TcpPacket> = packet::parse(link, frame) else {
                continue;
            };
            let (to_server, key) = if p.dst_port == port {
                (true, (p.src, p.src_port))
            } else if p.src_port == port {
                (false, (p.dst, p.dst_port))
            } else {
                continue;
            };
            let f = flows.entry(key).or_default();
            let (syn, ack) = (p.flags & 0x02 != 0, p.flags & 0x10 != 0);
            match (to_server, syn, ack) {
                (true, true, false) => {
                    *f = Flow {
                        syn: Some(ts),
                        ..Flow::default()
                    }
                }
                (false, true, true) => f.syn_ack = f.syn_ack.or(Some(ts)),
                (true, false, true) if f.syn_ack.is_some() && f.ack.is_none() => {
                    f.ack = Some(ts);
                    let a = f.syn_ack.zip(f.syn).map(|(b, a)| b.saturating_sub(a));
                    let b = f.syn_ack.map(|s| ts.saturating_sub(s));
                    if let Some(rtt) = a.max(b) {
                        rtts.push(rtt as f64 / 1000.0);
                    }
                }
                _ => {}
            }
            if p.payload_len == 0 {
                continue;
            }
            if to_server {
                close(f, &mut done);
            } else {
                f.response = Some(match f.response {
                    Some((first, _, n)) => (first, ts, n + 1),
                    None => (ts, ts, 1),
                });
            }
        }
        for mut f in flows.into_values() {
            close(&mut f, &mut done);
        }
        let rtt_ms = median(rtts);
        let threshold_us =
            (MIN_SPREAD_MS.max(rtt_ms.unwrap_or(0.0) * MIN_SPREAD_RTT_SHARE) * 1000.0) as u64;
        Pacing {
            port,
            rtt_ms,
            multi_segment: done.len() as u64,
            spread: done.iter().filter(|(s, _)| *s >= threshold_us).count() as u64,
            spread_p50_ms: median(done.iter().map(|(s, _)| *s as f64 / 1000.0)),
            segments_p50: median(done.iter().map(|(_, n)| *n as f64)).map(|n| n as u64),
        }
    }

    /// Reads a pcap or pcapng file; the server port is `port`, or the destination of the
    /// first SYN in the file.
    pub fn analyse_file(path: &Path, port: Option<u16>) -> Result<Pacing> {
        let saved = SavedCapture::read(path)?;
        let port = saved.server_port(port, path)?;
        Ok(Pacing::analyse(
            saved.link,
            saved.frames.iter().map(|(ts, f, _)| (*ts, f.as_slice())),
            port,
        ))
    }

    /// The finding, when at least 3 multi-segment responses were seen and most of them
    /// were spread: the stall, its size against the round trip, and the fixes.
    pub fn finding(&self) -> Option<String> {
        if self.multi_segment < 3 || self.spread * 2 < self.multi_segment {
            return None;
        }
        let spread = self.spread_p50_ms?;
        let rtt = match self.rtt_ms {
            Some(r) if r > 0.0 => {
                format!(" ({:.0}% of the {r:.1} ms round trip)", spread / r * 100.0)
            }
            _ => String::new(),
        };
        Some(format!(
            "paced responses: {} of {} responses of 3+ segments (median {} segments) arrived spread over {spread:.2} ms after their first segment{rtt}: the sender's TCP paces them (Linux BBR, or the fq qdisc, sends about cwnd per round trip in small bursts), so every response larger than a burst waits a share of the RTT that grows with it; fix: fewer segments per response (gzip, fewer rows or fields) or, on the server, a congestion control without pacing (cubic, no fq)",
            self.spread,
            self.multi_segment,
            self.segments_p50.unwrap_or(0),
        ))
    }
}

/// The findings of every `*.pcapng` capture in `dir`, each prefixed with its file stem
/// (e.g. `search-pooled: paced responses: ...`), in file name order. Unreadable files are
/// skipped.
pub fn findings_in_dir(dir: &Path) -> Vec<String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "pcapng"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .filter_map(|f| {
            let finding = Pacing::analyse_file(f, None).ok()?.finding()?;
            let stem = f.file_stem()?.to_string_lossy().to_string();
            Some(format!("{stem}: {finding}"))
        })
        .collect()
}

/// The paced-response finding of the capture at `path` (server port `port`, or inferred), if
/// any: a medium `paced-responses` finding with its fix (`watch --read` adds it to the report).
pub fn finding_in(path: &Path, port: Option<u16>) -> Option<Finding> {
    let line = Pacing::analyse_file(path, port).ok()?.finding()?;
    let (what, fix) = line.split_once("; fix: ").unwrap_or((line.as_str(), ""));
    Some(Finding {
        severity: Severity::Medium,
        kind: PACED.into(),
        what: what.to_string(),
        fix: fix.to_string(),
    })
}

/// The kind of the paced-response finding.
pub const PACED: &str = "paced-responses";

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("captures")
            .join(name)
    }

    /// The recorded BBR capture (RTT 40, pooled, no gzip, 12 answers of 3 to 5 segments):
    /// the first two answers on the new connection left at once (BBR's start-up; the first
    /// is left out, a connection's first answer is never counted), the other 10 in pairs of
    /// segments 1.4 ms (and 2.8 ms) apart; a finding naming the stall
    /// and the fix, which `watch --read` adds to its report.
    #[test]
    fn bbr_paced_answers_are_found() {
        let p = Pacing::analyse_file(&capture("paced-bbr-rtt40.pcapng"), None).expect("reads");
        assert_eq!((p.port, p.multi_segment, p.spread), (80, 11, 10), "{p:?}");
        assert_eq!(p.segments_p50, Some(4));
        let rtt = p.rtt_ms.expect("handshake captured");
        assert!((38.0..=45.0).contains(&rtt), "{p:?}");
        let f = p.finding().expect("a finding");
        assert!(f.starts_with("paced responses: 10 of 11 responses"), "{f}");
        assert!(f.contains("gzip"), "{f}");
        let found = finding_in(&capture("paced-bbr-rtt40.pcapng"), Some(80)).expect("found");
        assert_eq!(
            (found.severity, found.kind.as_str()),
            (Severity::Medium, PACED)
        );
        assert_eq!(format!("{}; fix: {}", found.what, found.fix), f);
        assert!(finding_in(&capture("unpaced-reno-rtt40.pcapng"), None).is_none());
    }

    /// The same answers sent by Reno (no pacing): not spread, no finding; the gzipped
    /// answers are single segments.
    #[test]
    fn unpaced_and_gzipped_answers_are_not() {
        let p = Pacing::analyse_file(&capture("unpaced-reno-rtt40.pcapng"), None).expect("reads");
        assert_eq!((p.multi_segment, p.spread), (11, 0), "{p:?}");
        assert_eq!(p.finding(), None);
        let p = Pacing::analyse_file(&capture("paced-bbr-rtt40-gzip.pcapng"), None).expect("reads");
        assert_eq!(
            (p.multi_segment, p.spread, p.finding()),
            (0, 0, None),
            "{p:?}"
        );
    }
}
