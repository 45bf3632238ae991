//! Writing javabin: the [`Writer`] (every tag), the update request of
//! [`crate::UpdateFormat::Javabin`] from [`Document`]s, and the same bytes written straight
//! from `T: Serialize` (see [`crate::codec::ser`]).

use bytes::Bytes;
use serde_json::{Map, Value};

use super::{tag, VERSION};
use crate::codec::ser::{Format, SerResult};
use crate::codec::values::ATOMIC_OPS;
use crate::error::Result;
use crate::types::Document;

/// Writes javabin, tag by tag. Strings given to [`Writer::extern_str`] are sent once and
/// referred to by index afterwards, as Solr does for field names.
#[derive(Debug, Default)]
pub struct Writer {
    pub(crate) out: Vec<u8>,
    externs: std::collections::HashMap<String, usize>,
}

impl Writer {
    /// A writer with the version byte written.
    pub fn new() -> Self {
        Writer {
            out: vec![VERSION],
            externs: Default::default(),
        }
    }

    /// The bytes written.
    pub fn finish(self) -> Vec<u8> {
        self.out
    }

    fn vint(&mut self, mut v: u64) {
        while v & !0x7f != 0 {
            self.out.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    fn sized(&mut self, t: u8, n: usize) {
        if n < 0x1f {
            self.out.push(t | n as u8);
        } else {
            self.out.push(t | 0x1f);
            self.vint((n - 0x1f) as u64);
        }
    }

    /// `null`.
    pub fn null(&mut self) {
        self.out.push(tag::NULL);
    }
    /// A boolean.
    pub fn bool(&mut self, b: bool) {
        self.out
            .push(if b { tag::BOOL_TRUE } else { tag::BOOL_FALSE });
    }
    /// A byte.
    pub fn byte(&mut self, b: i8) {
        self.out.push(tag::BYTE);
        self.out.push(b as u8);
    }
    /// A short.
    pub fn short(&mut self, v: i16) {
        self.out.push(tag::SHORT);
        self.out.extend_from_slice(&v.to_be_bytes());
    }
    /// An int (small positive ones in the compact form, as Solr writes them).
    pub fn int(&mut self, v: i32) {
        if v > 0 {
            self.compact(tag::SINT, v as u64);
        } else {
            self.out.push(tag::INT);
            self.out.extend_from_slice(&v.to_be_bytes());
        }
    }
    /// A long (non-negative ones under 2^56 in the compact form, as Solr writes them).
    pub fn long(&mut self, v: i64) {
        if (v as u64) & 0xff00_0000_0000_0000 == 0 {
            self.compact(tag::SLONG, v as u64);
        } else {
            self.out.push(tag::LONG);
            self.out.extend_from_slice(&v.to_be_bytes());
        }
    }
    /// `v` in the compact form of `tag` (`SINT`, `SLONG`): its low 4 bits in the tag, the
    /// rest (flagged by 0x10) as a vint.
    fn compact(&mut self, tag: u8, v: u64) {
        let b = tag | (v as u8 & 0x0f);
        if v >= 0x0f {
            self.out.push(b | 0x10);
            self.vint(v >> 4);
        } else {
            self.out.push(b);
        }
    }
    /// The start of the javabin update request SolrJ sends for an add of `docs` documents:
    /// a NamedList of `params` (empty: the client sends parameters in the URL), `delByQ`
    /// (null) and `docs`, an iterator the caller fills with SolrInputDocuments and closes
    /// with [`Writer::end`].
    pub(crate) fn begin_add(&mut self, docs: usize) {
        self.out.reserve(docs * 64);
        self.named_list(3);
        self.extern_str("params");
        self.ordered_map(0);
        self.extern_str("delByQ");
        self.null();
        self.extern_str("docs");
        self.iterator();
    }
    /// A 32-bit float.
    pub fn float(&mut self, v: f32) {
        self.out.push(tag::FLOAT);
        self.out.extend_from_slice(&v.to_be_bytes());
    }
    /// A 64-bit float.
    pub fn double(&mut self, v: f64) {
        self.out.push(tag::DOUBLE);
        self.out.extend_from_slice(&v.to_be_bytes());
    }
    /// A date, as epoch milliseconds.
    pub fn date(&mut self, epoch_ms: i64) {
        self.out.push(tag::DATE);
        self.out.extend_from_slice(&epoch_ms.to_be_bytes());
    }
    /// A string.
    pub fn str(&mut self, s: &str) {
        self.sized(tag::STR, s.len());
        self.out.extend_from_slice(s.as_bytes());
    }
    /// A string sent once, then by index (Solr's field and key names).
    pub fn extern_str(&mut self, s: &str) {
        if let Some(&i) = self.externs.get(s) {
            self.sized(tag::EXTERN_STRING, i);
        } else {
            self.sized(tag::EXTERN_STRING, 0);
            self.str(s);
            let i = self.externs.len() + 1;
            self.externs.insert(s.to_string(), i);
        }
    }
    /// A byte array.
    pub fn bytes(&mut self, b: &[u8]) {
        self.out.push(tag::BYTEARR);
        self.vint(b.len() as u64);
        self.out.extend_from_slice(b);
    }
    /// The head of an array of `n` values (write them next).
    pub fn array(&mut self, n: usize) {
        self.sized(tag::ARR, n);
    }
    /// The head of a map of `n` entries (key and value next, `n` times).
    pub fn map(&mut self, n: usize) {
        self.out.push(tag::MAP);
        self.vint(n as u64);
    }
    /// The head of a SimpleOrderedMap of `n` entries (name and value next).
    pub fn ordered_map(&mut self, n: usize) {
        self.sized(tag::ORDERED_MAP, n);
    }
    /// The head of a NamedList of `n` entries (name and value next).
    pub fn named_list(&mut self, n: usize) {
        self.sized(tag::NAMED_LST, n);
    }
    /// The start of an iterator (values next, then [`Writer::end`]).
    pub fn iterator(&mut self) {
        self.out.push(tag::ITERATOR);
    }
    /// The start of a map entry iterator (keys and values next, then [`Writer::end`]).
    pub fn map_entry_iter(&mut self) {
        self.out.push(tag::MAP_ENTRY_ITER);
    }
    /// A map entry (key and value next).
    pub fn map_entry(&mut self) {
        self.out.push(tag::MAP_ENTRY);
    }
    /// The end of an iterator.
    pub fn end(&mut self) {
        self.out.push(tag::END);
    }
    /// An enum field value (its number and its name).
    pub fn enum_value(&mut self, n: i32, name: &str) {
        self.out.push(tag::ENUM_FIELD_VALUE);
        self.int(n);
        self.str(name);
    }
    /// A UUID.
    pub fn uuid(&mut self, b: [u8; 16]) {
        self.out.push(tag::UUID);
        self.out.extend_from_slice(&b);
    }
    /// A primitive float array.
    pub fn float_array(&mut self, v: &[f32]) {
        self.out.push(tag::PRIMITIVE_ARR);
        self.out.push(tag::FLOAT);
        self.vint(v.len() as u64);
        for f in v {
            self.out.extend_from_slice(&f.to_be_bytes());
        }
    }
    /// The head of a SolrDocument of `n` entries: fields (name and value) and child
    /// documents (a nested SolrDocument each), `n` in all.
    pub fn solr_doc(&mut self, n: usize) {
        self.out.push(tag::SOLRDOC);
        self.ordered_map(n);
    }
    /// The head of a SolrDocumentList (its documents next, as an array of SolrDocuments).
    pub fn doc_list(&mut self, num_found: i64, start: i64, max_score: Option<f32>, exact: bool) {
        self.out.push(tag::SOLRDOCLST);
        self.array(4);
        self.long(num_found);
        self.long(start);
        match max_score {
            Some(s) => self.float(s),
            None => self.null(),
        }
        self.bool(exact);
    }
    /// The head of a SolrInputDocument of `n` entries: fields (name and value) and child
    /// documents (a nested SolrInputDocument each). Writes the document boost 1.0.
    pub fn input_doc(&mut self, n: usize) {
        self.out.push(tag::SOLRINPUTDOC);
        self.vint(n as u64);
        self.float(1.0);
    }

    /// A JSON value: objects as maps, arrays as arrays, integers as longs, other numbers as
    /// doubles.
    pub fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.null(),
            Value::Bool(b) => self.bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => self.long(i),
                (None, Some(f)) if n.is_f64() => self.double(f),
                // u64 above i64::MAX: Solr has no unsigned long; a double keeps its size.
                (None, Some(f)) => self.double(f),
                (None, None) => self.null(),
            },
            Value::String(s) => self.str(s),
            Value::Array(a) => {
                self.array(a.len());
                for x in a {
                    self.value(x);
                }
            }
            Value::Object(m) => {
                self.map(m.len());
                for (k, x) in m {
                    self.extern_str(k);
                    self.value(x);
                }
            }
        }
    }

    /// A document as a SolrInputDocument: `_childDocuments_` entries become anonymous
    /// children; a field whose value is an object with atomic-update operations (`set`,
    /// `add`, `add-distinct`, `remove`, `removeregex`, `inc`) becomes a map, any other
    /// object (or array of objects) a labelled child document.
    pub fn document(&mut self, doc: &Document) {
        let children: &[Value] = match doc.get("_childDocuments_") {
            Some(Value::Array(a)) => a,
            Some(v @ Value::Object(_)) => std::slice::from_ref(v),
            _ => &[],
        };
        let fields = doc.iter().filter(|(k, _)| *k != "_childDocuments_");
        let n = fields.clone().count() + children.len();
        self.input_doc(n);
        for (k, v) in fields {
            self.extern_str(k);
            self.field_value(v);
        }
        for c in children {
            if let Value::Object(m) = c {
                self.document(m);
            } else {
                self.null();
            }
        }
    }

    pub(crate) fn field_value(&mut self, v: &Value) {
        match v {
            Value::Object(m) if is_atomic(m) => {
                self.map(m.len());
                for (op, x) in m {
                    self.extern_str(op);
                    self.value(x);
                }
            }
            Value::Object(m) => self.document(m),
            Value::Array(a) => {
                self.array(a.len());
                for x in a {
                    self.field_value(x);
                }
            }
            other => self.value(other),
        }
    }
}

fn is_atomic(m: &Map<String, Value>) -> bool {
    !m.is_empty() && m.keys().all(|k| ATOMIC_OPS.contains(&k.as_str()))
}

/// Encodes an add of `docs` as the javabin update request SolrJ sends: a NamedList of
/// `params` (empty: the client sends parameters in the URL), `delByQ` (null) and `docs`, an
/// iterator of SolrInputDocuments.
pub(crate) fn encode_add(docs: &[Document]) -> Result<Bytes> {
    let mut w = Writer::new();
    w.begin_add(docs.len());
    for d in docs {
        w.document(d);
    }
    w.end();
    Ok(Bytes::from(w.finish()))
}

pub(crate) struct Javabin {
    pub(crate) w: Writer,
    /// Where the current document's SolrInputDocument head goes.
    pub(crate) start: usize,
}

impl Format for Javabin {
    const CHILDREN_APART: bool = true;
    const FORMAT: crate::codec::UpdateFormat = crate::codec::UpdateFormat::Javabin;

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
/// sends (see [`encode_add`]).
pub(crate) fn encode<D: serde::Serialize, S: AsRef<str>>(docs: &[D], ids: &[S]) -> Result<Vec<u8>> {
    let mut w = Writer::new();
    w.begin_add(docs.len());
    let mut j = Javabin { w, start: 0 };
    crate::codec::ser::documents(&mut j, docs, ids)?;
    j.w.end();
    Ok(j.w.finish())
}
