//! The bookshelf without Solr: answers replayed from `tests/data/bookshelf.jsonl`, which the
//! integration test recorded against a real Solr, or written by hand in a closure.

use std::path::Path;
use std::sync::Arc;

use solr_client::testing::{Replay, Reply};
use solr_client::{Error, SolrClient};

use super::*;

fn shelf(replay: &Arc<Replay>) -> Bookshelf {
    let client = SolrClient::builder("http://solr.invalid:8983/solr")
        .collection("books")
        .custom_transport(replay.clone())
        .build()
        .expect("client");
    Bookshelf::new(client)
}

fn recording() -> Arc<Replay> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bookshelf.jsonl");
    Arc::new(Replay::from_file(&file).expect("the recorded run"))
}

fn ids(found: &Found) -> Vec<&str> {
    found.books.iter().map(|b| b.id.as_str()).collect()
}

fn param<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn searches_decode_the_recorded_answers() {
    let replay = recording();
    let shelf = shelf(&replay);
    let le_guin = [
        Book::new("b1", "A Wizard of Earthsea", "Ursula K. Le Guin", 1968),
        Book::new("b2", "The Left Hand of Darkness", "Ursula K. Le Guin", 1969),
        Book::new("b3", "The Dispossessed", "Ursula K. Le Guin", 1974),
    ];
    let dune = Book::new("b4", "Dune", "Frank Herbert", 1965);
    let hobbit = Book::new("b5", "The Hobbit", "J. R. R. Tolkien", 1937);
    let mut all = le_guin.to_vec();
    all.extend([dune, hobbit]);

    assert_eq!(shelf.add(&all).await.expect("add"), 5);
    let found = shelf
        .by_author("Ursula K. Le Guin")
        .await
        .expect("by author");
    assert_eq!(found.total, 3);
    assert_eq!(found.books, le_guin);
    assert_eq!(shelf.by_author("Ursula").await.expect("by author").total, 0);
    let the = shelf.by_title_words("the").await.expect("by title");
    assert_eq!((the.total, ids(&the)), (3, vec!["b5", "b2", "b3"]));
    let two = shelf
        .by_title_words("hand darkness")
        .await
        .expect("by title");
    assert_eq!((two.total, ids(&two)), (1, vec!["b2"]));
    let escaped = shelf.by_title_words("dune:").await.expect("escaped");
    assert_eq!(ids(&escaped), ["b4"]);

    // What the application sent: the author as one quoted phrase, title words escaped.
    let sent = replay.requests();
    assert_eq!(sent.len(), 7, "add, commit, five searches");
    assert_eq!(
        param(&sent[2].query, "fq"),
        Some(r#"author_s:"Ursula K. Le Guin""#)
    );
    assert_eq!(
        param(&sent[5].query, "q"),
        Some("title:(hand AND darkness)")
    );
    assert_eq!(param(&sent[6].query, "q"), Some(r"title:(dune\:)"));
}

#[tokio::test]
async fn a_search_the_recording_lacks_is_a_typed_error() {
    let replay = recording();
    let err = shelf(&replay)
        .by_author("Nobody Recorded")
        .await
        .expect_err("not recorded");
    assert!(
        matches!(&err, Error::NoNode(m) if m.contains("books/select")),
        "{err:?}"
    );
}

#[tokio::test]
async fn no_title_word_finds_nothing_without_asking_solr() {
    let replay = Arc::new(Replay::new());
    let found = shelf(&replay)
        .by_title_words("  \t ")
        .await
        .expect("nothing to find");
    assert_eq!(found, Found::default());
    assert!(replay.requests().is_empty());
}

#[tokio::test]
async fn solr_refusing_a_search_is_its_error() {
    let replay = Arc::new(Replay::new().answer(|_| {
        Some(Reply::json(
            400,
            serde_json::json!({
                "responseHeader": {"status": 400, "QTime": 1},
                "error": {"msg": "undefined field author_s", "code": 400}
            }),
        ))
    }));
    let err = shelf(&replay)
        .by_author("Frank Herbert")
        .await
        .expect_err("refused");
    match err {
        Error::Solr { status, body, .. } => {
            assert_eq!(
                (status, body.msg.as_str()),
                (400, "undefined field author_s")
            )
        }
        other => panic!("expected Solr's error: {other:?}"),
    }
}
