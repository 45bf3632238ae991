//! The one response decoder (`codec::decode`) on arbitrary bytes, into every response type:
//! the first byte picks status and content type, the rest is the body. Must return Ok or a typed error, never panic. The same body
//! also goes through the `wt=xml` reader (the javabin and CBOR readers have their own target,
//! `javabin_decode`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use solr_client::codec::{decode, ResponseFormat};
use solr_client::response::{PingResponse, SelectResponse, UpdateResponse};

const JSON: ResponseFormat = ResponseFormat::Json;

const STATUSES: [u16; 8] = [200, 204, 400, 404, 429, 500, 502, 503];
const TYPES: [Option<&str>; 4] = [
    Some("application/json;charset=utf-8"),
    Some("text/plain"),
    Some("text/html"),
    None,
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let ok_json = Some("application/json");
    let _ = decode::<SelectResponse>(JSON, 200, ok_json, body);
    let _ = decode::<PingResponse>(JSON, 200, ok_json, body);
    let _ = decode::<UpdateResponse>(JSON, 200, ok_json, body);
    let status = STATUSES[usize::from(sel) % STATUSES.len()];
    let ct = TYPES[usize::from(sel >> 4) % TYPES.len()];
    match decode::<SelectResponse>(JSON, status, ct, body) {
        Ok(_) => assert!((200..300).contains(&status)),
        Err(e) => {
            // Errors for a non-2xx status always carry it.
            if !(200..300).contains(&status) {
                assert_eq!(e.status(), Some(status), "{e}");
            }
        }
    }
    let _ = decode::<UpdateResponse>(JSON, status, ct, body);
    let _ = ResponseFormat::Xml.decode_value(body);
    let _ = decode::<SelectResponse>(
        ResponseFormat::Xml,
        status,
        Some("application/xml; charset=UTF-8"),
        body,
    );
});
