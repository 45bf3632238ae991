//! Seeded workload generators: the same seed gives the same documents and queries in every
//! transport, with enough variety that Solr's caches do not answer everything.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

const WORDS: &[&str] = &[
    "solr",
    "lucene",
    "latency",
    "network",
    "handshake",
    "keepalive",
    "gzip",
    "replica",
    "leader",
    "shard",
    "vector",
    "search",
    "index",
    "commit",
    "segment",
    "merge",
    "cache",
    "query",
    "facet",
    "filter",
    "score",
    "token",
    "analyzer",
    "stream",
    "cursor",
    "batch",
    "socket",
    "packet",
    "window",
    "buffer",
    "thread",
    "pool",
    "timeout",
    "retry",
    "failover",
    "route",
    "jetty",
    "client",
    "server",
    "request",
    "response",
    "header",
    "body",
    "wire",
    "byte",
    "clock",
    "median",
    "percentile",
    "tail",
    "throughput",
    "ruby",
    "rails",
    "sunspot",
    "faraday",
    "typhoeus",
    "curl",
    "python",
    "java",
    "rust",
    "tokio",
    "hyper",
    "rustls",
    "kernel",
];

const CATEGORIES: &[&str] = &[
    "books", "music", "film", "games", "tools", "garden", "sports", "toys",
];

/// A seeded document and query generator.
#[derive(Debug)]
pub struct Generator {
    rng: StdRng,
    vector_dim: usize,
}

impl Generator {
    /// A generator with `seed`; documents carry a `vector` of `vector_dim` floats when > 0.
    pub fn new(seed: u64, vector_dim: usize) -> Self {
        Generator {
            rng: StdRng::seed_from_u64(seed),
            vector_dim,
        }
    }

    fn words(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| WORDS[self.rng.random_range(0..WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A unit vector of the configured dimension.
    pub fn unit_vector(&mut self) -> Vec<f32> {
        let mut v: Vec<f32> = (0..self.vector_dim)
            .map(|_| self.rng.random_range(-1.0f32..1.0))
            .collect();
        let norm = v
            .iter()
            .map(|x| x * x)
            .sum::<f32>()
            .sqrt()
            .max(f32::MIN_POSITIVE);
        v.iter_mut().for_each(|x| *x /= norm);
        v
    }

    /// Document `i` with id `{prefix}{i}`.
    pub fn doc(&mut self, prefix: &str, i: usize) -> Value {
        let title_len = self.rng.random_range(3..8);
        let body_len = self.rng.random_range(20..80);
        let mut d = json!({
            "id": format!("{prefix}{i}"),
            "title": self.words(title_len),
            "body": self.words(body_len),
            "category": CATEGORIES[self.rng.random_range(0..CATEGORIES.len())],
            "price": (self.rng.random_range(100..100_000) as f64) / 100.0,
            "popularity": self.rng.random_range(0..1000),
        });
        if self.vector_dim > 0 {
            d["vector"] = json!(self.unit_vector());
        }
        d
    }

    /// A search: one or two terms, sometimes with a category filter.
    pub fn query(&mut self) -> (String, Option<String>) {
        let n = self.rng.random_range(1..3);
        let q = format!("body:({})", self.words(n));
        let fq = if self.rng.random_bool(0.3) {
            Some(format!(
                "category:{}",
                CATEGORIES[self.rng.random_range(0..CATEGORIES.len())]
            ))
        } else {
            None
        };
        (q, fq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_workload() {
        let mut a = Generator::new(7, 4);
        let mut b = Generator::new(7, 4);
        assert_eq!(a.doc("d", 1), b.doc("d", 1));
        assert_eq!(a.query(), b.query());
        let v = Generator::new(1, 16).unit_vector();
        let n: f32 = v.iter().map(|x| x * x).sum();
        assert!((n - 1.0).abs() < 1e-4);
    }
}
