//! `/export` as a typed stream: every document of a filter, sorted, decoded into a struct as
//! it arrives (memory: one read buffer and one document, whatever the number of documents).
//! Then a sort on a field without docValues, which Solr refuses: a typed error with its
//! message. Exits with status 1 when an answer differs from what was indexed.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example export
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::{check, check_eq};
use futures::TryStreamExt;
use serde::Deserialize;
use solr_client::{Error, Export};

#[derive(Debug, Deserialize)]
struct Row {
    id: String,
    popularity: i64,
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let tag = "example-export";
    common::numbered(&client, tag, 2_000, 4).await?;

    let export = Export::new(format!("tag_s:{tag}"))
        .fl("id,popularity")
        .sort("popularity desc");
    let mut rows = client.export_as::<Row>(&export).await?;
    let (mut n, mut first, mut last) = (0, None, None);
    while let Some(row) = rows.try_next().await? {
        if first.is_none() {
            first = Some((row.id.clone(), row.popularity));
        }
        last = Some((row.id, row.popularity));
        n += 1;
    }
    println!("exported {n} rows; first {first:?}, last {last:?}");
    check_eq("rows exported", n, 2_000);
    check_eq(
        "first row",
        first,
        Some(("example-export-1999".into(), 1999)),
    );
    check_eq("last row", last, Some(("example-export-0000".into(), 0)));

    let refused = client
        .export_as::<Row>(&Export::new("*:*").sort("title asc"))
        .await;
    match refused {
        Err(Error::Solr { status, body, .. }) => {
            println!("sort on title: Solr {status}: {}", body.msg);
            check(
                body.msg.contains("docValues"),
                "Solr's message names docValues",
            );
        }
        other => check(false, &format!("a typed Solr error, got {other:?}")),
    }
    Ok(())
}
