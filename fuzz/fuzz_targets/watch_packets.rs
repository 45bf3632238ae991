//! `watch` on arbitrary packets: TCP segments built from the input (either direction, any
//! sequence number, flags and payload, so reassembly and the HTTP/TLS parsers see overlaps,
//! holes, pipelining and garbage), or raw frames of any link type. The report, its text and
//! its chart are built; nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use solr_watch::print_text;
use solr_watch::report::{self, svg};
use solr_watch::wire::conn::Tracker;

const SRV: u16 = 8983;

fn segment(from_client: bool, cport: u16, seq: u32, flags: u8, payload: &[u8]) -> Vec<u8> {
    let (sp, dp) = if from_client {
        (cport, SRV)
    } else {
        (SRV, cport)
    };
    let mut f = vec![0u8; 12];
    f.extend([0x08, 0x00, 0x45, 0]);
    f.extend(((40 + payload.len()) as u16).to_be_bytes());
    f.extend([0, 0, 0x40, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]);
    f.extend(sp.to_be_bytes());
    f.extend(dp.to_be_bytes());
    f.extend(seq.to_be_bytes());
    f.extend([0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    f.extend(payload);
    f
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, mut rest)) = data.split_first() else {
        return;
    };
    let mut t = Tracker::new(SRV);
    let mut ts = 0u64;
    if mode & 1 == 0 {
        // Raw frames: [len][bytes]...
        let link = [0, 1, 12, 101, 113, 276][usize::from(mode >> 1) % 6];
        while let Some((&len, r)) = rest.split_first() {
            let n = usize::from(len).min(r.len());
            ts += 1;
            t.add(link, &r[..n], n as u32, ts);
            rest = &r[n..];
        }
    } else {
        // Segments: [dir+port][seq offset hi][seq offset lo][flags][len][payload]...
        let base = [1000u32, 50_000u32];
        while rest.len() >= 5 {
            let from_client = rest[0] & 1 == 0;
            let cport = 40_000 + u16::from(rest[0] >> 5);
            let off = u32::from(u16::from_be_bytes([rest[1], rest[2]]));
            let flags = rest[3];
            let n = usize::from(rest[4]).min(rest.len() - 5);
            let seq = base[usize::from(!from_client)].wrapping_add(off);
            let f = segment(from_client, cport, seq, flags, &rest[5..5 + n]);
            ts += u64::from(rest[3] & 7);
            t.add(1, &f, f.len() as u32, ts);
            rest = &rest[5 + n..];
        }
    }
    t.finish();
    let r = report::build(&t, "fuzz", 0, None);
    let _ = svg::chart(&r);
    let mut sink = Vec::new();
    let _ = print_text(&r, &mut sink);
});
