//! MoreLikeThis (Solr reference: "MoreLikeThis") into a user type, and the Terms
//! Component (Solr reference: "Terms Component").
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example mlt
//! ```

#[path = "common/mod.rs"]
mod common;

use solr_client::request::{MoreLikeThis, Terms};
use solr_client::Select;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let fq = common::catalogue(&client, "example-mlt").await?;
    let r = client
        .select_as::<common::Book>(
            &Select::new("id:\"example-mlt-0\"")
                .fq(&fq)
                .fl("id,title")
                .more_like_this(MoreLikeThis::fields(&["body"]).min_tf(1).min_df(1).count(3)),
        )
        .await?;
    for (id, similar) in r.more_like_this.iter().flat_map(|m| m.named()) {
        let titles: Vec<_> = similar.docs.iter().map(|b| (&b.id, &b.title)).collect();
        println!("like {id} ({} in all): {titles:?}", similar.num_found);
    }

    let r = client
        .select(&Terms::field("title").prefix("la").limit(5).to_select())
        .await?;
    for (field, terms) in r.terms.iter().flat_map(|t| t.named()) {
        for (term, df) in terms.named() {
            println!("{field}: {term} in {df} documents");
        }
    }
    Ok(())
}
