//! javabin update bodies written straight from `T: Serialize` (see [`super::ser`]): the
//! same bytes as [`super::javabin::encode_add`] writes for the same document.

use serde_json::Value;

use super::javabin::{tag, Writer};
use super::ser::{Format, SerResult};
use crate::error::Result;

pub(super) struct Javabin {
    pub(super) w: Writer,
    /// Where the current document's SolrInputDocument head goes.
    pub(super) start: usize,
}

impl Format for Javabin {
    const CHILDREN_APART: bool = true;
    const FORMAT: super::UpdateFormat = super::UpdateFormat::Javabin;

    fn doc_begin(&mut self, _id: &str) {
        self.start = self.w.out.len();
    }

    fn field_begin(&mut self, name: &str) -> SerResult {
        self.w.extern_str(name);
        Ok(())
    }

    fn doc_end(&mut self, fields: usize, children: Option<&Value>) -> SerResult {
        let children: &[Value] = match children {
            Some(Value::Array(a)) => a,
            Some(v @ Value::Object(_)) => std::slice::from_ref(v),
            _ => &[],
        };
        // The head Writer::input_doc writes: tag, entry count, document boost 1.0.
        let mut h = Vec::with_capacity(16);
        h.push(tag::SOLRINPUTDOC);
        let mut n = (fields + children.len()) as u64;
        while n & !0x7f != 0 {
            h.push((n as u8 & 0x7f) | 0x80);
            n >>= 7;
        }
        h.push(n as u8);
        h.push(tag::FLOAT);
        h.extend_from_slice(&1.0f32.to_be_bytes());
        self.w.out.splice(self.start..self.start, h);
        for c in children {
            if let Value::Object(m) = c {
                self.w.document(m);
            } else {
                self.w.null();
            }
        }
        Ok(())
    }

    fn null(&mut self, _: usize) -> SerResult {
        self.w.null();
        Ok(())
    }

    fn bool(&mut self, v: bool, _: usize) -> SerResult {
        self.w.bool(v);
        Ok(())
    }

    fn i64(&mut self, v: i64, _: usize) -> SerResult {
        self.w.long(v);
        Ok(())
    }

    fn u64(&mut self, v: u64, _: usize) -> SerResult {
        // Solr has no unsigned long; past i64::MAX a double keeps its size (as before).
        match i64::try_from(v) {
            Ok(i) => self.w.long(i),
            Err(_) => self.w.double(v as f64),
        }
        Ok(())
    }

    fn f64(&mut self, v: f64, _: usize) -> SerResult {
        self.w.double(v);
        Ok(())
    }

    fn str(&mut self, v: &str, _: usize) -> SerResult {
        self.w.str(v);
        Ok(())
    }

    fn seq_begin(&mut self, len: usize, _: usize) -> SerResult {
        self.w.array(len);
        Ok(())
    }

    fn seq_end(&mut self, _: usize) -> SerResult {
        Ok(())
    }

    fn value(&mut self, v: &Value, _: usize) -> SerResult {
        self.w.field_value(v);
        Ok(())
    }
}

/// Encodes an add of `docs` (whose ids are `ids`) as the javabin update request SolrJ
/// sends (see [`super::javabin::encode_add`]).
pub(crate) fn encode<D: serde::Serialize, S: AsRef<str>>(docs: &[D], ids: &[S]) -> Result<Vec<u8>> {
    let mut w = Writer::new();
    w.begin_add(docs.len());
    let mut j = Javabin { w, start: 0 };
    super::ser::documents(&mut j, docs, ids)?;
    j.w.end();
    Ok(j.w.finish())
}
