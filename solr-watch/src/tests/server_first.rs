//! One request per connection, told apart by who ended each connection before the next
//! request: the server closing first, unasked (its idle timeout, or no keep-alive), is
//! `server-closed-first`; the client closing first, or passing over a connection still
//! open, is `no-reuse`.

use super::{resp, run, Conv, GET};
use crate::report::WatchReport;

/// Who ends each connection, and when the client's next connection opens.
#[derive(Clone, Copy)]
enum End {
    /// The server closes `after_us` after the answer; the next connection opens after it.
    ServerIdle { after_us: u64 },
    /// The client closes right after the answer.
    Client,
    /// The next connection opens 1 ms after the answer; the server closes the old one
    /// 120 s after the answer.
    PassedOver,
}

/// `n` sequential requests, one connection each, ended as `end` says.
fn one_per_connection(n: u16, end: End) -> WatchReport {
    let mut frames = Vec::new();
    let mut next_open = 0;
    for i in 0..n {
        let mut c = Conv::new(48000 + i, next_open);
        c.open();
        let (q, s) = (c.client(GET), c.server(&resp(3, 5)));
        c.send(q).send(s);
        let answered = c.ts;
        match end {
            End::ServerIdle { after_us } => {
                c.ts += after_us;
                c.close(false).close(true);
                next_open = c.ts + 1_000;
            }
            End::Client => {
                c.close(true).close(false);
                next_open = c.ts + 1_000;
            }
            End::PassedOver => {
                next_open = answered + 1_000;
                c.ts += 120_000_000;
                c.close(false).close(true);
            }
        }
        frames.extend(c.frames);
    }
    frames.sort_by_key(|(ts, _)| *ts);
    run(&frames)
}

fn kinds(r: &WatchReport) -> Vec<&str> {
    r.findings.iter().map(|f| f.kind.as_str()).collect()
}

#[test]
fn a_server_idle_close_before_each_next_request_is_not_the_clients_lack_of_reuse() {
    let r = one_per_connection(
        5,
        End::ServerIdle {
            after_us: 120_000_000,
        },
    );
    assert_eq!(r.connections.opened, 5);
    assert_eq!(r.connections.closed_by_server, 5);
    let k = kinds(&r);
    assert!(
        k.contains(&"server-closed-first") && !k.contains(&"no-reuse"),
        "{k:?}"
    );
    // The same closes already explain it: no second finding about them.
    assert!(!k.contains(&"server-closes"), "{k:?}");
    let f = &r.findings[k.iter().position(|x| *x == "server-closed-first").unwrap()];
    // The last connection is followed by none: 4 replaced, all 4 closed by the server.
    assert!(f.what.contains("5 requests on 5 connections"), "{}", f.what);
    assert!(
        f.what.contains("closed 4 of the 4 connections"),
        "{}",
        f.what
    );
    // 120 s after the answer, plus the 100 µs tick of the close frame.
    assert!(f.what.contains("120000.1 ms (median)"), "{}", f.what);
    assert!(f.fix.contains("Content-Length"), "{}", f.fix);
}

#[test]
fn a_server_that_closes_right_after_each_answer_is_named_too() {
    let r = one_per_connection(4, End::ServerIdle { after_us: 0 });
    let f = r
        .findings
        .iter()
        .find(|f| f.kind == "server-closed-first")
        .expect("server-closed-first");
    assert!(
        f.what.contains("closed 3 of the 3 connections"),
        "{}",
        f.what
    );
    assert!(f.what.contains("0.1 ms (median)"), "{}", f.what);
}

#[test]
fn a_client_that_closes_first_does_not_reuse() {
    let r = one_per_connection(5, End::Client);
    assert_eq!(r.connections.closed_by_client, 5);
    let k = kinds(&r);
    assert!(
        k.contains(&"no-reuse") && !k.contains(&"server-closed-first"),
        "{k:?}"
    );
}

#[test]
fn a_client_that_passes_over_an_open_idle_connection_does_not_reuse() {
    // The server closes every connection first, but only after the client has already
    // opened the next one: the old one was open and idle when the client needed one.
    let r = one_per_connection(5, End::PassedOver);
    assert_eq!(r.connections.closed_by_server, 5);
    let k = kinds(&r);
    assert!(
        k.contains(&"no-reuse") && !k.contains(&"server-closed-first"),
        "{k:?}"
    );
}
