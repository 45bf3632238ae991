//! The large-responses corpus: seeded documents of a given size, indexed once per tag.

use anyhow::{bail, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use solr_client::{Commit, Select, SolrClient, TransportKind};

use super::*;

/// Documents of about `doc_bytes` JSON whose text follows a Zipf law over pseudo-words.
#[derive(Debug)]
pub struct LargeDocs {
    rng: StdRng,
    vocab: Vec<String>,
    cumulative: Vec<f64>,
    doc_bytes: usize,
}

impl LargeDocs {
    /// A seeded generator.
    pub fn new(seed: u64, doc_bytes: usize) -> Self {
        const SYL: &[&str] = &[
            "ka", "lo", "mi", "ne", "ra", "to", "su", "vi", "de", "po", "an", "el", "or", "us",
            "ic", "ba", "fe", "gu", "ho", "ju", "ly", "me", "ni", "qu", "re", "sa", "ti", "wo",
            "xe", "zo", "st", "br", "gr", "pl", "tr", "ch", "sh", "th",
        ];
        let mut rng = StdRng::seed_from_u64(seed ^ 0x1A26E);
        let mut vocab = Vec::with_capacity(4000);
        while vocab.len() < 4000 {
            let n = rng.random_range(1..=4);
            let w: String = (0..n)
                .map(|_| SYL[rng.random_range(0..SYL.len())])
                .collect();
            if !vocab.contains(&w) {
                vocab.push(w);
            }
        }
        let mut acc = 0.0;
        let cumulative = (0..vocab.len())
            .map(|r| {
                acc += 1.0 / (r as f64 + 1.0);
                acc
            })
            .collect();
        LargeDocs {
            rng,
            vocab,
            cumulative,
            doc_bytes,
        }
    }

    fn word(&mut self) -> &str {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let u = self.rng.random_range(0.0..total);
        let i = self.cumulative.partition_point(|c| *c < u);
        &self.vocab[i.min(self.vocab.len() - 1)]
    }

    fn text(&mut self, bytes: usize) -> String {
        let mut s = String::with_capacity(bytes + 16);
        while s.len() < bytes {
            if !s.is_empty() {
                s.push(' ');
            }
            let w = self.word().to_string();
            s.push_str(&w);
        }
        s
    }

    /// Document `i` of set `tag` (id `{tag}-{i}`, `set_s` = tag).
    pub fn doc(&mut self, tag: &str, i: usize) -> Value {
        const CATEGORIES: &[&str] = &[
            "books", "music", "film", "games", "tools", "garden", "sports", "toys",
        ];
        let title_len = self.rng.random_range(30..70);
        let title = self.text(title_len);
        let brand = self.word().to_string();
        let sku: String = (0..12)
            .map(|_| char::from(b"0123456789ABCDEF"[self.rng.random_range(0..16)]))
            .collect();
        // Fields other than the body take about 300 bytes in Solr's JSON.
        let body = self.text(self.doc_bytes.saturating_sub(300).max(20));
        json!({
            "id": format!("{tag}-{i}"),
            "set_s": tag,
            "title": title,
            "body": body,
            "category": CATEGORIES[self.rng.random_range(0..CATEGORIES.len())],
            "brand_s": brand,
            "sku_s": sku,
            "price": (self.rng.random_range(100..100_000) as f64) / 100.0,
            "popularity": self.rng.random_range(0..1000),
            "stock_i": self.rng.random_range(0..500),
        })
    }
}

/// The corpus tag: seed and document size, so a corpus is reused only when identical.
pub fn corpus_tag(seed: u64, doc_bytes: usize, docs: usize) -> String {
    format!("lr{seed}x{doc_bytes}x{docs}")
}

/// Indexes the corpus on loopback unless exactly `docs` documents of the tag are there.
pub(super) async fn ensure_corpus(a: &LargeConfig, url: &str, tag: &str) -> Result<()> {
    let client = solr_harness::auth::apply(SolrClient::builder(url))?
        .collection(&a.collection)
        .transport(TransportKind::Pooled)
        .build()?;
    let q = Select::new(format!("set_s:{tag}")).rows(0);
    let have = client.select(&q).await?.num_found();
    if have == a.docs as u64 {
        eprintln!("large-responses: corpus {tag} already indexed ({have} docs)");
        return Ok(());
    }
    eprintln!(
        "large-responses: indexing {} documents of ~{} bytes on loopback...",
        a.docs, a.doc_bytes
    );
    let mut gen = LargeDocs::new(a.seed, a.doc_bytes);
    let mut i = 0;
    while i < a.docs {
        let k = 250.min(a.docs - i);
        let docs: Vec<Value> = (i..i + k).map(|j| gen.doc(tag, j)).collect();
        client
            .add(&docs)
            .await
            .with_context(|| format!("indexing the corpus at {i}"))?;
        i += k;
    }
    client.commit(Commit::default()).await?;
    let have = client.select(&q).await?.num_found();
    if have != a.docs as u64 {
        bail!(
            "corpus {tag}: Solr holds {have} documents after indexing {}",
            a.docs
        );
    }
    Ok(())
}
