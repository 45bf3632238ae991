//! Shared by the examples: where Solr is (`SOLR_URL`, default `http://127.0.0.1:8983/solr`)
//! and which collection or core to use (`SOLR_COLLECTION`, default `gettingstarted`, the
//! collection Solr's own `bin/solr start -e schemaless` makes), a clear exit when Solr is
//! absent, a small catalogue indexed under a tag of its own, and numbered documents for the
//! examples that sort or compute on a number.
//!
//! Every field an example writes is one of the dynamic fields of Solr's `_default` configset
//! (`*_s` string, `*_t` text_general, `*_i` pint, `*_f` pfloat, `*_d` pdouble, `*_ss`,
//! `*_dt`...), so the examples run on any collection made from `_default`, schemaless or not
//! (`update.autoCreateFields=false`). [`connect`] checks those patterns exist before anything
//! is written.

#![allow(dead_code)] // each example uses only some of these

use serde::{Deserialize, Serialize};
use solr_client::{Commit, SolrClient, SolrClientBuilder};

/// `SOLR_URL`'s default.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8983/solr";
/// `SOLR_COLLECTION`'s default.
pub const DEFAULT_COLLECTION: &str = "gettingstarted";
/// The `_default` dynamic fields the examples write.
const DYNAMIC_FIELDS: [&str; 7] = ["*_s", "*_ss", "*_t", "*_i", "*_d", "*_f", "*_dt"];

/// `SOLR_URL`, or [`DEFAULT_URL`].
pub fn solr_url() -> String {
    std::env::var("SOLR_URL").unwrap_or_else(|_| DEFAULT_URL.into())
}

/// `SOLR_COLLECTION`, or [`DEFAULT_COLLECTION`].
pub fn collection() -> String {
    std::env::var("SOLR_COLLECTION").unwrap_or_else(|_| DEFAULT_COLLECTION.into())
}

/// A builder on [`solr_url`] and [`collection`], for the examples that set more options.
pub fn builder() -> SolrClientBuilder {
    SolrClient::builder(solr_url()).collection(collection())
}

/// Builds `builder`; exits with status 2 and a clear message when Solr does not answer a
/// ping on the collection, or when the collection lacks a `_default` dynamic field the
/// examples write.
pub async fn connect(builder: SolrClientBuilder) -> SolrClient {
    let client = match builder.build() {
        Ok(c) => c,
        Err(e) => unusable("no Solr at", &e.to_string()),
    };
    if let Err(e) = client.ping().await {
        unusable("no Solr at", &e.to_string());
    }
    let missing: Vec<_> = match client.schema().dynamic_fields().await {
        Ok(list) => DYNAMIC_FIELDS
            .into_iter()
            .filter(|p| list.get(p).is_none())
            .collect(),
        Err(e) => unusable("no Schema API at", &e.to_string()),
    };
    if !missing.is_empty() {
        let why = format!("no dynamic field {missing:?}: make it from the _default configset");
        unusable("not a _default-style collection at", &why);
    }
    client
}

/// [`connect`] on [`builder`].
pub async fn client() -> SolrClient {
    connect(builder()).await
}

fn unusable(what: &str, why: &str) -> ! {
    eprintln!(
        "{what} {} (collection {}): {why}\n\
         set SOLR_URL and SOLR_COLLECTION, or start one with \
         `bash local-solr/solr.sh start standalone --configset default` \
         (then SOLR_COLLECTION=default)",
        solr_url(),
        collection()
    );
    std::process::exit(2)
}

/// The catalogue's document type: the Rust names, stored in `_default` dynamic fields.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Book {
    pub id: String,
    pub tag_s: Option<String>,
    #[serde(rename = "title_t")]
    pub title: Option<String>,
    #[serde(rename = "body_t")]
    pub body: Option<String>,
    #[serde(rename = "category_s")]
    pub category: Option<String>,
    #[serde(rename = "price_f")]
    pub price: Option<f64>,
    #[serde(rename = "popularity_i")]
    pub popularity: Option<i64>,
}

/// Indexes the catalogue (12 books, tag `tag`: title and body about one of 3 topics,
/// category `search`, `systems` or `jvm` in turn, price 5 + 2.5 i, popularity 10 i) and
/// commits; returns the filter query selecting it.
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
        })
        .collect();
    client.add(&books).await?;
    client.commit(Commit::default()).await?;
    Ok(format!("tag_s:{tag}"))
}

/// Indexes `n` documents `{tag}-{i}` (`i` zero-padded to `width` digits, so ids sort as
/// numbers) with `tag_s` = `tag` and `popularity_i` = `i`, and commits.
pub async fn numbered(
    client: &SolrClient,
    tag: &str,
    n: usize,
    width: usize,
) -> solr_client::Result<()> {
    let docs: Vec<_> = (0..n)
        .map(|i| serde_json::json!({"id": format!("{tag}-{i:0width$}"), "tag_s": tag, "popularity_i": i}))
        .collect();
    client.add(&docs).await?;
    client.commit(Commit::default()).await?;
    Ok(())
}
