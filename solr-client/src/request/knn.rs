//! A typed kNN query: `{!knn f=FIELD topK=K}[v1,...,vn]`, with an optional pre-filter passed
//! by parameter reference so filter text never lands inside the local params.

use super::Select;

/// A dense-vector nearest-neighbour search.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Knn {
    field: String,
    vector: Vec<f32>,
    top_k: u32,
    pre_filter: Vec<String>,
    cache: bool,
}

impl Knn {
    /// Nearest neighbours of `vector` in `field`. Default topK: 10.
    pub fn new(field: impl Into<String>, vector: impl Into<Vec<f32>>) -> Self {
        Knn {
            field: field.into(),
            vector: vector.into(),
            top_k: 10,
            pre_filter: Vec::new(),
            cache: true,
        }
    }

    /// How many neighbours. Default 10.
    pub fn top_k(mut self, k: u32) -> Self {
        self.top_k = k;
        self
    }

    /// Restricts the candidates to documents matching `fq` (Solr 9.6+ `preFilter`).
    /// Default: none (Solr then uses the request's fq as pre-filter).
    pub fn pre_filter(mut self, fq: impl Into<String>) -> Self {
        self.pre_filter.push(fq.into());
        self
    }

    /// Whether Solr may answer from, and store into, its queryResultCache (local param
    /// `cache=false` when off). Default: on. A load test that repeats vectors turns it off so
    /// every request runs the vector search; checked against Solr 9.10: with `cache=false`
    /// the cache sees no lookups and no inserts.
    pub fn cache(mut self, on: bool) -> Self {
        self.cache = on;
        self
    }

    /// The query string, e.g. `{!knn f=vector topK=10}[0.1,0.2]`.
    pub fn query(&self) -> String {
        let mut q = format!("{{!knn f={} topK={}", self.field, self.top_k);
        for i in 0..self.pre_filter.len() {
            q.push_str(&format!(" preFilter=$knn_pf{i}"));
        }
        if !self.cache {
            q.push_str(" cache=false");
        }
        q.push_str("}[");
        for (i, v) in self.vector.iter().enumerate() {
            if i > 0 {
                q.push(',');
            }
            q.push_str(&v.to_string());
        }
        q.push(']');
        q
    }

    /// A [`Select`] for this query: rows = topK, sent as POST (vectors are long).
    pub fn to_select(&self) -> Select {
        let mut s = Select::new(self.query())
            .rows(u64::from(self.top_k))
            .post(true);
        for (i, f) in self.pre_filter.iter().enumerate() {
            s = s.param(format!("knn_pf{i}"), f.clone());
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_shape() {
        let k = Knn::new("vector", vec![0.5, -1.0])
            .top_k(3)
            .pre_filter("category:a b");
        assert_eq!(
            k.query(),
            "{!knn f=vector topK=3 preFilter=$knn_pf0}[0.5,-1]"
        );
        assert_eq!(
            k.clone().cache(false).query(),
            "{!knn f=vector topK=3 preFilter=$knn_pf0 cache=false}[0.5,-1]"
        );
        let p = k.to_select().params();
        assert!(p.contains(&("knn_pf0".into(), "category:a b".into())));
        assert!(p.contains(&("rows".into(), "3".into())));
    }
}
