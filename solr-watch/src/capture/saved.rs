//! A saved capture's frames in memory ([`SavedCapture`], read by the one capture reader,
//! [`crate::capture::scan`]) and the SYN count of a saved file ([`count_file`], the live
//! witness's [`Tally`] over it).

use std::path::Path;

use anyhow::{anyhow, Result};

use crate::libpcap::witness::{PcapCount, Tally};
use crate::wire::packet;

/// A frame of a saved capture: timestamp µs, frame bytes, length on the wire.
type Frame = (u64, Vec<u8>, u32);

/// The frames of a saved capture file.
#[derive(Debug)]
pub struct SavedCapture {
    /// Link type.
    pub link: i32,
    /// `(timestamp µs, frame bytes, length on the wire)` in file order.
    pub frames: Vec<Frame>,
    /// Why reading stopped before the end of the file: `truncated` or `damaged`, with the
    /// file and the byte offset (the frames before it are kept).
    pub error: Option<String>,
}

impl SavedCapture {
    /// Reads a pcap or pcapng file with the one capture reader, [`crate::capture::scan`] (the
    /// streaming reader of [`crate::pcap::reader`], not libpcap); a file that is not a
    /// capture is an error, a truncated or damaged one (cut short, inconsistent, or with an
    /// impossible timestamp) keeps the frames before the flaw and says what and where, by
    /// file and byte offset. The link type is the first packet's (Ethernet when none).
    pub fn read(path: &Path) -> Result<SavedCapture> {
        let mut frames = Vec::new();
        let mut link = None;
        let (n, mut error) = crate::capture::scan(path, |p| {
            link.get_or_insert(p.link);
            frames.push((p.ts_us, p.data.to_vec(), p.orig_len));
            true
        })?;
        if let Some(e) = &mut error {
            e.push_str(&format!("; the {n} packets before it are read"));
        }
        Ok(SavedCapture {
            link: link.unwrap_or(1),
            frames,
            error,
        })
    }

    /// `port`, or else the destination port of the first SYN-only packet (the server's).
    pub fn server_port(&self, port: Option<u16>, path: &Path) -> Result<u16> {
        if let Some(p) = port {
            return Ok(p);
        }
        self.frames
            .iter()
            .filter_map(|(_, f, _)| packet::parse(self.link, f))
            .find(|p| p.is_syn_only())
            .map(|p| p.dst_port)
            .ok_or_else(|| {
                anyhow!(
                    "{}: no SYN packet to infer the server port from; pass the port",
                    path.display()
                )
            })
    }
}

/// Counts a saved capture (pcap or pcapng) for server port `port`; with `None` the server
/// port is the destination port of the first SYN-only packet in the file.
pub fn count_file(path: &Path, port: Option<u16>) -> Result<PcapCount> {
    let saved = SavedCapture::read(path)?;
    if let Some(e) = &saved.error {
        anyhow::bail!("reading {}: {e}", path.display());
    }
    let port = saved.server_port(port, path)?;
    let mut tally = Tally::new(port);
    for (_, f, len) in &saved.frames {
        tally.add(saved.link, f, *len);
    }
    Ok(tally.count)
}
