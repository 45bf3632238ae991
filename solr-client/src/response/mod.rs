//! Solr's side of a response: the `responseHeader`, the `error` body, and the typed bodies
//! of select, update and ping. Responses are parsed as JSON, never evaluated.
//!
//! A [`SelectResponse<T>`] decodes the hits straight into the caller's `T` (the untyped
//! [`Document`] by default) and every query component's section into its own type:
//!
//! | Solr section | component (Solr reference name) | type |
//! |---|---|---|
//! | `response` | the query (absent when grouped) | [`DocList<T>`] |
//! | `facet_counts` | Faceting (classic) | [`FacetCounts`] |
//! | `facets` | JSON Facet API | [`FacetNode`] |
//! | `highlighting` | Highlighting | [`Highlighting`] |
//! | `grouped` | Result Grouping | [`GroupResult<T>`] |
//! | `expanded` | Collapse and Expand Results | [`DocList<T>`] per group |
//! | `stats` | Stats Component | [`Stats`] |
//! | `spellcheck` | Spell Checking | [`Spellcheck`] |
//! | `suggest` | Suggester | [`SuggestSection`] |
//! | `moreLikeThis` | MoreLikeThis | [`DocList<T>`] per document |
//! | `terms` | Terms Component | [`TermsSection`] |
//!
//! Every other section (`debug`, `facet_heatmaps`...) stays in [`SelectResponse::extra`].
//! Solr's NamedLists are read from both of their JSON shapes ([`NamedList`]).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(test)]
mod decode_tests;
mod facet;
mod group;
mod json_facet;
mod named_list;
mod spellcheck;
mod stats;
mod suggest;
#[cfg(test)]
mod tests;
mod value;
mod wire;

pub use crate::types::{Document, ResponseHeader, SolrErrorBody, TolerantError};
pub use facet::{FacetCounts, PivotEntry, RangeFacet};
pub use group::{Group, GroupResult};
pub use json_facet::{BucketList, FacetNode, FacetResult};
pub use named_list::NamedList;
pub use spellcheck::{SpellSuggestion, SpellWord, Spellcheck};
pub use stats::{FieldStats, Stats};
pub use suggest::{SuggestResult, SuggestSection, Suggestion};
pub use value::{SolrDate, SolrValue};

use crate::error::{Error, Result};
use crate::snippet::snippet;
use crate::timing::Timing;
pub(crate) use wire::{decode, decode_as};

/// `highlighting`: per document id, per field, the snippets.
pub type Highlighting = NamedList<NamedList<Vec<String>>>;

/// `terms` (the Terms Component, `/terms`): per field, the (term, document frequency)
/// pairs.
pub type TermsSection = NamedList<NamedList<u64>>;

/// A list of documents with its counts: the `response` of a select, a group's or an
/// expanded group's `doclist`, a MoreLikeThis list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>", serialize = "T: Serialize"))]
pub struct DocList<T = Document> {
    /// Total hits.
    #[serde(rename = "numFound")]
    pub num_found: u64,
    /// Offset of the first doc.
    #[serde(default)]
    pub start: u64,
    /// Highest score, when requested.
    #[serde(rename = "maxScore", default, skip_serializing_if = "Option::is_none")]
    pub max_score: Option<f64>,
    /// `numFoundExact`: false when Solr counted only a lower bound (`minExactCount`).
    #[serde(
        rename = "numFoundExact",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub num_found_exact: Option<bool>,
    /// The documents.
    #[serde(default = "Vec::new")]
    pub docs: Vec<T>,
}

/// A decoded select response, its hits decoded into `T` (the untyped [`Document`] by
/// default; see [`crate::SolrClient::select_as`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>", serialize = "T: Serialize"))]
#[non_exhaustive]
pub struct SelectResponse<T = Document> {
    /// Solr's header (QTime); empty, QTime `None`, when Solr omitted it (`omitHeader=true`).
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The hits; `None` when Solr sent none (a grouped answer without `group.main`, a
    /// `/terms` or `/suggest` answer).
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub response: Option<DocList<T>>,
    /// The cursor to continue from, when `cursorMark` was sent.
    #[serde(
        rename = "nextCursorMark",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_cursor_mark: Option<String>,
    /// Classic facets (`facet=true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facet_counts: Option<FacetCounts>,
    /// JSON Facet API results (`json.facet`): the root node of the bucket tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facets: Option<FacetNode>,
    /// Highlighting (`hl=true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub highlighting: Option<Highlighting>,
    /// Result grouping (`group=true`, without `group.main`), by field or query.
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub grouped: Option<NamedList<GroupResult<T>>>,
    /// Expanded groups (`expand=true` after a collapse), by collapse value.
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub expanded: Option<NamedList<DocList<T>>>,
    /// The stats component (`stats=true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<Stats>,
    /// Spell checking (`spellcheck=true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spellcheck: Option<Spellcheck>,
    /// Suggester (`/suggest`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggest: Option<SuggestSection>,
    /// MoreLikeThis (`mlt=true`): per result document id, its similar documents.
    #[serde(
        rename = "moreLikeThis",
        default = "Option::default",
        skip_serializing_if = "Option::is_none"
    )]
    pub more_like_this: Option<NamedList<DocList<T>>>,
    /// The Terms Component (`/terms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms: Option<TermsSection>,
    /// Every section not modelled above (`debug`, ...), as Solr sent it: never dropped.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Client-side timing of this request.
    #[serde(skip)]
    pub timing: Timing,
}

impl<T> SelectResponse<T> {
    /// `response.numFound`; 0 when Solr sent no `response` section.
    pub fn num_found(&self) -> u64 {
        self.response.as_ref().map_or(0, |r| r.num_found)
    }

    /// The hits (empty when Solr sent no `response` section).
    pub fn docs(&self) -> &[T] {
        self.response.as_ref().map_or(&[], |r| r.docs.as_slice())
    }

    /// The hits, owned.
    pub fn into_docs(self) -> Vec<T> {
        self.response.map(|r| r.docs).unwrap_or_default()
    }
}

impl SelectResponse<Document> {
    /// The documents decoded into `T` (a copy; [`crate::SolrClient::select_as`] decodes
    /// straight from the bytes instead).
    pub fn docs_as<T: DeserializeOwned>(&self) -> Result<Vec<T>> {
        self.docs()
            .iter()
            .map(|d| {
                serde_json::from_value(Value::Object(d.clone())).map_err(|e| Error::Decode {
                    node: self.timing.node.clone().into(),
                    what: "document",
                    message: e.to_string().into(),
                    snippet: snippet(Value::Object(d.clone()).to_string().as_bytes(), 200).into(),
                })
            })
            .collect()
    }
}

/// A decoded update (add, delete, commit) response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UpdateResponse {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Documents in the request (0 for commit and deletes).
    #[serde(skip)]
    pub docs_sent: usize,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

/// A decoded ping response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PingResponse {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// `OK` when healthy.
    #[serde(default)]
    pub status: String,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}
