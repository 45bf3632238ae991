//! The tracker over decrypted TLS: two https connections built with rustls, one with its
//! key logged, read as requests and "no key" for the other.

use std::sync::Arc;

use crate::tls::decrypt::tests::https_conn;
use crate::tls::keylog::KeyLogFile;

#[test]
fn tracker_turns_decrypted_https_into_requests_and_says_no_key() {
    let mut ts = 1_000_000;
    let (f1, keys1) = https_conn(40_001, &mut ts);
    let (f2, _keys2) = https_conn(40_002, &mut ts);
    let keys = Arc::new(KeyLogFile::from_text(&keys1));
    let mut t = crate::wire::conn::Tracker::with_keylog(8983, Some(keys));
    for (ts, f) in f1.iter().chain(&f2) {
        t.add(
            crate::wire::packet::linktype::ETHERNET,
            f,
            f.len() as u32,
            *ts,
        );
    }
    t.finish();
    let r = crate::report::build(&t, "test", 0, None);
    assert_eq!(r.connections.tls, 2);
    assert_eq!(
        (
            r.requests.as_ref().expect("request figures").requests,
            r.requests.as_ref().expect("request figures").answered
        ),
        (2, 2)
    );
    assert_eq!(
        r.requests.as_ref().expect("request figures").qtime_decoded,
        2
    );
    let qtimes: Vec<Option<u64>> = crate::report::requests(&t)
        .iter()
        .map(|q| q.qtime_ms)
        .collect();
    assert_eq!(qtimes, [Some(3), Some(3)]);
    assert_eq!(r.requests.as_ref().expect("request figures").accept_gzip, 1);
    let d = r
        .tls
        .as_ref()
        .and_then(|t| t.decryption.clone())
        .expect("decryption");
    assert_eq!((d.connections_decrypted, d.no_key), (1, 1));
    assert_eq!(d.versions.get("1.3").copied(), Some(1));
    let opaque = r
        .findings
        .iter()
        .find(|f| f.kind == "tls-opaque")
        .expect("finding");
    assert!(
        opaque.what.contains("no key for 1 TLS connections"),
        "{}",
        opaque.what
    );

    // Without a key log: today's connection-level view.
    let mut t = crate::wire::conn::Tracker::new(8983);
    for (ts, f) in f1.iter().chain(&f2) {
        t.add(
            crate::wire::packet::linktype::ETHERNET,
            f,
            f.len() as u32,
            *ts,
        );
    }
    t.finish();
    let r = crate::report::build(&t, "test", 0, None);
    assert_eq!(r.requests.as_ref().expect("request figures").requests, 0);
    assert!(r.tls.as_ref().is_some_and(|t| t.decryption.is_none()));
}
