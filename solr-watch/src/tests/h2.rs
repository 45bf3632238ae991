//! Tracker-level HTTP/2 tests on packets built here: the h2c upgrade accepted (the `101`
//! and the first frames in one segment, stream 1 plus a second stream), declined (the
//! connection goes on as HTTP/1.1), and a `101` to another protocol (not decoded, said).

use super::{run, Conv, GET};
use crate::wire::http2::PREFACE;

/// An HTTP/2 frame.
fn h2frame(kind: u8, flags: u8, sid: u32, p: &[u8]) -> Vec<u8> {
    let mut v = (p.len() as u32).to_be_bytes()[1..].to_vec();
    v.extend([kind, flags]);
    v.extend(sid.to_be_bytes());
    v.extend(p);
    v
}

/// A header block: literal fields without indexing, new names, no Huffman.
fn block(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut v = Vec::new();
    for (n, val) in fields {
        v.extend([0, n.len() as u8]);
        v.extend(n.as_bytes());
        v.push(val.len() as u8);
        v.extend(val.as_bytes());
    }
    v
}

const UPGRADE: &[u8] = b"GET /solr/bench/select?q=*:*&wt=json HTTP/1.1\r\nHost: x\r\n\
Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n";
const SWITCHING: &[u8] =
    b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";

fn json(qtime: u32) -> Vec<u8> {
    format!("{{\"responseHeader\":{{\"status\":0,\"QTime\":{qtime}}}}}").into_bytes()
}

#[test]
fn h2c_upgrade_accepted_request_is_stream_one_and_more_streams_follow() {
    let mut c = Conv::new(43000, 0);
    c.open();
    let q1 = c.client(UPGRADE);
    c.send(q1);
    // The 101 and the server's first frames in one segment.
    let mut s = SWITCHING.to_vec();
    s.extend(h2frame(4, 0, 0, &[]));
    s.extend(h2frame(1, 0x4, 1, &block(&[(":status", "200")])));
    s.extend(h2frame(0, 0x1, 1, &json(4)));
    let s1 = c.server(&s);
    c.send(s1);
    let mut q = PREFACE.to_vec();
    q.extend(h2frame(4, 0, 0, &[]));
    q.extend(h2frame(4, 1, 0, &[]));
    let req3 = block(&[
        (":method", "GET"),
        (":path", "/solr/bench/select?q=a&wt=json"),
        ("accept-encoding", "gzip"),
    ]);
    q.extend(h2frame(1, 0x5, 3, &req3));
    let q3 = c.client(&q);
    c.send(q3);
    let mut s = h2frame(1, 0x4, 3, &block(&[(":status", "200")]));
    s.extend(h2frame(0, 0x1, 3, &json(9)));
    s.extend(h2frame(7, 0, 0, &[0, 0, 0, 3, 0, 0, 0, 0]));
    let s3 = c.server(&s);
    c.send(s3).close(true).close(false);
    let r = run(&c.frames);
    assert_eq!(r.connections.http2, 1);
    assert_eq!(r.connections.http1, 0);
    assert_eq!(r.connection_list[0].protocol, "h2c-upgrade");
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
    // The histogram reports its bucket's top: 9 ms within 0.01.
    let qmax = r
        .requests
        .as_ref()
        .expect("request figures")
        .qtime
        .max_ms
        .unwrap_or(0.0);
    assert!((qmax - 9.0).abs() < 0.01, "{qmax}");
    assert_eq!(r.requests.as_ref().expect("request figures").accept_gzip, 1);
    assert_eq!(
        r.requests.as_ref().expect("request figures").wt.get("json"),
        Some(&2)
    );
    let h = r.http2.as_ref().expect("HTTP/2 summary");
    assert_eq!((h.upgraded, h.streams), (1, 2));
    assert_eq!(h.control.goaway.get("server NO_ERROR"), Some(&1));
    assert_eq!(
        r.undecodable.http_bytes + r.undecodable.incomplete_messages,
        0,
        "{:?}",
        r.undecodable
    );
    assert!(r.undecodable.reasons.is_empty(), "{:?}", r.undecodable);
}

#[test]
fn h2c_upgrade_declined_goes_on_as_http1() {
    let mut c = Conv::new(43001, 0);
    c.open();
    let q1 = c.client(UPGRADE);
    let s1 = c.server(&super::resp(1, 10));
    let q2 = c.client(GET);
    let s2 = c.server(&super::resp(2, 10));
    c.send(q1).send(s1).send(q2).send(s2).close(true);
    let r = run(&c.frames);
    assert_eq!(r.connection_list[0].protocol, "http1");
    assert_eq!(
        (
            r.requests.as_ref().expect("request figures").requests,
            r.requests.as_ref().expect("request figures").answered
        ),
        (2, 2)
    );
    assert!(r.http2.is_none());
    assert_eq!(r.undecodable.http_bytes, 0);
}

#[test]
fn a_101_to_another_protocol_is_said_not_decoded() {
    let mut c = Conv::new(43002, 0);
    c.open();
    let q1 = c.client(
        b"GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
    );
    let s1 = c.server(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x02hi",
    );
    c.send(q1).send(s1).close(true);
    let r = run(&c.frames);
    assert_eq!(r.connection_list[0].protocol, "http1");
    assert_eq!(r.requests.as_ref().expect("request figures").requests, 1);
    assert!(r.http2.is_none());
    assert!(
        r.undecodable
            .reasons
            .keys()
            .any(|k| k.contains("protocol switched (101)")),
        "{:?}",
        r.undecodable.reasons
    );
    assert_eq!(r.undecodable.http_bytes, 4, "the websocket frame");
}
