//! The solr-client `metrics` feature against the real local Solr: exact counts of
//! `solr_client_*` after searches, an add, a Solr error and a refused connection, with a
//! recorder local to the test's thread (`metrics::with_local_recorder`), so tests running at
//! the same time record elsewhere. Each test runs its calls on a current-thread runtime
//! inside the recorder's scope: the client records on the task that made the call.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use serde_json::Value;
use solr_client::{Error, ResponseEvent, Select, SolrClient, TransportKind, UpdateFormat};

use crate::support::{self, docs, tag};

/// What one test recorded: `name{label=value,...}` (labels sorted) -> counter value, or
/// sample count for a histogram.
type Recorded = BTreeMap<String, u64>;

/// Runs `f` on a current-thread runtime with a recorder of its own; returns its output and
/// every metric recorded meanwhile.
fn recording<T, F: Future<Output = T>>(f: impl FnOnce() -> F) -> (T, Recorded) {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let out = metrics::with_local_recorder(&recorder, || rt.block_on(f()));
    let mut got = Recorded::new();
    for (key, _, _, value) in snapshotter.snapshot().into_vec() {
        let key = key.key();
        let mut labels: Vec<String> = key
            .labels()
            .map(|l| format!("{}={}", l.key(), l.value()))
            .collect();
        labels.sort();
        let n = match value {
            DebugValue::Counter(n) => n,
            DebugValue::Histogram(v) => v.len() as u64,
            DebugValue::Gauge(g) => panic!("no gauge expected: {} = {g}", key.name()),
        };
        got.insert(format!("{}{{{}}}", key.name(), labels.join(",")), n);
    }
    (out, got)
}

/// The value of `name{labels}` (labels in sorted order), 0 when it was not recorded.
fn value(got: &Recorded, name: &str, labels: &str) -> u64 {
    got.get(&format!("{name}{{{labels}}}"))
        .copied()
        .unwrap_or(0)
}

/// The sum of every series of `name`.
fn total(got: &Recorded, name: &str) -> u64 {
    got.iter()
        .filter(|(k, _)| k.split('{').next() == Some(name))
        .map(|(_, v)| v)
        .sum()
}

fn client(url: &str, kind: TransportKind, format: UpdateFormat) -> SolrClient {
    SolrClient::builder(url)
        .collection("bench")
        .transport(kind)
        .update_format(format)
        .build()
        .expect("client builds")
}

const SELECT_OK: &str = "collection=bench,handler=select,status=200,transport=pooled";
const UPDATE_OK: &str = "collection=bench,handler=update,status=200,transport=pooled";

#[test]
fn pooled_searches_and_an_add_are_counted_exactly() {
    let _g = support::shared_blocking();
    let url = support::standalone().url(None).unwrap().to_string();
    let t = tag("metrics_pooled");
    let batch: Vec<Value> = docs(&t, 3, 0);
    let body = UpdateFormat::Json.encode_docs(&batch).expect("encodes");
    let (bytes_in, got) = recording(|| async {
        let c = client(&url, TransportKind::Pooled, UpdateFormat::Json);
        let mut bytes_in = 0;
        for i in 0..5 {
            let r = c
                .select(&Select::new(format!("id:{t}-{i}")).rows(1))
                .await
                .expect("search");
            bytes_in += r.timing.bytes_in;
        }
        let added = c.add(&batch).await.expect("add");
        bytes_in + added.timing.bytes_in
    });
    let requests = "solr_client_requests_total";
    assert_eq!(value(&got, requests, SELECT_OK), 5, "{got:#?}");
    assert_eq!(value(&got, requests, UPDATE_OK), 1, "{got:#?}");
    assert_eq!(total(&got, requests), 6, "{got:#?}");
    assert_eq!(total(&got, "solr_client_request_wall_seconds"), 6);
    assert_eq!(value(&got, "solr_client_qtime_seconds", SELECT_OK), 5);
    assert_eq!(
        value(&got, "solr_client_outside_solr_seconds", UPDATE_OK),
        1
    );
    let pooled = "transport=pooled";
    assert_eq!(
        value(&got, "solr_client_connections_opened_total", pooled),
        1
    );
    assert_eq!(
        value(
            &got,
            "solr_client_connections_reused_requests_total",
            pooled
        ),
        5
    );
    assert_eq!(
        value(
            &got,
            "solr_client_response_bytes_total",
            "encoding=identity,transport=pooled"
        ),
        bytes_in
    );
    assert_eq!(
        value(
            &got,
            "solr_client_update_bytes_total",
            "collection=bench,format=json,transport=pooled"
        ),
        body.len() as u64
    );
    assert_eq!(
        total(&got, "solr_client_update_bytes_total"),
        body.len() as u64
    );
    assert_eq!(
        total(&got, "solr_client_requests_without_response_total"),
        0
    );
}

#[test]
fn a_fresh_client_opens_a_connection_per_request_and_xml_is_labelled() {
    let _g = support::shared_blocking();
    let url = support::standalone().url(None).unwrap().to_string();
    let t = tag("metrics_fresh");
    let batch: Vec<Value> = docs(&t, 2, 0);
    let body = UpdateFormat::Xml.encode_docs(&batch).expect("encodes");
    let ((), got) = recording(|| async {
        let c = client(&url, TransportKind::Fresh, UpdateFormat::Xml);
        for _ in 0..3 {
            c.select(&Select::new(format!("tag_s:{t}")).rows(0))
                .await
                .expect("search");
        }
        c.add(&batch).await.expect("add");
    });
    let fresh = "transport=fresh";
    assert_eq!(
        value(&got, "solr_client_connections_opened_total", fresh),
        4,
        "{got:#?}"
    );
    assert_eq!(
        value(&got, "solr_client_connections_reused_requests_total", fresh),
        0
    );
    assert_eq!(
        value(
            &got,
            "solr_client_requests_total",
            "collection=bench,handler=select,status=200,transport=fresh"
        ),
        3
    );
    assert_eq!(
        value(
            &got,
            "solr_client_update_bytes_total",
            "collection=bench,format=xml,transport=fresh"
        ),
        body.len() as u64
    );
}

#[test]
fn a_solr_error_has_its_status_and_no_answer_its_kind_beside_the_users_hook() {
    let _g = support::shared_blocking();
    let url = support::standalone().url(None).unwrap().to_string();
    let (_socket, port) = support::refused_port();
    let seen = Arc::new(AtomicU64::new(0));
    let hook_seen = seen.clone();
    let (errors, got) = recording(|| async {
        let c = SolrClient::builder(&url)
            .collection("bench")
            .on_response(Arc::new(move |_: &ResponseEvent<'_>| {
                hook_seen.fetch_add(1, Ordering::Relaxed);
            }))
            .build()
            .expect("client builds");
        c.select(&Select::new("*:*").rows(0)).await.expect("search");
        let refused = c.select(&Select::new("title:(unclosed")).await;
        let dead = client(
            &format!("http://127.0.0.1:{port}/solr"),
            TransportKind::Pooled,
            UpdateFormat::Json,
        );
        let unanswered = dead.select(&Select::new("*:*")).await;
        (refused.err(), unanswered.err())
    });
    assert!(
        matches!(errors.0, Some(Error::Solr { status: 400, .. })),
        "{:?}",
        errors.0
    );
    assert!(
        matches!(errors.1, Some(Error::Connect { .. })),
        "{:?}",
        errors.1
    );
    let bad = "collection=bench,handler=select,status=400,transport=pooled";
    assert_eq!(
        value(&got, "solr_client_requests_total", bad),
        1,
        "{got:#?}"
    );
    assert_eq!(value(&got, "solr_client_requests_total", SELECT_OK), 1);
    assert_eq!(total(&got, "solr_client_requests_total"), 2);
    // Solr's error answer carries a QTime too.
    assert_eq!(value(&got, "solr_client_qtime_seconds", bad), 1);
    assert_eq!(
        value(
            &got,
            "solr_client_requests_without_response_total",
            "collection=bench,handler=select,kind=Connect,transport=pooled"
        ),
        1
    );
    assert_eq!(
        total(&got, "solr_client_requests_without_response_total"),
        1
    );
    assert_eq!(
        seen.load(Ordering::Relaxed),
        2,
        "the user's hook saw both answers"
    );
}
