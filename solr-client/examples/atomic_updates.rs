//! Atomic updates and optimistic concurrency: change single fields of a stored document,
//! and refuse a stale write with `_version_`. Exits with status 1 when the stored fields
//! are not the updated ones or the stale write is not refused.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example atomic_updates
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use serde_json::{json, Value};
use solr_client::{AtomicUpdate, Error, Get};

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let id = "example-atomic-1";
    client
        .add(&[json!({"id": id, "title_s": "draft", "popularity_i": 1, "tags_ss": ["a", "b"]})])
        .await?;

    // Only the named fields change; real-time get sees it before any commit.
    client
        .add(&[AtomicUpdate::new(id)
            .set("title_s", "published")
            .inc("popularity_i", 10)
            .add_distinct("tags_ss", ["b", "c"])])
        .await?;
    let doc = &client
        .get::<Value>(&Get::new([id]).fl("id,title_s,popularity_i,tags_ss,_version_"))
        .await?
        .docs[0];
    println!("after the update: {doc}");
    check::check_eq(
        "title_s, popularity_i, tags_ss after the update",
        (&doc["title_s"], &doc["popularity_i"], &doc["tags_ss"]),
        (&json!("published"), &json!(11), &json!(["a", "b", "c"])),
    );

    // Optimistic concurrency: the first write with the current version wins, the second
    // (same, now stale, version) is refused.
    let version = doc["_version_"].as_i64().unwrap_or(0);
    let write = AtomicUpdate::new(id)
        .inc("popularity_i", 1)
        .version(version);
    client.add(std::slice::from_ref(&write)).await?;
    match client.add(&[write]).await {
        Err(Error::VersionConflict {
            id,
            expected,
            actual,
            ..
        }) => println!("stale write refused: {id} expected {expected:?}, stored {actual:?}"),
        other => check::check(false, &format!("a stale write is refused, got {other:?}")),
    }
    client.delete_by_ids_with(&[id], Some(1000)).await?;
    Ok(())
}
