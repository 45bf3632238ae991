//! The `responseHeader` (`status`, `QTime`) of a `wt=javabin` or `wt=cbor` response, read
//! with this crate's decoders ([`javabin`](super::javabin), [`cbor`](super::cbor)) from the start
//! of the body: the response's top-level entries are read one by one and reading stops at
//! `responseHeader`, which Solr writes first. So a body cut short after its header (a packet
//! capture that kept only the first bytes of a large response) still gives it, and the
//! documents after it are never decoded. What `solr-watch` reads from SolrJ's traffic.
//!
//! ```
//! use solr_client::codec::{javabin::Writer, response_head};
//! let mut w = Writer::new();
//! w.named_list(2);
//! w.extern_str("responseHeader");
//! w.ordered_map(2);
//! w.extern_str("status");
//! w.int(0);
//! w.extern_str("QTime");
//! w.int(7);
//! w.extern_str("response");
//! w.str("the documents would follow");
//! let body = w.finish();
//! // Cut inside the documents: the header is still whole.
//! let head = response_head::javabin(&body[..body.len() - 10]).unwrap().expect("a header");
//! assert_eq!((head.status, head.qtime), (0, Some(7)));
//! ```

use serde_json::{Map, Value};

use crate::types::ResponseHeader;

/// The name of the header entry.
const HEADER: &str = "responseHeader";

/// The `responseHeader` of a javabin response body (version byte included), read from its
/// start: `Ok(None)` when the response has none (`omitHeader=true`); an error when the body
/// is not a javabin response or ends before its header does.
#[cfg(feature = "javabin")]
#[cfg_attr(docsrs, doc(cfg(feature = "javabin")))]
pub fn javabin(body: &[u8]) -> Result<Option<ResponseHeader>, super::javabin::JavabinError> {
    let Some((v, at)) = javabin_entry(body, HEADER)? else {
        return Ok(None);
    };
    header(v)
        .map(Some)
        .map_err(|message| super::javabin::JavabinError {
            offset: at,
            message,
        })
}

/// The `responseHeader` of a CBOR response body (Solr's `wt=cbor`), read from its start:
/// `Ok(None)` when the response has none (`omitHeader=true`); an error when the body is not
/// a CBOR map or ends before its header does.
#[cfg(feature = "cbor")]
#[cfg_attr(docsrs, doc(cfg(feature = "cbor")))]
pub fn cbor(body: &[u8]) -> Result<Option<ResponseHeader>, String> {
    match cbor_entry(body, HEADER)? {
        Some(v) => header(v).map(Some),
        None => Ok(None),
    }
}

/// The header from its decoded value: an object, or a NamedList's flat `[name, value, ...]`.
fn header(v: Value) -> Result<ResponseHeader, String> {
    let v = match v {
        Value::Array(flat) => {
            let mut m = Map::new();
            let mut it = flat.into_iter();
            while let (Some(k), Some(v)) = (it.next(), it.next()) {
                m.insert(k.as_str().unwrap_or_default().to_string(), v);
            }
            Value::Object(m)
        }
        v => v,
    };
    serde_json::from_value(v).map_err(|e| format!("{HEADER} is not a response header: {e}"))
}

/// The value of the top-level entry `name` of a javabin response and the offset where it
/// starts; None when no entry has that name.
#[cfg(feature = "javabin")]
fn javabin_entry(
    body: &[u8],
    name: &str,
) -> Result<Option<(Value, usize)>, super::javabin::JavabinError> {
    use super::javabin::{key_text, tag, Reader};
    let mut r = Reader::open(body)?;
    let t = r.u8()?;
    let n = match t >> 5 {
        5 | 6 => r.tag_size(t, 2)?,
        0 if t == tag::MAP => {
            let n = r.vint()?;
            r.bounded(n, 2)?
        }
        _ => return Err(r.err(format!("a response opens with a map, not with tag {t}"))),
    };
    for _ in 0..n {
        let at = r.pos;
        let k = key_text(r.plain()?, at)?;
        let at = r.pos;
        let v = r.plain()?;
        if k == name {
            return Ok(Some((v, at)));
        }
    }
    Ok(None)
}

/// The value of the top-level entry `name` of a CBOR response (after any tags, a string
/// reference namespace included); None when no entry has that name.
#[cfg(feature = "cbor")]
fn cbor_entry(body: &[u8], name: &str) -> Result<Option<Value>, String> {
    use super::cbor::{Reader, STRINGREF_NAMESPACE};
    let mut r = Reader::new(body);
    let info = loop {
        let b = r.take(1)?[0];
        match (b >> 5, b & 0x1f) {
            (5, info) => break info,
            (6, info) => {
                if r.uint(info)? == STRINGREF_NAMESPACE {
                    r.tables.push(Vec::new());
                }
            }
            _ => return Err(r.err("a response is a map")),
        }
    };
    let n = if info == 31 {
        None
    } else {
        Some(r.count(info)?)
    };
    let mut i = 0;
    while n != Some(i) {
        let Some(k) = r.map_key(n.is_none())? else {
            break;
        };
        let v = r.value()?;
        if k == name {
            return Ok(Some(v));
        }
        i += 1;
    }
    Ok(None)
}

#[cfg(all(test, feature = "javabin", feature = "cbor"))]
mod tests {
    use super::*;
    use crate::codec::javabin::Writer;
    use ciborium::Value as C;

    /// A javabin response as Solr writes it: a NamedList whose first entry is the header
    /// (an ordered map, or a NamedList when `named` is set), then `pad` bytes of documents.
    fn javabin_body(status: i32, qtime: i32, named: bool, pad: usize) -> Vec<u8> {
        let mut w = Writer::new();
        w.named_list(2);
        w.extern_str(HEADER);
        if named {
            w.named_list(2);
        } else {
            w.ordered_map(2);
        }
        w.extern_str("status");
        w.int(status);
        w.extern_str("QTime");
        w.int(qtime);
        w.extern_str("response");
        w.str(&"d".repeat(pad));
        w.finish()
    }

    /// A CBOR response as Solr's writer sends it: a string-reference namespace around a map.
    fn cbor_body(qtime: u64, pad: usize) -> Vec<u8> {
        let head = C::Map(vec![
            (C::Text("status".into()), C::Integer(0.into())),
            (C::Text("QTime".into()), C::Integer(qtime.into())),
        ]);
        let top = C::Map(vec![
            (C::Text(HEADER.into()), head),
            (C::Text("response".into()), C::Text("d".repeat(pad))),
        ]);
        let mut body = Vec::new();
        ciborium::ser::into_writer(&C::Tag(256, Box::new(top)), &mut body).expect("encodes");
        body
    }

    #[test]
    fn javabin_header_whole_and_cut_after_it() {
        for named in [false, true] {
            let body = javabin_body(0, 42, named, 500);
            let h = javabin(&body).expect("decodes").expect("header");
            assert_eq!((h.status, h.qtime), (0, Some(42)), "named {named}");
            let cut = javabin(&body[..body.len() - 400]).expect("decodes");
            assert_eq!(cut.and_then(|h| h.qtime), Some(42), "named {named}");
        }
        let h = javabin(&javabin_body(400, 3, false, 0)).expect("decodes");
        assert_eq!(h.map(|h| (h.status, h.qtime)), Some((400, Some(3))));
    }

    #[test]
    fn javabin_without_header_or_broken_is_none_or_an_error() {
        let mut w = Writer::new();
        w.named_list(1);
        w.extern_str("response");
        w.int(1);
        assert_eq!(javabin(&w.finish()), Ok(None));
        let body = javabin_body(0, 42, false, 0);
        // Cut inside the header: an error, never a guess.
        assert!(javabin(&body[..12]).is_err());
        assert!(javabin(b"{\"responseHeader\":{}}").is_err());
        assert!(javabin(&[2, 0x42]).is_err(), "a small int at the top");
        let mut w = Writer::new();
        w.named_list(1);
        w.extern_str(HEADER);
        w.str("not a header");
        let e = javabin(&w.finish()).expect_err("a string header");
        assert!(e.message.contains("not a response header"), "{e}");
    }

    #[test]
    fn cbor_header_whole_and_cut_after_it() {
        let body = cbor_body(17, 500);
        let h = cbor(&body).expect("decodes").expect("header");
        assert_eq!((h.status, h.qtime), (0, Some(17)));
        let cut = cbor(&body[..body.len() - 400]).expect("decodes");
        assert_eq!(cut.and_then(|h| h.qtime), Some(17));
        assert!(cbor(&body[..8]).is_err(), "cut inside the header");
        assert!(cbor(b"").is_err());
        assert!(cbor(&[0x82, 0x01, 0x02]).is_err(), "an array at the top");
        let mut no_head = Vec::new();
        let top = C::Map(vec![(C::Text("response".into()), C::Integer(1.into()))]);
        ciborium::ser::into_writer(&top, &mut no_head).expect("encodes");
        assert_eq!(cbor(&no_head), Ok(None));
    }
}
