//! The four formats this crate speaks, one folder each (`json/`, `xml/`, `cbor/`, `javabin/`,
//! with `encode.rs` for update bodies and `decode.rs` for responses): the same documents as
//! JSON, XML, CBOR or javabin ([`UpdateFormat`]; Solr 9's `/update` reads all four by
//! Content-Type); responses of `wt=json`, `xml`, `javabin` and `cbor` ([`ResponseFormat`])
//! read through one entry, [`decode()`] (status, encoding and content-type checks, then the
//! body into the caller's type); and the `responseHeader` alone from the start of a javabin
//! or CBOR body (`response_head`, with the `cbor` or `javabin` feature). Shared: the serde
//! front end of the encoders (`ser/`), atomic-update rules (`atomic.rs`), the add body the
//! indexer grows (`add_body.rs`).

pub(crate) mod add_body;
pub(crate) mod atomic;
#[cfg(feature = "cbor")]
#[cfg_attr(docsrs, doc(cfg(feature = "cbor")))]
pub mod cbor;
mod decode;
#[cfg(feature = "javabin")]
#[cfg_attr(docsrs, doc(cfg(feature = "javabin")))]
pub mod javabin;
mod json;
mod response_format;
#[cfg(any(feature = "javabin", feature = "cbor"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "javabin", feature = "cbor"))))]
pub mod response_head;
mod ser;
mod values;
pub mod xml;

pub use response_format::ResponseFormat;

use bytes::Bytes;

use crate::error::Result;
use crate::types::Document;

pub use decode::decode;
pub(crate) use decode::{decode_reply, reject_encoding, Reply};

/// The body format of an update request.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum UpdateFormat {
    /// `application/json`: an array of documents. The default: smallest text format.
    #[default]
    Json,
    /// `application/xml`: `<add><doc><field name=..>..</field></doc></add>`, what Sunspot
    /// and RSolr send. Characters XML 1.0 cannot carry are rejected, never sent.
    Xml,
    /// `application/cbor`: a CBOR array of documents (binary; floats stay binary).
    /// Needs the `cbor` feature.
    #[cfg(feature = "cbor")]
    #[cfg_attr(docsrs, doc(cfg(feature = "cbor")))]
    Cbor,
    /// `application/javabin`: SolrJ's native format, SolrInputDocuments in the update
    /// request `JavaBinUpdateRequestCodec` sends (see [`javabin`]). Needs the `javabin`
    /// feature.
    #[cfg(feature = "javabin")]
    #[cfg_attr(docsrs, doc(cfg(feature = "javabin")))]
    Javabin,
}

impl UpdateFormat {
    /// All formats this build has (JSON and XML always; CBOR and javabin with their
    /// features), in report order.
    pub const ALL: [UpdateFormat; 2 + CBOR + JAVABIN] = [
        UpdateFormat::Json,
        UpdateFormat::Xml,
        #[cfg(feature = "cbor")]
        UpdateFormat::Cbor,
        #[cfg(feature = "javabin")]
        UpdateFormat::Javabin,
    ];

    /// The Content-Type header for this format.
    pub fn content_type(&self) -> &'static str {
        match self {
            UpdateFormat::Json => "application/json",
            UpdateFormat::Xml => "application/xml; charset=UTF-8",
            #[cfg(feature = "cbor")]
            UpdateFormat::Cbor => "application/cbor",
            #[cfg(feature = "javabin")]
            UpdateFormat::Javabin => "application/javabin",
        }
    }

    /// Short name (`json`, `xml`, `cbor`, `javabin`).
    pub fn as_str(&self) -> &'static str {
        match self {
            UpdateFormat::Json => "json",
            UpdateFormat::Xml => "xml",
            #[cfg(feature = "cbor")]
            UpdateFormat::Cbor => "cbor",
            #[cfg(feature = "javabin")]
            UpdateFormat::Javabin => "javabin",
        }
    }

    /// Encodes an add of `docs`.
    pub fn encode_add(&self, docs: &[Document]) -> Result<Bytes> {
        atomic::check(*self, docs)?;
        match self {
            UpdateFormat::Json => json::encode_add(docs),
            UpdateFormat::Xml => xml::encode_add(docs),
            #[cfg(feature = "cbor")]
            UpdateFormat::Cbor => cbor::encode_add(docs),
            #[cfg(feature = "javabin")]
            UpdateFormat::Javabin => javabin::encode_add(docs),
        }
    }

    /// Encodes an add of `docs` straight from their `Serialize` form, with no
    /// `serde_json::Value` per document (what [`crate::SolrClient::add`] sends). Each
    /// document must serialize as a map or a struct; its fields keep their order. For
    /// map documents the bytes are those of [`Self::encode_add`]; see the module
    /// `codec::ser` notes for the rare shapes (objects, `f32`). A document without an `id`
    /// ([`DEFAULT_UNIQUE_KEY`]) or with NaN or an infinity in a field is refused
    /// ([`crate::Error::InvalidDocument`]).
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
        let ids = ser::doc_ids(docs, DEFAULT_UNIQUE_KEY)?;
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
            UpdateFormat::Json => json::encode(docs, ids),
            UpdateFormat::Xml => xml::encode(docs, ids),
            #[cfg(feature = "cbor")]
            UpdateFormat::Cbor => cbor::encode(docs, ids),
            #[cfg(feature = "javabin")]
            UpdateFormat::Javabin => javabin::encode(docs, ids),
        }?;
        Ok(Bytes::from(out))
    }
}

/// The uniqueKey (`key`) of each document as text, checking the other fields' floats; an
/// error naming the document when it is not a map or a struct, lacks the uniqueKey or holds
/// NaN or an infinity.
pub(crate) fn doc_ids<T: serde::Serialize>(docs: &[T], key: &str) -> Result<Vec<String>> {
    ser::doc_ids(docs, key)
}

/// The uniqueKey of one document as [`doc_ids`] gives it; errors name the document `#index`.
pub(crate) fn doc_id_at<T: serde::Serialize + ?Sized>(
    doc: &T,
    index: usize,
    key: &str,
) -> Result<String> {
    ser::doc_id_at(doc, index, key)
}

/// The uniqueKey field of Solr's default configsets, and the client's default
/// ([`crate::SolrClientBuilder::unique_key`]).
pub const DEFAULT_UNIQUE_KEY: &str = "id";

impl std::fmt::Display for UpdateFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for UpdateFormat {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self> {
        if let Some(f) = UpdateFormat::ALL.into_iter().find(|f| f.as_str() == s) {
            return Ok(f);
        }
        Err(crate::Error::Config(match crate::features::missing(s) {
            Some(feature) => format!(
                "update format {s:?} needs solr-client's `{feature}` feature, which this \
                 build does not have"
            )
            .into(),
            None => {
                format!("unknown update format {s:?}; expected json, xml, cbor or javabin").into()
            }
        }))
    }
}

/// 1 when the `cbor` feature is on, else 0 (the length of the `ALL` arrays).
pub(crate) const CBOR: usize = cfg!(feature = "cbor") as usize;
/// 1 when the `javabin` feature is on, else 0.
pub(crate) const JAVABIN: usize = cfg!(feature = "javabin") as usize;

/// The `id` of a document as text (string or number), for failure reports.
pub fn doc_id(doc: &Document) -> String {
    match doc.get("id") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::from("<no id>"),
    }
}
