//! The conformance matrix: every path to Solr gives the same answer to the same operation.
//!
//! A path is a [`Path`]: a deployment (the standalone node, `support::standalone()`, or the
//! 2-shard x 2-replica cloud, `support::cloud2x2()` through `SolrClient::cloud(seeds)`), a
//! mode (the async client, or `solr_client::blocking`) and a transport (fresh, pooled,
//! http2, reqwest). An operation is a [`Case`]: a function that runs one call through a path
//! and returns a comparable [`Answer`] (counts, ids, report classes, `Error::kind()` names),
//! and the answer the data set says is right.
//!
//! - Reads (select, select_as, real-time get, cursor_as, export_as, stream_as, admin status)
//!   run on one data set seeded once per run under a unique tag, the same documents in both
//!   deployments. Ids are compared relative to their tag, in the order given where the call
//!   asks for an order (`id asc`).
//! - Writes (add, add_batched, the Indexer, delete) use a tag of their own per path and
//!   case, and compare their effects: the report's classes, and the ids present after a
//!   commit.
//! - Every family has error cases: a query Solr refuses, a document the schema refuses (a
//!   per-document failure), a collection that does not exist.
//!
//! Every cell is compared with the answer of the reference path (the first one selected:
//! standalone, async, pooled) and with the right answer; the test fails naming every cell
//! that differs, with what it gave (and the error's text).
//!
//! Which paths: `CONFORMANCE` unset (CI) runs [`CI_PATHS`], the 4 corners that between them
//! cover every deployment, mode and transport (standalone+async+pooled,
//! cloud+blocking+fresh, cloud+async+http2, standalone+blocking+reqwest);
//! `CONFORMANCE=full` runs all 16 (`scripts/conformance.sh`);
//! `CONFORMANCE=standalone+async+pooled,cloud+async+fresh` runs the paths named, the first
//! as the reference.
//!
//! One input differs by deployment, as Solr requires: a streaming `search` on the standalone
//! node names its core with `bench.shards` (`stream_as_with`), having no ZooKeeper.

use std::fmt;

use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use solr_client::{
    blocking, expr, BatchReport, Commit, Error, Export, Get, Indexer, Select, SolrClient,
    TransportKind,
};

use crate::support;

/// Documents in the shared read data set.
const N: usize = 37;
/// A collection that exists in neither deployment.
const MISSING: &str = "conformance_missing";

/// Where Solr runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deployment {
    /// The standalone node, core `bench`.
    Standalone,
    /// The 2-shard x 2-replica cloud, collection `bench`, through `SolrClient::cloud`.
    Cloud,
}

/// Which client API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `solr_client::SolrClient`, awaited on a runtime of the path's own.
    Async,
    /// `solr_client::blocking::SolrClient`, called from the test's plain thread.
    Blocking,
}

/// One path through the client to Solr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Path {
    deployment: Deployment,
    mode: Mode,
    transport: TransportKind,
}

const fn path(deployment: Deployment, mode: Mode, transport: TransportKind) -> Path {
    Path {
        deployment,
        mode,
        transport,
    }
}

/// What CI runs: the reference path first, then 3 more, so that between them every
/// deployment, mode and transport is taken at least once.
const CI_PATHS: [Path; 4] = [
    path(Deployment::Standalone, Mode::Async, TransportKind::Pooled),
    path(Deployment::Cloud, Mode::Blocking, TransportKind::Fresh),
    path(Deployment::Cloud, Mode::Async, TransportKind::Http2),
    path(
        Deployment::Standalone,
        Mode::Blocking,
        TransportKind::Reqwest,
    ),
];

const DEPLOYMENTS: [Deployment; 2] = [Deployment::Standalone, Deployment::Cloud];
const MODES: [Mode; 2] = [Mode::Async, Mode::Blocking];
const TRANSPORTS: [TransportKind; 4] = [
    TransportKind::Pooled,
    TransportKind::Fresh,
    TransportKind::Http2,
    TransportKind::Reqwest,
];

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = match self.deployment {
            Deployment::Standalone => "standalone",
            Deployment::Cloud => "cloud",
        };
        let m = match self.mode {
            Mode::Async => "async",
            Mode::Blocking => "blocking",
        };
        write!(f, "{d}+{m}+{}", self.transport)
    }
}

/// Every path, the reference ([`CI_PATHS`]`[0]`) first.
fn all_paths() -> Vec<Path> {
    let mut all = vec![CI_PATHS[0]];
    for d in DEPLOYMENTS {
        for m in MODES {
            for t in TRANSPORTS {
                let p = path(d, m, t);
                if p != CI_PATHS[0] {
                    all.push(p);
                }
            }
        }
    }
    all
}

/// The paths `CONFORMANCE` selects (see the module docs); an unknown name panics, listing
/// the names.
fn selected(var: Option<&str>) -> Vec<Path> {
    match var.map(str::trim) {
        None | Some("") | Some("ci") => CI_PATHS.to_vec(),
        Some("full") => all_paths(),
        Some(list) => list
            .split(',')
            .map(|name| {
                all_paths()
                    .into_iter()
                    .find(|p| p.to_string() == name.trim())
                    .unwrap_or_else(|| {
                        let names: Vec<String> = all_paths().iter().map(Path::to_string).collect();
                        panic!("CONFORMANCE: no path {name:?}; paths: {}", names.join(", "))
                    })
            })
            .collect(),
    }
}

/// What one operation gave on one path, in a form every path can be compared by.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    /// Documents: the count (numFound, or the items a stream gave) and the ids relative to
    /// the tag, in the order given (sorted where the call set no order).
    Docs { count: u64, ids: Vec<String> },
    /// An update's account (ids relative to the tag; `requests` only where it is the same
    /// on every path) and the ids present after a commit.
    Report {
        sent: usize,
        acknowledged: usize,
        failed: Vec<String>,
        unknown: usize,
        not_attempted: usize,
        requests: Option<usize>,
        present: Vec<String>,
    },
    /// Admin status: the ping's status and Solr's version from system info.
    Status { ping: String, solr: String },
    /// The call failed: `Error::kind()`, with the cause's kind for an `Update` error.
    Failed(String),
}

/// A client of either mode.
enum Client {
    Async {
        client: SolrClient,
        rt: tokio::runtime::Runtime,
    },
    Blocking(blocking::SolrClient),
}

/// Runs the same call on either client: on the path's runtime (async) or directly
/// (blocking). The call is written once and compiles against both APIs.
macro_rules! call {
    ($client:expr, |$c:ident| $call:expr) => {
        match $client {
            Client::Async { client: $c, rt } => rt.block_on($call),
            Client::Blocking($c) => $call,
        }
    };
}

/// What an operation sees: its path's clients, the shared data set's tag, and its own tag
/// (for writes).
struct Cx {
    bench: Client,
    missing: Client,
    seed: String,
    tag: String,
    /// `bench.shards` for a streaming `search` on the standalone node: its core's URL.
    shards: Option<String>,
}

/// The right answers' inputs: what the data set and the release say.
struct Truth {
    solr: String,
}

type Op = fn(&Cx) -> solr_client::Result<Answer>;

/// One operation of the matrix.
struct Case {
    name: &'static str,
    /// True when it writes (in the cloud it then holds the routing tests' lock: they count
    /// update requests per core).
    writes: bool,
    run: Op,
    want: fn(&Truth) -> Answer,
}

#[derive(Debug, Deserialize)]
struct Row {
    id: String,
}

#[derive(Debug, Deserialize)]
struct SeqRow {
    id: String,
    seq_i: i64,
}

/// `id` relative to `tag` (`{tag}-7` is `7`); an id of another tag stays whole, so it
/// shows in a comparison.
fn rel(tag: &str, id: &str) -> String {
    id.strip_prefix(tag)
        .and_then(|rest| rest.strip_prefix('-'))
        .unwrap_or(id)
        .to_string()
}

/// The relative ids of `range`, sorted as Solr sorts strings (`id asc`).
fn sorted(range: impl Iterator<Item = usize>) -> Vec<String> {
    let mut ids: Vec<String> = range.map(|i| i.to_string()).collect();
    ids.sort();
    ids
}

/// The `Error::kind()` name, with the cause's for an `Update` error (a whole request lost).
fn kind(e: &Error) -> String {
    match e {
        Error::Update { cause: Some(c), .. } => format!("Update({})", kind(c)),
        _ => e.kind().to_string(),
    }
}

/// Items of a stream or iterator as an answer: the count and relative ids in the order
/// given, or the first error.
fn items(tag: &str, got: Vec<solr_client::Result<Row>>) -> solr_client::Result<Answer> {
    let ids = got
        .into_iter()
        .map(|r| r.map(|row| rel(tag, &row.id)))
        .collect::<solr_client::Result<Vec<String>>>()?;
    Ok(Answer::Docs {
        count: ids.len() as u64,
        ids,
    })
}

fn docs_answer(tag: &str, count: u64, ids: impl Iterator<Item = String>) -> Answer {
    Answer::Docs {
        count,
        ids: ids.map(|id| rel(tag, &id)).collect(),
    }
}

// ---- reads -------------------------------------------------------------------------------

fn by_seed(cx: &Cx) -> Select {
    Select::new(format!("tag_s:{}", cx.seed))
}

fn select(cx: &Cx) -> solr_client::Result<Answer> {
    let s = by_seed(cx).fl("id").sort("id asc").rows(N as u64 + 5);
    let r = call!(&cx.bench, |c| c.select(&s))?;
    let list = r.response.unwrap_or_default();
    let ids = list
        .docs
        .iter()
        .map(|d| d["id"].as_str().unwrap_or("?").to_string());
    Ok(docs_answer(&cx.seed, list.num_found, ids))
}

fn select_as(cx: &Cx) -> solr_client::Result<Answer> {
    let s = by_seed(cx)
        .fq("seq_i:[5 TO 24]")
        .fl("id,seq_i")
        .sort("seq_i desc")
        .rows(7);
    let r = call!(&cx.bench, |c| c.select_as::<SeqRow>(&s))?;
    let (found, docs) = r
        .response
        .map(|l| (l.num_found, l.docs))
        .unwrap_or_default();
    // The typed field agrees with the id it came with.
    let ids = docs.iter().map(|d| match rel(&cx.seed, &d.id) {
        rel if rel == d.seq_i.to_string() => d.id.clone(),
        _ => format!("{} with seq_i {}", d.id, d.seq_i),
    });
    Ok(docs_answer(&cx.seed, found, ids))
}

fn select_bad_query(cx: &Cx) -> solr_client::Result<Answer> {
    let s = Select::new("tag_s:(unclosed");
    let r = call!(&cx.bench, |c| c.select(&s))?;
    Ok(docs_answer(
        "",
        r.response.unwrap_or_default().num_found,
        std::iter::empty(),
    ))
}

fn select_missing_collection(cx: &Cx) -> solr_client::Result<Answer> {
    let s = Select::new("*:*").rows(0);
    let r = call!(&cx.missing, |c| c.select(&s))?;
    Ok(docs_answer(
        "",
        r.response.unwrap_or_default().num_found,
        std::iter::empty(),
    ))
}

fn get(cx: &Cx) -> solr_client::Result<Answer> {
    let ids = ["3", "17", "no-such-doc"].map(|i| format!("{}-{i}", cx.seed));
    let g = Get::new(ids).fl("id");
    let r = call!(&cx.bench, |c| c.get::<Row>(&g))?;
    let mut ids: Vec<String> = r.docs.into_iter().map(|d| d.id).collect();
    ids.sort();
    Ok(docs_answer(&cx.seed, r.num_found, ids.into_iter()))
}

fn get_missing_collection(cx: &Cx) -> solr_client::Result<Answer> {
    let g = Get::new([format!("{}-3", cx.seed)]);
    let r = call!(&cx.missing, |c| c.get::<Row>(&g))?;
    Ok(docs_answer(&cx.seed, r.num_found, std::iter::empty()))
}

/// Every document of a cursor over `select`, 6 per page.
fn cursor_items(client: &Client, select: Select) -> Vec<solr_client::Result<Row>> {
    match client {
        Client::Async { client, rt } => {
            rt.block_on(client.cursor_as::<Row>(select, 6).collect::<Vec<_>>())
        }
        Client::Blocking(c) => c.cursor_as::<Row>(select, 6).collect(),
    }
}

fn cursor_as(cx: &Cx) -> solr_client::Result<Answer> {
    let got = cursor_items(&cx.bench, by_seed(cx).fl("id").sort("id asc"));
    items(&cx.seed, got)
}

fn cursor_bad_query(cx: &Cx) -> solr_client::Result<Answer> {
    let got = cursor_items(&cx.bench, Select::new("tag_s:(unclosed").fl("id"));
    items(&cx.seed, got)
}

/// Every tuple of an export, or the error that stopped it.
fn export_items(client: &Client, export: &Export) -> Vec<solr_client::Result<Row>> {
    match client {
        Client::Async { client, rt } => rt.block_on(async {
            match client.export_as::<Row>(export).await {
                Ok(tuples) => tuples.collect().await,
                Err(e) => vec![Err(e)],
            }
        }),
        Client::Blocking(c) => match c.export_as::<Row>(export) {
            Ok(tuples) => tuples.collect(),
            Err(e) => vec![Err(e)],
        },
    }
}

fn export_as(cx: &Cx) -> solr_client::Result<Answer> {
    let export = Export::new(format!("tag_s:{}", cx.seed))
        .fl("id")
        .sort("id asc");
    items(&cx.seed, export_items(&cx.bench, &export))
}

fn export_no_doc_values(cx: &Cx) -> solr_client::Result<Answer> {
    // `title` is a text field without docValues: /export refuses to sort on it.
    let export = Export::new(format!("tag_s:{}", cx.seed))
        .fl("id")
        .sort("title asc");
    items(&cx.seed, export_items(&cx.bench, &export))
}

/// Every tuple of the streaming expression `expr` (with the path's `bench.shards` on a
/// standalone node, which has no ZooKeeper to find the core), or the error that stopped it.
fn stream_items(cx: &Cx, expr: &str) -> Vec<solr_client::Result<Row>> {
    let extra: Vec<(&str, &str)> = cx
        .shards
        .iter()
        .map(|s| ("bench.shards", s.as_str()))
        .collect();
    match &cx.bench {
        Client::Async { client, rt } => rt.block_on(async {
            match client.stream_as_with::<Row>(expr, &extra).await {
                Ok(tuples) => tuples.collect().await,
                Err(e) => vec![Err(e)],
            }
        }),
        Client::Blocking(c) => match c.stream_as_with::<Row>(expr, &extra) {
            Ok(tuples) => tuples.collect(),
            Err(e) => vec![Err(e)],
        },
    }
}

fn stream_as(cx: &Cx) -> solr_client::Result<Answer> {
    let search = expr::search("bench")
        .q(format!("tag_s:{}", cx.seed))
        .fl(["id"])
        .sort([expr::Sort::asc("id")])
        .qt("/export")
        .build()?;
    items(&cx.seed, stream_items(cx, &search.to_string()))
}

fn stream_bad_expression(cx: &Cx) -> solr_client::Result<Answer> {
    items(&cx.seed, stream_items(cx, "search(bench, q="))
}

fn status(cx: &Cx) -> solr_client::Result<Answer> {
    let ping = call!(&cx.bench, |c| c.ping())?;
    let info = call!(&cx.bench, |c| c.system().info())?;
    Ok(Answer::Status {
        ping: ping.status,
        solr: info.lucene.solr_spec_version,
    })
}

fn ping_missing_collection(cx: &Cx) -> solr_client::Result<Answer> {
    let ping = call!(&cx.missing, |c| c.ping())?;
    Ok(Answer::Status {
        ping: ping.status,
        solr: String::new(),
    })
}

// ---- writes ------------------------------------------------------------------------------

/// `n` documents of the case's own tag; the ones at `bad` carry a value the schema refuses
/// (`popularity` is an int).
fn write_docs(cx: &Cx, n: usize, bad: &[usize]) -> Vec<Value> {
    let mut docs = support::docs(&cx.tag, n, 0);
    for &i in bad {
        docs[i]["popularity"] = json!("not-a-number");
    }
    docs
}

/// Commits, then the ids of the case's tag that are searchable, relative and sorted.
fn present(cx: &Cx) -> solr_client::Result<Vec<String>> {
    call!(&cx.bench, |c| c.commit(Commit::default()))?;
    let s = Select::new(format!("tag_s:{}", cx.tag))
        .fl("id")
        .sort("id asc")
        .rows(100);
    let r = call!(&cx.bench, |c| c.select(&s))?;
    let docs = r.response.unwrap_or_default().docs;
    Ok(docs
        .iter()
        .map(|d| rel(&cx.tag, d["id"].as_str().unwrap_or("?")))
        .collect())
}

/// A report as an answer, with the ids present after a commit.
fn report_answer(cx: &Cx, r: &BatchReport, requests: bool) -> solr_client::Result<Answer> {
    let mut failed: Vec<String> = r.failed.iter().map(|f| rel(&cx.tag, &f.id)).collect();
    failed.sort();
    Ok(Answer::Report {
        sent: r.sent,
        acknowledged: r.acknowledged,
        failed,
        unknown: r.unknown.len(),
        not_attempted: r.not_attempted.len(),
        requests: requests.then_some(r.requests),
        present: present(cx)?,
    })
}

fn add(cx: &Cx) -> solr_client::Result<Answer> {
    let docs = write_docs(cx, 8, &[3]);
    match call!(&cx.bench, |c| c.add(&docs)) {
        Ok(r) => Ok(Answer::Report {
            sent: r.docs_sent,
            acknowledged: r.docs_sent,
            failed: Vec::new(),
            unknown: 0,
            not_attempted: 0,
            requests: None,
            present: present(cx)?,
        }),
        Err(Error::Update {
            report,
            cause: None,
            ..
        }) => report_answer(cx, &report, false),
        Err(e) => Err(e),
    }
}

fn add_missing_collection(cx: &Cx) -> solr_client::Result<Answer> {
    let docs = write_docs(cx, 3, &[]);
    let r = call!(&cx.missing, |c| c.add(&docs))?;
    Ok(docs_answer(&cx.tag, r.docs_sent as u64, std::iter::empty()))
}

fn add_batched(cx: &Cx) -> solr_client::Result<Answer> {
    let docs = write_docs(cx, 10, &[5]);
    let r = call!(&cx.bench, |c| c.add_batched(&docs, 4))?;
    report_answer(cx, &r, true)
}

fn indexer(cx: &Cx) -> solr_client::Result<Answer> {
    let docs = write_docs(cx, 10, &[7]);
    let report = match &cx.bench {
        Client::Async { client, rt } => rt.block_on(async {
            let mut ix = Indexer::builder(client.clone()).batch_docs(3).build()?;
            ix.index_iter(&docs).await?;
            Ok::<_, Error>(ix.finish().await)
        })?,
        Client::Blocking(c) => {
            let mut ix = c.indexer(Indexer::builder(c.inner().clone()).batch_docs(3))?;
            ix.index_iter(&docs)?;
            ix.finish()?
        }
    };
    report_answer(cx, &report, false)
}

fn delete(cx: &Cx) -> solr_client::Result<Answer> {
    let docs = write_docs(cx, 10, &[]);
    call!(&cx.bench, |c| c.add(&docs))?;
    call!(&cx.bench, |c| c.commit(Commit::default()))?;
    let ids: Vec<String> = (0..3).map(|i| format!("{}-{i}", cx.tag)).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    call!(&cx.bench, |c| c.delete_by_ids(&ids))?;
    let q = format!("tag_s:{} AND seq_i:[7 TO 9]", cx.tag);
    call!(&cx.bench, |c| c.delete_by_query(&q))?;
    let left = present(cx)?;
    Ok(Answer::Docs {
        count: left.len() as u64,
        ids: left,
    })
}

fn delete_bad_query(cx: &Cx) -> solr_client::Result<Answer> {
    call!(&cx.bench, |c| c.delete_by_query("tag_s:(unclosed"))?;
    Ok(Answer::Docs {
        count: 0,
        ids: Vec::new(),
    })
}

// ---- the table ---------------------------------------------------------------------------

fn failed(kind: &str) -> Answer {
    Answer::Failed(kind.to_string())
}

/// Every operation, with the right answer.
fn cases() -> Vec<Case> {
    let all = |_: &Truth| Answer::Docs {
        count: N as u64,
        ids: sorted(0..N),
    };
    let read = |name, run: Op, want| Case {
        name,
        writes: false,
        run,
        want,
    };
    let write = |name, run: Op, want| Case {
        name,
        writes: true,
        run,
        want,
    };
    vec![
        read("select", select, all),
        read("select_as", select_as, |_| Answer::Docs {
            count: 20,
            ids: (18..=24).rev().map(|i| i.to_string()).collect(),
        }),
        read("select: bad query", select_bad_query, |_| failed("Solr")),
        read(
            "select: missing collection",
            select_missing_collection,
            |_| failed("NotFound"),
        ),
        read("get", get, |_| Answer::Docs {
            count: 2,
            ids: sorted([3, 17].into_iter()),
        }),
        read("get: missing collection", get_missing_collection, |_| {
            failed("NotFound")
        }),
        read("cursor_as", cursor_as, all),
        read("cursor_as: bad query", cursor_bad_query, |_| failed("Solr")),
        read("export_as", export_as, all),
        read("export_as: no docValues", export_no_doc_values, |_| {
            failed("Solr")
        }),
        read("stream_as", stream_as, all),
        read("stream_as: bad expression", stream_bad_expression, |_| {
            failed("Solr")
        }),
        read("admin status", status, |t| Answer::Status {
            ping: "OK".into(),
            solr: t.solr.clone(),
        }),
        read("ping: missing collection", ping_missing_collection, |_| {
            failed("NotFound")
        }),
        write("add (doc 3 refused)", add, |_| report(8, &[3], None)),
        write("add: missing collection", add_missing_collection, |_| {
            failed("Update(NotFound)")
        }),
        write("add_batched (doc 5 refused)", add_batched, |_| {
            report(10, &[5], Some(3))
        }),
        write("Indexer (doc 7 refused)", indexer, |_| {
            report(10, &[7], None)
        }),
        write("delete by ids and query", delete, |_| Answer::Docs {
            count: 4,
            ids: sorted(3..7),
        }),
        // The tolerant chain answers 0 and lists the refused delete in its header.
        write("delete: bad query", delete_bad_query, |_| failed("Update")),
    ]
}

/// The right report of `sent` documents of which `refused` were refused by the schema, and
/// the others indexed.
fn report(sent: usize, refused: &[usize], requests: Option<usize>) -> Answer {
    Answer::Report {
        sent,
        acknowledged: sent - refused.len(),
        failed: sorted(refused.iter().copied()),
        unknown: 0,
        not_attempted: 0,
        requests,
        present: sorted((0..sent).filter(|i| !refused.contains(i))),
    }
}

// ---- the run -----------------------------------------------------------------------------

/// A client of `path` on `collection`.
fn client(p: Path, collection: &str) -> Client {
    // One builder for both deployments: only its start differs.
    let builder = match p.deployment {
        Deployment::Standalone => {
            SolrClient::builder(support::standalone().url(None).expect("url"))
        }
        Deployment::Cloud => SolrClient::cloud(support::cloud_nodes::seeds(support::cloud2x2())),
    };
    let inner = builder
        .collection(collection)
        .transport(p.transport)
        .build()
        .unwrap_or_else(|e| panic!("{p}: the client builds: {e}"));
    match p.mode {
        Mode::Async => Client::Async {
            client: inner,
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime"),
        },
        Mode::Blocking => Client::Blocking(blocking::SolrClient::new(inner).expect("blocking")),
    }
}

/// Indexes the read data set (`N` documents tagged `tag`) in `deployment` and commits; in
/// the cloud, first waits until every shard has a leader and every replica is usable.
fn seed(deployment: Deployment, tag: &str) {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    rt.block_on(async {
        let c = match deployment {
            Deployment::Standalone => support::client(
                support::standalone().url(None).expect("url"),
                TransportKind::Pooled,
                false,
            ),
            Deployment::Cloud => {
                let s = support::cloud2x2();
                let nodes = support::cloud_nodes::seeds(s);
                let nodes: Vec<&str> = nodes.iter().map(String::as_str).collect();
                crate::cloud_routing::healthy_router(&nodes).await;
                SolrClient::cloud(support::cloud_nodes::seeds(s))
                    .collection("bench")
                    .build()
                    .expect("cloud client")
            }
        };
        support::index_tagged(&c, tag, N).await;
    });
}

/// Every case's answer on `p`, in the order of `cases`, with the error's text for a failed
/// call (shown when the cell differs; not compared).
fn run_path(p: Path, cases: &[Case], seed: &str) -> Vec<(Answer, String)> {
    let bench = client(p, "bench");
    let missing = client(p, MISSING);
    let mut cx = Cx {
        bench,
        missing,
        seed: seed.to_string(),
        tag: String::new(),
        shards: (p.deployment == Deployment::Standalone).then(|| {
            let url = support::standalone().url(None).expect("url");
            format!("{}/bench", url.trim_end_matches('/'))
        }),
    };
    cases
        .iter()
        .map(|case| {
            cx.tag = support::tag("conformance");
            let _one = (case.writes && p.deployment == Deployment::Cloud)
                .then(|| crate::cloud_routing::LOCK.blocking_lock());
            match (case.run)(&cx) {
                Ok(a) => (a, String::new()),
                Err(e) => (Answer::Failed(kind(&e)), format!(" ({e})")),
            }
        })
        .collect()
}

/// The cells that differ from the right answer or from the reference path's (the first),
/// one line each, naming the case, the path and what it gave.
fn differences(
    cases: &[Case],
    paths: &[Path],
    got: &[Vec<(Answer, String)>],
    truth: &Truth,
) -> Vec<String> {
    let mut out = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let want = (case.want)(truth);
        let reference = &got[0][i].0;
        for (p, answers) in paths.iter().zip(got) {
            let (a, text) = &answers[i];
            if *a != want || a != reference {
                out.push(format!(
                    "{} on {p}: {a:?}{text}; right: {want:?}; reference {}: {reference:?}",
                    case.name, paths[0]
                ));
            }
        }
    }
    out
}

/// The matrix: the selected paths, every case, each cell against the right answer and the
/// reference path's.
#[test]
fn every_path_gives_the_same_answers() {
    let _net = support::shared_blocking();
    let paths = selected(std::env::var("CONFORMANCE").ok().as_deref());
    let seed_tag = support::tag("conformance_seed");
    for d in DEPLOYMENTS {
        if paths.iter().any(|p| p.deployment == d) {
            seed(d, &seed_tag);
        }
    }
    let cases = cases();
    let got: Vec<Vec<(Answer, String)>> = paths
        .iter()
        .map(|&p| run_path(p, &cases, &seed_tag))
        .collect();
    let (maj, min, patch) = support::solr_version::current();
    let truth = Truth {
        solr: format!("{maj}.{min}.{patch}"),
    };
    let diff = differences(&cases, &paths, &got, &truth);
    let names: Vec<String> = paths.iter().map(Path::to_string).collect();
    eprintln!(
        "conformance: {} cases x {} paths ({}): {} cells differ",
        cases.len(),
        paths.len(),
        names.join(", "),
        diff.len()
    );
    assert!(diff.is_empty(), "cells that differ:\n{}", diff.join("\n"));
}

#[test]
fn the_ci_selection_covers_every_deployment_mode_and_transport() {
    let ci = selected(None);
    assert_eq!(ci, CI_PATHS.to_vec());
    for d in DEPLOYMENTS {
        assert!(ci.iter().any(|p| p.deployment == d), "{d:?}");
    }
    for m in MODES {
        assert!(ci.iter().any(|p| p.mode == m), "{m:?}");
    }
    for t in TRANSPORTS {
        assert!(ci.iter().any(|p| p.transport == t), "{t}");
    }
    let full = selected(Some("full"));
    assert_eq!(full.len(), 16);
    assert_eq!(full[0], CI_PATHS[0], "the reference comes first");
    let names: std::collections::BTreeSet<String> = full.iter().map(Path::to_string).collect();
    assert_eq!(names.len(), 16, "every path once");
    let two = selected(Some("cloud+blocking+reqwest, standalone+async+http2"));
    assert_eq!(
        two,
        vec![
            path(Deployment::Cloud, Mode::Blocking, TransportKind::Reqwest),
            path(Deployment::Standalone, Mode::Async, TransportKind::Http2),
        ]
    );
}
