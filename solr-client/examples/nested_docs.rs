//! Nested (child) documents: index a parent with labelled children, read the block back
//! with the `[child]` transformer, and find children by their parent.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example nested_docs
//! ```

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
    println!(
        "parent with children: {}",
        serde_json::Value::Object(r.docs()[0].clone())
    );
    let kids = client
        .select(&Select::new(
            "{!child of=\"*:* -_nest_path_:*\"}id:example-order-1",
        ))
        .await?;
    println!("children found by parent: {}", kids.num_found());
    client
        .delete_by_query_with("_root_:example-order-1", Some(1000))
        .await?;
    Ok(())
}
