//! MoreLikeThis (Solr reference: "MoreLikeThis") into a user type, and the Terms
//! Component (Solr reference: "Terms Component"). Exits with status 1 unless the books like
//! a "solr search relevance" book are about the same and the term `latency` is found.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example mlt
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::{check, check_eq};
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
                .fl("id,title_t")
                .more_like_this(
                    MoreLikeThis::fields(&["body_t"])
                        .min_tf(1)
                        .min_df(1)
                        .count(3),
                ),
        )
        .await?;
    let mut lists = 0;
    for (id, similar) in r.more_like_this.iter().flat_map(|m| m.named()) {
        let titles: Vec<_> = similar.docs.iter().map(|b| (&b.id, &b.title)).collect();
        println!("like {id} ({} in all): {titles:?}", similar.num_found);
        check_eq("books shown like it (count 3)", similar.docs.len(), 3);
        for b in &similar.docs {
            check(
                b.title
                    .as_deref()
                    .is_some_and(|t| t.starts_with("solr search relevance")),
                &format!("{} ({:?}) is about solr search relevance", b.id, b.title),
            );
        }
        lists += 1;
    }
    check_eq("MoreLikeThis lists (one per book found)", lists, 1);

    let r = client
        .select(&Terms::field("title_t").prefix("la").limit(5).to_select())
        .await?;
    let mut latency = None;
    for (field, terms) in r.terms.iter().flat_map(|t| t.named()) {
        for (term, df) in terms.named() {
            println!("{field}: {term} in {df} documents");
            check(
                term.starts_with("la"),
                &format!("term {term:?} has the prefix la"),
            );
            if term == "latency" {
                latency = Some(*df);
            }
        }
    }
    // At least this catalogue's 4 rust books; the core may hold more.
    check(
        latency.is_some_and(|df| df >= 4),
        &format!("latency in at least 4 titles, found {latency:?}"),
    );
    Ok(())
}
