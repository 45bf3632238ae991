//! The JSON Request API (Solr reference: "JSON Request API"): one search given as a JSON body
//! ([`JsonQuery`], POSTed to `/query`) and the same search as `select` parameters. Exits with
//! status 1 unless both answer the same hits, in the same order, with the same facet, and
//! unless those are the ones the catalogue gives (12 books, 4 per category, price 5 + 2.5 i).
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example json_query
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::check_eq;
use common::Book;
use solr_client::request::{JsonFacet, JsonQuery};
use solr_client::response::FacetNode;
use solr_client::{Select, SelectResponse};

/// What both answers must agree on: hits (id, price), numFound, and the facet's buckets
/// (value, count, summed price).
type Summary = (
    Vec<(String, Option<f64>)>,
    u64,
    Vec<(String, u64, Option<f64>)>,
);

fn summary(r: &SelectResponse<Book>) -> Summary {
    let hits = r.docs().iter().map(|b| (b.id.clone(), b.price)).collect();
    let root: &FacetNode = r.facets.as_ref().expect("the facet is answered");
    let buckets = root
        .buckets("categories")
        .expect("categories")
        .buckets
        .iter()
        .map(|b| {
            let val = b.val.as_ref().map(|v| v.to_string()).unwrap_or_default();
            (val, b.count, b.stat_f64("revenue"))
        })
        .collect();
    (hits, r.num_found(), buckets)
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let tag = "example-json-query";
    let fq = common::catalogue(&client, tag).await?;
    let facet = || JsonFacet::terms("category_s").facet("revenue", JsonFacet::stat("sum(price_f)"));

    let json = JsonQuery::new("*:*")
        .filter(fq.as_str())
        .filter("price_f:[10 TO *]")
        .fields(&["id", "price_f"])
        .sort("price_f desc")
        .offset(1)
        .limit(3)
        .facet("categories", facet());
    let by_json = client.query_json::<Book>(&json).await?;

    let select = Select::new("*:*")
        .fq(&fq)
        .fq("price_f:[10 TO *]")
        .fl("id,price_f")
        .sort("price_f desc")
        .start(1)
        .rows(3)
        .json_facet("categories", facet());
    let by_select = client.select_as::<Book>(&select).await?;

    let (json_sum, select_sum) = (summary(&by_json), summary(&by_select));
    println!("JSON Request API: {json_sum:?}");
    println!("select:           {select_sum:?}");
    check_eq("the JSON query against select", &json_sum, &select_sum);
    // Books 2..=11 cost 10 or more; by price descending, skipping the first: 10, 9, 8.
    let want_hits: Vec<_> = [10, 9, 8]
        .iter()
        .map(|i| (format!("{tag}-{i}"), Some(5.0 + 2.5 * *i as f64)))
        .collect();
    check_eq("hits", &json_sum.0, &want_hits);
    check_eq("numFound", json_sum.1, 10);
    let mut counts: Vec<_> = json_sum
        .2
        .iter()
        .map(|(v, c, _)| (v.as_str(), *c))
        .collect();
    counts.sort();
    check_eq(
        "bucket counts",
        counts,
        vec![("jvm", 4), ("search", 3), ("systems", 3)],
    );
    Ok(())
}
