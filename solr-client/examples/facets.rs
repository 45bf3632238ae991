//! Classic faceting (Solr reference: "Faceting"): field, query, range, pivot and interval
//! facets, and a multi-select facet that leaves a tagged filter out.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example facets
//! ```

#[path = "common/mod.rs"]
mod common;

use solr_client::request::{Facet, RangeOther};
use solr_client::Select;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let fq = common::catalogue(&client, "example-facets").await?;
    let r = client
        .select(
            &Select::new("*:*")
                .fq(&fq)
                .fq_tagged("cat", "category:search")
                .rows(0)
                .facet(
                    Facet::field("category")
                        .exclude("cat")
                        .mincount(1)
                        .limit(10),
                )
                .facet(Facet::query("price:[0 TO 20]"))
                .facet(Facet::range("price", 0, 40, 10).other(RangeOther::All))
                .facet(Facet::pivot(&["category", "popularity"]).limit(2))
                .facet(Facet::interval("popularity", &["[0,50)", "[50,*]"])),
        )
        .await?;
    let fc = r.facet_counts.expect("facet=true answers facet_counts");
    println!(
        "hits (category:search only): {}",
        r.response.map_or(0, |d| d.num_found)
    );
    for (value, n) in fc.field("category").into_iter().flat_map(|l| l.iter()) {
        println!("category {value:?}: {n} (filter excluded)");
    }
    println!("price <= 20: {:?}", fc.query("price:[0 TO 20]"));
    if let Some(range) = fc.facet_ranges.get("price") {
        for (from, n) in range.counts.iter() {
            println!("price from {from:?}: {n}");
        }
    }
    for p in fc
        .facet_pivot
        .get("category,popularity")
        .into_iter()
        .flatten()
    {
        println!(
            "pivot {} = {}: {} ({} below)",
            p.field,
            p.value,
            p.count,
            p.pivot.as_ref().map_or(0, Vec::len)
        );
    }
    Ok(())
}
