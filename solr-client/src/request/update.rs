//! Atomic updates and optimistic concurrency.
//!
//! [`AtomicUpdate`] builds the document Solr's atomic update reads: the id, one operation
//! object per field (`{"price": {"inc": 2}}`), and optionally `_version_` for optimistic
//! concurrency. It serializes like any document, so it goes through every update format
//! ([`SolrClient::add`](crate::SolrClient::add)) and every update path, batches included.
//!
//! `_version_` semantics (Solr's): `> 1` the stored document must have exactly that version;
//! `1` the document must exist; `< 0` it must not exist; `0` or absent, no check. A failed
//! check of a one-document update is [`Error::VersionConflict`]; in a batch the document is
//! a failed one whose message is Solr's ([`FailedDoc::is_version_conflict`]).

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::batch::BatchReport;
use crate::error::{Error, FailedDoc};
use crate::response::Document;
use crate::types::parse_conflict;

/// One atomic-update operation on a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AtomicOp {
    /// `set`: replace the value (null removes the field).
    Set,
    /// `add`: append values to a multi-valued field.
    Add,
    /// `add-distinct`: append values not yet present.
    AddDistinct,
    /// `remove`: remove these values.
    Remove,
    /// `removeregex`: remove values matching these regular expressions.
    RemoveRegex,
    /// `inc`: add a number to a numeric field.
    Inc,
}

impl AtomicOp {
    /// Solr's name of the operation.
    pub fn as_str(&self) -> &'static str {
        match self {
            AtomicOp::Set => "set",
            AtomicOp::Add => "add",
            AtomicOp::AddDistinct => "add-distinct",
            AtomicOp::Remove => "remove",
            AtomicOp::RemoveRegex => "removeregex",
            AtomicOp::Inc => "inc",
        }
    }
}

/// An atomic update of one document (Solr's "atomic updates": only the named fields
/// change; the others are kept from the stored document).
///
/// ```
/// use solr_client::request::AtomicUpdate;
/// let u = AtomicUpdate::new("book-1")
///     .set("title", "Dune")
///     .inc("popularity", 1)
///     .add_distinct("tags_s", ["sf"])
///     .version(1);
/// assert_eq!(
///     serde_json::to_value(&u).unwrap(),
///     serde_json::json!({"id": "book-1", "title": {"set": "Dune"},
///         "popularity": {"inc": 1}, "tags_s": {"add-distinct": ["sf"]}, "_version_": 1})
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct AtomicUpdate {
    doc: Document,
}

impl AtomicUpdate {
    /// An update of the document whose uniqueKey `id` is `id`.
    pub fn new(id: impl Into<String>) -> Self {
        let mut doc = Map::new();
        doc.insert("id".into(), Value::String(id.into()));
        AtomicUpdate { doc }
    }

    /// Adds operation `op` with `value` on `field`. The same list operation (`add`,
    /// `add-distinct`, `remove`, `removeregex`) given twice on a field keeps the values of
    /// both; a second `set` or `inc` replaces the first. Different operations on one field
    /// are sent only where Solr reads them as such: several list operations in the XML and
    /// javabin formats; `set` or `inc` beside another operation, or several operations in
    /// JSON, are refused when the update is sent ([`crate::Error::InvalidInput`]).
    pub fn op(mut self, field: &str, op: AtomicOp, value: impl Serialize) -> Self {
        let v = serde_json::to_value(value).unwrap_or(Value::Null);
        let slot = self
            .doc
            .entry(field.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = slot {
            let list_op = !matches!(op, AtomicOp::Set | AtomicOp::Inc);
            match m.get_mut(op.as_str()) {
                Some(old) if list_op => {
                    let mut values = match std::mem::take(old) {
                        Value::Array(a) => a,
                        one => vec![one],
                    };
                    match v {
                        Value::Array(a) => values.extend(a),
                        one => values.push(one),
                    }
                    *old = Value::Array(values);
                }
                _ => {
                    m.insert(op.as_str().into(), v);
                }
            }
        }
        self
    }

    /// `set`: replaces the field's value; `None`/null removes the field.
    pub fn set(self, field: &str, value: impl Serialize) -> Self {
        self.op(field, AtomicOp::Set, value)
    }
    /// `add`: appends value(s) to a multi-valued field.
    pub fn add(self, field: &str, value: impl Serialize) -> Self {
        self.op(field, AtomicOp::Add, value)
    }
    /// `add-distinct`: appends the value(s) not already present.
    pub fn add_distinct(self, field: &str, value: impl Serialize) -> Self {
        self.op(field, AtomicOp::AddDistinct, value)
    }
    /// `remove`: removes the value(s).
    pub fn remove(self, field: &str, value: impl Serialize) -> Self {
        self.op(field, AtomicOp::Remove, value)
    }
    /// `removeregex`: removes the values matching the Java regular expression(s).
    pub fn remove_regex(self, field: &str, pattern: impl Serialize) -> Self {
        self.op(field, AtomicOp::RemoveRegex, pattern)
    }
    /// `inc`: adds `by` to a numeric field.
    pub fn inc(self, field: &str, by: impl Serialize) -> Self {
        self.op(field, AtomicOp::Inc, by)
    }

    /// Optimistic concurrency: `_version_` the stored document must have (`> 1`), `1` it
    /// must exist, `< 0` it must not. Default: no check.
    pub fn version(mut self, v: i64) -> Self {
        self.doc.insert("_version_".into(), Value::from(v));
        self
    }

    /// The document Solr reads.
    pub fn into_document(self) -> Document {
        self.doc
    }
}

impl Serialize for AtomicUpdate {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.doc.serialize(s)
    }
}

impl FailedDoc {
    /// True when Solr refused this document for a `_version_` mismatch (optimistic
    /// concurrency).
    pub fn is_version_conflict(&self) -> bool {
        parse_conflict(&self.message).is_some()
    }
}

/// [`Error::VersionConflict`] for a one-document update whose one failure is a conflict.
pub(crate) fn single_conflict(report: &BatchReport, node: &str) -> Option<Error> {
    if report.sent != 1 || report.failed.len() != 1 {
        return None;
    }
    let (id, expected, actual) = parse_conflict(&report.failed[0].message)?;
    Some(Error::VersionConflict {
        node: node.into(),
        id: id.into(),
        expected,
        actual,
    })
}

/// A 409 answer to a one-document update as [`Error::VersionConflict`] (the strict chain
/// fails the request instead of listing the document).
pub(crate) fn conflict_error(e: Error) -> Error {
    if let Error::Solr { node, body, .. } = &e {
        if let Some((id, expected, actual)) = parse_conflict(&body.msg) {
            return Error::VersionConflict {
                node: node.clone(),
                id: id.into(),
                expected,
                actual,
            };
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_solr_conflict_messages() {
        assert_eq!(
            parse_conflict("version conflict for d 1 expected=12 actual=34"),
            Some(("d 1".into(), Some(12), Some(34)))
        );
        assert_eq!(
            parse_conflict("version conflict for x expected=-1 actual=1800000000000000000"),
            Some(("x".into(), Some(-1), Some(1_800_000_000_000_000_000)))
        );
        assert_eq!(
            parse_conflict("Document not found for update.  id=abc"),
            Some(("abc".into(), None, None))
        );
        assert_eq!(parse_conflict("ERROR: [doc=a] unknown field 'x'"), None);
    }

    #[test]
    fn single_conflict_only_for_one_document() {
        let failed = |n| BatchReport {
            sent: n,
            acknowledged: n - 1,
            failed: vec![FailedDoc::new(
                "a".into(),
                "version conflict for a expected=5 actual=6".into(),
            )],
            requests: 1,
            ..Default::default()
        };
        let e = single_conflict(&failed(1), "http://h/solr").expect("conflict");
        assert_eq!(e.status(), Some(409));
        assert!(matches!(
            e,
            Error::VersionConflict {
                expected: Some(5),
                actual: Some(6),
                ..
            }
        ));
        assert!(single_conflict(&failed(2), "http://h/solr").is_none());
        assert!(failed(2).failed[0].is_version_conflict());
    }
}
