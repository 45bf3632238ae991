//! `facet`: metrics per bucket, computed by Solr's JSON Facet API.

use super::func::{Atom, Func};
use super::metric::{BucketSort, Metric};
use crate::error::Result;
use crate::expr::Expr;

/// The `facet` source: `facet(collection, q="...", buckets="...", bucketSorts="...",
/// bucketSizeLimit=n, metric, ...)`.
#[derive(Debug, Clone)]
pub struct Facet(Func);

/// A `facet` of `collection` bucketed by `buckets` (one field, or several for nested
/// buckets).
pub fn facet<S: Into<String>>(
    collection: impl Into<String>,
    buckets: impl IntoIterator<Item = S>,
) -> Facet {
    let names = buckets.into_iter().map(Into::into).collect();
    Facet(
        Func::new("facet")
            .arg(Atom::Name(collection.into()))
            .named("buckets", Atom::Names(names)),
    )
}

impl Facet {
    /// The query, `q`.
    pub fn q(self, query: impl Into<String>) -> Self {
        Facet(self.0.named("q", Atom::Text(query.into())))
    }

    /// The bucket order, `bucketSorts`.
    pub fn bucket_sorts(self, sorts: impl IntoIterator<Item = BucketSort>) -> Self {
        let sorts = sorts.into_iter().collect();
        Facet(self.0.named("bucketSorts", Atom::BucketSorts(sorts)))
    }

    /// How many buckets per level, `bucketSizeLimit`.
    pub fn bucket_size_limit(self, n: u64) -> Self {
        Facet(self.0.named("bucketSizeLimit", Atom::Int(n)))
    }

    /// A metric computed per bucket.
    pub fn metric(self, m: Metric) -> Self {
        Facet(self.0.arg(Atom::Metric(m)))
    }

    /// Checks and writes the expression (see [`Func::build`]).
    pub fn build(self) -> Result<Expr> {
        self.0.build()
    }
}

impl From<Facet> for Func {
    fn from(f: Facet) -> Func {
        f.0
    }
}
