//! Spell checking (Solr reference: "Spell Checking") and the suggester (Solr reference:
//! "Suggester") on a collection made from Solr's `_default` configset. `_default`'s `/spell`
//! handler checks words against the catch-all `_text_`, which nothing fills: the example
//! copies `title_t` into it with the Schema API (`add-copy-field`, once). `_default` has no
//! suggester: the example adds one with the Config API (`add-searchcomponent`,
//! `add-requesthandler`; "already exists" is fine), completing stored titles weighted by
//! `popularity_i`. Exits with status 1 unless the misspelled word is corrected and the
//! suggester completes the prefix.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example suggest
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::{check, check_eq};
use serde_json::json;
use solr_client::admin::{CopyField, SchemaCommand};
use solr_client::request::{Spellcheck, Suggest};
use solr_client::{Method, RequestKind, Select, SolrClient};

/// `_text_` gets a copy of `title_t`, unless a rule already copies it.
async fn copy_titles_to_text(client: &SolrClient) -> solr_client::Result<()> {
    let rules = client.schema().copy_fields().await?.copy_fields;
    if !rules
        .iter()
        .any(|c| c.source == "title_t" && c.dest == "_text_")
    {
        let copy = CopyField::new("title_t", "_text_");
        client
            .schema()
            .update(&[SchemaCommand::AddCopyField(copy)])
            .await?;
        println!("schema: title_t copied into _text_");
    }
    Ok(())
}

/// One Config API command (`POST /{collection}/config`); Solr's "already exists" is fine.
async fn config(client: &SolrClient, command: serde_json::Value) -> solr_client::Result<()> {
    let mut req = client.wire(Method::POST, "config", Vec::new(), RequestKind::Admin);
    req.body = command.to_string().into();
    req.headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    let resp = client.send_raw(req).await?;
    let body = String::from_utf8_lossy(&resp.body);
    if resp.status.is_success() && !body.contains("errorMessages") {
        println!("config: {command}");
    } else if !body.contains("already exists") {
        check(
            false,
            &format!("Config API {command}: {} {body}", resp.status),
        );
    }
    Ok(())
}

/// The suggester `example_titles` (stored `title_t`, weighted by `popularity_i`, built on
/// request only) behind the handler `/example_suggest`.
async fn add_suggester(client: &SolrClient) -> solr_client::Result<()> {
    let suggester = json!({
        "name": "example_titles", "lookupImpl": "FuzzyLookupFactory",
        "dictionaryImpl": "DocumentDictionaryFactory", "field": "title_t",
        "weightField": "popularity_i", "suggestAnalyzerFieldType": "string",
        "buildOnStartup": "false", "buildOnCommit": "false"
    });
    let component = json!({"name": "example_suggest", "class": "solr.SuggestComponent",
        "suggester": suggester});
    config(client, json!({ "add-searchcomponent": component })).await?;
    let handler = json!({"name": "/example_suggest", "class": "solr.SearchHandler",
        "startup": "lazy", "defaults": {"suggest": true, "suggest.dictionary": "example_titles"},
        "components": ["example_suggest"]});
    config(client, json!({ "add-requesthandler": handler })).await
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    copy_titles_to_text(&client).await?;
    add_suggester(&client).await?;
    let fq = common::catalogue(&client, "example-suggest").await?;
    let r = client
        .select(
            &Select::new("title_t:relevanse")
                .handler("spell")
                .fq(&fq)
                .rows(0)
                .spellcheck(
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
        .select(
            &Suggest::new("rust cl")
                .count(3)
                .build(true)
                .to_select()
                .handler("example_suggest"),
        )
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
