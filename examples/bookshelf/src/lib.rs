//! `bookshelf`: a small application over [`solr_client`], the example of docs/testing.md.
//!
//! Books live in a Solr core (fields `id`, `title`, `author_s`, `year_i`); [`Bookshelf`] adds
//! them and finds them by author or by words of their title. Its unit tests answer from a
//! run recorded against a real Solr (`solr_client::testing::Replay`, no Solr needed); its
//! integration test (`tests/real_solr.rs`) starts a real Solr with `solr-harness`.
//!
//! ```no_run
//! # async fn run() -> solr_client::Result<()> {
//! use bookshelf::{Book, Bookshelf};
//! let client = solr_client::SolrClient::builder("http://127.0.0.1:8983/solr")
//!     .collection("books")
//!     .build()?;
//! let shelf = Bookshelf::new(client);
//! shelf.add(&[Book::new("b1", "Dune", "Frank Herbert", 1965)]).await?;
//! let found = shelf.by_author("Frank Herbert").await?;
//! println!("{} book(s): {:?}", found.total, found.books);
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use solr_client::{escape_query, quote_phrase, Commit, Result, Select, SolrClient};

/// How many books one search returns at most.
pub const PAGE: u64 = 50;

/// A book as stored in Solr.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Book {
    /// Unique key.
    pub id: String,
    /// Title (full-text field).
    pub title: String,
    /// Author, matched exactly.
    #[serde(rename = "author_s")]
    pub author: String,
    /// Year of publication.
    #[serde(rename = "year_i")]
    pub year: i32,
}

impl Book {
    /// A book.
    pub fn new(id: &str, title: &str, author: &str, year: i32) -> Book {
        Book {
            id: id.to_string(),
            title: title.to_string(),
            author: author.to_string(),
            year,
        }
    }
}

/// What a search found: the total count and the first [`PAGE`] books.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// How many books match (Solr's `numFound`).
    pub total: u64,
    /// The books returned, oldest first.
    pub books: Vec<Book>,
}

/// The application's access to its books.
#[derive(Debug, Clone)]
pub struct Bookshelf {
    client: SolrClient,
}

impl Bookshelf {
    /// A bookshelf over `client` (whose default collection or core holds the books).
    pub fn new(client: SolrClient) -> Bookshelf {
        Bookshelf { client }
    }

    /// Adds `books` and commits, so searches see them; returns how many Solr acknowledged.
    pub async fn add(&self, books: &[Book]) -> Result<usize> {
        let sent = self.client.add(books).await?.docs_sent;
        self.client.commit(Commit::default()).await?;
        Ok(sent)
    }

    /// The books of `author` (exact name), oldest first.
    pub async fn by_author(&self, author: &str) -> Result<Found> {
        self.find(Select::new("*:*").fq(format!("author_s:{}", quote_phrase(author))))
            .await
    }

    /// The books whose title holds every word of `words` (special characters are escaped);
    /// no word finds nothing, without asking Solr.
    pub async fn by_title_words(&self, words: &str) -> Result<Found> {
        let terms: Vec<String> = words.split_whitespace().map(escape_query).collect();
        if terms.is_empty() {
            return Ok(Found::default());
        }
        let q = format!("title:({})", terms.join(" AND "));
        self.find(Select::new(q)).await
    }

    async fn find(&self, select: Select) -> Result<Found> {
        let select = select
            .sort("year_i asc, id asc")
            .fl("id,title,author_s,year_i")
            .rows(PAGE);
        let r = self.client.select_as::<Book>(&select).await?;
        Ok(r.response.map_or_else(Found::default, |d| Found {
            total: d.num_found,
            books: d.docs,
        }))
    }
}

#[cfg(test)]
mod tests;
