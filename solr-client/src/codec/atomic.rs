//! Several atomic operations on one field, checked before any update format encodes them.
//!
//! Solr reads them differently per loader (found against Solr 9):
//! - JSON: Solr's `JsonLoader` takes an object field value with more than one key for a
//!   child document (`isChildDoc`: "fundamentally ambiguous with JSON"), so
//!   `{"tags_ss": {"add": ["a"], "remove": ["b"]}}` is not two operations: Solr stored a
//!   list as the text `"[c, e]"` and dropped the other operation, or rejected the document
//!   (`Invalid input 'inc=1'`). Refused: send the operations in separate updates, or use the
//!   XML or javabin format.
//! - XML and javabin carry several operations on one field, but Solr applies them in its
//!   map's order, not the order written: a `set` or `inc` beside another operation on the
//!   same field has no defined result, so it is refused in every format. Several list
//!   operations (`add`, `add-distinct`, `remove`, `removeregex`) on one field are sent.
//! - CBOR cannot carry atomic updates at all (refused by its encoder).

use serde_json::Value;

use super::UpdateFormat;
use crate::error::{Error, Result};
use crate::types::Document;

/// The operations that may share a field: each adds or removes values of a multi-valued
/// field.
const LIST_OPS: [&str; 4] = ["add", "add-distinct", "remove", "removeregex"];

/// Refuses, with the document and field named, the atomic operations `format` cannot
/// carry on one field (see the module docs). Nothing is encoded or sent then.
pub(crate) fn check(format: UpdateFormat, docs: &[Document]) -> Result<()> {
    for doc in docs {
        for (name, value) in doc {
            if let Value::Object(_) = value {
                check_field(format, &super::doc_id(doc), name, value)?;
            }
        }
    }
    Ok(())
}

/// [`check`] for one field `name` of the document whose id is `id`.
pub(crate) fn check_field(format: UpdateFormat, id: &str, name: &str, value: &Value) -> Result<()> {
    let Value::Object(ops) = value else {
        return Ok(());
    };
    if ops.len() < 2
        || !ops
            .keys()
            .all(|k| super::values::ATOMIC_OPS.contains(&k.as_str()))
    {
        return Ok(());
    }
    let list: Vec<&str> = ops.keys().map(String::as_str).collect();
    if !list.iter().all(|op| LIST_OPS.contains(op)) {
        return Err(Error::InvalidInput(format!(
            "document {id:?}, field {name:?}: atomic operations {} on one field: Solr \
             applies one field's operations in no defined order, so `set` or `inc` \
             beside another operation has no defined result; send them in separate \
             updates",
            list.join(", ")
        )));
    }
    if format == UpdateFormat::Json {
        return Err(Error::InvalidInput(format!(
            "document {id:?}, field {name:?}: atomic operations {} on one field: \
             Solr's JSON loader reads an object with more than one key as a child \
             document (it stores a list as text); send one operation per field and \
             update, or use the XML or javabin update format",
            list.join(", ")
        )));
    }
    Ok(())
}

#[cfg(all(test, feature = "cbor", feature = "javabin"))]
mod tests {
    use super::*;
    use crate::request::AtomicUpdate;

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
}
