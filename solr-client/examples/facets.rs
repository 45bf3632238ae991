//! Classic faceting (Solr reference: "Faceting"): field, query, range, pivot and interval
//! facets, and a multi-select facet that leaves a tagged filter out. Exits with status 1
//! when a count differs from the one the catalogue (12 books, 4 per category) gives.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example facets
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::check_eq;
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
                .fq_tagged("cat", "category_s:search")
                .rows(0)
                .facet(
                    Facet::field("category_s")
                        .exclude("cat")
                        .mincount(1)
                        .limit(10),
                )
                .facet(Facet::query("price_f:[0 TO 20]"))
                .facet(Facet::range("price_f", 0, 40, 10).other(RangeOther::All))
                .facet(Facet::pivot(&["category_s", "popularity_i"]).limit(2))
                .facet(Facet::interval("popularity_i", &["[0,50)", "[50,*]"])),
        )
        .await?;
    let hits = r.response.map_or(0, |d| d.num_found);
    let fc = r.facet_counts.expect("facet=true answers facet_counts");
    println!("hits (category:search only): {hits}");
    check_eq("hits (category:search)", hits, 4);
    let mut categories = Vec::new();
    for (value, n) in fc.field("category_s").into_iter().flat_map(|l| l.iter()) {
        println!("category {value:?}: {n} (filter excluded)");
        categories.push((value.map(str::to_string), *n));
    }
    let four = |c: &str| (Some(c.to_string()), 4);
    check_eq(
        "category counts, the tagged filter excluded",
        categories,
        vec![four("jvm"), four("search"), four("systems")],
    );
    println!("price <= 20: {:?}", fc.query("price_f:[0 TO 20]"));
    check_eq(
        "search books at price <= 20",
        fc.query("price_f:[0 TO 20]"),
        Some(3),
    );
    let mut ranges = Vec::new();
    if let Some(range) = fc.facet_ranges.get("price_f") {
        for (from, n) in range.counts.iter() {
            println!("price from {from:?}: {n}");
            ranges.push(*n);
        }
    }
    // Search books cost 5, 12.5, 20 and 27.5.
    check_eq("price ranges of 10 from 0", ranges, vec![1, 1, 2, 0]);
    let mut pivots = Vec::new();
    for p in fc
        .facet_pivot
        .get("category_s,popularity_i")
        .into_iter()
        .flatten()
    {
        let below = p.pivot.as_ref().map_or(0, Vec::len);
        println!(
            "pivot {} = {}: {} ({below} below)",
            p.field, p.value, p.count
        );
        pivots.push((p.value.to_string(), p.count, below));
    }
    check_eq(
        "pivot category_s,popularity_i (limit 2)",
        pivots,
        vec![("search".to_string(), 4, 2)],
    );
    Ok(())
}
