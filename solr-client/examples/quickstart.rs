//! Index a few documents, search them, and print where the time went.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example quickstart
//! ```
//! The fields are `_default` dynamic fields (`title_t`, `category_s`, `price_f`). `SOLR_CA` names a CA PEM file to trust for https. Exits with status 1 when an answer is
//! not the expected one (5 documents sent, 5 found).

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use serde::Serialize;
use solr_client::{Commit, Select, TlsOptions, TransportKind};

#[derive(Serialize)]
struct Book {
    id: String,
    #[serde(rename = "title_t")]
    title: String,
    #[serde(rename = "category_s")]
    category: String,
    #[serde(rename = "price_f")]
    price: f32,
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let mut tls = TlsOptions::new();
    if let Ok(ca) = std::env::var("SOLR_CA") {
        tls = tls.add_ca_pem_file(ca)?;
    }
    let client = common::connect(
        common::builder()
            .transport(TransportKind::Pooled)
            .gzip(true)
            .tls(tls),
    )
    .await;

    let books: Vec<Book> = (0..5)
        .map(|i| Book {
            id: format!("example-book-{i}"),
            title: format!("Solr in action, volume {i}"),
            category: "books".into(),
            price: 10.0 + i as f32,
        })
        .collect();
    let added = client.add(&books).await?;
    println!(
        "added {} docs (QTime {:?} ms)",
        added.docs_sent, added.header.qtime
    );
    check::check_eq("documents sent", added.docs_sent, books.len());
    client.commit(Commit::default()).await?;

    for i in 0..3 {
        let r = client
            .select(
                &Select::new("title_t:solr")
                    .fq("category_s:books")
                    .fq("id:example-book-*")
                    .rows(5),
            )
            .await?;
        let t = &r.timing;
        println!(
            "search {i}: {} hits | QTime {:?} ms | client total {:?} (connect {:?}, wait {:?}, transfer {:?}, parse {:?}) | connection #{} reused={}",
            r.num_found(),
            r.header.qtime,
            t.total(),
            t.connect,
            t.server_wait,
            t.transfer,
            t.parse,
            t.connection_id,
            t.reused
        );
        check::check_eq("hits", r.num_found(), books.len() as u64);
    }
    let ids: Vec<&str> = books.iter().map(|b| b.id.as_str()).collect();
    client.delete_by_ids(&ids).await?;
    client.commit(Commit::default()).await?;
    Ok(())
}
