//! Shared test support: the local Solr instances (started once per test process, reused
//! across runs by `solr.sh`'s idempotent start), unique tags for test data, and the lock
//! that keeps connection-counting tests alone.

pub mod app_host;
pub mod blackhole;
pub mod cloud_nodes;
pub mod danted;
pub mod doc_counts;
pub mod fault_server;
pub mod h2_fault;
pub mod haproxy;
pub mod lost_reply;
pub mod nginx_gateway;
#[cfg(feature = "opentelemetry")]
pub mod otlp_receiver;
pub mod prometheus;
pub mod script_server;
pub mod skip;
pub mod solr_version;
pub mod squid;
pub mod study;
pub mod tcp_relay;
pub mod tinyproxy;

use std::sync::OnceLock;

use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use serde_json::{json, Value};
use solr_client::{SolrClient, TlsOptions, TransportKind};
use solr_harness::local_solr::{LocalSolr, Mode};

/// Tests that count connections (kernel counters are per namespace), or Solr's request
/// counters of an instance other tests use too, take this lock for writing; every other
/// test takes it for reading, so nothing else opens a connection or sends a request while
/// they count.
static NET: RwLock<()> = RwLock::const_new(());

/// Shared access: for tests that do not count connections.
pub async fn shared() -> RwLockReadGuard<'static, ()> {
    NET.read().await
}

/// Exclusive access: for tests that count connections or a shared Solr's requests.
pub async fn exclusive() -> RwLockWriteGuard<'static, ()> {
    NET.write().await
}

/// [`shared`] for a test that runs outside any async runtime.
pub fn shared_blocking() -> RwLockReadGuard<'static, ()> {
    NET.blocking_read()
}

/// [`exclusive`] for a test that runs outside any async runtime.
pub fn exclusive_blocking() -> RwLockWriteGuard<'static, ()> {
    NET.blocking_write()
}

fn instance(
    cell: &'static OnceLock<LocalSolr>,
    mode: Mode,
    name: &str,
    extra: &[&str],
) -> &'static LocalSolr {
    cell.get_or_init(|| match LocalSolr::start(mode, name, extra) {
        Ok(s) => s,
        Err(e) => panic!("cannot start local Solr {name}: {e:#}"),
    })
}

/// The plain-http standalone node.
pub fn standalone() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    instance(&S, Mode::Standalone, "e2e", &[])
}

/// The https standalone node (CA made at set-up time).
pub fn standalone_tls() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    instance(&S, Mode::Standalone, "e2e-tls", &["--tls"])
}

/// The https standalone node whose Jetty requires a client certificate of the local CA
/// (`--client-auth`; Solr's CertAuthPlugin on).
pub fn standalone_mtls() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    instance(
        &S,
        Mode::Standalone,
        "e2e-mtls",
        &["--tls", "--client-auth"],
    )
}

/// A standalone node whose Jetty closes connections idle for more than 1 s.
pub fn standalone_idle() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    instance(
        &S,
        Mode::Standalone,
        "e2e-idle",
        &["--idle-timeout-ms", "1000"],
    )
}

/// Leader + follower, follower polling every second.
pub fn pair() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    instance(&S, Mode::Pair, "e2e-pair", &["--poll-interval", "1"])
}

/// Two-node SolrCloud, collection `bench` 1 shard x 2 replicas.
pub fn cloud() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    instance(&S, Mode::Cloud, "e2e-cloud", &[])
}

/// Two-node SolrCloud, collection `bench` (compositeId) 2 shards x 2 replicas, the shard
/// leaders spread over both nodes.
pub fn cloud2x2() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    instance(&S, Mode::Cloud, "e2e-cloud2x2", &CLOUD2X2)
}

/// The layout of [`cloud2x2`] (and of the clouds that add options to it).
const CLOUD2X2: [&str; 4] = ["--shards", "2", "--replicas", "2"];

/// [`cloud2x2`] over https, its Jetty requiring a client certificate of the local CA
/// (`--tls --client-auth`: Solr's CertAuthPlugin in ZooKeeper; the nodes present their own
/// certificate to each other).
pub fn cloud2x2_mtls() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    let opts = [&CLOUD2X2[..], &["--tls", "--client-auth"]].concat();
    instance(&S, Mode::Cloud, "e2e-cloud2x2-mtls", &opts)
}

/// A client on `url` with `kind`.
pub fn client(url: &str, kind: TransportKind, gzip: bool) -> SolrClient {
    SolrClient::builder(url)
        .collection("bench")
        .transport(kind)
        .gzip(gzip)
        .build()
        .expect("client builds")
}

/// A client trusting the local CA.
pub fn tls_client(s: &LocalSolr, kind: TransportKind) -> SolrClient {
    let ca = s.ca.as_ref().expect("TLS instance has a CA");
    let tls = TlsOptions::new().add_ca_pem_file(ca).expect("CA readable");
    SolrClient::builder(s.url(None).expect("url"))
        .collection("bench")
        .transport(kind)
        .tls(tls)
        .build()
        .expect("client builds")
}

/// A loopback port that refuses connections while the returned socket lives: bound and
/// never listening, so no other test's bind can take the port meanwhile (a port bound and
/// closed again is free for anyone).
pub fn refused_port() -> (tokio::net::TcpSocket, u16) {
    let s = tokio::net::TcpSocket::new_v4().expect("socket");
    s.bind(([127, 0, 0, 1], 0).into()).expect("bind port 0");
    let port = s.local_addr().expect("addr").port();
    (s, port)
}

/// A tag unique to this test run, to scope documents and counts.
pub fn tag(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{name}_{}_{nanos}", std::process::id())
}

/// `n` documents tagged `tag` (ids `{tag}-{i}`), with `dim`-dimensional vectors when > 0.
pub fn docs(tag: &str, n: usize, dim: usize) -> Vec<Value> {
    let mut gen = transport_bench::engine::workload::Generator::new(7, dim);
    (0..n)
        .map(|i| {
            let mut d = gen.doc(&format!("{tag}-"), i);
            d["tag_s"] = json!(tag);
            d["seq_i"] = json!(i);
            d
        })
        .collect()
}

/// Indexes `n` documents tagged `tag` ([`docs`], no vectors) through `client` and commits, so
/// they are searchable (`tag_s:{tag}`) when it returns; panics naming the step that failed.
pub async fn index_tagged(client: &SolrClient, tag: &str, n: usize) {
    client.add(&docs(tag, n, 0)).await.expect("index");
    client
        .commit(solr_client::Commit::default())
        .await
        .expect("commit");
}

/// Asserts that `json` validates against the JSON Schema text `schema` (a published one),
/// listing every violation.
pub fn assert_schema_valid(schema: &str, json: &Value) {
    let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(json).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "schema violations: {errors:?}");
}

/// Reads a JSON file.
pub fn read_json(path: &std::path::Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `transport-bench study` of `searches` searches and nothing else (no reindex, no mixed
/// operations, no warm-up, gzip off, quiet) against `url`, writing to `out`, with `extra`
/// arguments (repetitions, transports, the load shape).
pub fn searches_only_study(
    url: &str,
    out: &std::path::Path,
    searches: &str,
    extra: &[&str],
) -> transport_bench::cli::Cli {
    use clap::Parser;
    let out = out.to_str().expect("utf-8 path");
    let mut args = vec![
        "transport-bench",
        "study",
        "--url",
        url,
        "--docs",
        "0",
        "--mixed",
        "0",
        "--searches",
        searches,
        "--warmup",
        "0",
        "--gzip",
        "off",
        "--quiet",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    transport_bench::cli::Cli::parse_from(args)
}

/// Runs `transport-bench ARGS` to its end while holding the shared lock (beside the other
/// tests on the shared Solr); a failure panics with `what` and the whole cause chain.
pub async fn run_shared(args: &[&str], what: &str) {
    use clap::Parser;
    let cli = transport_bench::cli::Cli::parse_from(
        std::iter::once("transport-bench").chain(args.iter().copied()),
    );
    let _g = shared().await;
    transport_bench::cli::run(cli)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e:#}"));
}

/// `transport-bench report DIR` on a saved run of a kind older than `run.json`: what
/// [`assert_rerenders_from_manifest`] asserts, and then that the folder without `run.json`
/// (as one saved before it existed) still re-renders as `kind`, byte for byte.
pub fn assert_rerenders(dir: &std::path::Path, kind: &str, files: &[&str]) {
    let before = rerender_from_manifest(dir, kind, files);
    std::fs::remove_file(dir.join(bench_report::run::MANIFEST)).expect("run.json");
    let got = transport_bench::cli::report::rerender_any(dir, &mut Vec::new())
        .expect("old folder re-renders");
    assert_eq!(got, kind, "an old folder without run.json");
    for (f, old) in files.iter().zip(&before) {
        let new = std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(new == *old, "{f}: the re-rendered old folder differs");
    }
}

/// `transport-bench report DIR` on a saved run: deletes `files`, re-renders, and asserts the
/// run was read as `kind` (named in its `run.json`), every file came back byte for byte, and
/// the printed report ends with the same last line as `report.txt`. For a kind that was always
/// saved with `run.json` (no manifest-less fallback); [`assert_rerenders`] for older kinds.
pub fn assert_rerenders_from_manifest(dir: &std::path::Path, kind: &str, files: &[&str]) {
    rerender_from_manifest(dir, kind, files);
}

/// [`assert_rerenders_from_manifest`], returning the files' bytes from before.
fn rerender_from_manifest(dir: &std::path::Path, kind: &str, files: &[&str]) -> Vec<Vec<u8>> {
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect();
    for f in files {
        std::fs::remove_file(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    let mut printed = Vec::new();
    let got =
        transport_bench::cli::report::rerender_any(dir, &mut printed).expect("report re-renders");
    assert_eq!(got, kind);
    for (f, old) in files.iter().zip(&before) {
        let new = std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f} re-rendered: {e}"));
        assert!(new == *old, "{f}: the re-rendered file differs");
    }
    let text = String::from_utf8(printed).expect("utf-8");
    let report = std::fs::read_to_string(dir.join("report.txt")).expect("report.txt");
    assert_eq!(text.lines().last(), report.lines().last());
    // The folder names its kind in run.json.
    assert_eq!(
        bench_report::run::kind_of(dir)
            .expect("run.json")
            .as_deref(),
        Some(kind)
    );
    before
}

/// The string ids of a search answer's hits, sorted.
pub fn sorted_ids(r: &solr_client::SelectResponse) -> Vec<String> {
    let mut ids: Vec<String> = r
        .docs()
        .iter()
        .map(|d| d["id"].as_str().expect("string id").to_string())
        .collect();
    ids.sort();
    ids
}
