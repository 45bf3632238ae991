//! The serde front end's answer for every shape serde has: what [`super::ser::doc_ids`] says
//! of a document that is not an object (naming the shape), how each shape of `id` prints,
//! and which map keys are text. Pins the messages of the refusing serializers.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::collections::BTreeMap;

use crate::codec::ser;

fn doc_ids<T: serde::Serialize>(docs: &[T]) -> crate::Result<Vec<String>> {
    ser::doc_ids(docs, "id")
}
use crate::codec::UpdateFormat;

#[derive(Serialize)]
struct Unit;

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct Newtype<T>(T);

#[derive(Serialize)]
struct Pair(i32, i32);

#[derive(Serialize)]
enum E {
    Unit,
    New(i32),
    Tuple(i32, i32),
    Struct { a: i32 },
}

/// A value that serializes through `serialize_bytes`.
struct Bytes;

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&[1, 2])
    }
}

/// A map of an `id` and one more entry, whatever its key (floats and bytes too).
struct One<K>(K);

impl<K: Serialize> Serialize for One<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("id", "d")?;
        m.serialize_entry(&self.0, "x")?;
        m.end()
    }
}

fn refused<T: Serialize>(doc: T) -> String {
    doc_ids(&[doc]).expect_err("not an object").to_string()
}

fn id_of<T: Serialize>(id: T) -> String {
    doc_ids(&[BTreeMap::from([("id", id)])])
        .expect("a map")
        .remove(0)
}

#[test]
fn a_document_that_is_not_an_object_is_refused_naming_its_shape() {
    let cases = [
        (refused(true), "a boolean"),
        (refused(1i8), "a number"),
        (refused(1i16), "a number"),
        (refused(1i32), "a number"),
        (refused(1i64), "a number"),
        (refused(1u8), "a number"),
        (refused(1u16), "a number"),
        (refused(1u32), "a number"),
        (refused(1u64), "a number"),
        (refused(1.5f32), "a number"),
        (refused(1.5f64), "a number"),
        (refused('c'), "a string"),
        (refused("s"), "a string"),
        (refused(Bytes), "an array"),
        (refused(None::<i32>), "null"),
        (refused(Some(1)), "a number"),
        (refused(()), "null"),
        (refused(Unit), "null"),
        (refused(E::Unit), "a string"),
        (refused(Newtype(1)), "a number"),
        (refused(E::New(1)), "an enum variant"),
        (refused(vec![1]), "an array"),
        (refused((1, 2)), "an array"),
        (refused(Pair(1, 2)), "an array"),
        (refused(E::Tuple(1, 2)), "an enum variant"),
        (refused(E::Struct { a: 1 }), "an enum variant"),
    ];
    for (e, what) in cases {
        assert!(
            e.ends_with(&format!("document #0 is not an object: {what}")),
            "{what}: {e}"
        );
    }
    // Option and newtype wrappers are looked through.
    let map = BTreeMap::from([("id", "a")]);
    assert_eq!(doc_ids(&[Some(&map)]).expect("some"), ["a"]);
    assert_eq!(doc_ids(&[Newtype(&map)]).expect("newtype"), ["a"]);
}

#[test]
fn every_shape_of_id_prints_as_text() {
    assert_eq!(id_of(true), "true");
    assert_eq!(id_of(-7i8), "-7");
    assert_eq!(id_of(-7i16), "-7");
    assert_eq!(id_of(-7i32), "-7");
    assert_eq!(id_of(-7i64), "-7");
    assert_eq!(id_of(7u8), "7");
    assert_eq!(id_of(7u16), "7");
    assert_eq!(id_of(7u32), "7");
    assert_eq!(id_of(u64::MAX), "18446744073709551615");
    assert_eq!(id_of(1.5f32), "1.5");
    assert_eq!(id_of(2.25f64), "2.25");
    // A NaN id, None, () and a unit struct are no id at all.
    for no_id in [
        doc_ids(&[BTreeMap::from([("id", f64::NAN)])]),
        doc_ids(&[BTreeMap::from([("id", None::<i32>)])]),
        doc_ids(&[BTreeMap::from([("id", ())])]),
        doc_ids(&[BTreeMap::from([("id", Unit)])]),
    ] {
        let e = no_id.expect_err("no id").to_string();
        assert!(e.contains("no value for the uniqueKey field `id`"), "{e}");
    }
    assert_eq!(id_of('c'), "c");
    assert_eq!(id_of("s"), "s");
    assert_eq!(id_of(Some(3)), "3");
    assert_eq!(id_of(E::Unit), "Unit");
    assert_eq!(id_of(Newtype(5)), "5");
    // The rest print as their JSON.
    assert_eq!(id_of(Bytes), "[1,2]");
    assert_eq!(id_of(E::New(1)), r#"{"New":1}"#);
    assert_eq!(id_of(vec![1, 2]), "[1,2]");
    assert_eq!(id_of((1, 2)), "[1,2]");
    assert_eq!(id_of(Pair(1, 2)), "[1,2]");
    assert_eq!(id_of(E::Tuple(1, 2)), r#"{"Tuple":[1,2]}"#);
    assert_eq!(id_of(E::Struct { a: 1 }), r#"{"Struct":{"a":1}}"#);
    assert_eq!(id_of(BTreeMap::from([("k", 1)])), r#"{"k":1}"#);
    // No id, or a null one: refused, naming the document and the field.
    for doc in [
        BTreeMap::from([("x", serde_json::json!(1))]),
        BTreeMap::from([("id", serde_json::Value::Null)]),
    ] {
        let e = doc_ids(&[doc]).expect_err("no id");
        assert!(
            matches!(
                e,
                crate::Error::InvalidDocument { index: 0, ref field, problem: crate::DocumentProblem::MissingUniqueKey, .. } if field == "id"
            ),
            "{e:?}"
        );
    }
    // The uniqueKey is the configured field.
    let doc = BTreeMap::from([("sku", "s1"), ("id", "i1")]);
    assert_eq!(ser::doc_ids(&[&doc], "sku").expect("sku"), ["s1"]);
}

#[test]
fn map_keys_are_text_or_an_error() {
    // Keys print as XML field names.
    fn field_name<K: Serialize>(k: K) -> String {
        let body = UpdateFormat::Xml
            .encode_docs(&[One(k)])
            .expect("a text key");
        let body = String::from_utf8(body.to_vec()).expect("utf-8");
        let second = body.find("</field>").expect("the id field");
        let start = second + body[second..].find("name=\"").expect("a field") + 6;
        body[start..start + body[start..].find('"').expect("quoted")].to_string()
    }
    assert_eq!(field_name(true), "true");
    assert_eq!(field_name(-3i8), "-3");
    assert_eq!(field_name(-3i16), "-3");
    assert_eq!(field_name(-3i32), "-3");
    assert_eq!(field_name(-3i64), "-3");
    assert_eq!(field_name(3u8), "3");
    assert_eq!(field_name(3u16), "3");
    assert_eq!(field_name(3u32), "3");
    assert_eq!(field_name(3u64), "3");
    assert_eq!(field_name('k'), "k");
    assert_eq!(field_name("name"), "name");
    assert_eq!(field_name(E::Unit), "Unit");
    assert_eq!(field_name(Newtype("n")), "n");
    for e in [
        doc_ids(&[One(1.5f32)]),
        doc_ids(&[One(1.5f64)]),
        doc_ids(&[One(Bytes)]),
        doc_ids(&[One(None::<&str>)]),
        doc_ids(&[One(Some("id"))]),
        doc_ids(&[One(())]),
        doc_ids(&[One(Unit)]),
        doc_ids(&[One(E::New(1))]),
        doc_ids(&[One(vec![1])]),
        doc_ids(&[One((1, 2))]),
        doc_ids(&[One(Pair(1, 2))]),
        doc_ids(&[One(E::Tuple(1, 2))]),
        doc_ids(&[One(BTreeMap::from([(1, 2)]))]),
        doc_ids(&[One(E::Struct { a: 1 })]),
    ] {
        let e = e.expect_err("not a text key").to_string();
        assert!(
            e.ends_with("document #0 cannot be serialized: key must be a string"),
            "{e}"
        );
    }
}

/// Atomic operations on one field, as a struct: JSON refuses several of them wherever the
/// document keeps them (a map, a struct field, inside `Option` or a newtype).
#[derive(Serialize)]
struct Ops {
    add: Vec<&'static str>,
    remove: Vec<&'static str>,
}

#[derive(Serialize)]
struct Typed<T> {
    id: &'static str,
    tags: T,
}

fn json_error<T: Serialize>(doc: T) -> String {
    UpdateFormat::Json
        .encode_docs(&[doc])
        .expect_err("refused")
        .to_string()
}

#[test]
fn json_refuses_several_operations_on_one_field_in_every_document_shape() {
    let ops = || Ops {
        add: vec!["a"],
        remove: vec!["b"],
    };
    let want = "document \"d\", field \"tags\": atomic operations add, remove on one field: \
                Solr's JSON loader reads an object with more than one key as a child document";
    for e in [
        json_error(Typed {
            id: "d",
            tags: ops(),
        }),
        json_error(Typed {
            id: "d",
            tags: Some(ops()),
        }),
        json_error(Typed {
            id: "d",
            tags: Newtype(ops()),
        }),
        json_error(serde_json::json!({"id": "d", "tags": {"remove": ["b"], "add": ["a"]}})),
        json_error(BTreeMap::from([
            ("id", serde_json::json!("d")),
            ("tags", serde_json::json!({"add": ["a"], "remove": ["b"]})),
        ])),
    ] {
        assert!(e.contains(want), "{e}");
    }
    // `set` or `inc` beside another operation: refused in every format.
    let e = json_error(serde_json::json!({"id": "d", "tags": {"set": 1, "inc": 2}}));
    assert!(e.contains("atomic operations inc, set on one field"), "{e}");
    // XML carries several list operations.
    assert!(UpdateFormat::Xml
        .encode_docs(&[Typed {
            id: "d",
            tags: ops()
        }])
        .is_ok());
}

#[test]
fn json_sends_one_operation_and_operation_names_that_are_no_operations() {
    for doc in [
        serde_json::json!({"id": "d", "n": {"inc": 1}, "t": {"set": "x"}, "l": {"add": ["a"]}}),
        // An object with another key is a child document, not operations.
        serde_json::json!({"id": "d", "kid": {"id": "k", "add": "x", "set": "y"}}),
        // Deeper objects, arrays of objects, anonymous children: never operations.
        serde_json::json!({"id": "d", "a": [{"add": 1, "remove": 2}],
            "_childDocuments_": [{"id": "c", "f": {"add": 1, "remove": 2}}]}),
        // Fields named like operations.
        serde_json::json!({"id": "d", "add": 1, "set": {"inc": 1}}),
    ] {
        let body = UpdateFormat::Json
            .encode_docs(std::slice::from_ref(&doc))
            .expect("sent");
        let back: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(back, serde_json::json!([doc]));
    }
}

#[test]
fn nan_and_infinities_are_refused_in_every_format_naming_document_and_field() {
    #[derive(Serialize)]
    struct Priced {
        id: &'static str,
        price: f64,
        sizes: Vec<f32>,
    }
    let good = |id| Priced {
        id,
        price: 1.5,
        sizes: vec![1.0],
    };
    let cases = [
        (
            Priced {
                price: f64::NAN,
                ..good("p1")
            },
            "price",
        ),
        (
            Priced {
                price: f64::INFINITY,
                ..good("p1")
            },
            "price",
        ),
        (
            Priced {
                sizes: vec![2.0, f32::NEG_INFINITY],
                ..good("p1")
            },
            "sizes",
        ),
    ];
    for format in UpdateFormat::ALL {
        for (bad, field) in &cases {
            let docs = [&good("p0"), bad];
            let e = format.encode_docs(&docs).expect_err("not finite");
            match &e {
                crate::Error::InvalidDocument {
                    index: 1,
                    id: Some(id),
                    field: f,
                    problem: crate::DocumentProblem::NotFinite,
                } => assert_eq!((id.as_str(), f.as_str()), ("p1", *field)),
                other => panic!("{format}: {other:?}"),
            }
            assert!(
                e.to_string()
                    .starts_with("document #1 (id \"p1\"): field `"),
                "{e}"
            );
        }
        // An atomic operation's value is checked too; a finite document passes.
        // (serde_json's `Value` cannot hold NaN, so the document is a map of its own.)
        assert!(format.encode_docs(&[good("p0")]).is_ok(), "{format}");
        let doc = AtomicDoc(
            BTreeMap::from([("id", serde_json::json!("p2"))]),
            BTreeMap::from([("inc", f64::NAN)]),
        );
        let e = format
            .encode_docs(&[doc])
            .expect_err("NaN in an atomic operation");
        assert!(e.to_string().contains("field `stock_i`"), "{format}: {e}");
    }
}

/// A document of `id` fields plus one atomic operation on `stock_i`.
struct AtomicDoc(
    BTreeMap<&'static str, serde_json::Value>,
    BTreeMap<&'static str, f64>,
);

impl Serialize for AtomicDoc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("stock_i", &self.1)?;
        m.end()
    }
}
