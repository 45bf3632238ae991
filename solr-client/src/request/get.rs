//! Real-time get (`/get`): documents by id straight from the update log, committed or not.

use http::Method;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::client::SolrClient;
use crate::error::Result;
use crate::response::{decode_as, Document};
use crate::timing::Timing;
use crate::transport::RequestKind;

/// A real-time get of documents by id (Solr's `RealTimeGetHandler`, `/get?ids=...`).
/// Documents added but not yet committed are returned too.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Get {
    ids: Vec<String>,
    fl: Option<String>,
    extra: Vec<(String, String)>,
}

impl Get {
    /// A get of `ids` (each sent escaped, so ids with commas or backslashes are safe).
    pub fn new<I, S>(ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Get {
            ids: ids.into_iter().map(Into::into).collect(),
            fl: None,
            extra: Vec::new(),
        }
    }

    /// Fields to return. Default: all stored fields.
    pub fn fl(mut self, fl: impl Into<String>) -> Self {
        self.fl = Some(fl.into());
        self
    }

    /// Any other parameter (repeatable), e.g. `fq`.
    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra.push((name.into(), value.into()));
        self
    }

    /// The request parameters (without `wt`).
    pub fn params(&self) -> Vec<(String, String)> {
        let mut p: Vec<(String, String)> = self
            .ids
            .iter()
            // Solr splits `ids` on unescaped commas and removes backslash escapes.
            .map(|id| ("ids".into(), id.replace('\\', "\\\\").replace(',', "\\,")))
            .collect();
        if let Some(fl) = &self.fl {
            p.push(("fl".into(), fl.clone()));
        }
        p.extend(self.extra.iter().cloned());
        p
    }
}

/// The answer to a [`Get`]: the documents found, decoded into `T`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GetResponse<T = Document> {
    /// Documents found (ids not found are absent).
    pub docs: Vec<T>,
    /// Number of documents found.
    pub num_found: u64,
    /// Client-side timing.
    pub timing: Timing,
}

#[derive(Deserialize)]
#[serde(bound = "T: DeserializeOwned")]
struct Raw<T> {
    response: RawList<T>,
}

#[derive(Deserialize)]
#[serde(bound = "T: DeserializeOwned")]
struct RawList<T> {
    #[serde(rename = "numFound")]
    num_found: u64,
    docs: Vec<T>,
}

impl SolrClient {
    /// Real-time get of documents by id, decoded into `T` (in the client's response
    /// format). An empty id list sends nothing.
    pub async fn get<T: DeserializeOwned>(&self, get: &Get) -> Result<GetResponse<T>> {
        if get.ids.is_empty() {
            return Ok(GetResponse {
                docs: Vec::new(),
                num_found: 0,
                timing: Timing::default(),
            });
        }
        let mut params = get.params();
        params.push(("wt".into(), self.response_format.as_str().into()));
        let req = self.wire(Method::GET, "get", params, RequestKind::Read);
        let (raw, timing): (Raw<T>, Timing) = decode_as(
            self.transport.send(req).await?,
            "real-time get response",
            self.response_format,
        )?;
        Ok(GetResponse {
            docs: raw.response.docs,
            num_found: raw.response.num_found,
            timing,
        })
    }
}
