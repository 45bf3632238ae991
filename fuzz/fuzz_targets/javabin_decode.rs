//! The javabin decoder (and the XML and CBOR response decoders) on arbitrary bytes: Ok or a
//! typed error, never a panic. A value javabin decoded re-encodes (as maps, arrays and
//! scalars) to bytes that decode to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use solr_client::codec::javabin::{decode, Writer};
use solr_client::codec::ResponseFormat;
use solr_client::response::{decode_format_bytes, SelectResponse};

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = decode(data) {
        let mut w = Writer::new();
        w.value(&v);
        let again = decode(&w.finish()).expect("re-encoded javabin decodes");
        assert_eq!(again, v);
    }
    for f in ResponseFormat::ALL {
        let _ = f.decode_value(data);
        for status in [200, 400, 500] {
            let _ = decode_format_bytes::<SelectResponse>(
                f,
                status,
                Some("application/octet-stream"),
                data,
            );
            let _ = decode_format_bytes::<SelectResponse>(f, status, Some("application/xml"), data);
        }
    }
});
