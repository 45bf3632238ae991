//! Where the packets come from: a saved pcap/pcapng file read as a stream in pure Rust
//! ([`crate::pcap::reader`], [`read_file`]), or, with the `live` feature (default), a live
//! libpcap capture ([`LiveWatch`]).

use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};

use crate::tls::keylog::KeyLogFile;
use crate::wire::conn::Tracker;
use crate::wire::packet;

#[cfg(feature = "live")]
pub mod live;
#[cfg(feature = "live")]
pub mod saved;

use crate::pcap::flaw::TimestampCheck;
use crate::pcap::reader::{CaptureReader, Packet, ReadError};
#[cfg(feature = "live")]
pub use live::{LiveWatch, Progress};

/// What a capture produced: the tracker (finished), kernel drops and an early-stop error.
#[derive(Debug)]
pub struct Captured {
    /// The connections.
    pub tracker: Tracker,
    /// Packets the kernel dropped.
    pub dropped: u64,
    /// An error that ended reading early.
    pub error: Option<String>,
}

/// Reads a saved capture (pcap or pcapng) as a stream, without libpcap. With `port` None,
/// the server port is the destination of the first SYN-only packet (found in a first pass
/// that stops there). A file cut short or damaged part-way is analysed up to the damage and
/// the reason (truncated or damaged, at which byte) kept in [`Captured::error`]; a file that
/// is not a capture at all, or in which nothing before the damage can be analysed (no
/// packet, no connection to the port), is an error.
pub fn read_file(path: &Path, port: Option<u16>) -> Result<Captured> {
    read_file_with_keys(path, port, None)
}

/// [`read_file`], decrypting TLS connections with the secrets of a key log.
pub fn read_file_with_keys(
    path: &Path,
    port: Option<u16>,
    keylog: Option<Arc<KeyLogFile>>,
) -> Result<Captured> {
    let damage = |error: &Option<String>, what: &str| match error {
        Some(e) => anyhow!("nothing to analyse: {e}"),
        None => anyhow!("nothing to analyse in {}: {what}", path.display()),
    };
    let port = match port {
        Some(p) => p,
        None => {
            let mut found = None;
            let (n, error) = scan(path, |p| {
                found = packet::parse(p.link, p.data)
                    .filter(|t| t.is_syn_only())
                    .map(|t| t.dst_port);
                found.is_none()
            })?;
            match found {
                Some(p) => p,
                None if n == 0 => return Err(damage(&error, "no packets")),
                None if error.is_some() => {
                    return Err(damage(&error, "no SYN packet"));
                }
                None => bail!(
                    "{}: no SYN packet to infer the server port from; pass the port",
                    path.display()
                ),
            }
        }
    };
    let mut tracker = Tracker::with_keylog(port, keylog);
    let (n, mut error) = scan(path, |p| {
        tracker.snap_len = tracker.snap_len.max(p.snaplen);
        tracker.add(p.link, p.data, p.orig_len, p.ts_us);
        true
    })?;
    if n == 0 {
        return Err(damage(&error, "no packets"));
    }
    tracker.finish();
    if tracker.conns.is_empty() {
        return Err(damage(&error, &format!("no TCP connection to port {port}")));
    }
    if let Some(e) = &mut error {
        e.push_str(&format!("; the {n} packets before it are read"));
    }
    Ok(Captured {
        tracker,
        dropped: 0,
        error,
    })
}

/// Reads `path` packet by packet into `each` (which returns false to stop early): how many
/// packets it was given, and why reading stopped before the end of the file, as
/// "FILE is truncated|damaged at byte N: what". A packet with an impossible timestamp
/// ([`crate::pcap::flaw::impossible_timestamp`]) is damage at its own offset. A file that does
/// not even start as a capture is an error.
pub fn scan(
    path: &Path,
    mut each: impl FnMut(&Packet<'_>) -> bool,
) -> Result<(u64, Option<String>)> {
    let file = path.display();
    let mut reader =
        CaptureReader::open(path).with_context(|| format!("cannot read capture {file}"))?;
    let now_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64);
    let mut check = TimestampCheck::new(now_us);
    let mut n = 0u64;
    loop {
        match reader.next_packet() {
            Ok(Some(p)) => {
                if let Some(why) = check.check(p.ts_us) {
                    return Ok((
                        n,
                        Some(format!("{file} is damaged at byte {}: {why}", p.offset)),
                    ));
                }
                n += 1;
                if !each(&p) {
                    return Ok((n, None));
                }
            }
            Ok(None) => return Ok((n, None)),
            Err(ReadError::Flaw(f)) => {
                return Ok((
                    n,
                    Some(format!(
                        "{file} is {} at byte {}: {}",
                        f.kind.name(),
                        f.offset,
                        f.what
                    )),
                ))
            }
            Err(e) => return Err(anyhow!(e).context(format!("reading capture {file}"))),
        }
    }
}
