//! The direct encoders (`T: Serialize` straight into each format) and the typed javabin
//! decoder, against the `serde_json::Value` paths they replace, which stay as the oracles.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Value};

use crate::client::to_documents;
use crate::codec::javabin::{self, Writer};
use crate::codec::UpdateFormat;
use crate::response::SelectResponse;

/// The old path: each document into a `Value` object, then the `Value` encoder.
fn via_value<T: Serialize>(f: UpdateFormat, docs: &[T]) -> Result<Vec<u8>, String> {
    to_documents(docs)
        .and_then(|d| f.encode_add(&d))
        .map(|b| b.to_vec())
        .map_err(|e| e.to_string())
}

fn direct<T: Serialize>(f: UpdateFormat, docs: &[T]) -> Result<Vec<u8>, String> {
    f.encode_docs(docs)
        .map(|b| b.to_vec())
        .map_err(|e| e.to_string())
}

fn value_corpus() -> Vec<Value> {
    vec![
        json!({"id": "a1", "title": "plain", "n_i": 42, "neg_l": -7,
            "big": 18_446_744_073_709_551_615u64, "f": 0.25, "tiny": 1e-300, "b": true,
            "none": null, "zero": 0, "min": i64::MIN}),
        json!({"id": "m", "tags": ["a", "b", "c"], "nums": [1, 2.5, -3], "empty": [],
            "with_null": ["x", null], "long_list": (0..40).collect::<Vec<_>>()}),
        json!({"id": "p", "kid": {"id": "k", "x_s": "y"}, "kids": [{"id": "k1"}, {"id": "k2"}],
            "_childDocuments_": [{"id": "c1", "_childDocuments_": [{"id": "gc"}]}, {"id": "c2"}]}),
        json!({"id": "one_child", "_childDocuments_": {"id": "only"}}),
        json!({"id": "d", "ts": "2024-01-02T03:04:05Z", "ts_ms": "2024-01-02T03:04:05.120Z",
            "range": "[2024-01-01T00:00:00Z TO NOW]"}),
        json!({"id": "u&<>\"'☃", "title": "x & \"y\" <b>it's</b>", "snow": "☃ 雪 🎉",
            "field with space": "v", "tab": "a\tb\nc\rd", "ünï": "ok"}),
        json!({"id": 17, "a": "numeric id"}),
        json!({"id": "x", "x": "a document with only an id besides"}),
        json!({"id": "long", "body": "the quick brown fox jumps over the lazy dog; ".repeat(40)}),
    ]
}

fn atomic_doc() -> Value {
    json!({"id": "u", "n_i": {"inc": 2}, "t_s": {"set": null}, "m_s": {"add": ["a", "b"]},
        "r_s": {"remove": "z"}, "e_s": {"set": []}, "plain": 1})
}

#[test]
fn direct_encoders_write_the_value_encoders_bytes_for_value_documents() {
    let corpus = value_corpus();
    for f in UpdateFormat::ALL {
        for (i, d) in corpus.iter().enumerate() {
            let one = std::slice::from_ref(d);
            assert_eq!(direct(f, one), via_value(f, one), "{f} doc #{i}: {d}");
        }
        let all = direct(f, &corpus);
        assert!(all.is_ok(), "{f}: {all:?}");
        assert_eq!(all, via_value(f, &corpus), "{f} whole corpus");
        let empty: [Value; 0] = [];
        assert_eq!(direct(f, &empty), via_value(f, &empty), "{f} no documents");
        // Atomic updates: encoded by JSON, XML and javabin, refused by CBOR, with the same
        // message both ways.
        let atomic = [atomic_doc()];
        let (new, old) = (direct(f, &atomic), via_value(f, &atomic));
        assert_eq!(new, old, "{f} atomic");
        assert_eq!(new.is_err(), f == UpdateFormat::Cbor, "{f} atomic: {new:?}");
    }
}

#[test]
fn direct_xml_refuses_what_the_value_encoder_refuses_with_the_same_message() {
    for d in [
        json!({"id": "d7", "body": "bell\u{7}"}),
        json!({"id": "d8", "na\u{1}me": "x"}),
        json!({"id": "n", "grid": [[1, 2], [3]]}),
        json!({"id": "o", "ops": {"add": [{"id": "x"}]}}),
        json!({"id": "c", "_childDocuments_": [1]}),
        json!({"id": "c2", "_childDocuments_": "text"}),
    ] {
        let one = [d];
        let new = direct(UpdateFormat::Xml, &one);
        assert!(new.is_err(), "{one:?}");
        assert_eq!(new, via_value(UpdateFormat::Xml, &one), "{one:?}");
    }
}

#[derive(Serialize)]
enum Kind {
    Book,
}

/// Fields in alphabetical order, as a `Value` object iterates them, so both paths write
/// them in the same order.
#[derive(Serialize)]
struct Flat {
    body: String,
    category: &'static str,
    id: String,
    kind: Kind,
    missing: Option<f64>,
    near_max: f64,
    popularity: u32,
    price: f64,
    tags: Vec<String>,
    ts: String,
    xs: (i8, u16),
}

fn flat(i: u32) -> Flat {
    Flat {
        body: format!("body <{i}> & more"),
        category: ["books", "music", "film"][i as usize % 3],
        id: format!("doc-{i}"),
        kind: Kind::Book,
        missing: None,
        near_max: if i.is_multiple_of(2) { 1e300 } else { -0.0 },
        popularity: i * 7,
        price: f64::from(i) * 0.25,
        tags: vec!["a".into(), format!("t{i}")],
        ts: "2024-01-02T03:04:05Z".into(),
        xs: (-1, 2),
    }
}

#[derive(Serialize)]
struct Parent {
    #[serde(rename = "_childDocuments_")]
    children: Vec<Flat>,
    id: u64,
    inner: Flat,
    pages: BTreeMap<&'static str, i64>,
}

#[test]
fn direct_encoders_write_the_value_encoders_bytes_for_struct_documents() {
    let docs: Vec<Flat> = (0..5).map(flat).collect();
    let parents = [Parent {
        children: vec![flat(10), flat(11)],
        id: 99,
        inner: flat(12),
        pages: BTreeMap::from([("inc", 3)]),
    }];
    for f in UpdateFormat::ALL {
        assert_eq!(direct(f, &docs), via_value(f, &docs), "{f} flat structs");
        assert_eq!(direct(f, &parents), via_value(f, &parents), "{f} parent");
        if f == UpdateFormat::Cbor {
            assert!(
                direct(f, &parents).is_err(),
                "CBOR cannot send an atomic inc"
            );
        }
    }
}

#[derive(Serialize)]
struct Unsorted {
    id: &'static str,
    zeta: i32,
    alpha: f32,
}

/// New behaviour: JSON keeps a struct's field order and prints an `f32` in its shortest
/// form (the `Value` path sorted the fields and widened the float to
/// `1.100000023841858`).
#[test]
fn json_keeps_struct_field_order_and_prints_f32_shortest() {
    let docs = [Unsorted {
        id: "x",
        zeta: 1,
        alpha: 1.1,
    }];
    let body = direct(UpdateFormat::Json, &docs).expect("encodes");
    assert_eq!(
        std::str::from_utf8(&body).expect("utf8"),
        r#"[{"id":"x","zeta":1,"alpha":1.1}]"#
    );
    let old = via_value(UpdateFormat::Json, &docs).expect("encodes");
    assert_eq!(
        std::str::from_utf8(&old).expect("utf8"),
        r#"[{"alpha":1.100000023841858,"id":"x","zeta":1}]"#
    );
}

fn fail<T, S: Serializer>(_: &T, _: S) -> Result<S::Ok, S::Error> {
    Err(serde::ser::Error::custom("no way"))
}

#[derive(Serialize)]
struct Failing {
    id: &'static str,
    #[serde(serialize_with = "fail")]
    broken: &'static str,
}

#[test]
fn ids_come_from_the_id_field_and_bad_documents_are_errors_naming_them() {
    let ids = crate::codec::doc_ids(&value_corpus(), "id").expect("objects");
    assert_eq!(
        ids,
        [
            "a1",
            "m",
            "p",
            "one_child",
            "d",
            "u&<>\"'☃",
            "17",
            "x",
            "long"
        ]
    );
    let structs: Vec<Flat> = (0..2).map(flat).collect();
    assert_eq!(
        crate::codec::doc_ids(&structs, "id").expect("structs"),
        ["doc-0", "doc-1"]
    );
    let e = crate::codec::doc_ids(&[json!({"x": "no id"})], "id").expect_err("no id");
    assert!(e.to_string().contains("uniqueKey field `id`"), "{e}");
    let e = crate::codec::doc_ids(&[json!({"id": "a"}), json!([1])], "id").expect_err("an array");
    assert!(
        e.to_string().contains("document #1 is not an object"),
        "{e}"
    );
    for f in UpdateFormat::ALL {
        let e = direct(f, &[1, 2]).expect_err("not objects");
        assert!(e.contains("document #0 is not an object"), "{f}: {e}");
        let e = direct(
            f,
            &[Failing {
                id: "bad",
                broken: "x",
            }],
        )
        .expect_err("fails");
        assert!(e.contains("no way"), "{f}: {e}");
        if f != UpdateFormat::Json {
            assert!(e.contains("\"bad\""), "{f}: {e}");
        }
    }
}

fn javabin_bodies() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut w = Writer::new();
    w.ordered_map(4);
    w.extern_str("responseHeader");
    w.ordered_map(2);
    w.extern_str("status");
    w.int(0);
    w.extern_str("QTime");
    w.int(3);
    w.extern_str("response");
    w.doc_list(3, 0, Some(1.5), true);
    w.array(3);
    for i in 0..3 {
        w.solr_doc(if i == 1 { 8 } else { 7 });
        w.extern_str("id");
        w.str(&format!("d{i}"));
        w.extern_str("title");
        w.str("☃ snow");
        w.extern_str("price");
        w.float(1.1 * i as f32);
        w.extern_str("popularity");
        w.int(i * 1000);
        w.extern_str("ts");
        w.date(1_704_164_645_120 + i64::from(i));
        w.extern_str("tags");
        w.array(2);
        w.str("a");
        w.long(1 << 40);
        if i == 1 {
            w.solr_doc(1); // anonymous child
            w.extern_str("id");
            w.str("c1");
        }
        w.extern_str("score");
        w.float(f32::NAN);
    }
    w.extern_str("facet_counts");
    w.ordered_map(1);
    w.extern_str("facet_fields");
    w.ordered_map(1);
    w.extern_str("category");
    w.named_list(2);
    w.str("books");
    w.int(3);
    w.str("music");
    w.int(1);
    w.extern_str("misc");
    w.named_list(9);
    w.str("it");
    w.iterator();
    w.int(1);
    w.double(0.1);
    w.end();
    w.str("mei");
    w.map_entry_iter();
    w.extern_str("a");
    w.bool(true);
    w.end();
    w.str("me");
    w.map_entry();
    w.str("k");
    w.int(2);
    w.str("map");
    w.map(2);
    w.int(7);
    w.str("x");
    w.null();
    w.byte(-3);
    w.str("bytes");
    w.bytes(&[0xff, 0, 0x7f]);
    w.str("enum");
    w.enum_value(2, "HIGH");
    w.str("uuid");
    w.uuid([7; 16]);
    w.str("prim");
    w.float_array(&[0.5, 1.1]);
    w.str("short");
    w.short(-300);
    out.push(w.finish());
    let mut w = Writer::new();
    w.doc_list(0, 0, None, false);
    w.null();
    out.push(w.finish());
    let mut w = Writer::new();
    w.solr_doc(2);
    w.extern_str("id");
    w.str("top");
    w.solr_doc(0);
    out.push(w.finish());
    out
}

/// The typed decoder gives the tree decoder's value on every body, every single-byte
/// mutation and every truncation: both succeed with equal values, or both fail.
#[test]
fn typed_javabin_decode_agrees_with_the_tree_decoder_on_every_mutation() {
    let mut tried = 0;
    for body in javabin_bodies() {
        let tree = javabin::decode(&body).expect("decodes");
        assert_eq!(javabin::from_slice::<Value>(&body).expect("typed"), tree);
        for i in 0..body.len() {
            let cut = &body[..i];
            assert_eq!(
                javabin::from_slice::<Value>(cut).ok(),
                javabin::decode(cut).ok(),
                "cut at {i}"
            );
            for x in [
                0x00, 0x01, 0x0f, 0x1f, 0x3f, 0x7f, 0x80, 0xa1, 0xbf, 0xc2, 0xe1, 0xff,
            ] {
                let mut m = body.clone();
                m[i] = x;
                assert_eq!(
                    javabin::from_slice::<Value>(&m).ok(),
                    javabin::decode(&m).ok(),
                    "byte {i} set to {x:#x}"
                );
                tried += 1;
            }
        }
    }
    assert!(tried > 1000, "{tried}");
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Hit {
    id: String,
    title: Option<String>,
    price: Option<f32>,
    popularity: Option<i64>,
    ts: Option<String>,
    tags: Option<Vec<Value>>,
    score: Option<f64>,
    #[serde(rename = "_childDocuments_", default)]
    children: Vec<Value>,
}

#[test]
fn typed_javabin_select_equals_the_tree_then_from_value_path() {
    let body = &javabin_bodies()[0];
    let new: SelectResponse<Hit> = javabin::from_slice(body).expect("typed");
    let old: SelectResponse<Hit> =
        serde_json::from_value(javabin::decode(body).expect("tree")).expect("from value");
    assert_eq!(new.header.qtime, Some(3));
    assert_eq!(new.num_found(), 3);
    assert_eq!(new.docs(), old.docs());
    assert_eq!(new.docs()[1].children, vec![json!({"id": "c1"})]);
    assert_eq!(new.docs()[2].price, Some(2.2));
    assert_eq!(
        new.docs()[0].ts.as_deref(),
        Some("2024-01-02T03:04:05.120Z")
    );
    assert_eq!(
        serde_json::to_value(&new).expect("ser"),
        serde_json::to_value(&old).expect("ser")
    );
    // A type mismatch is an error naming the byte, never a panic.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Wrong {
        response: BTreeMap<String, String>,
    }
    let e = javabin::from_slice::<Wrong>(body).expect_err("numFound is no string");
    assert!(e.to_string().starts_with("javabin at byte "), "{e}");
}

#[test]
fn typed_javabin_keeps_the_decoders_limits() {
    let input = include_bytes!("../codec/javabin/testdata/javabin-nested-keys.bin");
    let e = javabin::from_slice::<Value>(input).expect_err("a container key");
    assert!(e.message.contains("map key"), "{e}");
    let deep: Vec<u8> = std::iter::once(2)
        .chain(std::iter::repeat_n(0x81, 100_000))
        .chain(std::iter::once(0))
        .collect();
    let e = javabin::from_slice::<Value>(&deep).expect_err("too deep");
    assert!(e.message.contains("nested"), "{e}");
    // A size past the bytes left is refused before anything is sized by it.
    let huge = [2, 0x9f, 0xff, 0xff, 0xff, 0xff, 0x0f];
    let e = javabin::from_slice::<Vec<u64>>(&huge).expect_err("too big");
    assert!(e.message.contains("larger than"), "{e}");
}
