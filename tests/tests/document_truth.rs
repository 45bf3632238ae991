//! Every document in the right class, against the real Solr, standalone and on the 2-shard
//! SolrCloud collection (through the cloud client), on the project's tolerant chain and on
//! Solr's stock chain (`strict`). Random batches mix new documents, documents without an id,
//! documents Solr's schema refuses (a string in the int field `popularity`), atomic `inc`
//! updates of stored documents, and optimistic concurrency (a stale `_version_`, the stored
//! one, `1` must exist, `-1` must not exist, each met and failed), sent through `add`,
//! `add_batched` and the `Indexer`. After a commit:
//! - every acknowledged document is in Solr and was applied exactly once (its `n_i` counter
//!   is 1: an `inc` applied twice would make it 2), every failed or not attempted one was
//!   not applied (its counter is 0, or it is absent);
//! - each failed document says whether it was a version conflict, and only conflicts do;
//! - Solr named every document it refused, so nothing is `unknown`;
//! - the classes add up to what was offered (`sent`), refused documents counted `failed`
//!   with their position;
//! - a whole-call error of `add` comes only when nothing was applied.
//!
//! The seed is printed (`TRUTH_SEED=N` replays it); `TRUTH_RUNS` (default 2) and
//! `TRUTH_DOCS` (most documents per call, default 60) make longer runs.
//! The client's own refusals (no uniqueKey, NaN) are named tests here too.

use std::collections::{HashMap, HashSet};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use solr_client::{
    BatchReport, Commit, DocumentProblem, Error, Get, Indexer, Select, SolrClient, TransportKind,
};

use crate::indexer::ids_in_solr;
use crate::support::{self, tag};

/// What a generated document is. Every document has its own id `{t}-{i}`; the ones that
/// update a stored document find it stored with `n_i` 0 before the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A new document, `n_i` 1.
    Good,
    /// No id: the client refuses it.
    NoId,
    /// A new document Solr's schema refuses.
    BadType,
    /// `inc` of a stored document, no version check.
    Inc,
    /// `inc` with the stored `_version_`.
    IncCurrent,
    /// `inc` with a `_version_` the document had before its last update: a conflict.
    IncStale,
    /// `inc` with `_version_` 1 (must exist) of a stored document.
    MustExist,
    /// `inc` with `_version_` 1 of a document that is not stored: a conflict.
    MustExistMissing,
    /// A new document with `_version_` -1 (must not exist).
    MustNotExist,
    /// `inc` with `_version_` -1 of a stored document: a conflict.
    MustNotExistStored,
}

const KINDS: [Kind; 10] = [
    Kind::Good,
    Kind::NoId,
    Kind::BadType,
    Kind::Inc,
    Kind::IncCurrent,
    Kind::IncStale,
    Kind::MustExist,
    Kind::MustExistMissing,
    Kind::MustNotExist,
    Kind::MustNotExistStored,
];

impl Kind {
    /// Solr refuses it for its `_version_`.
    fn conflict(self) -> bool {
        matches!(
            self,
            Kind::IncStale | Kind::MustExistMissing | Kind::MustNotExistStored
        )
    }
    /// It updates a document stored before the call.
    fn stored(self) -> bool {
        matches!(
            self,
            Kind::Inc
                | Kind::IncCurrent
                | Kind::IncStale
                | Kind::MustExist
                | Kind::MustNotExistStored
        )
    }
    /// Solr indexes it when it is sent (and reached, on the stock chain).
    fn applies(self) -> bool {
        !self.conflict() && !matches!(self, Kind::NoId | Kind::BadType)
    }
}

/// A run's documents: what each is, and the documents themselves.
struct Docs {
    t: String,
    kinds: Vec<Kind>,
    docs: Vec<Value>,
}

impl Docs {
    fn id(&self, i: usize) -> String {
        format!("{}-{i}", self.t)
    }
}

/// `n` random documents tagged `t`; the documents they update are stored first (twice, so
/// that each has a stale `_version_`), with `n_i` 0.
async fn random_docs(c: &SolrClient, rng: &mut StdRng, t: &str, n: usize) -> Docs {
    let kinds: Vec<Kind> = (0..n)
        .map(|_| KINDS[rng.random_range(0..KINDS.len())])
        .collect();
    let stored: Vec<String> = (0..n)
        .filter(|&i| kinds[i].stored())
        .map(|i| format!("{t}-{i}"))
        .collect();
    let mut stale = HashMap::new();
    let mut current = HashMap::new();
    for versions in [&mut stale, &mut current] {
        let seed: Vec<Value> = stored
            .iter()
            .map(|id| json!({"id": id, "tag_s": t, "n_i": 0}))
            .collect();
        if !seed.is_empty() {
            c.add(&seed).await.expect("stored documents");
        }
        *versions = stored_versions(c, &stored).await;
    }
    let docs = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let id = format!("{t}-{i}");
            let inc = |v: Option<i64>| match v {
                Some(v) => json!({"id": id, "n_i": {"inc": 1}, "_version_": v}),
                None => json!({"id": id, "n_i": {"inc": 1}}),
            };
            match k {
                Kind::Good => json!({"id": id, "tag_s": t, "n_i": 1}),
                Kind::NoId => json!({"tag_s": t, "n_i": 1}),
                Kind::BadType => json!({"id": id, "tag_s": t, "popularity": "x"}),
                Kind::Inc => inc(None),
                Kind::IncCurrent => inc(Some(current[&id])),
                Kind::IncStale => inc(Some(stale[&id])),
                Kind::MustExist | Kind::MustExistMissing => inc(Some(1)),
                Kind::MustNotExist => json!({"id": id, "tag_s": t, "n_i": 1, "_version_": -1}),
                Kind::MustNotExistStored => inc(Some(-1)),
            }
        })
        .collect();
    Docs {
        t: t.to_string(),
        kinds,
        docs,
    }
}

/// The `_version_` of each of `ids` (real-time get: no commit needed).
async fn stored_versions(c: &SolrClient, ids: &[String]) -> HashMap<String, i64> {
    if ids.is_empty() {
        return HashMap::new();
    }
    let got = c
        .get::<Value>(&Get::new(ids.iter().cloned()).fl("id,_version_"))
        .await
        .expect("real-time get");
    let v: HashMap<String, i64> = got
        .docs
        .iter()
        .map(|d| {
            let id = d["id"].as_str().expect("id").to_string();
            (id, d["_version_"].as_i64().expect("_version_"))
        })
        .collect();
    assert_eq!(v.len(), ids.len(), "every stored document found");
    v
}

/// The `n_i` of every document tagged `t` (after a commit), by id.
async fn counters(c: &SolrClient, t: &str) -> HashMap<String, i64> {
    let r = c
        .select(
            &Select::new("*:*")
                .fq(format!("tag_s:\"{t}\""))
                .fl("id,n_i")
                .rows(100_000),
        )
        .await
        .expect("select");
    assert_eq!(r.num_found() as usize, r.docs().len(), "every hit returned");
    r.docs()
        .iter()
        .map(|d| {
            let id = d["id"].as_str().expect("id").to_string();
            (id, d["n_i"].as_i64().unwrap_or(-1))
        })
        .collect()
}

/// The class of a document in a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Acknowledged,
    /// Failed; `true` when the report calls it a version conflict.
    Failed(bool),
    NotAttempted,
}

/// What a call said about the documents it was offered: how many it counted, the positions
/// of the ones the client refused, and the class of every other one by id.
#[derive(Debug, Default)]
struct Account {
    sent: usize,
    refused: Vec<usize>,
    class: HashMap<String, Class>,
}

impl Account {
    /// The account in `r`, the report of a call offered the documents of `d` that have an
    /// id (`given`, in order) and maybe the id-less ones.
    fn of(r: &BatchReport, given: &[String]) -> Account {
        assert!(r.is_balanced(), "{r:?}");
        assert!(r.unknown.is_empty(), "Solr named every document: {r}");
        let mut a = Account {
            sent: r.sent,
            refused: r.failed.iter().filter_map(|f| f.index).collect(),
            class: HashMap::new(),
        };
        let named = r.failed.iter().filter(|f| f.index.is_none());
        let failed = named.map(|f| (f.id.clone(), Class::Failed(f.is_version_conflict())));
        let not_attempted = r
            .not_attempted
            .iter()
            .map(|id| (id.clone(), Class::NotAttempted));
        let acked = r.acknowledged_ids(given);
        assert_eq!(acked.len(), r.acknowledged, "{r:?}");
        let acked = acked.into_iter().map(|id| (id, Class::Acknowledged));
        for (id, c) in failed.chain(not_attempted).chain(acked) {
            assert!(
                a.class.insert(id.clone(), c).is_none(),
                "{id} counted twice: {r:?}"
            );
        }
        a
    }
}

/// Checks `a`, what the call offered `offered` of `d`'s documents said, against `d.kinds`
/// and against what Solr holds after a commit.
async fn check_against_solr(c: &SolrClient, d: &Docs, a: &Account, offered: &[usize]) {
    let n = d.kinds.len();
    assert_eq!(a.sent, offered.len(), "sent is what was offered: {a:?}");
    let no_id: Vec<usize> = offered
        .iter()
        .copied()
        .filter(|&i| d.kinds[i] == Kind::NoId)
        .collect();
    assert_eq!(
        a.refused, no_id,
        "each id-less document refused, by position"
    );
    c.commit(Commit::default()).await.expect("commit");
    let held = counters(c, &d.t).await;
    let mut want_held = HashSet::new();
    for i in (0..n).filter(|&i| d.kinds[i] != Kind::NoId) {
        let (id, kind) = (d.id(i), d.kinds[i]);
        let n_i = held.get(&id).copied();
        let before = kind.stored().then_some(0);
        match a.class.get(&id).copied() {
            Some(Class::Acknowledged) => {
                assert!(kind.applies(), "{id} ({kind:?}) acknowledged: {a:?}");
                assert_eq!(n_i, Some(1), "{id} ({kind:?}) applied exactly once");
            }
            Some(Class::Failed(conflict)) => {
                assert_eq!(conflict, kind.conflict(), "{id} ({kind:?}) typed: {a:?}");
                assert!(!kind.applies(), "{id} ({kind:?}) failed: {a:?}");
                assert_eq!(n_i, before, "{id} ({kind:?}) failed, not applied");
            }
            Some(Class::NotAttempted) => {
                assert_eq!(n_i, before, "{id} ({kind:?}) not attempted, not applied")
            }
            None => panic!("{id} ({kind:?}) in no class: {a:?}"),
        }
        if n_i.is_some() {
            want_held.insert(id);
        }
    }
    let held: HashSet<String> = held.into_keys().collect();
    assert_eq!(held, want_held, "Solr holds nothing else tagged {}", d.t);
}

/// Where the random runs go: standalone or the 2-shard cloud, and the update chain.
#[derive(Clone, Copy, Debug)]
enum Target {
    Standalone,
    Cloud,
}

async fn client_for(target: Target, chain: Option<&str>) -> SolrClient {
    let c = match target {
        Target::Standalone => client(None),
        Target::Cloud => {
            let s = support::cloud2x2();
            let nodes = [
                s.url(Some("node1")).expect("node1"),
                s.url(Some("node2")).expect("node2"),
            ];
            crate::cloud_routing::healthy_router(&nodes).await;
            SolrClient::cloud(nodes)
                .collection("bench")
                .build()
                .expect("cloud client")
        }
    };
    match chain {
        Some(ch) => c.with_update_chain(ch),
        None => c,
    }
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

/// Random documents through `add`, `add_batched` and the `Indexer` on `c`.
async fn random_run(c: &SolrClient, seed: u64, what: &str) {
    let mut rng = StdRng::seed_from_u64(seed);
    let most = env_or("TRUTH_DOCS", 60).max(2) as usize;
    for api in ["add", "add_batched", "indexer"] {
        let t = tag(&format!("truth-{api}"));
        let n = rng.random_range(1..=most);
        let batch = rng.random_range(1..9);
        let d = random_docs(c, &mut rng, &t, n).await;
        let all: Vec<usize> = (0..n).collect();
        let given: Vec<String> = all
            .iter()
            .filter(|&&i| d.kinds[i] != Kind::NoId)
            .map(|&i| d.id(i))
            .collect();
        let (account, offered) = match api {
            "add" => add_once(c, &d, &given).await,
            "add_batched" => {
                let r = c.add_batched(&d.docs, batch).await.expect("a report");
                eprintln!("TRUTH_SEED={seed} {what} {api} batch {batch}: {r}");
                (Account::of(&r, &given), all)
            }
            _ => {
                let r = index_all(c, &d.docs, batch).await;
                eprintln!("TRUTH_SEED={seed} {what} {api} batch {batch}: {r}");
                (Account::of(&r, &given), all)
            }
        };
        check_against_solr(c, &d, &account, &offered).await;
    }
}

/// `add` of every document: refused as a whole when one has no id (the error names the
/// first, and nothing is applied), then `add` of the ones with an id. The account of the
/// second call and the positions of the documents it was offered. A whole-call error other
/// than [`Error::Update`] must be a one-document call's version conflict.
async fn add_once(c: &SolrClient, d: &Docs, given: &[String]) -> (Account, Vec<usize>) {
    let n = d.docs.len();
    let refused: Vec<usize> = (0..n).filter(|&i| d.kinds[i] == Kind::NoId).collect();
    if let Some(&first) = refused.first() {
        match c.add(&d.docs).await {
            Err(Error::InvalidDocument {
                index,
                problem: DocumentProblem::MissingUniqueKey,
                ref field,
                ..
            }) => assert_eq!((index, field.as_str()), (first, "id")),
            other => panic!("expected the refusal of #{first}, got {other:?}"),
        }
        c.commit(Commit::default()).await.expect("commit");
        let held = counters(c, &d.t).await;
        let stored = d.kinds.iter().filter(|k| k.stored()).count();
        assert_eq!(held.len(), stored, "nothing new was sent");
        assert!(held.values().all(|&v| v == 0), "nothing applied: {held:?}");
    }
    let offered: Vec<usize> = (0..n).filter(|&i| d.kinds[i] != Kind::NoId).collect();
    let kept: Vec<&Value> = offered.iter().map(|&i| &d.docs[i]).collect();
    let account = match c.add(&kept).await {
        Ok(r) => {
            assert_eq!(r.docs_sent, kept.len());
            let class = given.iter().map(|id| (id.clone(), Class::Acknowledged));
            Account {
                sent: r.docs_sent,
                refused: Vec::new(),
                class: class.collect(),
            }
        }
        Err(Error::Update { report, .. }) => {
            eprintln!("add: {report}");
            Account::of(&report, given)
        }
        Err(Error::VersionConflict { id, .. }) if kept.len() == 1 => {
            // One document: its conflict is the whole call's error (checked: not applied).
            assert_eq!(given, std::slice::from_ref(&id), "the conflict names it");
            Account {
                sent: 1,
                refused: Vec::new(),
                class: [(String::from(id), Class::Failed(true))]
                    .into_iter()
                    .collect(),
            }
        }
        Err(e) => panic!("add of {}: a whole-call error {e:?}", kept.len()),
    };
    (account, offered)
}

/// Pushes every document into an indexer of `batch` documents per batch. A push of an
/// id-less document is refused at once, and also counted in the report.
async fn index_all(c: &SolrClient, docs: &[Value], batch: usize) -> BatchReport {
    let mut ix = Indexer::builder(c.clone())
        .batch_docs(batch)
        .build()
        .expect("indexer");
    for (i, d) in docs.iter().enumerate() {
        match ix.push(d).await {
            Ok(()) => {}
            Err(Error::InvalidDocument {
                problem: DocumentProblem::MissingUniqueKey,
                index,
                ..
            }) => assert_eq!(index, i, "the refusal names the push"),
            Err(other) => panic!("push {i}: {other:?}"),
        }
    }
    ix.finish().await
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let s = env_or("TRUTH_SEED", now);
    eprintln!("TRUTH_SEED={s}");
    s
}

async fn random_runs(target: Target, chain: Option<&str>) {
    let c = client_for(target, chain).await;
    let s = seed();
    for k in 0..env_or("TRUTH_RUNS", 2) {
        random_run(&c, s.wrapping_add(k), &format!("{target:?} {chain:?}")).await;
    }
}

#[tokio::test]
async fn random_batches_are_accounted_exactly_on_the_tolerant_chain() {
    let _g = support::shared().await;
    random_runs(Target::Standalone, None).await;
}

#[tokio::test]
async fn random_batches_are_accounted_exactly_on_the_stock_chain() {
    let _g = support::shared().await;
    random_runs(Target::Standalone, Some("strict")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_batches_are_accounted_exactly_on_the_cloud_tolerant_chain() {
    let _g = support::shared().await;
    let _one = crate::cloud_routing::LOCK.lock().await;
    random_runs(Target::Cloud, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_batches_are_accounted_exactly_on_the_cloud_stock_chain() {
    let _g = support::shared().await;
    let _one = crate::cloud_routing::LOCK.lock().await;
    random_runs(Target::Cloud, Some("strict")).await;
}

/// Three ids tagged `t`: the first on one shard of the 2-shard collection, the other two on
/// the other.
async fn ids_across_shards(t: &str) -> [String; 3] {
    let s = support::cloud2x2();
    let nodes = [
        s.url(Some("node1")).expect("node1"),
        s.url(Some("node2")).expect("node2"),
    ];
    let view = crate::cloud_routing::healthy_router(&nodes).await.view();
    let shard = |id: &String| crate::cloud_routing::shard_of(&view, id);
    let a = format!("{t}-a");
    let others: Vec<String> = (0..64)
        .map(|k| format!("{t}-{k}"))
        .filter(|id| shard(id) != shard(&a))
        .take(2)
        .collect();
    [a, others[0].clone(), others[1].clone()]
}

/// The reported case: a batch of atomic `inc` updates spanning both shards, one with a stale
/// `_version_`. Its shard refuses it; the other shard's documents are indexed, and the report
/// says exactly that (a whole-call conflict, or every document failed, made an application
/// that re-sends failed `inc` updates apply them twice).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_on_one_shard_leaves_the_other_shards_documents_acknowledged() {
    let _g = support::shared().await;
    let _one = crate::cloud_routing::LOCK.lock().await;
    let base = client_for(Target::Cloud, None).await;
    for chain in [None, Some("strict")] {
        let c = chain.map_or(base.clone(), |ch| base.with_update_chain(ch));
        let t = tag("xshard");
        let ids = ids_across_shards(&t).await;
        let seed: Vec<Value> = ids
            .iter()
            .map(|id| json!({"id": id, "tag_s": t, "n_i": 0}))
            .collect();
        c.add(&seed).await.expect("stored");
        let stale = stored_versions(&c, &ids[..1]).await[&ids[0]];
        c.add(&seed)
            .await
            .expect("stored again: the first version is stale");
        let inc = |id: &String| json!({"id": id, "n_i": {"inc": 1}});
        let conflict = json!({"id": ids[0], "n_i": {"inc": 1}, "_version_": stale});
        let all = [conflict.clone(), inc(&ids[1]), inc(&ids[2])];
        let report = match c.add(&all).await {
            Err(Error::Update { report, .. }) => report,
            other => panic!("{chain:?}: {other:?}"),
        };
        assert_eq!(
            (report.sent, report.acknowledged),
            (3, 2),
            "{chain:?}: {report}"
        );
        assert_eq!(report.failed.len(), 1, "{chain:?}: {report}");
        assert_eq!(report.failed[0].id, ids[0]);
        assert!(report.failed[0].is_version_conflict(), "{report}");
        assert!(report.unknown.is_empty() && report.not_attempted.is_empty());
        assert_eq!(report.requests, 1, "one call");
        let r = c
            .add_batched(&[conflict, inc(&ids[1])], 10)
            .await
            .expect("a report");
        assert_eq!((r.sent, r.acknowledged, r.failed.len()), (2, 1, 1), "{r}");
        assert!(r.failed[0].is_version_conflict() && r.failed[0].id == ids[0]);
        c.commit(Commit::default()).await.expect("commit");
        let held = counters(&c, &t).await;
        let want: HashMap<String, i64> = [(&ids[0], 0), (&ids[1], 2), (&ids[2], 1)]
            .into_iter()
            .map(|(id, n)| (id.clone(), n))
            .collect();
        assert_eq!(held, want, "{chain:?}: each acknowledged inc applied once");
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
    // Counted as add_batched counts it: offered, failed at its position, never sent.
    assert_eq!((r.sent, r.acknowledged, r.failed.len()), (2, 1, 1), "{r:?}");
    assert_eq!((r.failed[0].index, r.requests), (Some(1), 1));
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
                    ..
                } => assert_eq!(
                    (id.as_str(), f.as_str()),
                    (format!("{t}-1").as_str(), field)
                ),
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
            let r = ix.finish().await;
            assert_eq!((r.sent, r.failed.len(), r.requests), (1, 1, 0), "{r:?}");
            assert_eq!(
                (r.failed[0].id.clone(), r.failed[0].index),
                (format!("{t}-1"), Some(0))
            );
        }
    }
    base.commit(Commit::default()).await.expect("commit");
    assert!(ids_in_solr(&base, &t).await.is_empty(), "nothing was sent");
}
