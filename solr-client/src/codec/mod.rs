//! Update encoders: the same documents as JSON, XML, CBOR or javabin, the four update
//! formats this crate speaks (Solr 9's `/update` reads all four by Content-Type); response
//! decoders for `wt=json`, `xml`, `javabin` and `cbor` ([`ResponseFormat`]).

mod cbor;
pub mod cbor_response;
mod de_javabin;
mod decode;
pub mod javabin;
mod json;
mod response_format;
mod ser;
mod ser_cbor;
mod ser_javabin;
mod ser_xml;
#[cfg(test)]
mod speed_tests;
mod xml;
pub mod xml_response;

pub use response_format::ResponseFormat;

use bytes::Bytes;

use crate::error::Result;
use crate::types::Document;

pub(crate) use decode::decode;
pub use decode::decode_response_bytes;

/// The body format of an update request.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum UpdateFormat {
    /// `application/json`: an array of documents. The default: smallest text format.
    #[default]
    Json,
    /// `application/xml`: `<add><doc><field name=..>..</field></doc></add>`, what Sunspot
    /// and RSolr send. Characters XML 1.0 cannot carry are rejected, never sent.
    Xml,
    /// `application/cbor`: a CBOR array of documents (binary; floats stay binary).
    Cbor,
    /// `application/javabin`: SolrJ's native format, SolrInputDocuments in the update
    /// request `JavaBinUpdateRequestCodec` sends (see [`javabin`]).
    Javabin,
}

impl UpdateFormat {
    /// All formats, in report order.
    pub const ALL: [UpdateFormat; 4] = [
        UpdateFormat::Json,
        UpdateFormat::Xml,
        UpdateFormat::Cbor,
        UpdateFormat::Javabin,
    ];

    /// The Content-Type header for this format.
    pub fn content_type(&self) -> &'static str {
        match self {
            UpdateFormat::Json => "application/json",
            UpdateFormat::Xml => "application/xml; charset=UTF-8",
            UpdateFormat::Cbor => "application/cbor",
            UpdateFormat::Javabin => "application/javabin",
        }
    }

    /// Short name (`json`, `xml`, `cbor`, `javabin`).
    pub fn as_str(&self) -> &'static str {
        match self {
            UpdateFormat::Json => "json",
            UpdateFormat::Xml => "xml",
            UpdateFormat::Cbor => "cbor",
            UpdateFormat::Javabin => "javabin",
        }
    }

    /// Encodes an add of `docs`.
    pub fn encode_add(&self, docs: &[Document]) -> Result<Bytes> {
        match self {
            UpdateFormat::Json => json::encode_add(docs),
            UpdateFormat::Xml => xml::encode_add(docs),
            UpdateFormat::Cbor => cbor::encode_add(docs),
            UpdateFormat::Javabin => javabin::encode_add(docs),
        }
    }

    /// Encodes an add of `docs` straight from their `Serialize` form, with no
    /// `serde_json::Value` per document (what [`crate::SolrClient::add`] sends). Each
    /// document must serialize as a map or a struct; its fields keep their order. For
    /// map documents the bytes are those of [`Self::encode_add`]; see the module
    /// `codec::ser` notes for the rare shapes (objects, `f32`).
    ///
    /// ```
    /// use solr_client::UpdateFormat;
    /// #[derive(serde::Serialize)]
    /// struct Book { id: &'static str, title: &'static str }
    /// let body = UpdateFormat::Xml.encode_docs(&[Book { id: "b1", title: "R&D" }]).unwrap();
    /// assert_eq!(
    ///     &body[..],
    ///     &b"<add><doc><field name=\"id\">b1</field><field name=\"title\">R&amp;D</field></doc></add>"[..]
    /// );
    /// ```
    pub fn encode_docs<T: serde::Serialize>(&self, docs: &[T]) -> Result<Bytes> {
        let ids = ser::doc_ids(docs)?;
        self.encode_docs_with_ids(docs, &ids)
    }

    /// [`Self::encode_docs`] with the documents' ids already known ([`doc_ids`]).
    pub(crate) fn encode_docs_with_ids<D: serde::Serialize, S: AsRef<str>>(
        &self,
        docs: &[D],
        ids: &[S],
    ) -> Result<Bytes> {
        debug_assert_eq!(docs.len(), ids.len());
        let out = match self {
            UpdateFormat::Json => ser::encode_json(docs),
            UpdateFormat::Xml => ser_xml::encode(docs, ids),
            UpdateFormat::Cbor => ser_cbor::encode(docs, ids),
            UpdateFormat::Javabin => ser_javabin::encode(docs, ids),
        }?;
        Ok(Bytes::from(out))
    }
}

/// The `id` of each document as text, as [`doc_id`] prints it, serializing only the `id`
/// field; an error when a document is not a map or a struct.
pub(crate) fn doc_ids<T: serde::Serialize>(docs: &[T]) -> Result<Vec<String>> {
    ser::doc_ids(docs)
}

impl std::fmt::Display for UpdateFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for UpdateFormat {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self> {
        UpdateFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                crate::Error::Config(format!(
                    "unknown update format {s:?}; expected json, xml, cbor or javabin"
                ))
            })
    }
}

/// The `id` of a document as text (string or number), for failure reports.
pub fn doc_id(doc: &Document) -> String {
    match doc.get("id") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::from("<no id>"),
    }
}
