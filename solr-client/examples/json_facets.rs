//! The JSON Facet API (Solr reference: "JSON Facet API"): a terms facet with stats and a
//! nested terms facet per bucket, a range facet, a query facet and a domain change. Exits
//! with status 1 when a count or sum differs from the one the catalogue gives (12 books,
//! 4 per category, price 5 + 2.5 i, popularity 10 i).
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example json_facets
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::check_eq;
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
                .fq_tagged("cheap", "price_f:[0 TO 20]")
                .rows(0)
                .json_facet(
                    "categories",
                    JsonFacet::terms("category_s")
                        .limit(10)
                        .facet("revenue", JsonFacet::stat("sum(price_f)"))
                        .facet("avg_price", JsonFacet::stat("avg(price_f)"))
                        .facet(
                            "top",
                            JsonFacet::terms("popularity_i").limit(2).sort("index desc"),
                        ),
                )
                .json_facet("prices", JsonFacet::range("price_f", 0, 40, 10))
                .json_facet("popular", JsonFacet::query("popularity_i:[50 TO *]"))
                .json_facet(
                    "all_categories",
                    JsonFacet::terms("category_s").domain(Domain::new().exclude_tags("cheap")),
                ),
        )
        .await?;
    let root = r.facets.expect("json.facet answers facets");
    println!("documents: {}", root.count);
    check_eq("books at price <= 20", root.count, 7);
    let mut categories = Vec::new();
    for b in &root.buckets("categories").expect("categories").buckets {
        categories.push((b.val.clone(), b.count, b.stat_f64("revenue")));
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
    let cat = |c: &str, n: u64, sum: f64| (Some(c.into()), n, Some(sum));
    check_eq(
        "books and revenue per category at price <= 20",
        categories,
        vec![
            cat("search", 3, 37.5),
            cat("jvm", 2, 27.5),
            cat("systems", 2, 22.5),
        ],
    );
    let mut prices = Vec::new();
    for b in &root.buckets("prices").expect("prices").buckets {
        println!("price from {:?}: {}", b.val, b.count);
        prices.push(b.count);
    }
    check_eq("price ranges of 10 from 0", prices, vec![2, 4, 1, 0]);
    let popular = root.query("popular").map(|q| q.count);
    println!("popular: {popular:?}");
    check_eq("popularity >= 50 at price <= 20", popular, Some(2));
    let mut all = Vec::new();
    for b in &root.buckets("all_categories").expect("all").buckets {
        println!("without the price filter, {:?}: {}", b.val, b.count);
        all.push(b.count);
    }
    check_eq(
        "books per category, the price filter excluded",
        all,
        vec![4, 4, 4],
    );
    Ok(())
}
