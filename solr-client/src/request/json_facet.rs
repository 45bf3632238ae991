//! The JSON Facet API (Solr reference: "JSON Facet API"): terms, range and query facets,
//! stat functions, nested sub-facets and domain changes, sent as one `json.facet`
//! parameter and read back as the bucket tree [`crate::response::FacetNode`].

use serde_json::{json, Map, Value};

use super::Select;

/// One JSON facet: a terms, range or query facet (with sub-facets and stats), or a stat
/// function. Added under a name with [`Select::json_facet`].
///
/// ```
/// use solr_client::{request::JsonFacet, Select};
/// let s = Select::new("*:*").json_facet(
///     "cats",
///     JsonFacet::terms("category")
///         .limit(5)
///         .facet("avg_price", JsonFacet::stat("avg(price)")),
/// );
/// let (_, v) = s.params().into_iter().find(|(k, _)| k == "json.facet").unwrap();
/// assert_eq!(
///     v,
///     r#"{"cats":{"facet":{"avg_price":"avg(price)"},"field":"category","limit":5,"type":"terms"}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct JsonFacet {
    body: Value,
}

/// A domain change of a JSON facet (`domain: {...}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct Domain {
    body: Map<String, Value>,
}

impl Domain {
    /// An unchanged domain.
    pub fn new() -> Self {
        Domain::default()
    }

    /// `excludeTags`: drops the filter queries tagged `tag` (see [`Select::fq_tagged`]).
    /// Repeatable.
    pub fn exclude_tags(mut self, tag: impl Into<String>) -> Self {
        let list = self
            .body
            .entry("excludeTags")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(a) = list {
            a.push(Value::String(tag.into()));
        }
        self
    }

    /// `filter`: narrows the domain by a query. Repeatable. Solr applies the filters last,
    /// after `query`, `excludeTags` and the block joins ([`Self::block_parent`],
    /// [`Self::block_children`]), whatever the order of the calls: after a join to the
    /// children, a filter on a parent's field matches nothing.
    pub fn filter(mut self, q: impl Into<String>) -> Self {
        let list = self
            .body
            .entry("filter")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(a) = list {
            a.push(Value::String(q.into()));
        }
        self
    }

    /// `query`: replaces the domain by the documents matching `q`.
    pub fn query(mut self, q: impl Into<String>) -> Self {
        self.body.insert("query".into(), Value::String(q.into()));
        self
    }

    /// `blockParent`: maps child documents to their parents (`parents` matches every
    /// parent).
    pub fn block_parent(mut self, parents: impl Into<String>) -> Self {
        self.body
            .insert("blockParent".into(), Value::String(parents.into()));
        self
    }

    /// `blockChildren`: maps parent documents to their children (`parents` matches every
    /// parent).
    pub fn block_children(mut self, parents: impl Into<String>) -> Self {
        self.body
            .insert("blockChildren".into(), Value::String(parents.into()));
        self
    }
}

impl JsonFacet {
    /// `type: terms`: one bucket per value of `field`.
    pub fn terms(field: impl Into<String>) -> Self {
        JsonFacet {
            body: json!({"type": "terms", "field": field.into()}),
        }
    }

    /// `type: range`: one bucket per `gap` from `start` to `end`.
    pub fn range(
        field: impl Into<String>,
        start: impl Into<Value>,
        end: impl Into<Value>,
        gap: impl Into<Value>,
    ) -> Self {
        JsonFacet {
            body: json!({"type": "range", "field": field.into(), "start": start.into(),
                         "end": end.into(), "gap": gap.into()}),
        }
    }

    /// `type: query`: one node over the documents matching `q`.
    pub fn query(q: impl Into<String>) -> Self {
        JsonFacet {
            body: json!({"type": "query", "q": q.into()}),
        }
    }

    /// A stat function (`sum(price)`, `avg(price)`, `min(x)`, `max(x)`, `unique(x)`,
    /// `hll(x)`, `percentile(x,50)`...), read back as a stat of its parent node.
    pub fn stat(function: impl Into<String>) -> Self {
        JsonFacet {
            body: Value::String(function.into()),
        }
    }

    /// Any option of the facet (`"method"`, `"prelim_sort"`, `"include"`...); for the ones
    /// this builder lacks.
    pub fn option(mut self, name: &str, value: impl Into<Value>) -> Self {
        if let Value::Object(m) = &mut self.body {
            m.insert(name.to_string(), value.into());
        }
        self
    }

    /// `limit` (terms): most buckets returned; -1 for all. Default: Solr's (10).
    pub fn limit(self, n: i64) -> Self {
        self.option("limit", n)
    }

    /// `offset` (terms): buckets to skip. Default 0.
    pub fn offset(self, n: u64) -> Self {
        self.option("offset", n)
    }

    /// `mincount` (terms, range): leave out buckets with fewer documents. Default: Solr's
    /// (1 for terms, 0 for range).
    pub fn mincount(self, n: u64) -> Self {
        self.option("mincount", n)
    }

    /// `sort` (terms): `count desc`, `index asc`, or a stat name (`avg_price desc`).
    /// Default: Solr's (`count desc`).
    pub fn sort(self, s: impl Into<String>) -> Self {
        self.option("sort", s.into())
    }

    /// `prefix` (terms): only values starting with `p`.
    pub fn prefix(self, p: impl Into<String>) -> Self {
        self.option("prefix", p.into())
    }

    /// `missing` (terms): add a bucket of the documents without a value. Default false.
    pub fn missing(self, yes: bool) -> Self {
        self.option("missing", yes)
    }

    /// `numBuckets` (terms): return the number of buckets before `limit`. Default false.
    pub fn num_buckets(self, yes: bool) -> Self {
        self.option("numBuckets", yes)
    }

    /// `allBuckets` (terms): add one node over every bucket. Default false.
    pub fn all_buckets(self, yes: bool) -> Self {
        self.option("allBuckets", yes)
    }

    /// `other` (range): `before`, `after`, `between`, `all` or `none`.
    pub fn other(self, which: impl Into<String>) -> Self {
        self.option("other", which.into())
    }

    /// `hardend` (range): the last bucket ends at `end` exactly. Default false.
    pub fn hardend(self, yes: bool) -> Self {
        self.option("hardend", yes)
    }

    /// A sub-facet (or stat) computed per bucket, under `name`. Repeatable.
    pub fn facet(mut self, name: impl Into<String>, sub: JsonFacet) -> Self {
        if let Value::Object(m) = &mut self.body {
            let subs = m
                .entry("facet")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(s) = subs {
                s.insert(name.into(), sub.body);
            }
        }
        self
    }

    /// A domain change (`domain`).
    pub fn domain(self, d: Domain) -> Self {
        self.option("domain", Value::Object(d.body))
    }

    /// The JSON of this facet.
    pub fn to_json(&self) -> &Value {
        &self.body
    }
}

impl Select {
    /// Adds a JSON facet (or a top-level stat) under `name` to the request's `json.facet`
    /// object; repeatable. The bucket tree comes back in
    /// [`crate::SelectResponse::facets`].
    pub fn json_facet(mut self, name: impl Into<String>, f: JsonFacet) -> Self {
        self.more.json_facet.insert(name.into(), f.body);
        self
    }
}
