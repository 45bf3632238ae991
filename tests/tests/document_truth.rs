//! Every document in the right class, against the real Solr, on the project's tolerant chain
//! and on Solr's stock chain (`strict`): random batches of good documents, documents without
//! an id and documents Solr's schema refuses (a string in the int field `popularity`), sent
//! through `add`, `add_batched` and the `Indexer`. After a commit, every acknowledged id is in
//! Solr, no failed or not-attempted id is, and the classes add up to what was given. The
//! client's own refusals (no uniqueKey, NaN) are named tests here too.

use std::collections::HashSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use solr_client::{
    BatchReport, Commit, DocumentProblem, Error, Indexer, SolrClient, TransportKind,
};

use crate::indexer::ids_in_solr;
use crate::support::{self, tag};

/// What a generated document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Good,
    NoId,
    BadType,
}

/// `n` random documents tagged `t`: the document at `i` has id `{t}-{i}` unless it has none.
fn random_docs(rng: &mut StdRng, t: &str, n: usize) -> (Vec<Value>, Vec<Kind>) {
    let kinds: Vec<Kind> = (0..n)
        .map(|_| match rng.random_range(0..10) {
            0 | 1 => Kind::NoId,
            2 | 3 => Kind::BadType,
            _ => Kind::Good,
        })
        .collect();
    let docs = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            Kind::Good => json!({"id": format!("{t}-{i}"), "tag_s": t, "popularity": i}),
            Kind::NoId => json!({"tag_s": t, "popularity": i}),
            Kind::BadType => json!({"id": format!("{t}-{i}"), "tag_s": t, "popularity": "x"}),
        })
        .collect();
    (docs, kinds)
}

fn client(chain: Option<&str>) -> SolrClient {
    let url = support::standalone().url(None).expect("url").to_string();
    let b = SolrClient::builder(url)
        .collection("bench")
        .transport(TransportKind::Pooled);
    match chain {
        Some(c) => b.update_chain(c),
        None => b,
    }
    .build()
    .expect("client")
}

/// Checks `r` against what Solr holds for `t` after a commit, and against `kinds`: the
/// client refused exactly the id-less documents (`refused`, their positions), Solr holds
/// exactly the acknowledged ones, and only good documents.
async fn check_against_solr(
    c: &SolrClient,
    t: &str,
    kinds: &[Kind],
    r: &BatchReport,
    refused: &[usize],
) {
    assert!(r.is_balanced(), "{r:?}");
    assert!(
        r.unknown.is_empty(),
        "Solr named every document it refused: {r:?}"
    );
    let no_id: Vec<usize> = (0..kinds.len())
        .filter(|&i| kinds[i] == Kind::NoId)
        .collect();
    assert_eq!(refused, no_id, "each id-less document refused, by position");
    c.commit(Commit::default()).await.expect("commit");
    let held = ids_in_solr(c, t).await;
    let given: Vec<String> = (0..kinds.len())
        .filter(|&i| kinds[i] != Kind::NoId)
        .map(|i| format!("{t}-{i}"))
        .collect();
    let acked = r.acknowledged_ids(&given);
    assert_eq!(acked.len(), r.acknowledged, "{r:?}");
    let acked: HashSet<String> = acked.into_iter().collect();
    assert_eq!(held, acked, "Solr holds exactly the acknowledged documents");
    for f in &r.failed {
        assert!(!held.contains(&f.id), "failed {} is in Solr", f.id);
    }
    for id in &r.not_attempted {
        assert!(!held.contains(id), "not attempted {id} is in Solr");
    }
    for id in &held {
        let i: usize = id.rsplit('-').next().unwrap().parse().unwrap();
        assert_eq!(kinds[i], Kind::Good, "{id} is good");
    }
}
/// Random documents through `add`, `add_batched` and the `Indexer` on `chain`.
async fn random_run(seed: u64, chain: Option<&str>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let c = client(chain);
    for api in ["add", "add_batched", "indexer"] {
        let t = tag(&format!("truth-{api}"));
        let n = rng.random_range(20..60);
        let batch = rng.random_range(1..9);
        let (docs, kinds) = random_docs(&mut rng, &t, n);
        let (report, refused) = match api {
            "add" => add_once(&c, &t, &docs).await,
            "add_batched" => {
                let r = c.add_batched(&docs, batch).await.expect("a report");
                let refused = r.failed.iter().filter_map(|f| f.index).collect();
                assert_eq!(r.sent, n, "every document given is accounted");
                (r, refused)
            }
            _ => index_all(&c, &docs, batch).await,
        };
        eprintln!("seed {seed} chain {chain:?} {api} batch {batch}: {report:?}");
        check_against_solr(&c, &t, &kinds, &report, &refused).await;
    }
}

/// `add` of every document: refused as a whole when one has no id (the error names the
/// first), then `add` of the ones with an id. The report and the refused positions.
async fn add_once(c: &SolrClient, t: &str, docs: &[Value]) -> (BatchReport, Vec<usize>) {
    let refused: Vec<usize> = (0..docs.len())
        .filter(|&i| docs[i].get("id").is_none())
        .collect();
    let kept: Vec<&Value> = docs.iter().filter(|d| d.get("id").is_some()).collect();
    if let Some(&first) = refused.first() {
        match c.add(docs).await {
            Err(Error::InvalidDocument {
                index,
                problem: DocumentProblem::MissingUniqueKey,
                ref field,
                ..
            }) => assert_eq!((index, field.as_str()), (first, "id")),
            other => panic!("expected the refusal of #{first}, got {other:?}"),
        }
        c.commit(Commit::default()).await.expect("commit");
        assert!(ids_in_solr(c, t).await.is_empty(), "nothing was sent");
    }
    let report = match c.add(&kept).await {
        Ok(r) => {
            let mut all = BatchReport::default();
            all.sent = r.docs_sent;
            all.acknowledged = r.docs_sent;
            all
        }
        Err(Error::Update { report, .. }) => *report,
        Err(e) => panic!("add: {e:?}"),
    };
    assert_eq!(report.sent, kept.len());
    (report, refused)
}

/// Pushes every document into an indexer of `batch` documents per batch. A push of an
/// id-less document is refused (its position returned); the report holds the others.
async fn index_all(c: &SolrClient, docs: &[Value], batch: usize) -> (BatchReport, Vec<usize>) {
    let mut ix = Indexer::builder(c.clone())
        .batch_docs(batch)
        .build()
        .expect("indexer");
    let mut refused = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        match ix.push(d).await {
            Ok(()) => {}
            Err(Error::InvalidDocument {
                problem: DocumentProblem::MissingUniqueKey,
                ..
            }) => refused.push(i),
            Err(other) => panic!("push {i}: {other:?}"),
        }
    }
    let r = ix.finish().await;
    assert_eq!(r.sent, docs.len() - refused.len(), "{r:?}");
    (r, refused)
}

fn seed() -> u64 {
    std::env::var("TRUTH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        })
}

#[tokio::test]
async fn random_batches_are_accounted_exactly_on_the_tolerant_chain() {
    let _g = support::shared().await;
    let s = seed();
    eprintln!("TRUTH_SEED={s}");
    for k in 0..3 {
        random_run(s.wrapping_add(k), None).await;
    }
}

#[tokio::test]
async fn random_batches_are_accounted_exactly_on_the_stock_chain() {
    let _g = support::shared().await;
    let s = seed();
    eprintln!("TRUTH_SEED={s}");
    for k in 0..3 {
        random_run(s.wrapping_add(k), Some("strict")).await;
    }
}

/// Ids `{t}-{i}` for each `i` of `at`.
fn ids(t: &str, at: &[usize]) -> HashSet<String> {
    at.iter().map(|i| format!("{t}-{i}")).collect()
}

#[tokio::test]
async fn an_id_less_document_is_refused_before_sending_by_every_update_api() {
    let _g = support::shared().await;
    let c = client(None);
    let t = tag("noid");
    let docs = vec![
        json!({"id": format!("{t}-0"), "tag_s": t}),
        json!({"tag_s": t}),
        json!({"id": format!("{t}-2"), "tag_s": t}),
    ];
    let e = c.add(&docs).await.expect_err("refused");
    assert!(
        matches!(e, Error::InvalidDocument { index: 1, ref field, problem: DocumentProblem::MissingUniqueKey, .. } if field == "id"),
        "{e:?}"
    );
    assert!(e
        .to_string()
        .starts_with("document #1: no value for the uniqueKey field `id`"));
    c.commit(Commit::default()).await.expect("commit");
    assert!(ids_in_solr(&c, &t).await.is_empty(), "add sent nothing");

    let r = c.add_batched(&docs, 10).await.expect("a report");
    assert_eq!((r.sent, r.acknowledged, r.failed.len()), (3, 2, 1), "{r:?}");
    assert_eq!(r.failed[0].index, Some(1));
    assert_eq!(r.requests, 1, "the rest of the batch went in one request");
    c.commit(Commit::default()).await.expect("commit");
    assert_eq!(ids_in_solr(&c, &t).await, ids(&t, &[0, 2]));

    let mut ix = Indexer::builder(c.clone()).build().expect("indexer");
    ix.push(&docs[0]).await.expect("has an id");
    let e = ix.push(&docs[1]).await.expect_err("no id");
    assert!(
        matches!(
            e,
            Error::InvalidDocument {
                problem: DocumentProblem::MissingUniqueKey,
                ..
            }
        ),
        "{e:?}"
    );
    let r = ix.finish().await;
    assert_eq!((r.sent, r.acknowledged), (1, 1));
}

#[tokio::test]
async fn an_error_solr_names_no_document_for_is_never_an_acknowledgement() {
    let _g = support::shared().await;
    // The client reads ids from `sku_s` while the schema's uniqueKey is `id`: the middle
    // document reaches Solr without an id, and Solr's error for it names no document.
    for chain in [None, Some("strict")] {
        let c = SolrClient::builder(support::standalone().url(None).expect("url"))
            .collection("bench")
            .unique_key("sku_s");
        let c = match chain {
            Some(ch) => c.update_chain(ch),
            None => c,
        }
        .build()
        .expect("client");
        let t = tag("unnamed");
        let docs = vec![
            json!({"id": format!("{t}-0"), "sku_s": format!("{t}-0"), "tag_s": t}),
            json!({"sku_s": format!("{t}-1"), "tag_s": t}),
            json!({"id": format!("{t}-2"), "sku_s": format!("{t}-2"), "tag_s": t}),
        ];
        let r = c.add_batched(&docs, 10).await.expect("a report");
        assert_eq!(r.acknowledged, 0, "{chain:?}: {r:?}");
        assert!(
            r.failed.is_empty(),
            "{chain:?}: nothing is known not indexed: {r:?}"
        );
        assert_eq!(r.unknown.len(), 3, "{chain:?}: {r:?}");
        c.commit(Commit::default()).await.expect("commit");
        let held = ids_in_solr(&c, &t).await;
        // Solr did index the document before the id-less one, on both chains: `unknown`
        // was the true answer, `failed` would have been false.
        assert!(held.contains(&format!("{t}-0")), "{chain:?}: {held:?}");
        let want = if chain.is_none() {
            ids(&t, &[0, 2])
        } else {
            ids(&t, &[0])
        };
        assert_eq!(held, want, "{chain:?}");
    }
}

#[tokio::test]
async fn the_unique_key_can_be_read_from_the_schema() {
    let _g = support::shared().await;
    let c = SolrClient::builder(support::standalone().url(None).expect("url"))
        .collection("bench")
        .unique_key("other")
        .build()
        .expect("client");
    assert_eq!(c.unique_key(), "other");
    let c = c.with_schema_unique_key().await.expect("schema");
    assert_eq!(c.unique_key(), "id");
}

#[derive(serde::Serialize)]
struct Weighed {
    id: String,
    tag_s: String,
    weight_d: f64,
    sizes_fs: Vec<f32>,
}

#[tokio::test]
async fn nan_and_infinity_are_refused_naming_document_and_field() {
    let _g = support::shared().await;
    let base = client(None);
    let t = tag("nan");
    let doc = |i: usize, w: f64, s: f32| Weighed {
        id: format!("{t}-{i}"),
        tag_s: t.clone(),
        weight_d: w,
        sizes_fs: vec![1.0, s],
    };
    for format in solr_client::UpdateFormat::ALL {
        let c = base.with_update_format(format);
        for (bad, field) in [
            (doc(1, f64::NAN, 2.0), "weight_d"),
            (doc(1, f64::INFINITY, 2.0), "weight_d"),
            (doc(1, 0.5, f32::NEG_INFINITY), "sizes_fs"),
        ] {
            let docs = [doc(0, 0.5, 2.0), bad];
            let e = c.add(&docs).await.expect_err("not finite");
            match &e {
                Error::InvalidDocument {
                    index: 1,
                    id: Some(id),
                    field: f,
                    problem: DocumentProblem::NotFinite,
                } => assert_eq!((id.clone(), f.as_str()), (format!("{t}-1"), field)),
                other => panic!("{format}: {other:?}"),
            }
            let mut ix = Indexer::builder(c.clone()).build().expect("indexer");
            let e = ix.push(&docs[1]).await.expect_err("not finite");
            assert!(
                matches!(
                    e,
                    Error::InvalidDocument {
                        problem: DocumentProblem::NotFinite,
                        ..
                    }
                ),
                "{e:?}"
            );
            assert_eq!(ix.finish().await.sent, 0);
        }
    }
    base.commit(Commit::default()).await.expect("commit");
    assert!(ids_in_solr(&base, &t).await.is_empty(), "nothing was sent");
}
