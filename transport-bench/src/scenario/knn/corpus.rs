//! The kNN corpus: seeded vectors, indexed once per target, and the filter cache's hit count.

use crate::engine::workload::Generator;
use anyhow::{bail, Context, Result};
use solr_client::{Commit, SolrClient};
use std::time::Instant;

use super::*;

/// The seeded corpus: documents (JSON) and their vectors.
#[derive(Debug)]
pub struct Corpus {
    /// Documents with ids `knn-{i}`.
    pub docs: Vec<serde_json::Value>,
    /// Document i's vector.
    pub vectors: Vec<Vec<f32>>,
}

impl Corpus {
    /// `n` documents with `dim`-dimensional unit vectors.
    pub fn generate(seed: u64, n: usize, dim: usize) -> Corpus {
        let mut g = Generator::new(seed, dim);
        let mut docs = Vec::with_capacity(n);
        let mut vectors = Vec::with_capacity(n);
        for i in 0..n {
            let d = g.doc("knn-", i);
            let v: Vec<f32> = d["vector"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_f64())
                        .map(|x| x as f32)
                        .collect()
                })
                .unwrap_or_default();
            vectors.push(v);
            docs.push(d);
        }
        Corpus { docs, vectors }
    }
}

pub(super) async fn index(
    cfg: &KnnConfig,
    client: &SolrClient,
    corpus: &Corpus,
) -> Result<IndexRun> {
    let pb = progress(cfg.quiet, corpus.docs.len() as u64, "indexing".into());
    let t0 = Instant::now();
    client
        .delete_by_query("id:knn-*")
        .await
        .context("clearing earlier kNN documents")?;
    let mut bytes_out = 0;
    for chunk in corpus.docs.chunks(cfg.batch) {
        let r = client.add(chunk).await.context("indexing the kNN corpus")?;
        bytes_out += r.timing.bytes_out;
        pb.inc(chunk.len() as u64);
    }
    client.commit(Commit::default()).await.context("commit")?;
    pb.finish_and_clear();
    let seconds = t0.elapsed().as_secs_f64();
    // Every document must be searchable before the sweep.
    let n = client
        .select(&solr_client::Select::new("id:knn-*").rows(0))
        .await?
        .num_found();
    if n != corpus.docs.len() as u64 {
        bail!("indexed {} documents but Solr finds {n}", corpus.docs.len());
    }
    Ok(IndexRun {
        docs: corpus.docs.len(),
        seconds,
        docs_per_sec: corpus.docs.len() as f64 / seconds.max(1e-9),
        bytes_out,
    })
}

/// queryResultCache hits so far (Solr's mbeans), None when Solr does not say.
pub(super) async fn cache_hits(client: &SolrClient) -> Option<u64> {
    let req = client.wire(
        http::Method::GET,
        "admin/mbeans",
        vec![
            ("cat".into(), "CACHE".into()),
            ("key".into(), "queryResultCache".into()),
            ("stats".into(), "true".into()),
            ("wt".into(), "json".into()),
        ],
        solr_client::RequestKind::Admin,
    );
    let resp = client.send_raw(req).await.ok()?;
    if !resp.status.is_success() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&resp.body).ok()?;
    let beans = v.get("solr-mbeans")?.as_array()?;
    let cache = beans.iter().find_map(|b| b.get("queryResultCache"))?;
    let stats = cache.get("stats")?.as_object()?;
    stats
        .iter()
        .find(|(k, _)| k.ends_with("queryResultCache.hits") || k.as_str() == "hits")
        .and_then(|(_, v)| v.as_u64())
}
