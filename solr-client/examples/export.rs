//! `/export` as a typed stream: every document of a filter, sorted, decoded into a struct as
//! it arrives (memory: one read buffer and one document, whatever the number of documents).
//! Then a field without docValues in `fl`, which Solr refuses: a typed error with its
//! message. Exits with status 1 when an answer differs from what was indexed.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example export
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::{check, check_eq};
use futures::TryStreamExt;
use serde::Deserialize;
use serde_json::json;
use solr_client::{Commit, Error, Export};

#[derive(Debug, Deserialize)]
struct Row {
    id: String,
    #[serde(rename = "popularity_i")]
    popularity: i64,
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let tag = "example-export";
    common::numbered(&client, tag, 2_000, 4).await?;

    let export = Export::new(format!("tag_s:{tag}"))
        .fl("id,popularity_i")
        .sort("popularity_i desc");
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

    // title_t is text, without docValues: /export cannot return it. Solr says so in its
    // first tuple (once the index has the field), which the stream yields as a typed error.
    let text = "example-export-text";
    client
        .add(&[json!({"id": text, "title_t": "a text field"})])
        .await?;
    client.commit(Commit::default()).await?;
    let refused = async {
        let export = Export::new(format!("id:{text}"))
            .fl("id,title_t")
            .sort("id asc");
        client.export_as::<Row>(&export).await?.try_next().await
    }
    .await;
    match refused {
        Err(Error::Solr { status, body, .. }) => {
            println!("title_t in fl: Solr {status}: {}", body.msg);
            check(
                body.msg.to_lowercase().contains("docvalues"),
                "Solr's message names docValues",
            );
        }
        other => check(false, &format!("a typed Solr error, got {other:?}")),
    }
    Ok(())
}
