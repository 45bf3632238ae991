//! `spellcheck`: the answer of the spellcheck component (`spellcheck=true`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::NamedList;

/// Solr's `spellcheck` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spellcheck {
    /// Per misspelled query word, its suggestions, in query order.
    #[serde(default)]
    pub suggestions: NamedList<SpellSuggestion>,
    /// `spellcheck.extendedResults=true`: whether the query was spelled correctly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correctly_spelled: Option<bool>,
    /// `spellcheck.collate=true`: the collations (a text each, or an object with
    /// `collationQuery`, `hits` and the corrections under
    /// `spellcheck.collateExtendedResults=true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collations: Option<NamedList<Value>>,
}

/// The suggestions for one query word.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpellSuggestion {
    /// Number of suggestions.
    pub num_found: u64,
    /// Offset of the word in the query.
    pub start_offset: u64,
    /// End offset of the word in the query.
    pub end_offset: u64,
    /// Frequency of the original word (`extendedResults`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orig_freq: Option<u64>,
    /// The suggested words, best first.
    #[serde(default)]
    pub suggestion: Vec<SpellWord>,
}

/// One suggested word: a bare text, or `{word, freq}` with `extendedResults`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "SpellWordRepr")]
pub struct SpellWord {
    /// The word.
    pub word: String,
    /// Its document frequency (`extendedResults` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freq: Option<u64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum SpellWordRepr {
    Plain(String),
    Full { word: String, freq: Option<u64> },
}

impl From<SpellWordRepr> for SpellWord {
    fn from(r: SpellWordRepr) -> Self {
        match r {
            SpellWordRepr::Plain(word) => SpellWord { word, freq: None },
            SpellWordRepr::Full { word, freq } => SpellWord { word, freq },
        }
    }
}
