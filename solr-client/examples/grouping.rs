//! Result grouping (Solr reference: "Result Grouping") into a user type, and collapse and
//! expand (Solr reference: "Collapse and Expand Results"). Exits with status 1 when a group
//! or a collapsed head is not the one the catalogue gives (12 books, 4 per category, the
//! cheapest of each category first).
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example grouping
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::check_eq;
use solr_client::request::{Collapse, Expand, Group};
use solr_client::Select;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let fq = common::catalogue(&client, "example-grouping").await?;
    let r = client
        .select_as::<common::Book>(
            &Select::new("*:*")
                .fq(&fq)
                .fl("id,category_s,price_f")
                .group(
                    Group::field("category_s")
                        .and_query("price_f:[0 TO 15]")
                        .limit(2)
                        .sort("price_f asc")
                        .ngroups(true),
                ),
        )
        .await?;
    let grouped = r.grouped.expect("group=true answers grouped");
    let mut seen = Vec::new();
    for (command, result) in grouped.named() {
        seen.push((command.to_string(), result.matches, result.ngroups));
        println!(
            "{command}: {} matches, {:?} groups",
            result.matches, result.ngroups
        );
        for g in result.groups.iter().flatten() {
            let cheapest: Vec<_> = g.doclist.docs.iter().map(|b| (&b.id, b.price)).collect();
            println!(
                "  {}: {} books, cheapest {cheapest:?}",
                g.group_value, g.doclist.num_found
            );
            check_eq("books per category", g.doclist.num_found, 4);
            check_eq("books shown per group (limit 2)", cheapest.len(), 2);
        }
        if let Some(list) = &result.doclist {
            println!("  {} books", list.num_found);
            check_eq("books at price <= 15", list.num_found, 5);
        }
    }
    check_eq(
        "group commands: (name, matches, groups)",
        seen,
        vec![
            ("category_s".to_string(), 12, Some(3)),
            ("price_f:[0 TO 15]".to_string(), 12, None),
        ],
    );

    let r = client
        .select_as::<common::Book>(
            &Select::new("*:*")
                .fq(&fq)
                .fl("id,category_s,price_f")
                .collapse(Collapse::field("category_s").min("price_f"))
                .expand(Expand::new().rows(3).sort("price_f asc")),
        )
        .await?;
    let mut heads = Vec::new();
    for head in r.docs() {
        let more = r
            .expanded
            .as_ref()
            .and_then(|e| e.get(head.category.as_deref().unwrap_or_default()))
            .map_or(0, |l| l.num_found);
        println!(
            "collapsed {:?}: {} at {:?}, {more} more",
            head.category, head.id, head.price
        );
        heads.push((head.id.clone(), head.price, more));
    }
    // The cheapest book of each category heads it; 3 more each are expanded.
    let head = |i: usize, price: f64| (format!("example-grouping-{i}"), Some(price), 3);
    check_eq(
        "collapsed heads (id, price, expanded)",
        heads,
        vec![head(0, 5.0), head(1, 7.5), head(2, 10.0)],
    );
    Ok(())
}
