//! `facet_counts`: the answer of Solr's classic faceting (`FacetComponent`): facet
//! queries, field facets, range facets, interval facets and pivots.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{NamedList, SolrValue};

/// Solr's `facet_counts` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FacetCounts {
    /// `facet.query` counts, by query (or its `key`).
    #[serde(default)]
    pub facet_queries: NamedList<u64>,
    /// `facet.field` counts: per field (or `key`), the (term, count) pairs in Solr's order;
    /// `facet.missing` adds a null-named count.
    #[serde(default)]
    pub facet_fields: NamedList<NamedList<u64>>,
    /// `facet.range` results, by field (or `key`).
    #[serde(default)]
    pub facet_ranges: NamedList<RangeFacet>,
    /// `facet.interval` counts: per field, the (interval, count) pairs.
    #[serde(default)]
    pub facet_intervals: NamedList<NamedList<u64>>,
    /// `facet.pivot` trees, by the comma-joined field list (or `key`).
    #[serde(default)]
    pub facet_pivot: NamedList<Vec<PivotEntry>>,
    /// Every other part of the section (`facet_heatmaps`...), as Solr sent it.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One `facet.range` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RangeFacet {
    /// (lower bound, count) per gap, in order. The bounds are Solr's text (`"10.0"`,
    /// `"2024-01-01T00:00:00Z"`).
    #[serde(default)]
    pub counts: NamedList<u64>,
    /// `facet.range.gap` as Solr echoes it (a number, or date math text such as `+1DAY`).
    #[serde(default)]
    pub gap: SolrValue,
    /// `facet.range.start` (a number or a date).
    #[serde(default)]
    pub start: SolrValue,
    /// `facet.range.end` (moved up to a whole gap unless `hardend`).
    #[serde(default)]
    pub end: SolrValue,
    /// Documents below `start` (`facet.range.other=before|all`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
    /// Documents at or above `end` (`facet.range.other=after|all`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
    /// Documents between `start` and `end` (`facet.range.other=between|all`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between: Option<u64>,
}

/// One node of a `facet.pivot` tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PivotEntry {
    /// The field of this level.
    pub field: String,
    /// The value (text, number, date, boolean; null for `facet.missing`).
    pub value: SolrValue,
    /// Documents with this value under the parent's.
    pub count: u64,
    /// The next level, when there is one and it has values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pivot: Option<Vec<PivotEntry>>,
    /// Anything else Solr put on the node (stats, queries, ranges).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl FacetCounts {
    /// The (term, count) pairs of the field facet `field` (or its `key`).
    pub fn field(&self, field: &str) -> Option<&NamedList<u64>> {
        self.facet_fields.get(field)
    }

    /// The count of the facet query `query` (or its `key`).
    pub fn query(&self, query: &str) -> Option<u64> {
        self.facet_queries.get(query).copied()
    }
}
