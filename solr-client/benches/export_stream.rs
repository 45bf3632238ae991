//! One `/export` read with `export_as::<T>`, measured from inside this process: documents
//! read, the distinct-id check, wall seconds, docs/s, client CPU seconds and peak RSS growth.
//! `scripts/export-bench.sh` runs it once per round, each in a fresh process, beside SolrJ's
//! `SolrStream` (`ExportStream.java`) and `curl`, and compares.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr COLLECTION=bench TRANSPORT=pooled \
//!   cargo bench -p solr-client --features http2 --bench export_stream
//! ```
//!
//! `TRANSPORT` is `pooled` (the default: the HTTP/1.1 keep-alive pool, client
//! `solr-client-h1`) or `http2` (one HTTP/2 connection, h2c with prior knowledge on a plain
//! http URL, client `solr-client-h2`; needs the `http2` feature). The timed window starts
//! before the client is built, so it holds the client's construction and its first
//! connection, as SolrJ's cold read holds its own.
//!
//! The documents are the ones the script loads: numeric `id`s `0..DOCS`, with `category`,
//! `price` and `popularity` (docValues fields of the bench configset). It prints one line,
//! `EXPORTJSON {...}`: `docs`, `id_sum`, `id_xor` (every id once: the script compares them to
//! `0..numFound`), `wall_s`, `docs_per_s`, `cpu_s` (user+sys of this process, from
//! `/proc/self/stat`), `rss_growth_kib` (`VmHWM` at the end minus `VmRSS` just before the
//! export, after a peak reset through `/proc/self/clear_refs`). Without `SOLR_URL` it says
//! so and does nothing. A failed export, or an unknown `TRANSPORT`, exits with status 1. With
//! `CLOUD=1`, `SOLR_URL` is the seed of a SolrCloud client (`client` is then
//! `solr-client-cloud`, pooled): one `/export` per shard, merged by the sort; its cluster
//! view is loaded before the clock starts.

use std::time::Instant;

use futures::TryStreamExt;
use serde::Deserialize;
use solr_client::{Export, SolrClient, TransportKind};

/// The small struct each tuple is decoded into.
#[derive(Debug, Deserialize)]
struct Row {
    id: String,
    category: Option<String>,
    price: Option<f64>,
    popularity: Option<i64>,
}

/// `VmRSS:` or `VmHWM:` of this process, in KiB.
fn status_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0)
}

/// User+system CPU seconds of this process (every thread), from `/proc/self/stat` (fields 14
/// and 15, in clock ticks of 1/100 s on Linux).
fn cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let rest = s.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

/// Reads the whole export: (documents, sum of ids, xor of ids, a checksum of the other
/// fields so that they are decoded and used).
async fn read_all(client: &SolrClient, export: &Export) -> solr_client::Result<(u64, u64, u64)> {
    let mut rows = client.export_as::<Row>(export).await?;
    let (mut n, mut sum, mut xor) = (0u64, 0u64, 0u64);
    let mut other = 0u64;
    while let Some(r) = rows.try_next().await? {
        // A non-numeric id counts as u64::MAX: the script's sum check then fails.
        let id: u64 = r.id.parse().unwrap_or(u64::MAX);
        n += 1;
        sum = sum.wrapping_add(id);
        xor ^= id;
        other = other
            .wrapping_add(r.category.map_or(0, |c| c.len() as u64))
            .wrapping_add(r.price.map_or(0, |p| p as u64))
            .wrapping_add(r.popularity.unwrap_or(0) as u64);
    }
    std::hint::black_box(other);
    Ok((n, sum, xor))
}

/// The transport `TRANSPORT` names, with the client label it reports.
fn transport() -> (TransportKind, &'static str) {
    match std::env::var("TRANSPORT").as_deref() {
        Err(_) | Ok("pooled") => (TransportKind::Pooled, "solr-client-h1"),
        #[cfg(feature = "http2")]
        Ok("http2") => (TransportKind::Http2, "solr-client-h2"),
        Ok(other) => {
            eprintln!("export_stream: TRANSPORT={other}: expected pooled or http2 (http2 needs the http2 feature)");
            std::process::exit(1)
        }
    }
}

/// The cloud client (`CLOUD=1`) with its cluster view loaded: built before the clock starts.
async fn cloud_client(url: &str, collection: String) -> SolrClient {
    let client = SolrClient::cloud([url])
        .collection(collection)
        .build()
        .expect("client");
    if let Some(router) = client.cloud_router() {
        router.refresh().await.expect("cluster view");
    }
    client
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("SOLR_URL") else {
        println!("export_stream: set SOLR_URL (scripts/export-bench.sh does)");
        return;
    };
    let collection = std::env::var("COLLECTION").unwrap_or_else(|_| "bench".into());
    // CLOUD=1: a SolrCloud client with SOLR_URL as its seed (one export per shard, merged).
    let cloud = std::env::var("CLOUD").is_ok_and(|v| v == "1");
    let (kind, label) = transport();
    let cloud_client = if cloud {
        Some(cloud_client(&url, collection.clone()).await)
    } else {
        None
    };
    let export = Export::new("*:*")
        .fl("id,category,price,popularity")
        .sort("id asc");
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss0 = status_kib("VmRSS:");
    let (t0, c0) = (Instant::now(), cpu_s());
    let (client, label) = match cloud_client {
        Some(c) => (c, "solr-client-cloud"),
        None => {
            let c = SolrClient::builder(&url)
                .collection(collection)
                .transport(kind)
                .build()
                .expect("client");
            (c, label)
        }
    };
    let (docs, id_sum, id_xor) = read_all(&client, &export).await.unwrap_or_else(|e| {
        eprintln!("export failed: {e}");
        std::process::exit(1)
    });
    let wall_s = t0.elapsed().as_secs_f64();
    let cpu = cpu_s() - c0;
    let growth = status_kib("VmHWM:").saturating_sub(rss0);
    println!(
        "EXPORTJSON {{\"client\":\"{label}\",\"docs\":{docs},\"id_sum\":{id_sum},\"id_xor\":{id_xor},\"wall_s\":{wall_s:.4},\"docs_per_s\":{:.0},\"cpu_s\":{cpu:.3},\"rss_growth_kib\":{growth}}}",
        docs as f64 / wall_s.max(1e-9)
    );
}
