//! The stats component (Solr reference: "Stats Component"): min, max, sum, count,
//! missing, mean, stddev... of a field, read back from [`crate::response::Stats`].

use super::Select;

/// One `stats.field`, added with [`Select::stats`].
///
/// ```
/// use solr_client::{request::StatsField, Select};
/// let s = Select::new("*:*").stats(StatsField::new("price").only(&["min", "max"]));
/// assert!(s.params().contains(&("stats.field".into(), "{!min=true max=true}price".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct StatsField {
    field: String,
    local: Vec<String>,
    facets: Vec<String>,
}

impl StatsField {
    /// Every standard statistic of `field` (a field name or a function).
    pub fn new(field: impl Into<String>) -> Self {
        StatsField {
            field: field.into(),
            local: Vec::new(),
            facets: Vec::new(),
        }
    }

    /// Only the statistics named (`min`, `max`, `sum`, `count`, `missing`, `mean`,
    /// `stddev`, `sumOfSquares`, `countDistinct`, `cardinality`...). Default: the standard
    /// set.
    pub fn only<S: AsRef<str>>(mut self, stats: &[S]) -> Self {
        for s in stats {
            self.local.push(format!("{}=true", s.as_ref()));
        }
        self
    }

    /// `percentiles`: e.g. `"50,90,99"`.
    pub fn percentiles(mut self, list: &str) -> Self {
        self.local.push(format!("percentiles='{list}'"));
        self
    }

    /// The name the result is listed under (`key`).
    pub fn key(mut self, key: &str) -> Self {
        self.local.push(format!("key={key}"));
        self
    }

    /// Leaves the filter queries tagged `tag` out (`ex`).
    pub fn exclude(mut self, tag: &str) -> Self {
        self.local.push(format!("ex={tag}"));
        self
    }

    /// `stats.facet`: the statistics per value of `field` too (Solr's older, deprecated
    /// form; a JSON facet with stats is the modern one). Repeatable.
    pub fn facet(mut self, field: impl Into<String>) -> Self {
        self.facets.push(field.into());
        self
    }

    /// The parameters (without `stats=true`).
    pub fn params(&self) -> Vec<(String, String)> {
        let field = if self.local.is_empty() {
            self.field.clone()
        } else {
            format!("{{!{}}}{}", self.local.join(" "), self.field)
        };
        let mut p = vec![("stats.field".to_string(), field)];
        for f in &self.facets {
            p.push((format!("f.{}.stats.facet", self.field), f.clone()));
        }
        p
    }
}

impl Select {
    /// Adds a stats field (`stats=true`); repeatable. The statistics come back in
    /// [`crate::SelectResponse::stats`].
    pub fn stats(mut self, s: StatsField) -> Self {
        self.enable("stats");
        for (k, v) in s.params() {
            self.push(k, v);
        }
        self
    }
}
