//! CBOR update bodies: a CBOR array of maps, read by Solr 9's `CborLoader`, from
//! [`Document`]s, and the same bytes written straight from `T: Serialize` (see
//! [`crate::codec::ser`]). Scalars are written by `ciborium` (which picks the shortest
//! lossless float width); headers here, in CBOR's shortest form, as `ciborium` writes them.

use bytes::Bytes;
use serde_json::Value;

use crate::codec::ser::{Format, SerResult};
use crate::error::{Error, Result};
use crate::types::Document;

/// Encodes an add of `docs` as a CBOR array. Objects are child documents (labelled by
/// their field). An atomic update cannot be sent: Solr's `CborLoader` reads every object as
/// a child document, so `{"inc": 1}` would become a child, not an increment; such a
/// document is refused with nothing sent.
pub(crate) fn encode_add(docs: &[Document]) -> Result<Bytes> {
    for d in docs {
        for (name, v) in d {
            if let serde_json::Value::Object(m) = v {
                if !m.is_empty()
                    && m.keys()
                        .all(|k| crate::codec::values::ATOMIC_OPS.contains(&k.as_str()))
                {
                    return Err(Error::invalid_input(format!(
                        "document {:?}, field {name:?}: Solr's CBOR loader cannot apply atomic \
                         updates (it reads the object as a child document); send them as \
                         JSON, XML or javabin",
                        crate::codec::doc_id(d)
                    )));
                }
            }
        }
    }
    let mut out = Vec::with_capacity(docs.len() * 64);
    ciborium::ser::into_writer(docs, &mut out)
        .map_err(|e| Error::invalid_input(format!("cannot encode documents as CBOR: {e}")))?;
    Ok(Bytes::from(out))
}

/// A CBOR head: major type `major`, argument `n`, shortest form.
pub(crate) fn head(out: &mut Vec<u8>, major: u8, n: u64) {
    let m = major << 5;
    if n < 24 {
        out.push(m | n as u8);
    } else if n <= u64::from(u8::MAX) {
        out.extend_from_slice(&[m | 24, n as u8]);
    } else if n <= u64::from(u16::MAX) {
        out.push(m | 25);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else if n <= u64::from(u32::MAX) {
        out.push(m | 26);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        out.push(m | 27);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

pub(crate) const ARRAY: u8 = 4;
const MAP: u8 = 5;

pub(crate) struct Cbor {
    pub(crate) out: Vec<u8>,
    pub(crate) id: String,
    pub(crate) name: String,
    /// Where the current document's map head goes.
    pub(crate) start: usize,
}

impl Cbor {
    fn scalar<T: serde::Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        ciborium::ser::into_writer(v, &mut self.out).map_err(|e| {
            Error::invalid_input(format!("cannot encode documents as CBOR: {e}")).into()
        })
    }
}

impl Format for Cbor {
    const CHILDREN_APART: bool = false;
    const FORMAT: crate::codec::UpdateFormat = crate::codec::UpdateFormat::Cbor;

    fn doc_begin(&mut self, id: &str) {
        self.id.clear();
        self.id.push_str(id);
        self.start = self.out.len();
    }

    fn field_begin(&mut self, name: &str) -> SerResult {
        self.name.clear();
        self.name.push_str(name);
        self.scalar(name)
    }

    fn doc_end(&mut self, fields: usize, _: Option<&Value>) -> SerResult {
        let mut h = Vec::with_capacity(9);
        head(&mut h, MAP, fields as u64);
        self.out.splice(self.start..self.start, h);
        Ok(())
    }

    fn null(&mut self, _: usize) -> SerResult {
        self.scalar(&())
    }

    fn bool(&mut self, v: bool, _: usize) -> SerResult {
        self.scalar(&v)
    }

    fn i64(&mut self, v: i64, _: usize) -> SerResult {
        match u64::try_from(v) {
            Ok(u) => self.scalar(&u),
            Err(_) => self.scalar(&v),
        }
    }

    fn u64(&mut self, v: u64, _: usize) -> SerResult {
        self.scalar(&v)
    }

    fn f64(&mut self, v: f64, _: usize) -> SerResult {
        self.scalar(&v)
    }

    fn str(&mut self, v: &str, _: usize) -> SerResult {
        self.scalar(v)
    }

    fn seq_begin(&mut self, len: usize, _: usize) -> SerResult {
        head(&mut self.out, ARRAY, len as u64);
        Ok(())
    }

    fn seq_end(&mut self, _: usize) -> SerResult {
        Ok(())
    }

    fn value(&mut self, v: &Value, depth: usize) -> SerResult {
        if let (0, Value::Object(m)) = (depth, v) {
            if !m.is_empty()
                && m.keys()
                    .all(|k| crate::codec::values::ATOMIC_OPS.contains(&k.as_str()))
            {
                return Err(Error::invalid_input(format!(
                    "document {:?}, field {:?}: Solr's CBOR loader cannot apply atomic \
                     updates (it reads the object as a child document); send them as \
                     JSON, XML or javabin",
                    self.id, self.name
                ))
                .into());
            }
        }
        self.scalar(v)
    }
}

/// Encodes an add of `docs` (whose ids are `ids`) as a CBOR array of maps.
pub(crate) fn encode<D: serde::Serialize, S: AsRef<str>>(docs: &[D], ids: &[S]) -> Result<Vec<u8>> {
    let mut c = Cbor {
        out: Vec::with_capacity(docs.len() * 64 + 9),
        id: String::new(),
        name: String::new(),
        start: 0,
    };
    head(&mut c.out, ARRAY, docs.len() as u64);
    crate::codec::ser::documents(&mut c, docs, ids)?;
    Ok(c.out)
}
