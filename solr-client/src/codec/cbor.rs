//! CBOR update bodies: a CBOR array of maps, read by Solr 9's `CborLoader`.

use bytes::Bytes;

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
                        .all(|k| super::values::ATOMIC_OPS.contains(&k.as_str()))
                {
                    return Err(Error::InvalidInput(format!(
                        "document {:?}, field {name:?}: Solr's CBOR loader cannot apply atomic \
                         updates (it reads the object as a child document); send them as \
                         JSON, XML or javabin",
                        super::doc_id(d)
                    )));
                }
            }
        }
    }
    let mut out = Vec::with_capacity(docs.len() * 64);
    ciborium::ser::into_writer(docs, &mut out)
        .map_err(|e| Error::InvalidInput(format!("cannot encode documents as CBOR: {e}")))?;
    Ok(Bytes::from(out))
}
