//! JSON update bodies: `[{doc}, {doc}, ...]`, from [`Document`]s, and written straight
//! from `T: Serialize` with each document's atomic operations checked.

use bytes::Bytes;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::types::Document;

/// Encodes an add of `docs` as a JSON array.
pub(crate) fn encode_add(docs: &[Document]) -> Result<Bytes> {
    serde_json::to_vec(docs)
        .map(Bytes::from)
        .map_err(|e| Error::invalid_input(format!("cannot encode documents as JSON: {e}")))
}

/// JSON: `[doc, doc, ...]`, each written by `serde_json::to_writer` and its atomic
/// operations checked by [`super::guard::check`] (documents whose ids are `ids`).
pub(crate) fn encode<D: Serialize, S: AsRef<str>>(docs: &[D], ids: &[S]) -> crate::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(docs.len() * 128 + 2);
    out.push(b'[');
    for (i, (d, id)) in docs.iter().zip(ids).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, d)
            .map_err(|e| Error::invalid_input(format!("cannot encode documents as JSON: {e}")))?;
        super::guard::check(id.as_ref(), d)?;
    }
    out.push(b']');
    Ok(out)
}
