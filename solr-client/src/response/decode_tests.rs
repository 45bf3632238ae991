//! The one decode entry ([`crate::codec::decode()`]) into this module's types: the stable stand-in for the fuzz targets (thousands of seeded
//! random and mutated bodies through every response type, each call returning Ok or a typed
//! error without panicking; the fuzz targets in `fuzz/` do the same, guided), QTime as Solr
//! sent it, and every format's truncated, HTML and foreign bodies as typed errors.

use serde::de::DeserializeOwned;

use super::{PingResponse, SelectResponse, UpdateResponse};
use crate::codec::{decode, ResponseFormat};
use crate::error::{Error, Result};

const JSON: Option<&str> = Some("application/json");

fn select_json(body: &[u8]) -> Result<SelectResponse> {
    decode(ResponseFormat::Json, 200, JSON, body)
}

fn update_json(body: &[u8]) -> Result<UpdateResponse> {
    decode(ResponseFormat::Json, 200, JSON, body)
}

fn ping_json(body: &[u8]) -> Result<PingResponse> {
    decode(ResponseFormat::Json, 200, JSON, body)
}

fn json_as<T: DeserializeOwned>(status: u16, ct: Option<&str>, body: &[u8]) -> Result<T> {
    decode(ResponseFormat::Json, status, ct, body)
}

const SEEDS: &[&[u8]] = &[
    br#"{"responseHeader":{"status":0,"QTime":1},"response":{"numFound":2,"start":0,"maxScore":1.5,"docs":[{"id":"a","v":[1,2]},{"id":"b"}]},"nextCursorMark":"AoE="}"#,
    br#"{"responseHeader":{"status":0,"QTime":1,"rf":2147483647,"errors":[{"type":"ADD","id":"x","message":"bad"}]}}"#,
    br#"{"responseHeader":{"status":0,"QTime":0},"status":"OK"}"#,
    br#"{"responseHeader":{"status":400,"QTime":0},"error":{"msg":"undefined field","code":400,"metadata":["error-class","x"]}}"#,
    br#"{"grouped":{"c":{"matches":2,"groups":[{"groupValue":null,"doclist":{"numFound":1,"docs":[{"id":"a"}]}}]}},"facet_counts":{"facet_fields":{"c":["a",1,null,2]},"facet_pivot":{"c,d":[{"field":"c","value":"a","count":1}]}},"facets":{"count":3,"x":{"buckets":[{"val":"a","count":1,"s":2.5}]},"q":{"count":1}},"stats":{"stats_fields":{"p":{"mean":"NaN"}}},"spellcheck":{"suggestions":["w",{"numFound":1,"startOffset":0,"endOffset":1,"suggestion":[{"word":"v","freq":1}]}]},"highlighting":{"a":{"t":["x"]}},"debug":{}}"#,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(8) {
        match rng.below(5) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = rng.next() as u8;
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len());
                b.truncate(i);
            }
            2 => {
                let i = rng.below(b.len() + 1);
                let tok: &[u8] = [
                    &b"\""[..],
                    b"{",
                    b"}",
                    b"[",
                    b"]",
                    b",",
                    b":",
                    b"1e999",
                    b"-",
                    b"\\u0000",
                    b"\\ud800",
                    b"null",
                    b"\xff\xfe",
                ][rng.below(13)];
                b.splice(i..i, tok.iter().copied());
            }
            3 if b.len() > 2 => {
                let (i, j) = (rng.below(b.len()), rng.below(b.len()));
                let (lo, hi) = (i.min(j), i.max(j));
                let chunk = b[lo..hi].to_vec();
                b.splice(hi..hi, chunk);
            }
            _ => b.push(rng.next() as u8),
        }
    }
    b
}

fn all_decoders(body: &[u8], status: u16) {
    let _ = select_json(body);
    let _ = update_json(body);
    let _ = ping_json(body);
    let _ = json_as::<SelectResponse>(status, Some("application/json"), body);
    let _ = json_as::<SelectResponse>(status, Some("text/html"), body);
    let _ = json_as::<SelectResponse>(status, None, body);
}

#[test]
fn seeded_random_and_mutated_bodies_never_panic() {
    let mut rng = Rng(0x5eed_0008);
    let statuses = [200u16, 400, 404, 429, 500, 502, 503];
    for i in 0..4000 {
        let status = statuses[i % statuses.len()];
        let body = if i % 4 == 0 {
            (0..rng.below(256)).map(|_| rng.next() as u8).collect()
        } else {
            let seed = SEEDS[rng.below(SEEDS.len())];
            mutate(&mut rng, seed)
        };
        all_decoders(&body, status);
    }
    for seed in SEEDS {
        all_decoders(seed, 200);
    }
    assert!(select_json(SEEDS[0]).is_ok());
    let sections = select_json(SEEDS[4]).expect("sections");
    assert!(sections.response.is_none() && sections.grouped.is_some());
    assert_eq!(sections.extra.len(), 1);
    let update = update_json(SEEDS[1]).expect("update");
    assert_eq!(update.header.errors.map(|e| e.len()), Some(1));
    assert_eq!(ping_json(SEEDS[2]).expect("ping").status, "OK");
    assert!(matches!(
        json_as::<SelectResponse>(400, Some("application/json"), SEEDS[3]),
        Err(Error::Solr { status: 400, .. })
    ));
    assert!(json_as::<SelectResponse>(1000, None, b"").is_err());
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let mut body =
        br#"{"responseHeader":{"status":0,"QTime":1},"response":{"numFound":1,"docs":[{"x":"#
            .to_vec();
    body.extend(std::iter::repeat_n(b'[', 100_000));
    assert!(matches!(select_json(&body), Err(Error::Decode { .. })));
}

#[test]
fn qtime_absent_is_none_not_zero() {
    let with = select_json(SEEDS[0]).expect("select");
    assert_eq!(with.header.qtime, Some(1));
    let zero = ping_json(SEEDS[2]).expect("ping");
    assert_eq!(zero.header.qtime, Some(0));
    // omitHeader=true: no responseHeader at all.
    let omitted =
        select_json(br#"{"response":{"numFound":0,"start":0,"docs":[]}}"#).expect("select");
    assert_eq!(omitted.header.qtime, None);
    // A header without QTime, or with a null one.
    for body in [
        &br#"{"responseHeader":{"status":0},"response":{"numFound":0,"docs":[]}}"#[..],
        br#"{"responseHeader":{"status":0,"QTime":null},"response":{"numFound":0,"docs":[]}}"#,
    ] {
        assert_eq!(select_json(body).expect("select").header.qtime, None);
    }
    // Re-encoding keeps absent absent (no invented "QTime":0).
    let json = serde_json::to_string(&omitted.header).expect("json");
    assert!(!json.contains("QTime"), "{json}");
}

#[cfg(all(feature = "javabin", feature = "cbor"))]
mod formats {
    use super::*;
    use crate::codec::javabin::Writer;
    use crate::snippet::snippet;

    fn javabin_select() -> Vec<u8> {
        let mut w = Writer::new();
        w.ordered_map(2);
        w.extern_str("responseHeader");
        w.ordered_map(1);
        w.extern_str("QTime");
        w.int(7);
        w.extern_str("response");
        w.doc_list(1, 0, None, true);
        w.array(1);
        w.solr_doc(1);
        w.extern_str("id");
        w.str("a");
        w.finish()
    }

    const XML: &[u8] = br#"<response><lst name="responseHeader"><int name="QTime">7</int></lst><result name="response" numFound="1" start="0"><doc><str name="id">a</str></doc></result></response>"#;

    #[test]
    fn every_format_reads_qtime_and_documents() {
        for (f, ct, body) in [
            (
                ResponseFormat::Javabin,
                "application/octet-stream",
                javabin_select(),
            ),
            (
                ResponseFormat::Xml,
                "application/xml; charset=UTF-8",
                XML.to_vec(),
            ),
        ] {
            let r: SelectResponse = decode(f, 200, Some(ct), &body).expect("decodes");
            assert_eq!(r.header.qtime, Some(7), "{f}");
            assert_eq!(r.num_found(), 1, "{f}");
            assert_eq!(r.docs()[0]["id"], "a", "{f}");
        }
    }

    #[test]
    fn truncated_html_and_foreign_bodies_are_typed_errors_with_a_snippet() {
        for (f, ct, body) in [
            (
                ResponseFormat::Javabin,
                "application/octet-stream",
                javabin_select(),
            ),
            (ResponseFormat::Xml, "application/xml", XML.to_vec()),
            (
                ResponseFormat::Cbor,
                "application/octet-stream",
                vec![0xa1, 0x65],
            ),
        ] {
            // Every strict prefix is truncated.
            for cut in 0..body.len() {
                match decode::<SelectResponse>(f, 200, Some(ct), &body[..cut]) {
                    Err(Error::Decode { snippet: s, .. }) => {
                        assert_eq!(s, snippet(&body[..cut], 200), "{f} cut {cut}")
                    }
                    other => panic!("{f} cut {cut}: {other:?}"),
                }
            }
            // An HTML page labelled as the format: a decode error showing the page.
            let html = b"<html><body><h1>502 Bad Gateway</h1></body></html>";
            match decode::<SelectResponse>(f, 200, Some(ct), html) {
                Err(Error::Decode { snippet, .. }) => assert!(snippet.contains("502"), "{f}"),
                other => panic!("{f}: {other:?}"),
            }
            // A proxy's HTML error page: an unexpected response with its status and text.
            let err = decode::<SelectResponse>(f, 502, Some("text/html"), html).unwrap_err();
            assert!(
                matches!(&err, Error::UnexpectedResponse { status: 502, snippet, .. } if snippet.contains("502")),
                "{f}: {err:?}"
            );
        }
    }
}
