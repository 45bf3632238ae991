//! The typed API to the end, against the real Solr: `cursor_as` (async and blocking) and
//! `knn_as` decode into the caller's struct, a JSON Request API search answers as the same
//! search through `select`, and a search too long for a URL goes as a POST by itself.

use std::collections::HashSet;

use futures::TryStreamExt;
use serde::Deserialize;
use solr_client::request::{JsonFacet, JsonQuery, Knn, MAX_GET_QUERY_BYTES};
use solr_client::{Commit, Select, SolrClient, TransportKind};

use crate::support;

/// The caller's document type.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Doc {
    id: String,
    seq_i: i64,
    score: Option<f64>,
}

fn standalone() -> SolrClient {
    support::client(
        support::standalone().url(None).expect("url"),
        TransportKind::Pooled,
        false,
    )
}

#[tokio::test]
async fn cursor_as_yields_every_document_once_into_the_struct() {
    let _g = support::shared().await;
    let c = standalone();
    let t = support::tag("cursor-as");
    support::index_tagged(&c, &t, 1234).await;
    let select = Select::new(format!("tag_s:{t}"))
        .fl("id,seq_i")
        .sort("seq_i desc");
    let docs: Vec<Doc> = c
        .cursor_as::<Doc>(select.clone(), 100)
        .try_collect()
        .await
        .expect("cursor");
    let seqs: Vec<i64> = docs.iter().map(|d| d.seq_i).collect();
    assert_eq!(
        seqs,
        (0..1234).rev().collect::<Vec<i64>>(),
        "every document once, in sort order"
    );
    assert!(docs.iter().all(|d| d.id == format!("{t}-{}", d.seq_i)));
    let numfound = c
        .select(&select.clone().rows(0))
        .await
        .expect("count")
        .num_found();
    assert_eq!(docs.len() as u64, numfound);

    // A blocking client runs on a thread of its own, outside any Tokio runtime.
    let blocking_docs = std::thread::spawn(move || {
        let b = solr_client::blocking::SolrClient::new(standalone())?;
        b.cursor_as::<Doc>(select, 333)
            .collect::<Result<Vec<_>, _>>()
    })
    .join()
    .expect("thread")
    .expect("blocking cursor");
    assert_eq!(blocking_docs, docs);
}

#[tokio::test]
async fn knn_as_decodes_the_nearest_documents_into_the_struct() {
    let _g = support::shared().await;
    let c = standalone();
    let t = support::tag("knn-as");
    let batch = support::docs(&t, 40, 768);
    c.add(&batch).await.expect("add vectors");
    c.commit(Commit::default()).await.expect("commit");
    let v: Vec<f32> = batch[7]["vector"]
        .as_array()
        .expect("vector")
        .iter()
        .map(|x| x.as_f64().expect("float") as f32)
        .collect();
    let k = Knn::new("vector", v)
        .top_k(5)
        .pre_filter(format!("tag_s:{t}"));
    let typed = c.knn_as::<Doc>(&k).await.expect("knn_as");
    let untyped = c.knn(&k).await.expect("knn");
    assert_eq!(typed.docs().len(), 5);
    assert_eq!(
        typed.docs()[0].seq_i,
        7,
        "the nearest is the document itself"
    );
    let ids: Vec<&str> = untyped
        .docs()
        .iter()
        .map(|d| d["id"].as_str().unwrap_or(""))
        .collect();
    let typed_ids: Vec<&str> = typed.docs().iter().map(|d| d.id.as_str()).collect();
    assert_eq!(typed_ids, ids);
}

#[tokio::test]
async fn a_json_request_answers_as_the_same_select() {
    let _g = support::shared().await;
    let c = standalone();
    let t = support::tag("json-query");
    support::index_tagged(&c, &t, 50).await;
    let json = JsonQuery::new(format!("tag_s:{t}"))
        .filter("seq_i:[10 TO 39]")
        .fields(&["id", "seq_i"])
        .sort("seq_i asc")
        .offset(5)
        .limit(7)
        .facet("top", JsonFacet::stat("max(seq_i)"));
    let select = Select::new(format!("tag_s:{t}"))
        .fq("seq_i:[10 TO 39]")
        .fl("id,seq_i")
        .sort("seq_i asc")
        .start(5)
        .rows(7)
        .json_facet("top", JsonFacet::stat("max(seq_i)"));
    let a = c.query_json::<Doc>(&json).await.expect("json query");
    let b = c.select_as::<Doc>(&select).await.expect("select");
    assert_eq!(a.num_found(), 30);
    assert_eq!(a.docs(), b.docs());
    assert_eq!(a.docs().first().map(|d| d.seq_i), Some(15));
    assert_eq!(a.facets, b.facets);
    assert_eq!(
        a.facets.as_ref().and_then(|f| f.stat_f64("top")),
        Some(39.0)
    );
    let select_handler = c
        .query_json::<Doc>(&json.clone().handler("select"))
        .await
        .expect("select handler");
    assert_eq!(select_handler.docs(), b.docs());
}

#[tokio::test]
async fn a_search_too_long_for_a_url_goes_as_a_post() {
    let _g = support::shared().await;
    let c = standalone();
    let t = support::tag("long-query");
    support::index_tagged(&c, &t, 20).await;
    // 900 ids, 3 of them real: far above the limit, as an application's id filter is.
    let mut ids: Vec<String> = (0..897).map(|i| format!("{t}-absent-{i}")).collect();
    ids.extend([3, 11, 17].map(|i| format!("{t}-{i}")));
    let select = Select::new("*:*")
        .fq(format!("id:({})", ids.join(" OR ")))
        .fl("id,seq_i");
    let req = c.select_request(&select);
    assert_eq!(
        req.method,
        http::Method::POST,
        "above {MAX_GET_QUERY_BYTES} bytes"
    );
    let found = c.select_as::<Doc>(&select).await.expect("long search");
    let mut seqs: Vec<i64> = found.docs().iter().map(|d| d.seq_i).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, [3, 11, 17]);
    // The same search as a GET is refused by Solr's Jetty: the limit is what keeps it working.
    let mut get = c.wire(
        http::Method::GET,
        "select",
        select.params(),
        solr_client::transport::RequestKind::Read,
    );
    get.path = req.path.clone();
    let refused = c.send_raw(get).await.map(|r| r.status.as_u16());
    assert!(
        matches!(refused, Ok(414) | Ok(431)),
        "a GET of {} bytes: {refused:?}",
        select
            .params()
            .iter()
            .map(|(k, v)| k.len() + v.len())
            .sum::<usize>()
    );
    let short = c.select_request(&Select::new("*:*").fq(format!("tag_s:{t}")));
    assert_eq!(short.method, http::Method::GET);
    let distinct: HashSet<&str> = found.docs().iter().map(|d| d.id.as_str()).collect();
    assert_eq!(distinct.len(), 3);
}
