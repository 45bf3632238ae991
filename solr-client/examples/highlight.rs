//! Highlighting (Solr reference: "Highlighting") with the unified highlighter and
//! per-field options, over an eDisMax query (Solr reference: "The Extended DisMax Query
//! Parser") with qf, pf, mm and a boost. Exits with status 1 unless the 4 books about rust
//! come back, most popular first, each with both words marked in its title.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example highlight
//! ```

#[path = "common/check.rs"]
mod check;
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
                .fl("id,title_t")
                .def_type(DefType::Edismax(
                    Dismax::new()
                        .qf("title_t^2 body_t")
                        .pf("title_t")
                        .mm("1")
                        .boost("sum(popularity_i,1)"),
                ))
                .highlight(
                    Highlight::fields(["title_t", "body_t"])
                        .tags("**", "**")
                        .field_snippets("body_t", 2)
                        .field_fragsize("body_t", 40),
                ),
        )
        .await?;
    let hl = r
        .highlighting
        .as_ref()
        .expect("hl=true answers highlighting");
    let mut ids = Vec::new();
    for book in r.docs() {
        println!("{} {:?}", book.id, book.title);
        if let Some(fields) = hl.get(&book.id) {
            for (field, snippets) in fields.named() {
                println!("  {field}: {snippets:?}");
            }
        }
        let title = hl.get(&book.id).and_then(|f| f.get("title_t"));
        check::check(
            title.is_some_and(|s| s.iter().any(|t| t.contains("**rust** client **latency**"))),
            &format!("{}: both words marked in the title snippet", book.id),
        );
        ids.push(book.id.clone());
    }
    // Rust books are 1, 4, 7 and 10; the boost (popularity 10 i) puts 10 first.
    let want: Vec<String> = [10, 7, 4, 1]
        .map(|i| format!("example-highlight-{i}"))
        .into();
    check::check_eq("books found, in boosted order", ids, want);
    Ok(())
}
