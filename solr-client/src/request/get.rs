//! Real-time get (`/get`): documents by id straight from the update log, committed or not.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::response::Document;
use crate::timing::Timing;

/// A real-time get of documents by id (Solr's `RealTimeGetHandler`, `/get?ids=...`).
/// Documents added but not yet committed are returned too.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Get {
    pub(crate) ids: Vec<String>,
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
pub(crate) struct Raw<T> {
    pub(crate) response: RawList<T>,
}

#[derive(Deserialize)]
#[serde(bound = "T: DeserializeOwned")]
pub(crate) struct RawList<T> {
    #[serde(rename = "numFound")]
    pub(crate) num_found: u64,
    pub(crate) docs: Vec<T>,
}
