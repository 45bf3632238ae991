//! The bookshelf against a real Solr, started by solr-harness from this test (Java and Maven
//! on PATH; the first run in a home builds the launcher, about a minute). The run is recorded
//! with `solr_client::testing::Recorder`: `BOOKSHELF_RECORD=tests/data/bookshelf.jsonl` writes
//! the file the unit tests replay.

use std::path::PathBuf;
use std::sync::Arc;

use bookshelf::{Book, Bookshelf};
use solr_client::admin::CreateCore;
use solr_client::testing::Recorder;
use solr_client::{SolrClient, TransportKind};
use solr_harness::{Harness, LocalSolr, Mode};

/// Stops the instance when the test ends, passed or not.
struct Stop(LocalSolr);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.stop();
    }
}

fn library() -> Vec<Book> {
    vec![
        Book::new("b1", "A Wizard of Earthsea", "Ursula K. Le Guin", 1968),
        Book::new("b2", "The Left Hand of Darkness", "Ursula K. Le Guin", 1969),
        Book::new("b3", "The Dispossessed", "Ursula K. Le Guin", 1974),
        Book::new("b4", "Dune", "Frank Herbert", 1965),
        Book::new("b5", "The Hobbit", "J. R. R. Tolkien", 1937),
    ]
}

#[tokio::test]
async fn books_are_found_by_author_and_title_words_in_a_real_solr() {
    // SOLR_HARNESS_HOME, else ~/.cache/solr-harness/... (this repository: its local-solr/).
    let harness = Harness::new().expect("a home folder");
    let solr = Stop(
        harness
            .start(Mode::Standalone, "bookshelf", &[])
            .expect("a real Solr starts"),
    );
    let url = solr.0.url(None).expect("node URL");

    // What the application needs: a core `books` (the harness's `bench` configset has the
    // `*_s` and `*_i` fields), made empty if an earlier run left one.
    let admin = SolrClient::builder(url)
        .collection("books")
        .build()
        .expect("admin client");
    if admin
        .cores()
        .status(Some("books"))
        .await
        .expect("status")
        .core("books")
        .is_some()
    {
        admin
            .cores()
            .unload("books", true)
            .await
            .expect("unload the old core");
    }
    let create = CreateCore::new("books").configset("bench");
    admin.cores().create(&create).await.expect("core books");

    let file = std::env::var_os("BOOKSHELF_RECORD").map_or_else(
        || std::env::temp_dir().join(format!("bookshelf-{}.jsonl", std::process::id())),
        PathBuf::from,
    );
    let real = TransportKind::Pooled
        .build(&Default::default(), false)
        .expect("transport");
    let recorder = Arc::new(Recorder::create(real, &file).expect("recording file"));
    let client = SolrClient::builder(url)
        .collection("books")
        .custom_transport(recorder)
        .build()
        .expect("client");
    let shelf = Bookshelf::new(client);

    assert_eq!(shelf.add(&library()).await.expect("add"), 5);
    let le_guin = shelf
        .by_author("Ursula K. Le Guin")
        .await
        .expect("by author");
    assert_eq!(le_guin.total, 3);
    let ids: Vec<&str> = le_guin.books.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(ids, ["b1", "b2", "b3"], "oldest first");
    assert_eq!(le_guin.books[0], library()[0], "every field back as stored");
    assert_eq!(
        shelf.by_author("Ursula").await.expect("by author").total,
        0,
        "exact name"
    );
    let the = shelf.by_title_words("the").await.expect("by title");
    let ids: Vec<&str> = the.books.iter().map(|b| b.id.as_str()).collect();
    assert_eq!((the.total, ids), (3, vec!["b5", "b2", "b3"]));
    let two = shelf
        .by_title_words("hand darkness")
        .await
        .expect("by title");
    assert_eq!(two.total, 1);
    // A query-syntax character is part of a word, not syntax (unescaped, `title:(dune:)` is
    // a syntax error); the analyzer drops it.
    assert_eq!(
        shelf.by_title_words("dune:").await.expect("escaped").total,
        1
    );

    let recorded = std::fs::read_to_string(&file).expect("the recording");
    assert_eq!(recorded.lines().count(), 7, "add, commit and five searches");
    if std::env::var_os("BOOKSHELF_RECORD").is_none() {
        let _ = std::fs::remove_file(&file);
    }
}
