//! The documents of `bulk-index`: document `i` is a pure function of `i`, written the same
//! way in the SolrJ program (`local-solr/launcher/src/main/java/dev/solrbench/BulkIndex.java`,
//! `doc(prefix, i)`), so every row sends the same documents.

use serde::Serialize;

/// The word list both sides draw from.
const WORDS: [&str; 32] = [
    "solr",
    "lucene",
    "index",
    "query",
    "shard",
    "replica",
    "leader",
    "segment",
    "merge",
    "commit",
    "token",
    "filter",
    "facet",
    "field",
    "score",
    "vector",
    "cursor",
    "schema",
    "stream",
    "batch",
    "queue",
    "thread",
    "socket",
    "buffer",
    "latency",
    "throughput",
    "cache",
    "router",
    "collection",
    "document",
    "search",
    "engine",
];

/// One generated document (fields of the project's `bench` schema).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchDoc {
    /// `{prefix}{i}`.
    pub id: String,
    /// 4 words.
    pub title: String,
    /// 40 words.
    pub body: String,
    /// `cat0` .. `cat7`.
    pub category: String,
    /// `(i % 1000) / 10`.
    pub price: f32,
    /// `i % 1000`.
    pub popularity: i32,
}

/// `n` words for document `i`, as Java computes them (a 64-bit wrapping LCG seeded by `i`).
fn words(i: u64, salt: i64, n: i64) -> String {
    let mut s = String::new();
    let mut seed = (i as i64)
        .wrapping_mul(2_654_435_761)
        .wrapping_add(salt.wrapping_mul(40_503));
    for k in 0..n {
        if k > 0 {
            s.push(' ');
        }
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        s.push_str(WORDS[((seed as u64 >> 33) % WORDS.len() as u64) as usize]);
    }
    s
}

/// Document `i` with id `{prefix}{i}`.
pub fn doc(prefix: &str, i: u64) -> BenchDoc {
    BenchDoc {
        id: format!("{prefix}{i}"),
        title: words(i, 1, 4),
        body: words(i, 2, 40),
        category: format!("cat{}", i % 8),
        price: (i % 1000) as f32 / 10.0,
        popularity: (i % 1000) as i32,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn documents_are_a_pure_function_of_their_number() {
        let d = super::doc("p-", 12_345);
        assert_eq!(d, super::doc("p-", 12_345));
        assert_eq!(d.id, "p-12345");
        assert_eq!(d.title.split(' ').count(), 4);
        assert_eq!(d.body.split(' ').count(), 40);
        assert_eq!(d.category, "cat1");
        assert_eq!(d.popularity, 345);
        assert!((d.price - 34.5).abs() < 1e-6);
        // Pinned: the Java side computes the same words (BulkIndex.words).
        assert_eq!(super::words(0, 1, 3), "engine filter schema");
        let big = super::doc("p-", 123_456_789_012);
        assert_eq!(big.title, "latency lucene buffer queue");
        assert!(big.body.ends_with("leader search token schema"));
        assert_eq!((big.category.as_str(), big.popularity), ("cat4", 12));
    }
}
