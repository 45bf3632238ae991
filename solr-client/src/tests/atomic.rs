//! `codec::atomic` with documents built by `request::AtomicUpdate` (a module of its own:
//! the request builders use the codec).

use crate::codec::atomic::check;
use crate::codec::UpdateFormat;
use crate::error::Error;
use crate::request::AtomicUpdate;
use crate::types::Document;

fn doc(u: AtomicUpdate) -> Vec<Document> {
    vec![u.into_document()]
}

#[test]
fn several_operations_on_one_field_per_format() {
    let lists = doc(AtomicUpdate::new("x")
        .add("tags_ss", ["a"])
        .remove("tags_ss", ["b"])
        .set("title_s", "t")
        .inc("n_i", 1));
    for f in [UpdateFormat::Xml, UpdateFormat::Javabin, UpdateFormat::Cbor] {
        assert!(check(f, &lists).is_ok(), "{f}");
    }
    let err = check(UpdateFormat::Json, &lists).unwrap_err().to_string();
    assert!(
        err.contains("\"tags_ss\"")
            && err.contains("add, remove")
            && err.contains("XML or javabin"),
        "{err}"
    );
    let set_inc = doc(AtomicUpdate::new("x").set("n_i", 10).inc("n_i", 1));
    for f in UpdateFormat::ALL {
        let err = check(f, &set_inc).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{f}");
        assert!(err.to_string().contains("inc, set"), "{f}: {err}");
    }
    // One operation per field, and plain documents (even with a child object), pass.
    let single = doc(AtomicUpdate::new("x").set("a_s", "v").inc("n_i", 1));
    let plain = vec![
        serde_json::json!({"id": "p", "kid": {"id": "k", "name_s": "n"}})
            .as_object()
            .cloned()
            .expect("object"),
    ];
    for f in UpdateFormat::ALL {
        assert!(check(f, &single).is_ok() && check(f, &plain).is_ok(), "{f}");
    }
}

/// The same list operation twice on one field keeps both values (it replaced the
/// first one's).
#[test]
fn a_repeated_list_operation_keeps_every_value() {
    let d = AtomicUpdate::new("x")
        .add("tags_ss", ["a"])
        .add("tags_ss", "b")
        .add("tags_ss", ["c", "d"])
        .set("t_s", "1")
        .set("t_s", "2")
        .into_document();
    assert_eq!(
        d["tags_ss"],
        serde_json::json!({"add": ["a", "b", "c", "d"]})
    );
    assert_eq!(d["t_s"], serde_json::json!({"set": "2"}));
}
