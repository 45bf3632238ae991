//! Metrics (`sum(f)`, `count(*)`, ...) for `facet`, `stats` and `rollup`, and the bucket
//! sorts of `facet`, which sort on a metric.

use std::fmt;

use super::sort::Order;
use super::text::check_name;
use crate::error::Result;

/// An aggregate Solr computes per bucket (or over the whole result for `stats`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Metric {
    /// `sum(field)`.
    Sum(String),
    /// `min(field)`.
    Min(String),
    /// `max(field)`.
    Max(String),
    /// `avg(field)`.
    Avg(String),
    /// `count(*)`: the number of documents.
    Count,
}

impl Metric {
    /// `sum(field)`.
    pub fn sum(field: impl Into<String>) -> Self {
        Metric::Sum(field.into())
    }
    /// `min(field)`.
    pub fn min(field: impl Into<String>) -> Self {
        Metric::Min(field.into())
    }
    /// `max(field)`.
    pub fn max(field: impl Into<String>) -> Self {
        Metric::Max(field.into())
    }
    /// `avg(field)`.
    pub fn avg(field: impl Into<String>) -> Self {
        Metric::Avg(field.into())
    }
    /// `count(*)`.
    pub fn count() -> Self {
        Metric::Count
    }

    fn parts(&self) -> (&'static str, &str) {
        match self {
            Metric::Sum(f) => ("sum", f),
            Metric::Min(f) => ("min", f),
            Metric::Max(f) => ("max", f),
            Metric::Avg(f) => ("avg", f),
            Metric::Count => ("count", "*"),
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        match self {
            Metric::Count => Ok(()),
            m => check_name("metric field", m.parts().1),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, field) = self.parts();
        write!(f, "{name}({field})")
    }
}

/// A `facet` bucket sort: a metric and an order, written `sum(a_i) desc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketSort {
    metric: Metric,
    order: Order,
}

impl BucketSort {
    /// Buckets by `metric`, smallest first.
    pub fn asc(metric: Metric) -> Self {
        BucketSort {
            metric,
            order: Order::Asc,
        }
    }

    /// Buckets by `metric`, largest first.
    pub fn desc(metric: Metric) -> Self {
        BucketSort {
            metric,
            order: Order::Desc,
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        self.metric.check()
    }
}

impl fmt::Display for BucketSort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.metric, self.order)
    }
}
