//! Shared by the component examples: the client from `SOLR_URL` (default
//! `http://127.0.0.1:8983/solr`, collection `bench`), a clear exit when Solr is absent, a
//! small catalogue indexed under a tag of its own, and numbered documents for the examples
//! that sort or compute on a number.

#![allow(dead_code)] // each example uses only some of these

use serde::{Deserialize, Serialize};
use solr_client::{Commit, SolrClient};

/// The catalogue's document type.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Book {
    pub id: String,
    pub tag_s: Option<String>,
    pub title: Option<String>,
    pub body: Option<String>,
    pub category: Option<String>,
    pub price: Option<f64>,
    pub popularity: Option<i64>,
    pub suggest_t: Option<String>,
}

/// A client on `SOLR_URL`; exits with status 2 and a clear message when Solr does not
/// answer a ping.
pub async fn client() -> SolrClient {
    let url = std::env::var("SOLR_URL").unwrap_or_else(|_| "http://127.0.0.1:8983/solr".into());
    let client = match SolrClient::builder(&url).collection("bench").build() {
        Ok(c) => c,
        Err(e) => fail(&url, &e),
    };
    if let Err(e) = client.ping().await {
        fail(&url, &e);
    }
    client
}

fn fail(url: &str, e: &solr_client::Error) -> ! {
    eprintln!(
        "no Solr at {url} (collection bench): {e}\n\
         start one with `bash local-solr/solr.sh start standalone` and set SOLR_URL"
    );
    std::process::exit(2)
}

/// Indexes the catalogue (12 books, tag `tag`) and commits; returns the filter query
/// selecting it.
pub async fn catalogue(client: &SolrClient, tag: &str) -> solr_client::Result<String> {
    let topics = [
        "solr search relevance",
        "rust client latency",
        "java virtual machine",
    ];
    let books: Vec<Book> = (0..12)
        .map(|i| Book {
            id: format!("{tag}-{i}"),
            tag_s: Some(tag.to_string()),
            title: Some(format!("{} volume {i}", topics[i % 3])),
            body: Some(format!(
                "a book about {} and more {}",
                topics[i % 3],
                topics[i % 3]
            )),
            category: Some(["search", "systems", "jvm"][i % 3].to_string()),
            price: Some(5.0 + 2.5 * i as f64),
            popularity: Some(10 * i as i64),
            suggest_t: Some(format!("{} volume {i}", topics[i % 3])),
        })
        .collect();
    client.add(&books).await?;
    client.commit(Commit::default()).await?;
    Ok(format!("tag_s:{tag}"))
}

/// Indexes `n` documents `{tag}-{i}` (`i` zero-padded to `width` digits, so ids sort as
/// numbers) with `tag_s` = `tag` and `popularity` = `i`, and commits.
pub async fn numbered(
    client: &SolrClient,
    tag: &str,
    n: usize,
    width: usize,
) -> solr_client::Result<()> {
    let docs: Vec<_> = (0..n)
        .map(|i| serde_json::json!({"id": format!("{tag}-{i:0width$}"), "tag_s": tag, "popularity": i}))
        .collect();
    client.add(&docs).await?;
    client.commit(Commit::default()).await?;
    Ok(())
}
