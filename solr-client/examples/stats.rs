//! The stats component (Solr reference: "Stats Component"): min, max, sum, count,
//! missing, mean and stddev of a field, overall and per category. Exits with status 1 when
//! a figure differs from the catalogue's (12 books, price 5 + 2.5 i, popularity 10 i).
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example stats
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::check_eq;
use solr_client::request::StatsField;
use solr_client::Select;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let fq = common::catalogue(&client, "example-stats").await?;
    let r = client
        .select(
            &Select::new("*:*")
                .fq(&fq)
                .rows(0)
                .stats(StatsField::new("price_f").facet("category_s"))
                .stats(StatsField::new("popularity_i").only(&["min", "max", "mean"])),
        )
        .await?;
    let stats = r.stats.expect("stats=true answers stats");
    let mut sums = Vec::new();
    for (field, s) in stats.stats_fields.named() {
        println!(
            "{field}: min {:?} max {:?} count {:?} missing {:?} sum {:?} mean {:?} stddev {:?}",
            s.min, s.max, s.count, s.missing, s.sum, s.mean, s.stddev
        );
        for (facet, values) in s.facets.iter().flat_map(|f| f.named()) {
            for (value, v) in values.named() {
                println!("  {facet}={value}: sum {:?} mean {:?}", v.sum, v.mean);
                sums.push((value.to_string(), v.sum));
            }
        }
    }
    let price = stats.stats_fields.get("price_f");
    check_eq(
        "price (count, missing, sum, mean)",
        price.map(|s| (s.count, s.missing, s.sum, s.mean)),
        Some((Some(12), Some(0), Some(225.0), Some(18.75))),
    );
    let minmax = |s: &solr_client::response::FieldStats| (s.min.clone(), s.max.clone());
    check_eq(
        "price min, max",
        price.map(minmax),
        Some((Some(5.0.into()), Some(32.5.into()))),
    );
    let sum = |c: &str, s: f64| (c.to_string(), Some(s));
    check_eq(
        "price sum per category",
        sums,
        vec![sum("jvm", 85.0), sum("search", 65.0), sum("systems", 75.0)],
    );
    let pop = stats.stats_fields.get("popularity_i");
    check_eq(
        "popularity min, max (only min, max and mean asked for)",
        pop.map(minmax),
        Some((Some(0.0.into()), Some(110.0.into()))),
    );
    check_eq("popularity mean", pop.and_then(|s| s.mean), Some(55.0));
    check_eq(
        "popularity count (not asked for)",
        pop.map(|s| s.count),
        Some(None),
    );
    Ok(())
}
