//! The reference captures in `captures/` hold 20 searches with `fresh` (20 SYNs) and with
//! `pooled` (1 SYN); re-read them with the bench's own parser.

use solr_harness::local_solr::project_root;
use solr_watch::capture::saved::count_file;

#[test]
fn reference_captures_count_20_and_1_syns() {
    let dir = project_root().join("captures");
    let fresh = count_file(&dir.join("search-fresh.pcapng"), None).expect("fresh capture readable");
    let pooled =
        count_file(&dir.join("search-pooled.pcapng"), None).expect("pooled capture readable");
    assert_eq!(fresh.syns, 20);
    assert_eq!(pooled.syns, 1);
    assert_eq!((fresh.syn_retransmits, pooled.syn_retransmits), (0, 0));
    assert_eq!(fresh.undecoded + pooled.undecoded, 0);
    assert!(
        pooled.wire_bytes_to_server < fresh.wire_bytes_to_server,
        "fewer packets without handshakes"
    );
}
