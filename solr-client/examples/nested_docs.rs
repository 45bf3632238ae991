//! Nested (child) documents: index a parent with labelled children, read the block back
//! with the `[child]` transformer, and find children by their parent. Exits with status 1
//! unless both children come back both ways.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --features javabin --example nested_docs
//! ```

#[path = "common/check.rs"]
mod check;

use serde_json::json;
use solr_client::{Commit, Select, SolrClient, UpdateFormat};

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let url = std::env::var("SOLR_URL").unwrap_or_else(|_| "http://127.0.0.1:8983/solr".into());
    // Any update format carries child documents; javabin is SolrJ's own.
    let client = SolrClient::builder(&url)
        .collection("bench")
        .update_format(UpdateFormat::Javabin)
        .build()?;
    client
        .add(&[json!({
            "id": "example-order-1",
            "title": "order 1",
            "lines": [
                {"id": "example-order-1-l1", "name_s": "pen", "popularity": 2},
                {"id": "example-order-1-l2", "name_s": "ink", "popularity": 5},
            ],
        })])
        .await?;
    client.commit(Commit::default()).await?;

    let r = client
        .select(&Select::new("id:example-order-1").fl("id,title,lines,name_s,[child]"))
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
