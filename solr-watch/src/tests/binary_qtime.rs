//! QTime and Solr's status read from javabin (SolrJ's default) and CBOR responses, gzipped
//! and not, on packets built here: every response of one connection decoded, each request
//! given its own QTime.

use std::io::Write;

use super::{Conv, SRV};
use crate::report::{requests, RequestRecord};
use crate::wire::conn::Tracker;
use crate::wire::packet::linktype;

const JAVABIN_GET: &[u8] =
    b"GET /solr/bench/select?q=*:*&wt=javabin&version=2 HTTP/1.1\r\nHost: x\r\n\r\n";

/// A javabin response as Solr writes it: the header (status, QTime, echoed params), then a
/// document list.
fn javabin(status: i32, qtime: i32) -> Vec<u8> {
    let mut w = solr_client::codec::javabin::Writer::new();
    w.named_list(2);
    w.extern_str("responseHeader");
    w.ordered_map(3);
    w.extern_str("status");
    w.int(status);
    w.extern_str("QTime");
    w.int(qtime);
    w.extern_str("params");
    w.ordered_map(1);
    w.extern_str("q");
    w.str("*:*");
    w.extern_str("response");
    w.doc_list(0, 0, None, true);
    w.array(0);
    w.finish()
}

/// A CBOR response as Solr's writer sends it (a string-reference namespace around a map).
fn cbor(status: i64, qtime: i64) -> Vec<u8> {
    use ciborium::Value as C;
    let head = C::Map(vec![
        (C::Text("status".into()), C::Integer(status.into())),
        (C::Text("QTime".into()), C::Integer(qtime.into())),
    ]);
    let top = C::Map(vec![
        (C::Text("responseHeader".into()), head),
        (C::Text("response".into()), C::Map(Vec::new())),
    ]);
    let mut out = Vec::new();
    ciborium::ser::into_writer(&C::Tag(256, Box::new(top)), &mut out).expect("cbor");
    out
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b).expect("gzip");
    gz.finish().expect("gzip")
}

/// An HTTP/1.1 response carrying `body` as `content_type`, gzipped when `gz`.
fn response(code: &str, content_type: &str, body: &[u8], gz: bool) -> Vec<u8> {
    let body = if gz { gzip(body) } else { body.to_vec() };
    let enc = if gz { "Content-Encoding: gzip\r\n" } else { "" };
    let mut out = format!(
        "HTTP/1.1 {code}\r\nContent-Type: {content_type}\r\n{enc}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend(body);
    out
}

fn records(responses: &[Vec<u8>]) -> Vec<RequestRecord> {
    let mut c = Conv::new(48000, 0);
    c.open();
    for r in responses {
        let (q, s) = (c.client(JAVABIN_GET), c.server(r));
        c.send(q).send(s);
    }
    c.close(true);
    let mut t = Tracker::new(SRV);
    for (ts, f) in &c.frames {
        t.add(linktype::ETHERNET, f, f.len() as u32, *ts);
    }
    t.finish();
    requests(&t)
}

#[test]
fn javabin_and_cbor_gzipped_and_not() {
    let octet = "application/octet-stream";
    let rs = records(&[
        response("200 OK", octet, &javabin(0, 11), false),
        response("200 OK", octet, &javabin(0, 12), true),
        response("400 Bad Request", octet, &javabin(400, 13), false),
        response("200 OK", "application/cbor", &cbor(0, 14), false),
        response("200 OK", "application/cbor", &cbor(0, 15), true),
        // No Content-Type: javabin told by its version byte.
        response("200 OK", "", &javabin(0, 16), true),
    ]);
    let got: Vec<_> = rs
        .iter()
        .map(|r| (r.status, r.qtime_ms, r.solr_status))
        .collect();
    assert_eq!(
        got,
        vec![
            (200, Some(11), Some(0)),
            (200, Some(12), Some(0)),
            (400, Some(13), Some(400)),
            (200, Some(14), Some(0)),
            (200, Some(15), Some(0)),
            (200, Some(16), Some(0)),
        ]
    );
}

#[test]
fn damaged_binary_bodies_give_no_qtime_and_no_panic() {
    let octet = "application/octet-stream";
    let body = javabin(0, 11);
    let rs = records(&[
        // Cut inside the header, a version byte only, CBOR that is not a map.
        response("200 OK", octet, &body[..10], false),
        response("200 OK", octet, &[2], true),
        response("200 OK", "application/cbor", &[0x82, 0x01, 0x02], false),
    ]);
    assert_eq!(rs.len(), 3);
    for r in &rs {
        assert_eq!((r.status, r.qtime_ms, r.solr_status), (200, None, None));
    }
}
