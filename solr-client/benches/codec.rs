//! Criterion benches of the client's CPU work: encoding 1,000 documents as JSON, XML,
//! CBOR and javabin (from `Document`s, and from a user struct both straight and through a
//! `serde_json::Value` per document, the path before the direct encoders), and decoding a
//! 100-row select response.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use solr_client::{SelectResponse, UpdateFormat};

fn docs(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let category = ["books", "music", "film"][i % 3];
            json!({
                "id": format!("doc-{i}"),
                "title": format!("title {i} about solr latency and keep-alive"),
                "body": "the quick brown fox jumps over the lazy dog; ".repeat(8),
                "category": category,
                "price": i as f64 * 0.25,
                "popularity": i % 1000,
            })
        })
        .collect()
}

fn encode(c: &mut Criterion) {
    let docs: Vec<solr_client::Document> = docs(1000)
        .into_iter()
        .filter_map(|v| v.as_object().cloned())
        .collect();
    let mut g = c.benchmark_group("encode_1000_docs");
    g.throughput(Throughput::Elements(1000));
    for f in UpdateFormat::ALL {
        g.bench_function(f.as_str(), |b| {
            b.iter(|| f.encode_add(black_box(&docs)).map(|b| b.len()))
        });
    }
    g.finish();
}

/// A user's document type, as `SolrClient::add` takes.
#[derive(serde::Serialize)]
struct Doc {
    id: String,
    title: String,
    body: String,
    category: &'static str,
    price: f64,
    popularity: usize,
}

fn encode_typed(c: &mut Criterion) {
    let docs: Vec<Doc> = (0..1000)
        .map(|i| Doc {
            id: format!("doc-{i}"),
            title: format!("title {i} about solr latency and keep-alive"),
            body: "the quick brown fox jumps over the lazy dog; ".repeat(8),
            category: ["books", "music", "film"][i % 3],
            price: i as f64 * 0.25,
            popularity: i % 1000,
        })
        .collect();
    let mut g = c.benchmark_group("encode_1000_structs");
    g.throughput(Throughput::Elements(1000));
    for f in UpdateFormat::ALL {
        g.bench_function(format!("{f}_direct"), |b| {
            b.iter(|| f.encode_docs(black_box(&docs)).map(|b| b.len()))
        });
        g.bench_function(format!("{f}_via_value"), |b| {
            b.iter(|| {
                let values: Vec<solr_client::Document> = black_box(&docs)
                    .iter()
                    .filter_map(|d| match serde_json::to_value(d) {
                        Ok(Value::Object(m)) => Some(m),
                        _ => None,
                    })
                    .collect();
                f.encode_add(&values).map(|b| b.len())
            })
        });
    }
    g.finish();
}

fn decode(c: &mut Criterion) {
    let body = serde_json::to_vec(&json!({
        "responseHeader": {"status": 0, "QTime": 1},
        "response": {"numFound": 12345, "start": 0, "docs": docs(100)},
    }))
    .unwrap_or_default();
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function("select_100_rows", |b| {
        b.iter(|| {
            serde_json::from_slice::<SelectResponse>(black_box(&body)).map(|r| r.docs().len())
        })
    });
    g.finish();
}

criterion_group!(benches, encode, encode_typed, decode);
criterion_main!(benches);
