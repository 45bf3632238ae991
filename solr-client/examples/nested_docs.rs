//! Nested (child) documents: index a parent with labelled children, read the block back
//! with the `[child]` transformer, and find children by their parent. Exits with status 1
//! unless both children come back both ways.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --features javabin --example nested_docs
//! ```
//! Needs `_nest_path_` in the schema (Solr's `_default` has it).

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use serde_json::json;
use solr_client::{Commit, Select, UpdateFormat};

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    // Any update format carries child documents; javabin is SolrJ's own.
    let client = common::connect(common::builder().update_format(UpdateFormat::Javabin)).await;
    client
        .add(&[json!({
            "id": "example-order-1",
            "title_t": "order 1",
            "lines": [
                {"id": "example-order-1-l1", "name_s": "pen", "popularity_i": 2},
                {"id": "example-order-1-l2", "name_s": "ink", "popularity_i": 5},
            ],
        })])
        .await?;
    client.commit(Commit::default()).await?;

    let r = client
        .select(&Select::new("id:example-order-1").fl("id,title_t,lines,name_s,[child]"))
        .await?;
    check::check_eq("parents found", r.docs().len(), 1);
    let parent = serde_json::Value::Object(r.docs()[0].clone());
    println!("parent with children: {parent}");
    let names: Vec<_> = parent["lines"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| l["name_s"].clone())
        .collect();
    check::check_eq(
        "children under lines",
        names,
        vec![json!("pen"), json!("ink")],
    );
    let kids = client
        .select(&Select::new(
            "{!child of=\"*:* -_nest_path_:*\"}id:example-order-1",
        ))
        .await?;
    println!("children found by parent: {}", kids.num_found());
    check::check_eq("children found by parent", kids.num_found(), 2);
    client
        .delete_by_query_with("_root_:example-order-1", Some(1000))
        .await?;
    Ok(())
}
