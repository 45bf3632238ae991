//! A minimal pcapng writer (section header, one interface, enhanced packet blocks, microsecond
//! timestamps), so reference captures open in Wireshark/tshark/tcpdump and libpcap reads them.

use std::io::{self, Write};

/// Writes a pcapng stream.
#[derive(Debug)]
pub struct PcapngWriter<W: Write> {
    out: W,
}

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

impl<W: Write> PcapngWriter<W> {
    /// Writes the section header and one interface description (link type, snap length).
    pub fn new(mut out: W, linktype: u16, snaplen: u32) -> io::Result<Self> {
        // Section Header Block: type, length, byte-order magic, version 1.0, unknown length.
        let shb_len: u32 = 28;
        out.write_all(&0x0A0D_0D0Au32.to_le_bytes())?;
        out.write_all(&shb_len.to_le_bytes())?;
        out.write_all(&0x1A2B_3C4Du32.to_le_bytes())?;
        out.write_all(&1u16.to_le_bytes())?;
        out.write_all(&0u16.to_le_bytes())?;
        out.write_all(&(-1i64).to_le_bytes())?;
        out.write_all(&shb_len.to_le_bytes())?;
        // Interface Description Block (default timestamp resolution: microseconds).
        let idb_len: u32 = 20;
        out.write_all(&1u32.to_le_bytes())?;
        out.write_all(&idb_len.to_le_bytes())?;
        out.write_all(&linktype.to_le_bytes())?;
        out.write_all(&0u16.to_le_bytes())?;
        out.write_all(&snaplen.to_le_bytes())?;
        out.write_all(&idb_len.to_le_bytes())?;
        Ok(PcapngWriter { out })
    }

    /// Writes one packet: timestamp in microseconds since the epoch, the captured bytes and
    /// the original length on the wire.
    pub fn packet(&mut self, ts_us: u64, data: &[u8], orig_len: u32) -> io::Result<()> {
        let pad = pad4(data.len());
        let len = (32 + data.len() + pad) as u32;
        self.out.write_all(&6u32.to_le_bytes())?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(&0u32.to_le_bytes())?;
        self.out.write_all(&((ts_us >> 32) as u32).to_le_bytes())?;
        self.out.write_all(&(ts_us as u32).to_le_bytes())?;
        self.out.write_all(&(data.len() as u32).to_le_bytes())?;
        self.out.write_all(&orig_len.to_le_bytes())?;
        self.out.write_all(data)?;
        self.out.write_all(&[0u8; 3][..pad])?;
        self.out.write_all(&len.to_le_bytes())?;
        Ok(())
    }

    /// Flushes and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}
