//! The stats component (Solr reference: "Stats Component"): min, max, sum, count,
//! missing, mean and stddev of a field, overall and per category.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example stats
//! ```

#[path = "common/mod.rs"]
mod common;

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
                .stats(StatsField::new("price").facet("category"))
                .stats(StatsField::new("popularity").only(&["min", "max", "mean"])),
        )
        .await?;
    let stats = r.stats.expect("stats=true answers stats");
    for (field, s) in stats.stats_fields.named() {
        println!(
            "{field}: min {:?} max {:?} count {:?} missing {:?} sum {:?} mean {:?} stddev {:?}",
            s.min, s.max, s.count, s.missing, s.sum, s.mean, s.stddev
        );
        for (facet, values) in s.facets.iter().flat_map(|f| f.named()) {
            for (value, v) in values.named() {
                println!("  {facet}={value}: sum {:?} mean {:?}", v.sum, v.mean);
            }
        }
    }
    Ok(())
}
