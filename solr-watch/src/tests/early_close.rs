//! The `early-close` finding on packets built here: a sequential client that opens a new
//! connection every few requests and closes the old one itself gets it; a client that
//! truly reuses one connection, or that waits longer than half the server's idle timeout
//! before its next connection, does not.

use super::{resp, run, Conv, GET};
use crate::report::WatchReport;

/// `total` sequential requests from one client, a new connection every `per_conn`
/// requests, each closed by the client (FIN first) right after its last answer; the next
/// connection opens `pause_us` later.
fn sequential(total: usize, per_conn: usize, pause_us: u64) -> WatchReport {
    let mut frames = Vec::new();
    let mut ts = 0;
    for (i, chunk) in (0..total).collect::<Vec<_>>().chunks(per_conn).enumerate() {
        let mut c = Conv::new(46000 + i as u16, ts);
        c.open();
        for _ in chunk {
            let q = c.client(GET);
            let s = c.server(&resp(1, 5));
            c.send(q).send(s);
        }
        c.close(true).close(false);
        ts = c.ts + pause_us;
        frames.extend(c.frames);
    }
    run(&frames)
}

fn kinds(r: &WatchReport) -> Vec<&str> {
    r.findings.iter().map(|f| f.kind.as_str()).collect()
}

#[test]
fn a_new_connection_every_three_requests_is_an_early_close() {
    let r = sequential(10, 3, 1_000);
    assert_eq!(r.connections.opened, 4);
    assert_eq!(r.connections.closed_by_client, 4);
    assert_eq!(r.connections.max_requests_per_connection, Some(3));
    let k = kinds(&r);
    assert!(
        k.contains(&"early-close") && !k.contains(&"reuse") && !k.contains(&"no-reuse"),
        "{k:?}"
    );
    let f = r
        .findings
        .iter()
        .find(|f| f.kind == "early-close")
        .expect("finding");
    // The last connection's close ends the client's work: not early.
    assert!(f.what.contains("closed 3 of 4 connections"), "{}", f.what);
    assert!(f.what.contains("after 3 requests"), "{}", f.what);
    assert!(
        f.what.contains("in flight at once: 1 at most"),
        "{}",
        f.what
    );
    assert!(f.what.contains("Solr's default 120 s"), "{}", f.what);
    assert!(f.fix.contains("not fully read or not closed"), "{}", f.fix);
    assert!(f.fix.contains("pool"), "{}", f.fix);
    assert!(r.verdict.contains("early-close"), "{}", r.verdict);
}

#[test]
fn one_connection_for_every_request_is_reuse_not_early_close() {
    let r = sequential(10, 10, 1_000);
    assert_eq!(r.connections.opened, 1);
    let k = kinds(&r);
    assert!(k.contains(&"reuse") && !k.contains(&"early-close"), "{k:?}");
}

#[test]
fn a_pause_beyond_half_the_idle_timeout_is_not_early() {
    // 70 s between connections: more than half of Solr's 120 s idle timeout.
    let r = sequential(10, 3, 70_000_000);
    assert_eq!(r.connections.opened, 4);
    let k = kinds(&r);
    assert!(k.contains(&"reuse") && !k.contains(&"early-close"), "{k:?}");
    // 20 s: well below it.
    let r = sequential(10, 3, 20_000_000);
    assert!(kinds(&r).contains(&"early-close"), "{:?}", kinds(&r));
}

#[test]
fn the_servers_own_idle_close_sets_the_timeout() {
    // A first connection the server closed 4 s after its answer (its idle timeout), then
    // the 3-per-connection client pausing 3 s: more than half of 4 s, not early.
    let mut c = Conv::new(47000, 0);
    c.open();
    let (q, s) = (c.client(GET), c.server(&resp(1, 5)));
    c.send(q).send(s);
    c.ts += 4_000_000;
    c.close(false).close(true);
    let mut frames = c.frames;
    let mut ts = c.ts + 1_000;
    for i in 0..3u16 {
        let mut c = Conv::new(47001 + i, ts);
        c.open();
        for _ in 0..3 {
            let (q, s) = (c.client(GET), c.server(&resp(1, 5)));
            c.send(q).send(s);
        }
        c.close(true).close(false);
        ts = c.ts + 3_000_000;
        frames.extend(c.frames);
    }
    let r = run(&frames);
    assert!(!kinds(&r).contains(&"early-close"), "{:?}", kinds(&r));
}
