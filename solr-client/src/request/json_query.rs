//! The JSON Request API (Solr reference: "JSON Request API"): a search sent as a JSON body
//! to `/query` (or `/select`), with `query`, `filter`, `fields`, `sort`, `offset`, `limit`,
//! `facet` (the JSON Facet API) and `params`. Its answer is the same
//! [`SelectResponse`](crate::SelectResponse) a [`Select`](super::Select) gets.

use serde_json::{Map, Value};

use super::JsonFacet;

/// A search in the JSON Request API, run with
/// [`SolrClient::query_json`](crate::SolrClient::query_json).
///
/// ```
/// use solr_client::request::{JsonFacet, JsonQuery};
/// let q = JsonQuery::new("title:solr")
///     .filter("category:a")
///     .fields(&["id", "price"])
///     .sort("price desc")
///     .limit(5)
///     .facet("cats", JsonFacet::terms("category"));
/// assert_eq!(
///     q.body().to_string(),
///     r#"{"facet":{"cats":{"field":"category","type":"terms"}},"fields":["id","price"],"filter":["category:a"],"limit":5,"query":"title:solr","sort":"price desc"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct JsonQuery {
    body: Map<String, Value>,
    handler: String,
}

impl JsonQuery {
    /// A search for `query` (Solr syntax, or a JSON query DSL object through
    /// [`Self::query_dsl`]), sent to the collection's `/query` handler.
    pub fn new(query: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("query".into(), Value::String(query.into()));
        JsonQuery {
            body,
            handler: "query".into(),
        }
    }

    /// A search given in the JSON Query DSL (`{"bool": {"must": [...]}}`).
    pub fn query_dsl(query: Value) -> Self {
        let mut q = JsonQuery::new("");
        q.body.insert("query".into(), query);
        q
    }

    /// Adds a filter (Solr syntax); repeatable. Default: none.
    pub fn filter(mut self, fq: impl Into<String>) -> Self {
        self.push("filter", Value::String(fq.into()));
        self
    }

    /// Fields to return. Default: Solr's (all stored fields).
    pub fn fields<S: AsRef<str>>(mut self, fields: &[S]) -> Self {
        let list = fields.iter().map(|f| Value::String(f.as_ref().into()));
        self.body
            .insert("fields".into(), Value::Array(list.collect()));
        self
    }

    /// Sort, in Solr's syntax (`price desc, id asc`). Default: by score.
    pub fn sort(self, sort: impl Into<String>) -> Self {
        self.set("sort", Value::String(sort.into()))
    }

    /// Index of the first hit returned (Solr's `start`). Default 0.
    pub fn offset(self, n: u64) -> Self {
        self.set("offset", n.into())
    }

    /// Hits returned (Solr's `rows`). Default 10.
    pub fn limit(self, n: u64) -> Self {
        self.set("limit", n.into())
    }

    /// A JSON facet under `name`; repeatable. The bucket tree comes back in
    /// [`SelectResponse::facets`](crate::SelectResponse::facets).
    pub fn facet(mut self, name: impl Into<String>, f: JsonFacet) -> Self {
        let facets = self
            .body
            .entry("facet")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = facets {
            m.insert(name.into(), f.to_json().clone());
        }
        self
    }

    /// Any other request parameter (`params`: `hl`, `debug`, `df`...); repeatable.
    pub fn param(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        let params = self
            .body
            .entry("params")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = params {
            m.insert(name.into(), value.into());
        }
        self
    }

    /// The request handler under the collection. Default `query`; `select` takes the same
    /// body.
    pub fn handler(mut self, path: impl Into<String>) -> Self {
        self.handler = path.into().trim_start_matches('/').to_string();
        self
    }

    /// The JSON body sent.
    pub fn body(&self) -> Value {
        Value::Object(self.body.clone())
    }

    /// The handler path under the collection.
    pub fn handler_path(&self) -> &str {
        &self.handler
    }

    fn set(mut self, key: &str, v: Value) -> Self {
        self.body.insert(key.into(), v);
        self
    }

    fn push(&mut self, key: &str, v: Value) {
        let list = self
            .body
            .entry(key)
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(a) = list {
            a.push(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_part_lands_under_its_json_name() {
        let q = JsonQuery::query_dsl(json!({"lucene": {"df": "title", "query": "solr"}}))
            .filter("a:1")
            .filter("b:2")
            .offset(20)
            .param("hl", true)
            .param("df", "body")
            .handler("/select");
        assert_eq!(
            q.body(),
            json!({"query": {"lucene": {"df": "title", "query": "solr"}},
                   "filter": ["a:1", "b:2"], "offset": 20,
                   "params": {"hl": true, "df": "body"}})
        );
        assert_eq!(q.handler_path(), "select");
    }
}
