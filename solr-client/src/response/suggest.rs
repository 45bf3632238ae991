//! `suggest`: the answer of the suggester (`/suggest`, `SuggestComponent`).

use serde::{Deserialize, Serialize};

use super::NamedList;

/// Solr's `suggest` section: per dictionary, per query text, its suggestions.
pub type SuggestSection = NamedList<NamedList<SuggestResult>>;

/// The suggestions of one dictionary for one query text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestResult {
    /// Number of suggestions.
    pub num_found: u64,
    /// The suggestions, best first.
    #[serde(default)]
    pub suggestions: Vec<Suggestion>,
}

/// One suggestion.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The suggested text.
    pub term: String,
    /// Its weight (the dictionary's `weightField`; 0 without one).
    #[serde(default)]
    pub weight: i64,
    /// Its payload (`payloadField`; empty without one).
    #[serde(default)]
    pub payload: String,
}
