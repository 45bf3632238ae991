//! `facets`: the answer of the JSON Facet API (`json.facet`), as a typed bucket tree.
//!
//! Every facet node has a `count` (the documents in its domain), stat values (`sum`,
//! `avg`, `unique`, ... by the name the request gave them) and sub-facets by name. A
//! terms or range facet is a list of buckets, each such a node with its `val`.

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::SolrValue;

/// A node of the JSON facet tree: the top-level `facets` object, a query facet, or one
/// bucket of a terms/range facet.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FacetNode {
    /// The bucket value (terms, range lower bound); `None` for the root and query facets.
    pub val: Option<SolrValue>,
    /// Documents in the node's domain. Solr omits it on a root with no match; read as 0.
    pub count: u64,
    /// Stat functions (`avg(price)`...) and other scalar entries, by name, in Solr's
    /// order: counts (`unique`, `countvals`) as [`SolrValue::Int`], numbers as
    /// [`SolrValue::Float`], a date field's `min`/`max` as [`SolrValue::Date`].
    pub stats: Vec<(String, SolrValue)>,
    /// Sub-facets by name.
    pub facets: Vec<(String, FacetResult)>,
}

/// A named sub-facet.
#[derive(Debug, Clone, PartialEq)]
pub enum FacetResult {
    /// A terms or range facet.
    Buckets(BucketList),
    /// A query facet (or a `type:query` domain node).
    Query(FacetNode),
}

/// The buckets of a terms or range facet.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BucketList {
    /// The buckets, in the requested sort order.
    pub buckets: Vec<FacetNode>,
    /// `numBuckets: true`: the number of buckets before `limit`.
    pub num_buckets: Option<u64>,
    /// `allBuckets: true`: one node over every bucket.
    pub all_buckets: Option<Box<FacetNode>>,
    /// `missing: true`: the documents without a value.
    pub missing: Option<Box<FacetNode>>,
    /// Range facet `other`: before / after / between nodes.
    pub before: Option<Box<FacetNode>>,
    /// Range facet `other`: documents at or above `end`.
    pub after: Option<Box<FacetNode>>,
    /// Range facet `other`: documents between `start` and `end`.
    pub between: Option<Box<FacetNode>>,
}

impl FacetNode {
    /// The sub-facet `name`.
    pub fn facet(&self, name: &str) -> Option<&FacetResult> {
        self.facets.iter().find(|(n, _)| n == name).map(|(_, f)| f)
    }

    /// The buckets of the terms/range sub-facet `name`.
    pub fn buckets(&self, name: &str) -> Option<&BucketList> {
        match self.facet(name)? {
            FacetResult::Buckets(b) => Some(b),
            FacetResult::Query(_) => None,
        }
    }

    /// The query sub-facet `name`.
    pub fn query(&self, name: &str) -> Option<&FacetNode> {
        match self.facet(name)? {
            FacetResult::Query(q) => Some(q),
            FacetResult::Buckets(_) => None,
        }
    }

    /// The stat `name`.
    pub fn stat(&self, name: &str) -> Option<&SolrValue> {
        self.stats.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The stat `name` as a number (`None` when absent or not numeric).
    pub fn stat_f64(&self, name: &str) -> Option<f64> {
        self.stat(name).and_then(SolrValue::as_f64)
    }

    fn from_map(mut m: Map<String, Value>) -> Result<FacetNode, String> {
        let val = m.remove("val").map(typed).transpose()?;
        let count = match m.remove("count") {
            None => 0,
            Some(c) => c
                .as_u64()
                .ok_or_else(|| format!("facet count is not a count: {c}"))?,
        };
        let mut node = FacetNode {
            val,
            count,
            ..FacetNode::default()
        };
        for (k, v) in m {
            match v {
                Value::Object(o) if o.contains_key("buckets") => {
                    node.facets
                        .push((k, FacetResult::Buckets(BucketList::from_map(o)?)));
                }
                Value::Object(o) if o.contains_key("count") || o.is_empty() => {
                    node.facets
                        .push((k, FacetResult::Query(FacetNode::from_map(o)?)));
                }
                other => {
                    node.stats.push((k, typed(other)?));
                }
            }
        }
        Ok(node)
    }

    fn to_map(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if let Some(v) = &self.val {
            m.insert("val".into(), untyped(v));
        }
        m.insert("count".into(), self.count.into());
        for (k, v) in &self.stats {
            m.insert(k.clone(), untyped(v));
        }
        for (k, f) in &self.facets {
            let v = match f {
                FacetResult::Buckets(b) => Value::Object(b.to_map()),
                FacetResult::Query(q) => Value::Object(q.to_map()),
            };
            m.insert(k.clone(), v);
        }
        m
    }
}

impl BucketList {
    fn from_map(mut m: Map<String, Value>) -> Result<BucketList, String> {
        let node = |v: Option<Value>| -> Result<Option<Box<FacetNode>>, String> {
            match v {
                None => Ok(None),
                Some(Value::Object(o)) => Ok(Some(Box::new(FacetNode::from_map(o)?))),
                Some(other) => Err(format!("facet bucket is not an object: {other}")),
            }
        };
        let buckets = match m.remove("buckets") {
            Some(Value::Array(a)) => a
                .into_iter()
                .map(|b| match b {
                    Value::Object(o) => FacetNode::from_map(o),
                    other => Err(format!("facet bucket is not an object: {other}")),
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => return Err(format!("facet buckets are not a list: {other}")),
            None => Vec::new(),
        };
        Ok(BucketList {
            buckets,
            num_buckets: m.remove("numBuckets").and_then(|v| v.as_u64()),
            all_buckets: node(m.remove("allBuckets"))?,
            missing: node(m.remove("missing"))?,
            before: node(m.remove("before"))?,
            after: node(m.remove("after"))?,
            between: node(m.remove("between"))?,
        })
    }

    fn to_map(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert(
            "buckets".into(),
            Value::Array(
                self.buckets
                    .iter()
                    .map(|b| Value::Object(b.to_map()))
                    .collect(),
            ),
        );
        if let Some(n) = self.num_buckets {
            m.insert("numBuckets".into(), n.into());
        }
        for (name, n) in [
            ("allBuckets", &self.all_buckets),
            ("missing", &self.missing),
            ("before", &self.before),
            ("after", &self.after),
            ("between", &self.between),
        ] {
            if let Some(n) = n {
                m.insert(name.into(), Value::Object(n.to_map()));
            }
        }
        m
    }
}

fn typed(v: Value) -> Result<SolrValue, String> {
    serde_json::from_value(v).map_err(|e| format!("facet value: {e}"))
}

fn untyped(v: &SolrValue) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl<'de> Deserialize<'de> for FacetNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = Map::<String, Value>::deserialize(d)?;
        FacetNode::from_map(m).map_err(D::Error::custom)
    }
}

impl Serialize for FacetNode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.to_map();
        let mut out = s.serialize_map(Some(m.len()))?;
        for (k, v) in &m {
            out.serialize_entry(k, v)?;
        }
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_tree_with_stats_and_sub_facets() {
        let root: FacetNode = serde_json::from_str(
            r#"{"count":6,"total":21.5,"cats":{"numBuckets":2,"buckets":[
                {"val":"a","count":4,"avg_p":2.5,"tops":{"buckets":[{"val":1,"count":4}]}},
                {"val":"b","count":2,"avg_p":1.0,"tops":{"buckets":[]}}],
                "missing":{"count":0}},
               "cheap":{"count":3,"n":2}}"#,
        )
        .unwrap();
        assert_eq!(root.count, 6);
        assert_eq!(root.stat_f64("total"), Some(21.5));
        let cats = root.buckets("cats").unwrap();
        assert_eq!(cats.num_buckets, Some(2));
        assert_eq!(cats.missing.as_ref().unwrap().count, 0);
        assert_eq!(cats.buckets[0].val, Some(SolrValue::Text("a".into())));
        assert_eq!(
            cats.buckets[0].buckets("tops").unwrap().buckets[0].val,
            Some(SolrValue::Int(1))
        );
        assert_eq!(
            root.query("cheap").unwrap().stat("n"),
            Some(&SolrValue::Int(2))
        );
        assert_eq!(cats.buckets[0].stat_f64("avg_p"), Some(2.5));
        assert_eq!(cats.buckets[0].buckets("tops").unwrap().buckets[0].count, 4);
        assert_eq!(root.query("cheap").unwrap().stat_f64("n"), Some(2.0));
        let back: FacetNode = serde_json::from_value(serde_json::to_value(&root).unwrap()).unwrap();
        assert_eq!(back, root);
    }
}
