//! `watch` on arbitrary capture files: the streaming pcap/pcapng reader over any bytes (cut,
//! damaged, with huge claimed lengths, any number of interfaces and link types), every packet
//! it yields fed to the tracker, and the report, its text and its chart built. Nothing may
//! panic, and no claimed length may make it allocate more than the input holds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use solr_watch::pcap::reader::CaptureReader;
use solr_watch::print_text;
use solr_watch::report::{self, svg};
use solr_watch::wire::conn::Tracker;
use solr_watch::wire::packet;

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = CaptureReader::new(data) else {
        return;
    };
    let mut tracker: Option<Tracker> = None;
    let mut error = None;
    loop {
        match reader.next_packet() {
            Ok(Some(p)) => {
                assert!(p.data.len() <= data.len());
                // The server port from the first packet that parses, as `watch --read` would
                // from the first SYN.
                let t = tracker.get_or_insert_with(|| {
                    Tracker::new(packet::parse(p.link, p.data).map_or(8983, |t| t.dst_port))
                });
                t.add(p.link, p.data, p.orig_len, p.ts_us);
            }
            Ok(None) => break,
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    // After the end or an error, the reader stays done.
    assert!(matches!(reader.next_packet(), Ok(None)));
    if let Some(mut t) = tracker {
        t.finish();
        let r = report::build(&t, "fuzz", 0, error);
        let _ = svg::chart(&r);
        let mut sink = Vec::new();
        let _ = print_text(&r, &mut sink);
    }
});
