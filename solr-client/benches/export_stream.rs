//! One `/export` read with `export_as::<T>` (the pooled transport, the default), measured
//! from inside this process: documents read, the distinct-id check, wall seconds, docs/s,
//! client CPU seconds and peak RSS growth. `scripts/export-bench.sh` runs it once per round,
//! each in a fresh process, beside SolrJ's `SolrStream` (`ExportStream.java`), and compares.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr COLLECTION=bench cargo bench -p solr-client --bench export_stream
//! ```
//!
//! The documents are the ones the script loads: numeric `id`s `0..DOCS`, with `category`,
//! `price` and `popularity` (docValues fields of the bench configset). It prints one line,
//! `EXPORTJSON {...}`: `docs`, `id_sum`, `id_xor` (every id once: the script compares them to
//! `0..numFound`), `wall_s`, `docs_per_s`, `cpu_s` (user+sys of this process, from
//! `/proc/self/stat`), `rss_growth_kib` (`VmHWM` at the end minus `VmRSS` just before the
//! export, after a peak reset through `/proc/self/clear_refs`). Without `SOLR_URL` it says
//! so and does nothing. A failed export exits with status 1. With `CLOUD=1`, `SOLR_URL` is
//! the seed of a SolrCloud client (`client` is then `solr-client-cloud`): one `/export` per
//! shard, merged by the sort; its cluster view is loaded before the clock starts.

use std::time::Instant;

use futures::TryStreamExt;
use serde::Deserialize;
use solr_client::{Export, SolrClient};

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

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("SOLR_URL") else {
        println!("export_stream: set SOLR_URL (scripts/export-bench.sh does)");
        return;
    };
    let collection = std::env::var("COLLECTION").unwrap_or_else(|_| "bench".into());
    // CLOUD=1: a SolrCloud client with SOLR_URL as its seed (one export per shard, merged).
    let cloud = std::env::var("CLOUD").is_ok_and(|v| v == "1");
    let client = if cloud {
        SolrClient::cloud([url.as_str()])
            .collection(collection)
            .build()
    } else {
        SolrClient::builder(&url).collection(collection).build()
    }
    .expect("client");
    if let Some(router) = client.cloud_router() {
        // The cluster view is loaded before the clock starts (a one-time cost).
        router.refresh().await.expect("cluster view");
    }
    let label = if cloud {
        "solr-client-cloud"
    } else {
        "solr-client"
    };
    let export = Export::new("*:*")
        .fl("id,category,price,popularity")
        .sort("id asc");
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss0 = status_kib("VmRSS:");
    let (t0, c0) = (Instant::now(), cpu_s());
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
