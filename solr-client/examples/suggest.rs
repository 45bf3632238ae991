//! Spell checking (Solr reference: "Spell Checking") and the suggester (Solr reference:
//! "Suggester"), both configured in the project's configset. Exits with status 1 unless the
//! misspelled word is corrected and the suggester completes the prefix.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example suggest
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::{check, check_eq};
use solr_client::request::{Spellcheck, Suggest};
use solr_client::Select;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let fq = common::catalogue(&client, "example-suggest").await?;
    let r = client
        .select(
            &Select::new("title:relevanse").fq(&fq).rows(0).spellcheck(
                Spellcheck::new()
                    .count(3)
                    .extended_results(true)
                    .collate(true),
            ),
        )
        .await?;
    let sc = r.spellcheck.expect("spellcheck=true answers spellcheck");
    println!("correctly spelled: {:?}", sc.correctly_spelled);
    check_eq("correctly spelled", sc.correctly_spelled, Some(false));
    for (word, s) in sc.suggestions.named() {
        let words: Vec<_> = s.suggestion.iter().map(|w| (&w.word, w.freq)).collect();
        println!("{word} -> {words:?}");
    }
    let fixed = sc.suggestions.get("relevanse");
    check(
        fixed.is_some_and(|s| s.suggestion.iter().any(|w| w.word == "relevance")),
        "\"relevance\" suggested for \"relevanse\"",
    );

    // The dictionary is built on request only (never on commit): build it once here.
    let r = client
        .select(&Suggest::new("rust cl").count(3).build(true).to_select())
        .await?;
    let mut completions = 0;
    for (dictionary, queries) in r.suggest.iter().flat_map(|s| s.named()) {
        for (q, result) in queries.named() {
            let terms: Vec<_> = result
                .suggestions
                .iter()
                .map(|s| (&s.term, s.weight))
                .collect();
            println!("{dictionary} {q:?}: {terms:?}");
            for s in &result.suggestions {
                check(
                    s.term.starts_with("rust client latency volume"),
                    &format!("{:?} completes \"rust cl\"", s.term),
                );
                completions += 1;
            }
        }
    }
    check_eq("completions of \"rust cl\" (count 3)", completions, 3);
    Ok(())
}
