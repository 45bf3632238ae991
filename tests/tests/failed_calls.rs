//! Failed calls that an application logging at INFO sees: real Solr rejects a query (an
//! unknown field in `sort`, a syntax error), and a node refuses the connection. Each failed
//! call is exactly one `solr.error` event (INFO for Solr's 400, WARN for no answer) carrying
//! the error's kind, the status and Solr's message; the metrics hook gets the QTime of
//! Solr's error answer (JSON and XML), equal to the one in the raw body of that same
//! response (read by a tap under the client); the spans (DEBUG) carry the error too. No
//! secret is logged.

use std::io::Write;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use solr_client::transport::{Reply, TransportStats, WireRequest};
use solr_client::{
    Credentials, Error, ResponseEvent, ResponseFormat, Select, SolrClient, Transport, TransportKind,
};
use tracing::Level;
use tracing_subscriber::fmt::format::FmtSpan;

use crate::support;

const PASSWORD: &str = "obs-S3cret-pw";

/// A transport that keeps the raw body of every response it passes up.
#[derive(Debug)]
struct Tap {
    inner: Arc<dyn Transport>,
    bodies: Mutex<Vec<Vec<u8>>>,
}

impl Transport for Tap {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, solr_client::Result<Reply>> {
        Box::pin(async move {
            let resp = self.inner.send_whole(req).await?;
            self.bodies.lock().expect("lock").push(resp.body.to_vec());
            Ok(Reply::Whole(resp))
        })
    }
    fn name(&self) -> String {
        format!("tap+{}", self.inner.name())
    }
    fn stats(&self) -> TransportStats {
        self.inner.stats()
    }
}

/// Everything the `fmt` subscriber wrote.
#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buf {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("lock")).into_owned()
    }
}

/// What the hook saw: status, QTime, error kind.
type Seen = Arc<Mutex<Vec<(u16, Option<u32>, Option<&'static str>)>>>;

/// A client over a tap, asking for `format`, with Basic credentials (Solr without an auth
/// plugin ignores them) and a hook.
fn tapped(url: &str, format: ResponseFormat) -> (SolrClient, Arc<Tap>, Seen) {
    let inner = TransportKind::Pooled
        .build(&Default::default(), false)
        .expect("transport");
    let tap = Arc::new(Tap {
        inner,
        bodies: Mutex::default(),
    });
    let seen: Seen = Arc::default();
    let hook_seen = seen.clone();
    let client = SolrClient::builder(url)
        .collection("bench")
        .custom_transport(tap.clone())
        .response_format(format)
        .credentials(Credentials::basic("observer", PASSWORD))
        .on_response(Arc::new(move |e: &ResponseEvent<'_>| {
            hook_seen
                .lock()
                .expect("lock")
                .push((e.status, e.qtime_ms, e.error.map(Error::kind)));
        }))
        .build()
        .expect("client");
    (client, tap, seen)
}

/// Runs `f` under a `fmt` subscriber at `level` (span closes shown) and returns its text.
async fn logged<F: std::future::Future<Output = ()>>(level: Level, f: F) -> String {
    let buf = Buf::default();
    let out = buf.clone();
    let sub = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(false)
        .with_span_events(FmtSpan::CLOSE)
        .with_writer(move || out.clone())
        .finish();
    let _s = tracing::subscriber::set_default(sub);
    f.await;
    buf.text()
}

/// The `solr.error` lines of a log.
fn error_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("solr.error")).collect()
}

/// Solr's QTime in a raw error body: JSON, or XML (`<int name="QTime">N</int>`).
fn raw_qtime(body: &[u8], format: ResponseFormat) -> u64 {
    let text = String::from_utf8_lossy(body);
    let found = match format {
        ResponseFormat::Xml => {
            assert!(
                text.contains("<lst name=\"error\">"),
                "an error body: {text}"
            );
            text.split_once("<int name=\"QTime\">")
                .and_then(|(_, rest)| rest.split_once("</int>"))
                .and_then(|(n, _)| n.parse().ok())
        }
        _ => {
            let v: serde_json::Value = serde_json::from_str(&text).expect("JSON error body");
            assert!(v["error"]["msg"].is_string(), "an error body: {v}");
            v["responseHeader"]["QTime"].as_u64()
        }
    };
    found.unwrap_or_else(|| panic!("Solr's error answer has a QTime: {text}"))
}

#[tokio::test]
async fn rejected_queries_are_info_events_with_solrs_message_and_qtime() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    for format in [ResponseFormat::Json, ResponseFormat::Xml] {
        rejected_in(url, format).await;
    }
}

/// Two rejected queries (and one good one) with answers in `format`.
async fn rejected_in(url: &str, format: ResponseFormat) {
    let (client, tap, seen) = tapped(url, format);
    let bad = [
        (
            "unknown sort field",
            Select::new("*:*").sort("no_such_field_q7 asc"),
        ),
        ("syntax error", Select::new("title:(unbalanced")),
    ];
    let mut msgs = Vec::new();
    let log = logged(Level::INFO, async {
        client
            .select(&Select::new("*:*").rows(0))
            .await
            .expect("a good query");
        for (what, q) in &bad {
            match client.select(q).await {
                Err(Error::Solr {
                    status: 400, body, ..
                }) => msgs.push(body.into_inner().msg),
                other => panic!("{what}: expected Solr's 400, got {other:?}"),
            }
        }
    })
    .await;
    eprintln!("{log}");
    let lines = error_lines(&log);
    assert_eq!(
        lines.len(),
        bad.len(),
        "one event per failed call, none for the success"
    );
    assert_eq!(log.lines().count(), bad.len(), "nothing else at INFO");
    let seen = seen.lock().expect("lock").clone();
    let bodies = tap.bodies.lock().expect("lock").clone();
    assert_eq!(seen.len(), 1 + bad.len(), "the hook: every response");
    assert_eq!(bodies.len(), 1 + bad.len(), "the tap: every response");
    for (i, ((what, _), msg)) in bad.iter().zip(&msgs).enumerate() {
        let (status, qtime, kind) = seen[i + 1];
        assert_eq!((status, kind), (400, Some("Solr")), "{what}: the hook");
        let q = raw_qtime(&bodies[i + 1], format);
        assert_eq!(
            qtime.map(u64::from),
            Some(q),
            "{what}: the hook's QTime is Solr's"
        );
        let line = lines[i];
        assert!(line.contains(" INFO "), "{what}: at INFO: {line}");
        for field in [
            "kind=\"Solr\"".to_string(),
            "status=400".to_string(),
            format!("qtime_ms={q}"),
            format!("solr_msg={msg:?}"),
            "path=bench/select".to_string(),
        ] {
            assert!(line.contains(&field), "{what}: {field} in {line}");
        }
    }
    assert!(
        msgs[0].contains("no_such_field_q7"),
        "Solr names the field: {}",
        msgs[0]
    );
    assert_no_secret(&log);
}

#[tokio::test]
async fn a_refused_connection_is_a_warn_event_and_the_spans_carry_the_errors() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let (_hold, port) = support::refused_port();
    let refused = SolrClient::builder(format!("http://127.0.0.1:{port}/solr"))
        .collection("bench")
        .transport(TransportKind::Pooled)
        .credentials(Credentials::basic("observer", PASSWORD))
        .build()
        .expect("client");
    let (client, _, _) = tapped(url, ResponseFormat::Json);
    let log = logged(Level::DEBUG, async {
        let e = refused
            .select(&Select::new("*:*"))
            .await
            .expect_err("refused");
        assert_eq!(e.kind(), "Connect", "{e}");
        let e = client
            .select(&Select::new("title:(unbalanced"))
            .await
            .expect_err("syntax error");
        assert_eq!(e.status(), Some(400), "{e}");
    })
    .await;
    eprintln!("{log}");
    let lines = error_lines(&log);
    assert_eq!(lines.len(), 2, "one event per failed call: {lines:?}");
    assert!(
        lines[0].contains(" WARN ") && lines[0].contains("kind=\"Connect\""),
        "no answer: WARN: {}",
        lines[0]
    );
    assert!(
        !lines[0].contains("status="),
        "no status without an answer: {}",
        lines[0]
    );
    assert!(
        lines[1].contains(" INFO ") && lines[1].contains("status=400"),
        "{}",
        lines[1]
    );
    // The spans, closed: the call's carries the kind, the attempt's the error.
    let closed = |inner: bool| -> Vec<&str> {
        log.lines()
            .filter(|l| l.contains(": close") && l.contains("solr.attempt{") == inner)
            .collect()
    };
    let calls = closed(false);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[0].contains("error_kind=\"Connect\""), "{}", calls[0]);
    assert!(calls[1].contains("error_kind=\"Solr\"") && calls[1].contains("status=400"));
    let attempts = closed(true);
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    for a in &attempts {
        assert!(a.contains("error="), "the attempt's error: {a}");
    }
    assert_no_secret(&log);
}

/// Admin calls fail through the same exchange as searches: one `solr.error` event each,
/// with the kind and Solr's status, and the hook sees them; a call refused before it is sent
/// (a bad name) sends nothing and logs nothing.
#[tokio::test]
async fn failed_admin_calls_are_one_event_each_with_the_kind() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let (client, tap, seen) = tapped(url, ResponseFormat::Json);
    let mut kinds = Vec::new();
    let log = logged(Level::INFO, async {
        client
            .cores()
            .status(None)
            .await
            .expect("a good admin call");
        // Standalone Solr refuses the Collections API (not in SolrCloud mode).
        let e = client.collections().list().await.expect_err("not cloud");
        kinds.push((e.kind(), e.status()));
        let e = client
            .cores()
            .reload("no_such_core_a7")
            .await
            .expect_err("no such core");
        kinds.push((e.kind(), e.status()));
        let e = client.schema().fields().await;
        assert!(e.is_ok(), "the schema of the core: {e:?}");
        let e = client
            .collections()
            .delete("a/b")
            .await
            .expect_err("bad name");
        assert_eq!(e.kind(), "InvalidInput", "{e}");
    })
    .await;
    eprintln!("{log}");
    let lines = error_lines(&log);
    assert_eq!(
        lines.len(),
        2,
        "one event per failed call that was sent: {lines:?}"
    );
    assert_eq!(log.lines().count(), 2, "nothing else at INFO");
    for (line, (kind, status)) in lines.iter().zip(&kinds) {
        assert_eq!(*kind, "Solr", "{line}");
        let status = status.expect("Solr answered with a status");
        assert!(line.contains("kind=\"Solr\""), "{line}");
        assert!(line.contains(&format!("status={status}")), "{line}");
        assert!(line.contains("path=admin/"), "{line}");
    }
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(
        seen.len(),
        4,
        "the hook: every response that came back: {seen:?}"
    );
    assert_eq!(
        tap.bodies.lock().expect("lock").len(),
        4,
        "nothing sent for the bad name"
    );
    assert_eq!(seen[0].2, None, "the good call has no error");
    assert!(seen[0].1.is_some(), "the hook sees the admin call's QTime");
    assert_eq!((seen[1].2, seen[2].2), (Some("Solr"), Some("Solr")));
    assert_no_secret(&log);
}

/// Failed streamed calls are one `solr.error` event each too: an `/export` sorted on a field
/// without docValues (refused before any tuple), and a streaming expression Solr cannot
/// parse (an EXCEPTION tuple in a 200 answer).
#[tokio::test]
async fn failed_streams_are_one_event_each_with_the_kind() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let (client, _, _) = tapped(url, ResponseFormat::Json);
    let mut statuses = Vec::new();
    let log = logged(Level::INFO, async {
        let export = solr_client::Export::new("*:*").fl("id").sort("title asc");
        let e = client
            .export_as::<serde_json::Value>(&export)
            .await
            .expect_err("title has no docValues");
        statuses.push((e.kind(), "bench/export"));
        // Solr answers 200 and an EXCEPTION tuple: the error comes from the stream.
        let mut tuples = client
            .stream_as::<serde_json::Value>("search(")
            .await
            .expect("the head is 200");
        let e = futures::TryStreamExt::try_next(&mut tuples)
            .await
            .expect_err("not an expression");
        statuses.push((e.kind(), "bench/stream"));
        assert!(
            futures::StreamExt::next(&mut tuples).await.is_none(),
            "ended"
        );
    })
    .await;
    eprintln!("{log}");
    let lines = error_lines(&log);
    assert_eq!(lines.len(), 2, "one event per failed call: {lines:?}");
    for (line, (kind, path)) in lines.iter().zip(&statuses) {
        assert!(line.contains(&format!("kind=\"{kind}\"")), "{line}");
        assert!(line.contains(&format!("path={path}")), "{line}");
    }
    assert_no_secret(&log);
}

/// Neither the password nor its Basic token appears.
fn assert_no_secret(log: &str) {
    use base64::Engine;
    let token = base64::engine::general_purpose::STANDARD.encode(format!("observer:{PASSWORD}"));
    assert!(!log.contains(PASSWORD), "password logged");
    assert!(!log.contains(&token), "Authorization token logged");
}
