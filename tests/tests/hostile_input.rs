//! Control characters in XML updates. XML 1.0 cannot carry most C0
//! Control characters, so the XML encoder refuses the batch with an error naming the
//! document and field, before anything is sent; JSON escapes them (`\u0007`) and Solr
//! stores them as they are. Invalid UTF-8 cannot reach either encoder: documents are Rust
//! strings (`serde_json::Value`), so it is rejected where bytes become text, in the caller.

use serde_json::{json, Value};
use solr_client::{Commit, Error, Select, TransportKind, UpdateFormat};

use crate::support::{self, client, tag};

#[tokio::test]
async fn xml_update_with_control_characters_is_refused_before_sending() {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).unwrap();
    let t = tag("ctl");
    let batch = vec![
        json!({"id": format!("{t}-ok"), "tag_s": t, "body": "fine"}),
        json!({"id": format!("{t}-bell"), "tag_s": t, "body": "ring\u{7}ring"}),
    ];
    let xml = client(url, TransportKind::Pooled, false).with_update_format(UpdateFormat::Xml);
    match xml.add(&batch).await {
        Err(Error::InvalidInput(msg)) => {
            assert!(msg.contains(&format!("{t}-bell")), "names the doc: {msg}");
            assert!(msg.contains("\"body\""), "names the field: {msg}");
            assert!(msg.contains("U+0007"), "names the character: {msg}");
        }
        other => panic!("expected InvalidInput, got {other:?}"),
    }
    let stats = xml.transport().stats();
    assert_eq!(stats.requests, 0, "nothing was sent");
    assert_eq!(stats.connections_opened, 0, "not even a connection");

    // Nothing reached Solr: none of the batch (not even the valid doc) is there.
    let json_client = client(url, TransportKind::Pooled, false);
    json_client.commit(Commit::default()).await.expect("commit");
    let q = Select::new(format!("tag_s:{t}"))
        .fl("id,body")
        .sort("id asc");
    let r = json_client.select(&q).await.expect("select");
    assert_eq!(r.num_found(), 0);

    // The same batch as JSON: escaped, indexed, stored exactly.
    json_client.add(&batch).await.expect("JSON carries \\u0007");
    json_client.commit(Commit::default()).await.expect("commit");
    let r = json_client.select(&q).await.expect("select");
    assert_eq!(r.num_found(), 2);
    let bell = r
        .docs()
        .iter()
        .find(|d| d["id"] == json!(format!("{t}-bell")))
        .expect("bell doc");
    assert_eq!(bell["body"], json!("ring\u{7}ring"));
}

#[tokio::test]
async fn xml_update_escapes_markup_and_solr_stores_it_verbatim() {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).unwrap();
    let t = tag("xmlesc");
    let nasty = "</field><field name=\"id\">injected</field> & ]]> <![CDATA[ x ]]> 'q' \t\r\n";
    let xml = client(url, TransportKind::Pooled, false).with_update_format(UpdateFormat::Xml);
    xml.add(&[json!({"id": format!("{t}-1"), "tag_s": t, "body": nasty})])
        .await
        .expect("markup is escaped, not refused");
    xml.commit(Commit::default()).await.expect("commit");
    let r = xml
        .select(&Select::new(format!("tag_s:{t}")).fl("id,body"))
        .await
        .expect("select");
    assert_eq!(r.num_found(), 1, "one doc, no injected second id");
    assert_eq!(r.docs()[0]["id"], json!(format!("{t}-1")));
    // XML normalises a bare CR in text to LF unless it is escaped; the encoder leaves it
    // raw, so Solr stores "\n" where "\r\n" was sent.
    let stored = r.docs()[0]["body"].as_str().expect("body");
    assert_eq!(stored.replace("\r\n", "\n"), nasty.replace("\r\n", "\n"));
}

/// Every hostile text, escaped with `escape_query`, is one literal term.
/// Each value is indexed verbatim in a string field; querying that field with the escaped
/// value answers 200 and finds exactly its own document (never a 400, never another doc).
#[tokio::test]
async fn escaped_hostile_text_is_always_one_literal_term() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let t = tag("esc");
    let hostile = [
        "AND",
        "OR",
        "NOT",
        "and",
        "or",
        "not",
        "&&",
        "||",
        "!",
        "a AND b",
        "NOT x",
        "x OR",
        "a && b || c",
        "*:*",
        "*",
        "?",
        "{!func}sum(1,1)",
        "{!lucene q.op=OR}x",
        "title:x",
        "(unbalanced",
        "[a TO b]",
        "{a TO b}",
        "x~2",
        "a^10",
        "/re.*gex/",
        "\\",
        "\"quoted",
        "-minus",
        "+plus",
        "a;b",
        "tab\there",
        " ",
        "TO",
    ];
    support::doc_counts::assert_readme_states("{n} hostile texts", hostile.len());
    let batch: Vec<Value> = hostile
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"id": format!("{t}-{i}"), "tag_s": t, "lit_s": v}))
        .collect();
    c.add(&batch).await.expect("add");
    c.commit(Commit::default()).await.expect("commit");
    let fq = format!("tag_s:{t}");
    for (i, v) in hostile.iter().enumerate() {
        let q = Select::new(format!("lit_s:{}", solr_client::escape_query(v)))
            .fq(fq.clone())
            .fl("id");
        let r = c
            .select(&q)
            .await
            .unwrap_or_else(|e| panic!("{v:?} escaped must be a valid query: {e}"));
        assert_eq!(r.num_found(), 1, "{v:?} matches exactly its doc");
        assert_eq!(r.docs()[0]["id"], json!(format!("{t}-{i}")), "{v:?}");
    }
    // The empty text becomes the empty phrase: a valid query, not a dangling `lit_s:`.
    let r = c
        .select(&Select::new(format!("lit_s:{}", solr_client::escape_query(""))).fq(fq))
        .await
        .expect("empty text escaped is a valid query");
    assert_eq!(r.num_found(), 0);
}
