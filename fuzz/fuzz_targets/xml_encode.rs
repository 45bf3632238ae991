//! The XML update encoder on arbitrary field names and values. Either it refuses with
//! `InvalidInput`, or the output is one `<add><doc>` with exactly one `<field name="`
//! per field and no character XML 1.0 cannot carry: nothing in a value or name can open
//! or close an element.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use solr_client::{Error, UpdateFormat};

fn xml_char_ok(c: char) -> bool {
    matches!(c, '\u{9}' | '\u{A}' | '\u{D}' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parts: Vec<&str> = text.split('\u{1}').collect();
    let mut doc = Map::new();
    doc.insert("id".into(), Value::String(parts[0].to_string()));
    for pair in parts[1..].chunks(2) {
        let name = format!("f_{}", pair[0]);
        let value = pair.get(1).copied().unwrap_or("");
        doc.insert(name, Value::String(value.to_string()));
    }
    let fields = doc.len();
    match UpdateFormat::Xml.encode_add(&[doc]) {
        Ok(body) => {
            let s = std::str::from_utf8(&body).expect("the encoder writes UTF-8");
            assert!(s.starts_with("<add><doc>") && s.ends_with("</doc></add>"));
            assert_eq!(s.matches("<doc>").count(), 1);
            assert_eq!(s.matches("<field name=\"").count(), fields);
            assert_eq!(s.matches('<').count(), 4 + 2 * fields, "{s}");
            assert!(s.chars().all(xml_char_ok));
        }
        Err(Error::InvalidInput(msg)) => assert!(msg.contains("U+")),
        Err(other) => panic!("unexpected error kind: {other:?}"),
    }
});
