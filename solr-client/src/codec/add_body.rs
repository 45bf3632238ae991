//! An add body built one document at a time, straight from `T: Serialize` (what the
//! [`Indexer`](crate::Indexer) fills its batches with): each document is encoded once, into
//! the update format's bytes, and the batch's size is the real size of its body.
//!
//! The finished body has exactly the bytes [`UpdateFormat::encode_docs`] writes for the same
//! documents, with the same checks (atomic operations, XML characters, CBOR's refusal of
//! atomic updates).
//!
//! A document that cannot be encoded leaves the body as it was. A body can also drop the
//! document pushed last ([`AddBody::pop_last`]). In javabin, field names are sent once per
//! body and referred to by index afterwards, so after either the body is sealed: it takes no
//! more documents ([`AddBody::is_sealed`]) and is finished as it is.

use bytes::Bytes;
use serde::Serialize;

use super::ser::{self, SerError};
use super::UpdateFormat;
use crate::error::{Error, Result};

/// Room kept at the front of a CBOR body for the array head, whose length is known only at
/// the end (a CBOR head is at most 9 bytes).
#[cfg(feature = "cbor")]
const CBOR_HEAD: usize = 9;

/// An add body being filled (see the module docs).
pub(crate) struct AddBody {
    out: Out,
    docs: usize,
    /// Where the last document pushed starts (its separator included), until it is popped.
    last: Option<usize>,
    sealed: bool,
}

enum Out {
    Json(Vec<u8>),
    Xml(super::xml::Xml),
    #[cfg(feature = "cbor")]
    Cbor(super::cbor::Cbor),
    #[cfg(feature = "javabin")]
    Javabin(super::javabin::Javabin),
}

impl std::fmt::Debug for AddBody {
    /// Sizes only: the documents are the application's data.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AddBody")
            .field("docs", &self.docs)
            .field("bytes", &self.len())
            .field("sealed", &self.sealed)
            .finish()
    }
}

impl AddBody {
    /// An empty add body in `format`, with room for about `capacity` bytes.
    pub(crate) fn new(format: UpdateFormat, capacity: usize) -> Self {
        let out = match format {
            UpdateFormat::Json => {
                let mut v = Vec::with_capacity(capacity);
                v.push(b'[');
                Out::Json(v)
            }
            UpdateFormat::Xml => {
                let mut out = String::with_capacity(capacity);
                out.push_str("<add>");
                Out::Xml(super::xml::Xml {
                    out,
                    id: String::new(),
                    name: String::new(),
                })
            }
            #[cfg(feature = "cbor")]
            UpdateFormat::Cbor => {
                let mut out = Vec::with_capacity(capacity);
                out.resize(CBOR_HEAD, 0);
                Out::Cbor(super::cbor::Cbor {
                    out,
                    id: String::new(),
                    name: String::new(),
                    start: 0,
                })
            }
            #[cfg(feature = "javabin")]
            UpdateFormat::Javabin => {
                let mut w = super::javabin::Writer::new();
                w.out.reserve(capacity);
                // The frame javabin::encode writes around the documents.
                w.named_list(3);
                w.extern_str("params");
                w.ordered_map(0);
                w.extern_str("delByQ");
                w.null();
                w.extern_str("docs");
                w.iterator();
                Out::Javabin(super::javabin::Javabin { w, start: 0 })
            }
        };
        AddBody {
            out,
            docs: 0,
            last: None,
            sealed: false,
        }
    }

    /// Documents in the body.
    pub(crate) fn docs(&self) -> usize {
        self.docs
    }

    /// The body's size in bytes once finished (its closing bytes included).
    pub(crate) fn len(&self) -> usize {
        match &self.out {
            Out::Json(v) => v.len() + 1,
            Out::Xml(x) => x.out.len() + "</add>".len(),
            #[cfg(feature = "cbor")]
            Out::Cbor(c) => c.out.len() - CBOR_HEAD + cbor_head_len(self.docs as u64),
            #[cfg(feature = "javabin")]
            Out::Javabin(j) => j.w.out.len() + 1,
        }
    }

    /// True when the body takes no more documents (see the module docs).
    pub(crate) fn is_sealed(&self) -> bool {
        self.sealed
    }

    fn raw_len(&self) -> usize {
        match &self.out {
            Out::Json(v) => v.len(),
            Out::Xml(x) => x.out.len(),
            #[cfg(feature = "cbor")]
            Out::Cbor(c) => c.out.len(),
            #[cfg(feature = "javabin")]
            Out::Javabin(j) => j.w.out.len(),
        }
    }

    fn truncate(&mut self, len: usize) {
        match &mut self.out {
            Out::Json(v) => v.truncate(len),
            Out::Xml(x) => x.out.truncate(len),
            #[cfg(feature = "cbor")]
            Out::Cbor(c) => c.out.truncate(len),
            #[cfg(feature = "javabin")]
            Out::Javabin(j) => {
                j.w.out.truncate(len);
                // Field names first sent in the bytes cut off stay in the writer's table.
                self.sealed = true;
            }
        }
    }

    /// Appends one document whose `id` is `id` (as [`ser::doc_id_at`] gives it). On an
    /// error the body is as before (a javabin body is then sealed) and the error names the
    /// document. Pushing into a sealed body is an error.
    pub(crate) fn push<T: Serialize + ?Sized>(&mut self, doc: &T, id: &str) -> Result<()> {
        if self.sealed {
            return Err(Error::invalid_input(
                "this add body is sealed: start a new one",
            ));
        }
        let mark = self.raw_len();
        let r = self.encode(doc, id);
        match r {
            Ok(()) => {
                self.docs += 1;
                self.last = Some(mark);
                Ok(())
            }
            Err(e) => {
                self.truncate(mark);
                Err(e)
            }
        }
    }

    fn encode<T: Serialize + ?Sized>(&mut self, doc: &T, id: &str) -> Result<()> {
        let first = self.docs == 0;
        let doc_error = |e: SerError| ser::doc_error(e, id);
        match &mut self.out {
            Out::Json(out) => {
                if !first {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, doc).map_err(|e| {
                    Error::invalid_input(format!("cannot encode documents as JSON: {e}"))
                })?;
                // The same atomic-operation rule as every format (a walk that writes nothing).
                super::json::check_atomic(id, doc)?;
                Ok(())
            }
            Out::Xml(x) => ser::document(x, id, doc).map_err(doc_error),
            #[cfg(feature = "cbor")]
            Out::Cbor(c) => ser::document(c, id, doc).map_err(doc_error),
            #[cfg(feature = "javabin")]
            Out::Javabin(j) => ser::document(j, id, doc).map_err(doc_error),
        }
    }

    /// Drops the document pushed last, e.g. when it made the body too large; a javabin
    /// body is then sealed. One step back only: false (and nothing changes) when no
    /// document was pushed since the last pop.
    pub(crate) fn pop_last(&mut self) -> bool {
        let Some(mark) = self.last.take() else {
            return false;
        };
        self.truncate(mark);
        self.docs -= 1;
        true
    }

    /// The finished body.
    pub(crate) fn finish(self) -> Bytes {
        match self.out {
            Out::Json(mut v) => {
                v.push(b']');
                Bytes::from(v)
            }
            Out::Xml(mut x) => {
                x.out.push_str("</add>");
                Bytes::from(x.out.into_bytes())
            }
            #[cfg(feature = "cbor")]
            Out::Cbor(c) => {
                let mut h = Vec::with_capacity(CBOR_HEAD);
                super::cbor::head(&mut h, super::cbor::ARRAY, self.docs as u64);
                let from = CBOR_HEAD - h.len();
                let mut out = c.out;
                out[from..CBOR_HEAD].copy_from_slice(&h);
                Bytes::from(out).slice(from..)
            }
            #[cfg(feature = "javabin")]
            Out::Javabin(mut j) => {
                j.w.end();
                Bytes::from(j.w.finish())
            }
        }
    }
}

/// The size of CBOR's head for an array of `n` items.
#[cfg(feature = "cbor")]
fn cbor_head_len(n: u64) -> usize {
    match n {
        0..=23 => 1,
        24..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Serialize)]
    struct Book {
        id: String,
        title: &'static str,
        pages: u32,
        tags: Vec<&'static str>,
    }

    fn books(n: usize) -> Vec<Book> {
        (0..n)
            .map(|i| Book {
                id: format!("b{i}"),
                title: "R&D <notes>",
                pages: i as u32 * 7,
                tags: vec!["a", "b"],
            })
            .collect()
    }

    fn filled<T: Serialize>(format: UpdateFormat, docs: &[T]) -> AddBody {
        let mut body = AddBody::new(format, 0);
        for (i, d) in docs.iter().enumerate() {
            let id = ser::doc_id_at(d, i, "id").expect("id");
            body.push(d, &id).expect("pushed");
        }
        body
    }

    #[test]
    fn the_finished_body_is_what_encode_docs_writes_and_len_is_its_size() {
        for format in UpdateFormat::ALL {
            for n in [0, 1, 3, 30] {
                let docs = books(n);
                let body = filled(format, &docs);
                assert_eq!(body.docs(), n);
                let len = body.len();
                let bytes = body.finish();
                let want = format.encode_docs(&docs).expect("encodes");
                assert_eq!(bytes, want, "{format} x {n}");
                assert_eq!(len, want.len(), "{format} x {n}: len before finish");
            }
        }
    }

    #[test]
    fn a_refused_document_leaves_the_body_as_it_was() {
        // Atomic `set` beside `inc` on one field is refused in every format; XML also refuses
        // a control character.
        let good = json!({"id": "g1", "n_i": 1});
        let good2 = json!({"id": "g2", "n_i": 2});
        let bad = json!({"id": "x", "n_i": {"set": 1, "inc": 2}});
        for format in UpdateFormat::ALL {
            let mut body = filled(format, &[&good]);
            let e = body.push(&bad, "x").expect_err("refused");
            assert!(e.to_string().contains("\"x\""), "{format}: {e}");
            assert_eq!(body.docs(), 1);
            if body.is_sealed() {
                // javabin: finished as it is, then the next document starts a new body.
                assert_eq!(
                    body.finish(),
                    format.encode_docs(&[&good]).expect("encodes")
                );
                continue;
            }
            body.push(&good2, "g2").expect("pushed");
            assert_eq!(
                body.finish(),
                format.encode_docs(&[&good, &good2]).expect("encodes"),
                "{format}"
            );
        }
        let mut body = filled(UpdateFormat::Xml, &[&good]);
        let e = body
            .push(&json!({"id": "c", "t": "bell\u{7}"}), "c")
            .expect_err("XML cannot carry U+0007");
        assert!(e.to_string().contains("U+0007"), "{e}");
        assert_eq!(
            body.finish(),
            UpdateFormat::Xml.encode_docs(&[&good]).expect("encodes")
        );
    }

    #[test]
    fn pop_last_drops_the_last_document() {
        let docs = books(4);
        for format in UpdateFormat::ALL {
            let mut body = filled(format, &docs);
            assert!(body.pop_last());
            assert!(!body.pop_last(), "one step back only");
            assert_eq!(body.docs(), 3);
            let sealed = body.is_sealed();
            let len = body.len();
            let bytes = body.finish();
            assert_eq!(bytes, format.encode_docs(&docs[..3]).expect("encodes"));
            assert_eq!(len, bytes.len());
            assert_eq!(sealed, format.as_str() == "javabin", "{format}");
        }
    }

    #[test]
    fn a_sealed_body_refuses_more() {
        #[cfg(feature = "javabin")]
        {
            let docs = books(2);
            let mut body = filled(UpdateFormat::Javabin, &docs);
            assert!(body.pop_last());
            assert!(body.push(&docs[1], "b1").is_err());
        }
    }
}
