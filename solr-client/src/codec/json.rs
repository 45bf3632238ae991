//! JSON update bodies: `[{doc}, {doc}, ...]`.

use bytes::Bytes;

use crate::error::{Error, Result};
use crate::types::Document;

/// Encodes an add of `docs` as a JSON array.
pub(crate) fn encode_add(docs: &[Document]) -> Result<Bytes> {
    serde_json::to_vec(docs)
        .map(Bytes::from)
        .map_err(|e| Error::InvalidInput(format!("cannot encode documents as JSON: {e}")))
}
