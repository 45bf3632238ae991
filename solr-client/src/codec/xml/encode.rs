//! XML update bodies, escaped by construction: from [`Document`]s, and the same bytes
//! written straight from `T: Serialize` (see [`crate::codec::ser`]).
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

use crate::codec::doc_id;
use crate::codec::ser::{Format, SerResult};
use crate::error::{Error, Result};
use crate::types::Document;

pub(crate) fn xml_char_ok(c: char) -> bool {
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
                return Err(Error::invalid_input(format!(
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

pub(crate) fn field_into(
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
                    return Err(Error::invalid_input(format!(
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
            return Err(Error::invalid_input(format!(
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
            .all(|k| crate::codec::values::ATOMIC_OPS.contains(&k.as_str()))
}

/// `<doc>` with its fields, then its anonymous children (`_childDocuments_`) as nested
/// `<doc>`s.
pub(crate) fn doc_into(out: &mut String, doc: &Document) -> Result<()> {
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

pub(crate) fn not_a_child(doc: &Document) -> Error {
    Error::invalid_input(format!(
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

/// Appends `s` escaped for XML text or a double-quoted attribute; a character XML cannot
/// carry is an error naming the document and field.
fn escape(out: &mut String, s: &str, id: &str, field: &str) -> SerResult {
    let mut rest = s;
    while let Some(i) =
        rest.find(|c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || !xml_char_ok(c))
    {
        out.push_str(&rest[..i]);
        let c = rest[i..].chars().next().unwrap_or('\0');
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => {
                return Err(Error::invalid_input(format!(
                    "document {id:?}, field {field:?}: character U+{:04X} cannot be sent in XML; \
                     remove it or use the JSON or CBOR update format",
                    c as u32
                ))
                .into())
            }
        }
        rest = &rest[i + c.len_utf8()..];
    }
    out.push_str(rest);
    Ok(())
}

pub(crate) struct Xml {
    pub(crate) out: String,
    pub(crate) id: String,
    pub(crate) name: String,
}

impl Xml {
    /// A document holding only the id, for the `Value` encoder's error messages.
    fn id_doc(&self) -> Document {
        let mut d = Document::new();
        d.insert("id".into(), Value::String(self.id.clone()));
        d
    }

    fn open(&mut self) -> SerResult {
        self.out.push_str("<field name=\"");
        escape(&mut self.out, &self.name, &self.id, &self.name)?;
        self.out.push_str("\">");
        Ok(())
    }

    fn text(&mut self, args: std::fmt::Arguments<'_>) -> SerResult {
        self.open()?;
        let _ = self.out.write_fmt(args);
        self.out.push_str("</field>");
        Ok(())
    }

    fn nested(&self) -> Error {
        Error::invalid_input(format!(
            "document {:?}, field {:?}: nested arrays are not supported in XML updates",
            self.id, self.name
        ))
    }
}

impl Format for Xml {
    const CHILDREN_APART: bool = true;
    const FORMAT: crate::codec::UpdateFormat = crate::codec::UpdateFormat::Xml;

    fn doc_begin(&mut self, id: &str) {
        self.id.clear();
        self.id.push_str(id);
        self.out.push_str("<doc>");
    }

    fn field_begin(&mut self, name: &str) -> SerResult {
        self.name.clear();
        self.name.push_str(name);
        Ok(())
    }

    fn doc_end(&mut self, _fields: usize, children: Option<&Value>) -> SerResult {
        match children {
            None | Some(Value::Null) => {}
            Some(Value::Array(children)) => {
                for c in children {
                    match c {
                        Value::Object(m) => doc_into(&mut self.out, m)?,
                        _ => return Err(not_a_child(&self.id_doc()).into()),
                    }
                }
            }
            Some(Value::Object(m)) => doc_into(&mut self.out, m)?,
            Some(_) => return Err(not_a_child(&self.id_doc()).into()),
        }
        self.out.push_str("</doc>");
        Ok(())
    }

    fn null(&mut self, _: usize) -> SerResult {
        Ok(())
    }

    fn bool(&mut self, v: bool, _: usize) -> SerResult {
        self.text(format_args!("{v}"))
    }

    fn i64(&mut self, v: i64, _: usize) -> SerResult {
        self.text(format_args!("{v}"))
    }

    fn u64(&mut self, v: u64, _: usize) -> SerResult {
        self.text(format_args!("{v}"))
    }

    fn f64(&mut self, v: f64, depth: usize) -> SerResult {
        match serde_json::Number::from_f64(v) {
            Some(n) => self.text(format_args!("{n}")),
            None => self.null(depth),
        }
    }

    fn str(&mut self, v: &str, _: usize) -> SerResult {
        self.open()?;
        escape(&mut self.out, v, &self.id, &self.name)?;
        self.out.push_str("</field>");
        Ok(())
    }

    fn seq_begin(&mut self, _: usize, depth: usize) -> SerResult {
        if depth > 0 {
            return Err(self.nested().into());
        }
        Ok(())
    }

    fn seq_end(&mut self, _: usize) -> SerResult {
        Ok(())
    }

    fn value(&mut self, v: &Value, depth: usize) -> SerResult {
        if depth > 0 && v.is_array() {
            return Err(self.nested().into());
        }
        let doc = self.id_doc();
        field_into(&mut self.out, &self.name, v, &doc)?;
        Ok(())
    }
}

/// Encodes an add of `docs` (whose ids are `ids`) as `<add><doc>...</doc></add>`.
pub(crate) fn encode<D: serde::Serialize, S: AsRef<str>>(docs: &[D], ids: &[S]) -> Result<Vec<u8>> {
    let mut x = Xml {
        out: String::with_capacity(docs.len() * 128 + 16),
        id: String::new(),
        name: String::new(),
    };
    x.out.push_str("<add>");
    crate::codec::ser::documents(&mut x, docs, ids)?;
    x.out.push_str("</add>");
    Ok(x.out.into_bytes())
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
