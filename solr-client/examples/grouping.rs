//! Result grouping (Solr reference: "Result Grouping") into a user type, and collapse and
//! expand (Solr reference: "Collapse and Expand Results").
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example grouping
//! ```

#[path = "common/mod.rs"]
mod common;

use solr_client::request::{Collapse, Expand, Group};
use solr_client::Select;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let fq = common::catalogue(&client, "example-grouping").await?;
    let r = client
        .select_as::<common::Book>(
            &Select::new("*:*").fq(&fq).fl("id,category,price").group(
                Group::field("category")
                    .and_query("price:[0 TO 15]")
                    .limit(2)
                    .sort("price asc")
                    .ngroups(true),
            ),
        )
        .await?;
    let grouped = r.grouped.expect("group=true answers grouped");
    for (command, result) in grouped.named() {
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
        }
        if let Some(list) = &result.doclist {
            println!("  {} books", list.num_found);
        }
    }

    let r = client
        .select_as::<common::Book>(
            &Select::new("*:*")
                .fq(&fq)
                .fl("id,category,price")
                .collapse(Collapse::field("category").min("price"))
                .expand(Expand::new().rows(3).sort("price asc")),
        )
        .await?;
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
    }
    Ok(())
}
