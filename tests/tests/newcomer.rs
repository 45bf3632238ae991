//! What a newcomer meets first, against the real local Solr: a wrong core or base URL is a
//! typed not-found error with a hint, the wrong scheme says so, a failed update tells its
//! status and node, and the observability hooks (tracing spans, the metrics hook) report
//! every response exactly once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use solr_client::transport::{Retry, RetryPolicy};
use solr_client::{Commit, Error, ResponseEvent, Select, SolrClient, TransportKind, WireRequest};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use crate::support::fault_server::{Fault, FaultServer, SELECT_OK};
use crate::support::{self, tag};

/// What a hook saw, shared with the test.
type Shared<T> = Arc<Mutex<Vec<T>>>;

fn on(url: &str, collection: &str, kind: TransportKind) -> SolrClient {
    SolrClient::builder(url)
        .collection(collection)
        .transport(kind)
        .build()
        .expect("client builds")
}

#[tokio::test]
async fn wrong_core_is_not_found_with_a_collection_hint() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let core = tag("nocore");
    let err = on(url, &core, TransportKind::Pooled)
        .select(&Select::new("*:*"))
        .await
        .expect_err("no such core");
    let Error::NotFound {
        node, path, hint, ..
    } = &err
    else {
        panic!("expected NotFound, got {err:?}")
    };
    assert_eq!(node, url);
    assert_eq!(path, &format!("/solr/{core}/select"));
    assert!(hint.contains(&format!("\"{core}\"")), "{hint}");
    assert!(hint.contains(".collection("), "{hint}");
    assert_eq!((err.status(), err.node()), (Some(404), Some(url)));
    let shown = err.to_string();
    assert!(
        !shown.contains("<html"),
        "no HTML page in the message: {shown}"
    );
}

#[tokio::test]
async fn wrong_base_path_is_not_found_with_a_base_url_hint() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let root = url.strip_suffix("/solr").expect("base ends in /solr");
    // The base URL without /solr: Jetty answers, not Solr.
    let err = on(root, "bench", TransportKind::Pooled)
        .select(&Select::new("*:*"))
        .await
        .expect_err("no Solr at /");
    let Error::NotFound { path, hint, .. } = &err else {
        panic!("expected NotFound, got {err:?}")
    };
    assert_eq!(path, "/bench/select");
    assert!(hint.contains("ends in /solr"), "{hint}");
    // The collection inside the base URL as well as in .collection().
    let err = on(&format!("{url}/bench"), "bench", TransportKind::Pooled)
        .select(&Select::new("*:*"))
        .await
        .expect_err("/solr/bench/bench");
    let Error::NotFound { path, hint, .. } = &err else {
        panic!("expected NotFound, got {err:?}")
    };
    assert_eq!(path, "/solr/bench/bench/select");
    assert!(hint.contains(".collection(\"bench\")"), "{hint}");
}

#[tokio::test]
async fn https_to_the_plain_node_and_http_to_the_tls_node_hint_the_scheme() {
    let _g = support::shared().await;
    let plain = support::standalone().url(None).expect("url");
    let tls = support::standalone_tls().url(None).expect("url");
    let https_on_plain = plain.replacen("http://", "https://", 1);
    let http_on_tls = tls.replacen("https://", "http://", 1);
    // https to the plain port: the TLS handshake reads an HTTP answer, on every transport.
    for kind in TransportKind::ALL {
        let err = on(&https_on_plain, "bench", kind)
            .ping()
            .await
            .expect_err("https to a plain port");
        let shown = err.to_string();
        assert!(err.is_connect(), "{kind}: {err:?}");
        assert!(shown.contains("wrong scheme?"), "{kind}: {shown}");
        assert!(shown.contains("use http://"), "{kind}: {shown}");
    }
    // http to the TLS port: the answer is a TLS alert, not HTTP/1.1 (HTTP/2 with prior
    // knowledge tells it by the first bytes the node sent, even when its connection is
    // found closed before the HTTP/2 layer read them).
    for kind in TransportKind::ALL {
        let err = on(&http_on_tls, "bench", kind)
            .ping()
            .await
            .expect_err("http to a TLS port");
        let shown = err.to_string();
        assert!(shown.contains("wrong scheme?"), "{kind}: {err:?}");
        assert!(shown.contains("use https://"), "{kind}: {shown}");
    }
}

#[tokio::test]
async fn a_failed_update_tells_its_status_and_node() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let t = tag("nocore_upd");
    let docs = [
        json!({"id": format!("{t}-1")}),
        json!({"id": format!("{t}-2")}),
    ];
    let err = on(url, &t, TransportKind::Pooled)
        .add(&docs)
        .await
        .expect_err("no such core");
    let Error::Update { report, cause, .. } = &err else {
        panic!("expected Update, got {err:?}")
    };
    assert!(
        matches!(cause.as_deref(), Some(Error::NotFound { .. })),
        "{cause:?}"
    );
    // A 404 indexed nothing: both documents failed, none unknown.
    assert_eq!(
        (report.sent, report.failed.len(), report.unknown.len()),
        (2, 2, 0)
    );
    assert_eq!(err.status(), Some(404));
    assert_eq!(err.node(), Some(url));
}

/// The fields of one span or event, as text.
#[derive(Debug, Default, Clone)]
struct Fields(BTreeMap<String, String>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
}

/// Closed spans (name, fields) and events, in order.
#[derive(Clone, Default)]
struct Collect {
    spans: Arc<Mutex<Vec<(String, Fields)>>>,
    events: Arc<Mutex<Vec<Fields>>>,
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Collect {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut f = Fields::default();
        attrs.record(&mut f);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(f);
        }
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(f) = span.extensions_mut().get_mut::<Fields>() {
                values.record(f);
            }
        }
    }
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut f = Fields::default();
        event.record(&mut f);
        self.events.lock().expect("lock").push(f);
    }
    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id) {
            let f = span.extensions_mut().remove::<Fields>().unwrap_or_default();
            self.spans
                .lock()
                .expect("lock")
                .push((span.name().to_string(), f));
        }
    }
}

impl Collect {
    fn spans(&self, name: &str) -> Vec<BTreeMap<String, String>> {
        self.spans
            .lock()
            .expect("lock")
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, f)| f.0.clone())
            .collect()
    }
}

fn get<'a>(f: &'a BTreeMap<String, String>, k: &str) -> &'a str {
    f.get(k).map(String::as_str).unwrap_or("<absent>")
}

#[tokio::test]
async fn tracing_spans_carry_the_attempt_fields() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let collect = Collect::default();
    let _sub =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(collect.clone()));
    let q = Select::new("*:*").rows(0);

    // Fresh: every request opens its connection.
    let fresh = on(url, "bench", TransportKind::Fresh);
    fresh.select(&q).await.expect("select");
    fresh.select(&q).await.expect("select");
    let attempts = collect.spans("solr.attempt");
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    for a in &attempts {
        assert_eq!(get(a, "status"), "200", "{a:?}");
        assert_eq!(get(a, "reused"), "false", "{a:?}");
        assert_eq!(get(a, "attempt"), "1", "{a:?}");
        assert_eq!(get(a, "method"), "GET", "{a:?}");
        assert_eq!(get(a, "path"), "bench/select", "{a:?}");
        assert_eq!(get(a, "node"), url, "{a:?}");
        for phase in [
            "blocked_ms",
            "dns_ms",
            "connect_ms",
            "write_ms",
            "wait_ms",
            "body_ms",
            "decode_ms",
            "qtime_ms",
        ] {
            assert!(a.contains_key(phase), "{phase} missing: {a:?}");
        }
        assert!(!a.contains_key("tls_ms"), "plain http: {a:?}");
        assert!(!a.contains_key("error"), "{a:?}");
    }
    let requests = collect.spans("solr.request");
    assert_eq!(requests.len(), 2, "{requests:?}");
    for r in &requests {
        assert_eq!(get(r, "status"), "200");
        assert_eq!(get(r, "attempts"), "1");
        assert!(
            r.contains_key("qtime_ms") && r.contains_key("total_ms"),
            "{r:?}"
        );
    }

    // Pooled: the second request reuses the first one's connection.
    collect.spans.lock().expect("lock").clear();
    let pooled = on(url, "bench", TransportKind::Pooled);
    pooled.select(&q).await.expect("select");
    pooled.select(&q).await.expect("select");
    let attempts = collect.spans("solr.attempt");
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    assert_eq!(get(&attempts[0], "reused"), "false");
    assert!(attempts[0].contains_key("connect_ms"));
    assert_eq!(get(&attempts[1], "reused"), "true");
    assert!(!attempts[1].contains_key("connect_ms"), "{:?}", attempts[1]);
    assert!(!attempts[1].contains_key("dns_ms"), "{:?}", attempts[1]);
    assert_eq!(
        get(&attempts[0], "connection_id"),
        get(&attempts[1], "connection_id")
    );

    // A wrong core: the attempt is a 404, not decoded (no QTime).
    collect.spans.lock().expect("lock").clear();
    let _ = on(url, &tag("nocore_span"), TransportKind::Pooled)
        .select(&q)
        .await
        .expect_err("no core");
    let attempts = collect.spans("solr.attempt");
    assert_eq!(attempts.len(), 1, "{attempts:?}");
    assert_eq!(get(&attempts[0], "status"), "404");
    assert!(!attempts[0].contains_key("qtime_ms"));
    assert_eq!(get(&collect.spans("solr.request")[0], "status"), "404");
}

#[tokio::test]
async fn a_retried_call_is_two_attempt_spans_one_retry_event_and_one_hook_call() {
    let _g = support::shared().await;
    let srv = FaultServer::start(vec![Fault::Status(503, Some(0)), Fault::Ok(SELECT_OK)]).await;
    let collect = Collect::default();
    let _sub =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(collect.clone()));
    let policy = RetryPolicy::default()
        .max_attempts(3)
        .base_backoff(Duration::from_millis(10));
    let transport = TransportKind::Pooled
        .build(&Default::default(), false)
        .expect("transport");
    let events: Shared<(u16, u32, Option<u32>)> = Arc::default();
    let seen = events.clone();
    let client = SolrClient::builder(srv.url())
        .collection("bench")
        .custom_transport(Arc::new(Retry::new(transport, policy)))
        .on_response(Arc::new(move |e: &ResponseEvent<'_>| {
            seen.lock()
                .expect("lock")
                .push((e.status, e.timing.attempts, e.qtime_ms));
        }))
        .build()
        .expect("client");
    let r = client
        .select(&Select::new("*:*"))
        .await
        .expect("second attempt answers");
    assert_eq!(r.timing.attempts, 2);
    // The hook: once, for the final response only.
    assert_eq!(*events.lock().expect("lock"), vec![(200, 2, Some(1))]);
    // The spans: one per attempt, numbered, with each attempt's status.
    let attempts = collect.spans("solr.attempt");
    let got: Vec<(&str, &str)> = attempts
        .iter()
        .map(|a| (get(a, "attempt"), get(a, "status")))
        .collect();
    assert_eq!(got, vec![("1", "503"), ("2", "200")]);
    assert!(
        !attempts[0].contains_key("qtime_ms"),
        "the 503 was not decoded"
    );
    assert_eq!(get(&attempts[1], "qtime_ms"), "1");
    let retries: Vec<Fields> = collect
        .events
        .lock()
        .expect("lock")
        .iter()
        .filter(|e| get(&e.0, "message") == "solr.retry")
        .cloned()
        .collect();
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert_eq!(get(&retries[0].0, "reason"), "503 Service Unavailable");
}

#[tokio::test]
async fn the_hook_is_called_once_per_response_and_never_without_one() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let t = tag("hook");
    let calls = Arc::new(AtomicUsize::new(0));
    let log: Shared<(String, u16, bool, bool)> = Arc::default();
    let (c2, l2) = (calls.clone(), log.clone());
    let hook = Arc::new(move |e: &ResponseEvent<'_>| {
        c2.fetch_add(1, Ordering::SeqCst);
        l2.lock().expect("lock").push((
            e.path.to_string(),
            e.status,
            e.qtime_ms.is_some(),
            e.error.is_some(),
        ));
        assert!(e.node.starts_with("http://127.0.0.1:"), "{}", e.node);
    });
    let client = SolrClient::builder(url)
        .collection("bench")
        .on_response(hook.clone())
        .build()
        .expect("client");
    let n = 5;
    for _ in 0..n {
        client
            .select(&Select::new(format!("tag_s:{t}")).rows(0))
            .await
            .expect("select");
    }
    client
        .add(&[json!({"id": format!("{t}-1"), "tag_s": t})])
        .await
        .expect("add");
    client.commit(Commit::default()).await.expect("commit");
    let raw: WireRequest = client.select_request(&Select::new(format!("tag_s:{t}")));
    let resp = client.send_raw(raw).await.expect("raw");
    assert_eq!(resp.status.as_u16(), 200);
    // A Solr error (400: bad query syntax) and a 404 are responses too.
    client
        .select(&Select::new("tag_s:(unclosed"))
        .await
        .expect_err("syntax error");
    let wrong = SolrClient::builder(url)
        .collection(tag("nocore_hook"))
        .on_response(hook.clone())
        .build()
        .expect("client");
    wrong.ping().await.expect_err("404");
    assert_eq!(calls.load(Ordering::SeqCst), n + 5);
    // No response, no call: a refused connection.
    let (_held, port) = support::refused_port();
    let refused = SolrClient::builder(format!("http://127.0.0.1:{port}/solr"))
        .collection("bench")
        .on_response(hook)
        .build()
        .expect("client");
    refused.ping().await.expect_err("refused");
    assert_eq!(calls.load(Ordering::SeqCst), n + 5);

    let log = log.lock().expect("lock");
    let select = ("bench/select".to_string(), 200, true, false);
    assert_eq!(log[..n], vec![select.clone(); n][..]);
    assert_eq!(log[n], ("bench/update".into(), 200, true, false));
    assert_eq!(log[n + 1], ("bench/update".into(), 200, true, false));
    assert_eq!(
        log[n + 2],
        ("bench/select".into(), 200, false, false),
        "raw: no QTime"
    );
    assert_eq!((log[n + 3].1, log[n + 3].3), (400, true));
    assert_eq!((log[n + 4].1, log[n + 4].3), (404, true));
}
