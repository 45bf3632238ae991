//! XML update bodies, escaped by construction.
//!
//! Text and attribute values are escaped (`& < > " '`). Characters that XML 1.0 cannot
//! carry at all (most C0 control characters, U+FFFE, U+FFFF, lone surrogates cannot occur
//! in Rust strings) make the encoder refuse the whole batch with an error naming the
//! document and field, instead of sending a request Solr would reject half-way (the
//! Sunspot failure of sunspot#856). Invalid UTF-8 cannot reach this encoder: documents are
//! Rust strings.

use std::fmt::Write;

use bytes::Bytes;
use serde_json::Value;

use super::doc_id;
use crate::error::{Error, Result};
use crate::types::Document;

pub(super) fn xml_char_ok(c: char) -> bool {
    matches!(c, '\u{9}' | '\u{A}' | '\u{D}' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// Appends `s` escaped for XML text or a double-quoted attribute.
fn escape_into(out: &mut String, s: &str, doc: &Document, field: &str) -> Result<()> {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if xml_char_ok(c) => out.push(c),
            c => {
                return Err(Error::InvalidInput(format!(
                    "document {:?}, field {field:?}: character U+{:04X} cannot be sent in XML; \
                     remove it or use the JSON or CBOR update format",
                    doc_id(doc),
                    c as u32
                )))
            }
        }
    }
    Ok(())
}

pub(super) fn field_into(
    out: &mut String,
    name: &str,
    value: &Value,
    doc: &Document,
) -> Result<()> {
    match value {
        Value::Null => Ok(()),
        Value::Array(items) => {
            for item in items {
                if item.is_array() {
                    return Err(Error::InvalidInput(format!(
                        "document {:?}, field {name:?}: nested arrays are not supported in XML updates",
                        doc_id(doc)
                    )));
                }
                field_into(out, name, item, doc)?;
            }
            Ok(())
        }
        Value::Object(ops) if is_atomic(ops) => {
            for (op, v) in ops {
                atomic_into(out, name, op, v, doc)?;
            }
            Ok(())
        }
        Value::Object(child) => {
            // A labelled child document: `<field name="kids"><doc>...</doc></field>`.
            out.push_str("<field name=\"");
            escape_into(out, name, doc, name)?;
            out.push_str("\">");
            doc_into(out, child)?;
            out.push_str("</field>");
            Ok(())
        }
        scalar => {
            out.push_str("<field name=\"");
            escape_into(out, name, doc, name)?;
            out.push_str("\">");
            scalar_into(out, scalar, doc, name)?;
            out.push_str("</field>");
            Ok(())
        }
    }
}

fn scalar_into(out: &mut String, v: &Value, doc: &Document, name: &str) -> Result<()> {
    match v {
        Value::String(s) => escape_into(out, s, doc, name),
        other => {
            let _ = write!(out, "{other}");
            Ok(())
        }
    }
}

/// `<field name="f" update="op">v</field>`, once per value; a null `set` removes the field.
fn atomic_into(out: &mut String, name: &str, op: &str, v: &Value, doc: &Document) -> Result<()> {
    let values: &[Value] = match v {
        Value::Array(a) => a,
        other => std::slice::from_ref(other),
    };
    let head = |out: &mut String| -> Result<()> {
        out.push_str("<field name=\"");
        escape_into(out, name, doc, name)?;
        out.push_str("\" update=\"");
        escape_into(out, op, doc, name)?;
        out.push('"');
        Ok(())
    };
    if values.is_empty() || (values.len() == 1 && values[0].is_null()) {
        head(out)?;
        out.push_str(" null=\"true\"/>");
        return Ok(());
    }
    for x in values {
        if x.is_array() || x.is_object() {
            return Err(Error::InvalidInput(format!(
                "document {:?}, field {name:?}: an atomic {op} of objects is not supported in XML updates",
                doc_id(doc)
            )));
        }
        head(out)?;
        out.push('>');
        scalar_into(out, x, doc, name)?;
        out.push_str("</field>");
    }
    Ok(())
}

fn is_atomic(m: &serde_json::Map<String, Value>) -> bool {
    !m.is_empty()
        && m.keys()
            .all(|k| super::values::ATOMIC_OPS.contains(&k.as_str()))
}

/// `<doc>` with its fields, then its anonymous children (`_childDocuments_`) as nested
/// `<doc>`s.
pub(super) fn doc_into(out: &mut String, doc: &Document) -> Result<()> {
    out.push_str("<doc>");
    for (name, value) in doc {
        if name != "_childDocuments_" {
            field_into(out, name, value, doc)?;
        }
    }
    match doc.get("_childDocuments_") {
        None | Some(Value::Null) => {}
        Some(Value::Array(children)) => {
            for c in children {
                match c {
                    Value::Object(m) => doc_into(out, m)?,
                    _ => return Err(not_a_child(doc)),
                }
            }
        }
        Some(Value::Object(m)) => doc_into(out, m)?,
        Some(_) => return Err(not_a_child(doc)),
    }
    out.push_str("</doc>");
    Ok(())
}

pub(super) fn not_a_child(doc: &Document) -> Error {
    Error::InvalidInput(format!(
        "document {:?}: _childDocuments_ must hold documents (objects)",
        doc_id(doc)
    ))
}

/// Encodes an add of `docs` as `<add><doc>...</doc></add>`; child documents nest, atomic
/// updates carry `update="op"`.
pub(crate) fn encode_add(docs: &[Document]) -> Result<Bytes> {
    let mut out = String::with_capacity(docs.len() * 128 + 16);
    out.push_str("<add>");
    for doc in docs {
        doc_into(&mut out, doc)?;
    }
    out.push_str("</add>");
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(v: Value) -> Document {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn escapes_markup() {
        let d = doc(serde_json::json!({"id": "a<b", "title": "x & \"y\""}));
        let body = encode_add(&[d]).expect("encodes");
        let s = std::str::from_utf8(&body).expect("utf8");
        assert_eq!(
            s,
            "<add><doc><field name=\"id\">a&lt;b</field><field name=\"title\">x &amp; &quot;y&quot;</field></doc></add>"
        );
    }

    #[test]
    fn rejects_control_characters_naming_the_doc() {
        let d = doc(serde_json::json!({"id": "d7", "body": "bell\u{7}"}));
        let err = encode_add(&[d]).expect_err("must refuse");
        let msg = err.to_string();
        assert!(
            msg.contains("d7") && msg.contains("U+0007") && msg.contains("body"),
            "{msg}"
        );
    }

    #[test]
    fn children_and_atomic_updates() {
        let d = doc(serde_json::json!({"id": "p", "kid": {"id": "k"},
            "n_i": {"inc": 2}, "t_s": {"set": null}, "m_s": {"add": ["a", "b"]},
            "_childDocuments_": [{"id": "c"}]}));
        let body = encode_add(&[d]).expect("encodes");
        assert_eq!(
            std::str::from_utf8(&body).expect("utf8"),
            "<add><doc><field name=\"id\">p</field><field name=\"kid\"><doc><field name=\"id\">k</field></doc></field>\
             <field name=\"m_s\" update=\"add\">a</field><field name=\"m_s\" update=\"add\">b</field>\
             <field name=\"n_i\" update=\"inc\">2</field><field name=\"t_s\" update=\"set\" null=\"true\"/>\
             <doc><field name=\"id\">c</field></doc></doc></add>"
        );
    }

    #[test]
    fn multivalued_and_numbers() {
        let d = doc(serde_json::json!({"id": 1, "v": [0.5, 1], "n": null}));
        let body = encode_add(&[d]).expect("encodes");
        assert_eq!(
            std::str::from_utf8(&body).expect("utf8"),
            "<add><doc><field name=\"id\">1</field><field name=\"v\">0.5</field><field name=\"v\">1</field></doc></add>"
        );
    }
}
