//! javabin vs JSON: decoding the same 100-row select response into `SelectResponse` (and
//! into a `serde_json::Value`, and into a user struct), each from its own wire bytes; the
//! `javabin_tree_then_*` cases are the path before the typed javabin decoder (the
//! `Value` tree, then `serde_json::from_value`).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use solr_client::codec::javabin::{self, Writer};
use solr_client::codec::ResponseFormat;
use solr_client::SelectResponse;

const ROWS: usize = 100;

/// A user's document type, as `select_as::<T>` decodes into.
#[allow(dead_code)] // read by the decoder only
#[derive(Debug, serde::Deserialize)]
struct Row {
    id: String,
    title: Option<String>,
    body: Option<String>,
    category: Option<String>,
    price: Option<f64>,
    popularity: Option<i64>,
    ts: Option<String>,
}

fn row(i: usize) -> (String, String, String, &'static str, f32, i32, i64) {
    (
        format!("doc-{i}"),
        format!("title {i} about solr latency and keep-alive"),
        "the quick brown fox jumps over the lazy dog; ".repeat(8),
        ["books", "music", "film"][i % 3],
        i as f32 * 0.25,
        (i % 1000) as i32,
        1_700_000_000_000 + i as i64 * 1000,
    )
}

fn json_body() -> Vec<u8> {
    let docs: Vec<Value> = (0..ROWS)
        .map(|i| {
            let (id, title, body, cat, price, pop, ts) = row(i);
            json!({"id": id, "title": title, "body": body, "category": cat, "price": price as f64,
                "popularity": pop, "ts": javabin::iso_date(ts)})
        })
        .collect();
    serde_json::to_vec(&json!({
        "responseHeader": {"status": 0, "QTime": 1},
        "response": {"numFound": 12345, "start": 0, "numFoundExact": true, "docs": docs},
    }))
    .unwrap_or_default()
}

fn javabin_body() -> Vec<u8> {
    let mut w = Writer::new();
    w.ordered_map(2);
    w.extern_str("responseHeader");
    w.ordered_map(2);
    w.extern_str("status");
    w.int(0);
    w.extern_str("QTime");
    w.int(1);
    w.extern_str("response");
    w.doc_list(12345, 0, None, true);
    w.array(ROWS);
    for i in 0..ROWS {
        let (id, title, body, cat, price, pop, ts) = row(i);
        w.solr_doc(7);
        w.extern_str("id");
        w.str(&id);
        w.extern_str("title");
        w.str(&title);
        w.extern_str("body");
        w.str(&body);
        w.extern_str("category");
        w.str(cat);
        w.extern_str("price");
        w.float(price);
        w.extern_str("popularity");
        w.int(pop);
        w.extern_str("ts");
        w.date(ts);
    }
    w.finish()
}

fn decode(c: &mut Criterion) {
    let json = json_body();
    let jb = javabin_body();
    // The same response, whichever the format.
    assert_eq!(
        ResponseFormat::Json.decode_value(&json).ok(),
        ResponseFormat::Javabin.decode_value(&jb).ok()
    );
    let mut g = c.benchmark_group("decode_select_100_rows");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.bench_function("json_into_select_response", |b| {
        b.iter(|| {
            serde_json::from_slice::<SelectResponse>(black_box(&json)).map(|r| r.docs().len())
        })
    });
    g.bench_function("javabin_into_select_response", |b| {
        b.iter(|| {
            solr_client::codec::decode::<SelectResponse>(
                ResponseFormat::Javabin,
                200,
                Some("application/octet-stream"),
                black_box(&jb),
            )
            .map(|r| r.docs().len())
        })
    });
    g.bench_function("javabin_tree_then_select_response", |b| {
        b.iter(|| {
            javabin::decode(black_box(&jb))
                .ok()
                .and_then(|v| serde_json::from_value::<SelectResponse>(v).ok())
                .map(|r| r.docs().len())
        })
    });
    g.bench_function("json_into_typed", |b| {
        b.iter(|| {
            serde_json::from_slice::<SelectResponse<Row>>(black_box(&json)).map(|r| r.docs().len())
        })
    });
    g.bench_function("javabin_into_typed", |b| {
        b.iter(|| {
            javabin::from_slice::<SelectResponse<Row>>(black_box(&jb)).map(|r| r.docs().len())
        })
    });
    g.bench_function("javabin_tree_then_typed", |b| {
        b.iter(|| {
            javabin::decode(black_box(&jb))
                .ok()
                .and_then(|v| serde_json::from_value::<SelectResponse<Row>>(v).ok())
                .map(|r| r.docs().len())
        })
    });
    g.bench_function("json_into_value", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&json)).map(|v| v.is_object()))
    });
    g.bench_function("javabin_into_value", |b| {
        b.iter(|| javabin::decode(black_box(&jb)).map(|v| v.is_object()))
    });
    g.finish();
    println!(
        "wire bytes of the 100-row response: json {}, javabin {}",
        json.len(),
        jb.len()
    );
}

criterion_group!(benches, decode);
criterion_main!(benches);
