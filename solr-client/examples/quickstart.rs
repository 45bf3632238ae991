//! Index a few documents, search them, and print where the time went.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example quickstart
//! ```
//! `SOLR_CA` names a CA PEM file to trust for https. Exits with status 1 when an answer is
//! not the expected one (5 documents sent, 5 found).

#[path = "common/check.rs"]
mod check;

use serde::Serialize;
use solr_client::{Commit, Select, SolrClient, TlsOptions, TransportKind};

#[derive(Serialize)]
struct Book {
    id: String,
    title: String,
    category: String,
    price: f32,
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let url = std::env::var("SOLR_URL").unwrap_or_else(|_| "http://127.0.0.1:8983/solr".into());
    let mut tls = TlsOptions::new();
    if let Ok(ca) = std::env::var("SOLR_CA") {
        tls = tls.add_ca_pem_file(ca)?;
    }
    let client = SolrClient::builder(&url)
        .collection("bench")
        .transport(TransportKind::Pooled)
        .gzip(true)
        .tls(tls)
        .build()?;

    client.ping().await?;
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
                &Select::new("title:solr")
                    .fq("category:books")
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
