//! [`ResponseFormat`]: which `wt` the client asks Solr for, and the decoder it reads the
//! answer with.

use serde_json::Value;

/// The response format (`wt`) of searches and real-time gets. Every format is decoded into
/// the same [`serde_json::Value`] shape `wt=json` gives, so QTime, documents and typed
/// decoding work whichever is chosen; see each decoder for the documented differences.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ResponseFormat {
    /// `wt=json`, decoded straight into the response type. The default.
    #[default]
    Json,
    /// `wt=xml`: Solr's `<response><lst name="responseHeader">...` format
    /// ([`super::xml`]).
    Xml,
    /// `wt=javabin`: SolrJ's native binary format ([`super::javabin`]). Needs the `javabin`
    /// feature.
    #[cfg(feature = "javabin")]
    #[cfg_attr(docsrs, doc(cfg(feature = "javabin")))]
    Javabin,
    /// `wt=cbor`: Solr's CBOR writer ([`super::cbor`]). Needs the `cbor` feature.
    #[cfg(feature = "cbor")]
    #[cfg_attr(docsrs, doc(cfg(feature = "cbor")))]
    Cbor,
}

impl ResponseFormat {
    /// All formats this build has (JSON and XML always; javabin and CBOR with their
    /// features), in report order.
    pub const ALL: [ResponseFormat; 2 + super::JAVABIN + super::CBOR] = [
        ResponseFormat::Json,
        ResponseFormat::Xml,
        #[cfg(feature = "javabin")]
        ResponseFormat::Javabin,
        #[cfg(feature = "cbor")]
        ResponseFormat::Cbor,
    ];

    /// The `wt` parameter value (also the short name).
    pub fn as_str(&self) -> &'static str {
        match self {
            ResponseFormat::Json => "json",
            ResponseFormat::Xml => "xml",
            #[cfg(feature = "javabin")]
            ResponseFormat::Javabin => "javabin",
            #[cfg(feature = "cbor")]
            ResponseFormat::Cbor => "cbor",
        }
    }

    /// True when a response Content-Type can carry this format. Solr 9 labels javabin and
    /// CBOR answers `application/octet-stream`.
    pub fn accepts_content_type(&self, content_type: &str) -> bool {
        // ASCII case-insensitive, without a lower-cased copy per response.
        let ct = content_type.as_bytes();
        let contains = |needle: &str| {
            ct.windows(needle.len())
                .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
        };
        let starts_with = |prefix: &str| {
            ct.get(..prefix.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(prefix.as_bytes()))
        };
        match self {
            ResponseFormat::Json => contains("json") || starts_with("text/plain"),
            ResponseFormat::Xml => contains("xml"),
            #[cfg(feature = "javabin")]
            ResponseFormat::Javabin => {
                starts_with("application/octet-stream") || contains("javabin")
            }
            #[cfg(feature = "cbor")]
            ResponseFormat::Cbor => starts_with("application/octet-stream") || contains("cbor"),
        }
    }

    /// Decodes a whole body of this format into the value `wt=json` gives. Never panics.
    ///
    /// ```
    /// use solr_client::codec::ResponseFormat;
    /// let v = ResponseFormat::Xml
    ///     .decode_value(br#"<response><lst name="responseHeader"><int name="QTime">2</int></lst></response>"#)
    ///     .unwrap();
    /// assert_eq!(v["responseHeader"]["QTime"], 2);
    /// assert!(ResponseFormat::Json.decode_value(b"<html>").is_err());
    /// ```
    pub fn decode_value(&self, body: &[u8]) -> Result<Value, String> {
        match self {
            ResponseFormat::Json => serde_json::from_slice(body).map_err(|e| e.to_string()),
            ResponseFormat::Xml => super::xml::decode(body),
            #[cfg(feature = "javabin")]
            ResponseFormat::Javabin => super::javabin::decode(body).map_err(|e| e.to_string()),
            #[cfg(feature = "cbor")]
            ResponseFormat::Cbor => super::cbor::decode(body),
        }
    }
}

impl std::fmt::Display for ResponseFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::str::FromStr for ResponseFormat {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        if let Some(f) = ResponseFormat::ALL.into_iter().find(|f| f.as_str() == s) {
            return Ok(f);
        }
        Err(crate::Error::Config(match crate::features::missing(s) {
            Some(feature) => format!(
                "response format {s:?} needs solr-client's `{feature}` feature, which this \
                 build does not have"
            )
            .into(),
            None => {
                format!("unknown response format {s:?}; expected json, xml, javabin or cbor").into()
            }
        }))
    }
}
