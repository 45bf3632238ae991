//! `stats`: the answer of the stats component (`stats=true&stats.field=...`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::{NamedList, SolrValue};

/// Solr's `stats` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Per field (or `key`), its statistics.
    #[serde(default)]
    pub stats_fields: NamedList<FieldStats>,
}

/// The statistics of one `stats.field`. Each is `None` when not requested (local params
/// such as `{!min=true max=true}` select them; all of the standard ones by default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldStats {
    /// Smallest value: a number, or a [`SolrValue::Date`] for date fields;
    /// [`SolrValue::Null`] when no document has a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<SolrValue>,
    /// Largest value (see `min`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<SolrValue>,
    /// Documents with a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Documents without a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<u64>,
    /// Sum of the values.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_f64"
    )]
    pub sum: Option<f64>,
    /// Sum of the squares of the values.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_f64"
    )]
    pub sum_of_squares: Option<f64>,
    /// Mean; `NaN` (Solr's text `"NaN"`) when no document has a value. A date field's mean
    /// (a date text) reads as `None`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_f64"
    )]
    pub mean: Option<f64>,
    /// Standard deviation.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_f64"
    )]
    pub stddev: Option<f64>,
    /// `stats.facet`: per facet field, per value, the statistics of that value's documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facets: Option<NamedList<NamedList<FieldStats>>>,
    /// Every other statistic (`percentiles`, `distinctValues`, `countDistinct`,
    /// `cardinality`), as Solr sent it.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A number, or Solr's text for a non-finite double (`"NaN"`, `"Infinity"`); anything else
/// (a date's mean) reads as `None`.
fn lenient_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    })
}
