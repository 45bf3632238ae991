//! Highlighting (Solr reference: "Highlighting") with the unified highlighter and
//! per-field options, over an eDisMax query (Solr reference: "The Extended DisMax Query
//! Parser") with qf, pf, mm and a boost.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example highlight
//! ```

#[path = "common/mod.rs"]
mod common;

use solr_client::request::{DefType, Dismax, Highlight};
use solr_client::Select;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let fq = common::catalogue(&client, "example-highlight").await?;
    let r = client
        .select_as::<common::Book>(
            &Select::new("rust latency")
                .fq(&fq)
                .fl("id,title")
                .def_type(DefType::Edismax(
                    Dismax::new()
                        .qf("title^2 body")
                        .pf("title")
                        .mm("1")
                        .boost("sum(popularity,1)"),
                ))
                .highlight(
                    Highlight::fields(["title", "body"])
                        .tags("**", "**")
                        .field_snippets("body", 2)
                        .field_fragsize("body", 40),
                ),
        )
        .await?;
    let hl = r
        .highlighting
        .as_ref()
        .expect("hl=true answers highlighting");
    for book in r.docs() {
        println!("{} {:?}", book.id, book.title);
        if let Some(fields) = hl.get(&book.id) {
            for (field, snippets) in fields.named() {
                println!("  {field}: {snippets:?}");
            }
        }
    }
    Ok(())
}
