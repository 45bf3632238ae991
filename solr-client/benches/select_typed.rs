//! Decoding a 100-row select captured from the project's Solr 9
//! (`benches/data/select_100.json`: `q=*:*&rows=100&fl=*,score`, documents shaped like the
//! bench workload's: id, title, a 20-79 word body, category, price, popularity, ts, tag,
//! `_version_`, score) into: a user struct (`select_as::<T>`'s path), the untyped
//! `Document` form (`select`'s path), a bare `serde_json::Value`, and the untyped form
//! then `docs_as::<T>` (the only typed path before).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde::Deserialize;
use serde_json::Value;
use solr_client::SelectResponse;

const BODY: &[u8] = include_bytes!("data/select_100.json");

#[allow(dead_code)] // read by the decoder only
#[derive(Debug, Deserialize)]
struct Book {
    id: String,
    title: Option<String>,
    body: Option<String>,
    category: Option<String>,
    price: Option<f64>,
    popularity: Option<i64>,
    ts: Option<String>,
    tag_s: Option<String>,
    #[serde(rename = "_version_")]
    version: Option<i64>,
    score: Option<f32>,
}

fn decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode_select_100_captured");
    g.throughput(Throughput::Bytes(BODY.len() as u64));
    g.bench_function("typed_struct", |b| {
        b.iter(|| {
            serde_json::from_slice::<SelectResponse<Book>>(black_box(BODY)).map(|r| r.docs().len())
        })
    });
    g.bench_function("document", |b| {
        b.iter(|| serde_json::from_slice::<SelectResponse>(black_box(BODY)).map(|r| r.docs().len()))
    });
    g.bench_function("value", |b| {
        b.iter(|| {
            serde_json::from_slice::<Value>(black_box(BODY))
                .map(|v| v["response"]["docs"].as_array().map_or(0, Vec::len))
        })
    });
    g.bench_function("document_then_docs_as", |b| {
        b.iter(|| {
            serde_json::from_slice::<SelectResponse>(black_box(BODY))
                .ok()
                .and_then(|r| r.docs_as::<Book>().ok())
                .map(|d| d.len())
        })
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
