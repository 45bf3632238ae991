//! `cursor_as::<T>` beside the hand-written loop a user would write instead (`select_as::<T>`
//! with `cursorMark`, 12 lines), over the same typed documents of a live Solr: wall time,
//! CPU time of the client (its one runtime thread) and peak RSS growth per run, interleaved
//! rounds, medians.
//! Both must read every document exactly once (exit status 1 otherwise).
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo bench -p solr-client --bench cursor_typed
//! ```
//!
//! `DOCS` (default 20000), `ROUNDS` (default 5) and `PAGE` (rows per request, default 1000)
//! tune it. Without `SOLR_URL` it says so and does nothing. Peak RSS is reset before each run
//! through `/proc/self/clear_refs` (Linux).

use std::time::Instant;

use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use solr_client::{Commit, Select, SolrClient};

#[derive(Debug, Serialize, Deserialize)]
struct Book {
    id: String,
    tag_s: String,
    title: String,
    category: String,
    price: f64,
    popularity: i64,
}

/// One run's figures: documents read, sum of their prices (both paths must agree), wall
/// seconds, CPU seconds, peak RSS growth in bytes.
#[derive(Debug, Clone, Copy)]
struct Run {
    docs: usize,
    price_sum: f64,
    wall_s: f64,
    cpu_s: f64,
    rss_growth: u64,
}

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `VmRSS` or `VmHWM` of this process, in bytes.
fn status_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0)
        * 1024
}

/// CPU seconds of this thread, in nanoseconds from `/proc/thread-self/schedstat`: the
/// runtime is current-thread, so every bit of the client's work runs on it.
fn cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = s
        .split_whitespace()
        .next()
        .and_then(|v| v.parse::<f64>().ok());
    ns.unwrap_or(0.0) / 1e9
}

async fn measure<F, Fut>(f: F) -> Run
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = solr_client::Result<(usize, f64)>>,
{
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss0 = status_kib("VmRSS:");
    let (t0, c0) = (Instant::now(), cpu_s());
    let (docs, price_sum) = f().await.unwrap_or_else(|e| {
        eprintln!("run failed: {e}");
        std::process::exit(1)
    });
    Run {
        docs,
        price_sum,
        wall_s: t0.elapsed().as_secs_f64(),
        cpu_s: cpu_s() - c0,
        rss_growth: status_kib("VmHWM:").saturating_sub(rss0),
    }
}

/// The typed cursor.
async fn by_cursor(
    client: &SolrClient,
    base: Select,
    page: u64,
) -> solr_client::Result<(usize, f64)> {
    let mut docs = std::pin::pin!(client.cursor_as::<Book>(base, page));
    let (mut n, mut sum) = (0, 0.0);
    while let Some(b) = docs.try_next().await? {
        n += 1;
        sum += b.price;
    }
    Ok((n, sum))
}

/// The hand-written loop.
async fn by_loop(client: &SolrClient, base: Select) -> solr_client::Result<(usize, f64)> {
    let (mut n, mut sum, mut mark) = (0, 0.0, "*".to_string());
    loop {
        let r = client
            .select_as::<Book>(&base.clone().param("cursorMark", mark.clone()))
            .await?;
        let next = r.next_cursor_mark.clone().unwrap_or_default();
        for b in r.into_docs() {
            n += 1;
            sum += b.price;
        }
        if next == mark || next.is_empty() {
            return Ok((n, sum));
        }
        mark = next;
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn summary(name: &str, runs: &[Run]) -> (f64, f64, f64) {
    let wall = median(runs.iter().map(|r| r.wall_s).collect());
    let cpu = median(runs.iter().map(|r| r.cpu_s).collect());
    let rss = median(runs.iter().map(|r| r.rss_growth as f64).collect()) / 1_048_576.0;
    println!("{name:<22} {wall:>9.3} {cpu:>9.3} {rss:>11.2}");
    (wall, cpu, rss)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("SOLR_URL") else {
        println!("cursor_typed: set SOLR_URL to a Solr with the project's `bench` collection");
        return;
    };
    let (n, rounds, page) = (
        env_num("DOCS", 20_000),
        env_num("ROUNDS", 5),
        env_num("PAGE", 1000),
    );
    let client = SolrClient::builder(&url)
        .collection("bench")
        .build()
        .expect("client");
    let tag = format!("cursor-bench-{}", std::process::id());
    let books: Vec<Book> = (0..n)
        .map(|i| Book {
            id: format!("{tag}-{i:07}"),
            tag_s: tag.clone(),
            title: format!("volume {i} of the cursor bench"),
            category: ["search", "systems", "jvm"][i % 3].into(),
            price: (i % 100) as f64 + 0.5,
            popularity: i as i64,
        })
        .collect();
    for chunk in books.chunks(5000) {
        client.add(chunk).await.expect("add");
    }
    client.commit(Commit::default()).await.expect("commit");
    let want_sum: f64 = books.iter().map(|b| b.price).sum();
    drop(books);
    let base = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .fl("id,tag_s,title,category,price,popularity")
        .sort("id asc")
        .rows(page as u64);
    // One untimed run of each: connections, Solr's caches.
    by_cursor(&client, base.clone(), page as u64)
        .await
        .expect("warm-up");
    by_loop(&client, base.clone()).await.expect("warm-up");
    let (mut cursor, mut hand) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let c = || by_cursor(&client, base.clone(), page as u64);
        let h = || by_loop(&client, base.clone());
        if round % 2 == 0 {
            cursor.push(measure(c).await);
            hand.push(measure(h).await);
        } else {
            hand.push(measure(h).await);
            cursor.push(measure(c).await);
        }
    }
    client
        .delete_by_query(&format!("tag_s:{tag}"))
        .await
        .expect("clean up");
    client.commit(Commit::default()).await.expect("commit");
    for r in cursor.iter().chain(&hand) {
        if r.docs != n || (r.price_sum - want_sum).abs() > 1e-6 {
            eprintln!("wrong answer: {r:?}, expected {n} documents summing {want_sum}");
            std::process::exit(1);
        }
    }
    println!("{n} documents, {page} per page, {rounds} interleaved rounds, medians");
    println!(
        "{:<22} {:>9} {:>9} {:>11}",
        "path", "wall s", "CPU s", "RSS +MiB"
    );
    let (cw, cc, cr) = summary("cursor_as::<T>", &cursor);
    let (hw, hc, hr) = summary("select_as loop", &hand);
    println!(
        "cursor_as / loop: wall x{:.2}, CPU x{:.2}, RSS growth {:+.1} MiB",
        cw / hw,
        cc / hc.max(1e-6),
        cr - hr
    );
}
