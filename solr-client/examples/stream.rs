//! A streaming expression on `/stream`, its tuples decoded into a struct as they arrive;
//! then an expression that fails on its sixth tuple (a division by zero): the five tuples
//! before it come out, then Solr's EXCEPTION as a typed error. Needs SolrCloud (streaming
//! expressions read the cluster state): `SOLR_URL` is a cloud node. Exits with status 1 when
//! an answer differs from what was indexed.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example stream
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::{check, check_eq};
use futures::StreamExt;
use serde::Deserialize;
use solr_client::Error;

#[derive(Debug, Deserialize)]
struct Ratio {
    id: String,
    x: f64,
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let tag = "example-stream";
    common::numbered(&client, tag, 20, 2).await?;

    let search = format!(
        r#"search({},q="tag_s:{tag}",fl="id,popularity_i",sort="id asc",qt="/export")"#,
        common::collection()
    );
    // 100 / (popularity_i - 5): the sixth tuple divides by zero.
    let expr = format!("select({search},id,div(100,sub(popularity_i,5)) as x)");
    let items: Vec<_> = client.stream_as::<Ratio>(&expr).await?.collect().await;
    for item in &items {
        match item {
            Ok(r) => println!("{} x={}", r.id, r.x),
            Err(e) => println!("error: {e}"),
        }
    }
    check_eq("items: five tuples and the error", items.len(), 6);
    // x rounded to 9 decimals: Solr's division and Rust's may differ in the last bit.
    let round = |x: f64| (x * 1e9).round() as i64;
    let ok: Vec<(String, i64)> = items
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|r| (r.id.clone(), round(r.x)))
        .collect();
    let want: Vec<(String, i64)> = (0..5)
        .map(|i| (format!("{tag}-{i:02}"), round(100.0 / (i as f64 - 5.0))))
        .collect();
    check_eq("the tuples before the exception", ok, want);
    match items.last() {
        Some(Err(Error::Solr { body, .. })) => {
            check(body.msg.contains("0 denominator"), "Solr's message")
        }
        other => check(
            false,
            &format!("Solr's EXCEPTION as Error::Solr, got {other:?}"),
        ),
    }
    Ok(())
}
