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
        return Err(Error::invalid_input(format!(
            "document {id:?}, field {name:?}: atomic operations {} on one field: Solr \
             applies one field's operations in no defined order, so `set` or `inc` \
             beside another operation has no defined result; send them in separate \
             updates",
            list.join(", ")
        )));
    }
    if format == UpdateFormat::Json {
        return Err(Error::invalid_input(format!(
            "document {id:?}, field {name:?}: atomic operations {} on one field: \
             Solr's JSON loader reads an object with more than one key as a child \
             document (it stores a list as text); send one operation per field and \
             update, or use the XML or javabin update format",
            list.join(", ")
        )));
    }
    Ok(())
}
