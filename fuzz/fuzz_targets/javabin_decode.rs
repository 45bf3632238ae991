//! The javabin decoder (and the XML and CBOR response decoders) on arbitrary bytes: Ok or a
//! typed error, never a panic. A value javabin decoded re-encodes (as maps, arrays and
//! scalars) to bytes that decode to the same value. The typed decoder (`from_slice`,
//! straight into `T`) agrees with the tree decoder: both fail, or both give the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use solr_client::codec::javabin::{decode, from_slice, Writer};
use solr_client::codec::{self, ResponseFormat};
use solr_client::response::SelectResponse;

fuzz_target!(|data: &[u8]| {
    let tree = decode(data);
    let typed = from_slice::<Value>(data);
    assert_eq!(
        typed.as_ref().ok(),
        tree.as_ref().ok(),
        "typed and tree decoders disagree: {typed:?} vs {tree:?}"
    );
    let _ = from_slice::<SelectResponse>(data);
    if let Ok(v) = tree {
        let mut w = Writer::new();
        w.value(&v);
        let again = decode(&w.finish()).expect("re-encoded javabin decodes");
        assert_eq!(again, v);
    }
    for f in ResponseFormat::ALL {
        let _ = f.decode_value(data);
        for status in [200, 400, 500] {
            let _ =
                codec::decode::<SelectResponse>(f, status, Some("application/octet-stream"), data);
            let _ = codec::decode::<SelectResponse>(f, status, Some("application/xml"), data);
        }
    }
});
