//! XML update bodies written straight from `T: Serialize` (see [`super::ser`]): the same
//! bytes as [`super::xml`] writes for the same document.

use std::fmt::Write;

use serde_json::Value;

use super::ser::{Format, SerResult};
use super::xml::{doc_into, field_into, not_a_child, xml_char_ok};
use crate::error::{Error, Result};
use crate::types::Document;

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
                return Err(Error::InvalidInput(format!(
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

pub(super) struct Xml {
    pub(super) out: String,
    pub(super) id: String,
    pub(super) name: String,
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
        Error::InvalidInput(format!(
            "document {:?}, field {:?}: nested arrays are not supported in XML updates",
            self.id, self.name
        ))
    }
}

impl Format for Xml {
    const CHILDREN_APART: bool = true;
    const FORMAT: super::UpdateFormat = super::UpdateFormat::Xml;

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
    super::ser::documents(&mut x, docs, ids)?;
    x.out.push_str("</add>");
    Ok(x.out.into_bytes())
}
