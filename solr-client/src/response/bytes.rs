//! Decoding a response from bytes, without a transport: the same status, content-type,
//! encoding and shape checks the client applies to every response. For the fuzz targets
//! (`fuzz/`), and for callers that obtained a body some other way. Never panics, on any
//! input; every failure is a typed [`Error`].

use super::{failed_docs, PingResponse, SelectResponse, UpdateResponse};
pub use crate::codec::decode_response_bytes;
use crate::error::Result;

/// Decodes a `200 application/json` select response body.
///
/// ```
/// let r = solr_client::response::decode_select_bytes(
///     br#"{"responseHeader":{"status":0,"QTime":3},"response":{"numFound":0,"docs":[]}}"#,
/// ).unwrap();
/// assert_eq!(r.header.qtime, Some(3));
/// let r = solr_client::response::decode_select_bytes(
///     br#"{"response":{"numFound":0,"docs":[]}}"#,
/// ).unwrap();
/// assert_eq!(r.header.qtime, None); // omitHeader=true: no QTime, not 0
/// ```
pub fn decode_select_bytes(body: &[u8]) -> Result<SelectResponse> {
    decode_response_bytes(200, Some("application/json"), body)
}

/// Decodes a `200 application/json` update response body; also returns the documents
/// Solr's tolerant chain reported as failed (`responseHeader.errors`), as the client does.
pub fn decode_update_bytes(body: &[u8]) -> Result<(UpdateResponse, Vec<crate::FailedDoc>)> {
    let r: UpdateResponse = decode_response_bytes(200, Some("application/json"), body)?;
    let failed = failed_docs(&r.header);
    Ok((r, failed))
}

/// Decodes a `200 application/json` ping response body.
pub fn decode_ping_bytes(body: &[u8]) -> Result<PingResponse> {
    decode_response_bytes(200, Some("application/json"), body)
}

#[cfg(test)]
mod tests {
    //! The stable stand-in for the fuzz targets: thousands of seeded random and mutated
    //! bodies through every decoder. It asserts that each call returns (Ok or a typed
    //! error) without panicking; the fuzz targets in `fuzz/` do the same, guided.

    use super::*;
    use crate::error::Error;

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
        let _ = decode_select_bytes(body);
        let _ = decode_update_bytes(body);
        let _ = decode_ping_bytes(body);
        let _ = decode_response_bytes::<SelectResponse>(status, Some("application/json"), body);
        let _ = decode_response_bytes::<SelectResponse>(status, Some("text/html"), body);
        let _ = decode_response_bytes::<SelectResponse>(status, None, body);
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
        assert!(decode_select_bytes(SEEDS[0]).is_ok());
        let sections = decode_select_bytes(SEEDS[4]).expect("sections");
        assert!(sections.response.is_none() && sections.grouped.is_some());
        assert_eq!(sections.extra.len(), 1);
        let (_, failed) = decode_update_bytes(SEEDS[1]).expect("update");
        assert_eq!(failed.len(), 1);
        assert_eq!(decode_ping_bytes(SEEDS[2]).expect("ping").status, "OK");
        assert!(matches!(
            decode_response_bytes::<SelectResponse>(400, Some("application/json"), SEEDS[3]),
            Err(Error::Solr { status: 400, .. })
        ));
        assert!(decode_response_bytes::<SelectResponse>(1000, None, b"").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let mut body =
            br#"{"responseHeader":{"status":0,"QTime":1},"response":{"numFound":1,"docs":[{"x":"#
                .to_vec();
        body.extend(std::iter::repeat_n(b'[', 100_000));
        assert!(matches!(
            decode_select_bytes(&body),
            Err(Error::Decode { .. })
        ));
    }

    #[test]
    fn qtime_absent_is_none_not_zero() {
        let with = decode_select_bytes(SEEDS[0]).expect("select");
        assert_eq!(with.header.qtime, Some(1));
        let zero = decode_ping_bytes(SEEDS[2]).expect("ping");
        assert_eq!(zero.header.qtime, Some(0));
        // omitHeader=true: no responseHeader at all.
        let omitted = decode_select_bytes(br#"{"response":{"numFound":0,"start":0,"docs":[]}}"#)
            .expect("select");
        assert_eq!(omitted.header.qtime, None);
        // A header without QTime, or with a null one.
        for body in [
            &br#"{"responseHeader":{"status":0},"response":{"numFound":0,"docs":[]}}"#[..],
            br#"{"responseHeader":{"status":0,"QTime":null},"response":{"numFound":0,"docs":[]}}"#,
        ] {
            assert_eq!(
                decode_select_bytes(body).expect("select").header.qtime,
                None
            );
        }
        // Re-encoding keeps absent absent (no invented "QTime":0).
        let json = serde_json::to_string(&omitted.header).expect("json");
        assert!(!json.contains("QTime"), "{json}");
    }
}
