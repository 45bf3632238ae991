//! The JSON Facet API (Solr reference: "JSON Facet API"): a terms facet with stats and a
//! nested terms facet per bucket, a range facet, a query facet and a domain change.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example json_facets
//! ```

#[path = "common/mod.rs"]
mod common;

use solr_client::request::{Domain, JsonFacet};
use solr_client::Select;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let fq = common::catalogue(&client, "example-json-facets").await?;
    let r = client
        .select(
            &Select::new("*:*")
                .fq(&fq)
                .fq_tagged("cheap", "price:[0 TO 20]")
                .rows(0)
                .json_facet(
                    "categories",
                    JsonFacet::terms("category")
                        .limit(10)
                        .facet("revenue", JsonFacet::stat("sum(price)"))
                        .facet("avg_price", JsonFacet::stat("avg(price)"))
                        .facet(
                            "top",
                            JsonFacet::terms("popularity").limit(2).sort("index desc"),
                        ),
                )
                .json_facet("prices", JsonFacet::range("price", 0, 40, 10))
                .json_facet("popular", JsonFacet::query("popularity:[50 TO *]"))
                .json_facet(
                    "all_categories",
                    JsonFacet::terms("category").domain(Domain::new().exclude_tags("cheap")),
                ),
        )
        .await?;
    let root = r.facets.expect("json.facet answers facets");
    println!("documents: {}", root.count);
    for b in &root.buckets("categories").expect("categories").buckets {
        println!(
            "{:?}: {} books, revenue {:?}, avg {:?}, top popularity {:?}",
            b.val,
            b.count,
            b.stat_f64("revenue"),
            b.stat_f64("avg_price"),
            b.buckets("top")
                .map(|t| t.buckets.iter().map(|x| x.val.clone()).collect::<Vec<_>>())
        );
    }
    for b in &root.buckets("prices").expect("prices").buckets {
        println!("price from {:?}: {}", b.val, b.count);
    }
    println!("popular: {:?}", root.query("popular").map(|q| q.count));
    for b in &root.buckets("all_categories").expect("all").buckets {
        println!("without the price filter, {:?}: {}", b.val, b.count);
    }
    Ok(())
}
