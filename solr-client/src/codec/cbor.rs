//! CBOR update bodies: a CBOR array of maps, read by Solr 9's `CborLoader`.

use bytes::Bytes;

use crate::error::{Error, Result};
use crate::types::Document;

/// Encodes an add of `docs` as a CBOR array.
pub(crate) fn encode_add(docs: &[Document]) -> Result<Bytes> {
    let mut out = Vec::with_capacity(docs.len() * 64);
    ciborium::ser::into_writer(docs, &mut out)
        .map_err(|e| Error::InvalidInput(format!("cannot encode documents as CBOR: {e}")))?;
    Ok(Bytes::from(out))
}
