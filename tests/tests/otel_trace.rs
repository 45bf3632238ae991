//! The `opentelemetry` feature end to end: the application's trace reaches Solr.
//!
//! The OTLP/HTTP exporter (`opentelemetry-otlp`, protobuf) sends to a test collector
//! ([`crate::support::otlp_receiver`]); `tracing-opentelemetry`'s layer turns the client's
//! spans into OpenTelemetry spans. The real Solr sits behind the nginx gateway
//! ([`crate::support::nginx_gateway`]), whose access log records each request's
//! `traceparent` header. For each of the pooled, fresh and reqwest transports, one search
//! in an application span is one trace of exactly three spans (the application's,
//! `solr.request`, `solr.attempt`) with the phases, QTime and the semantic-convention
//! attributes; and the gateway saw exactly one request of it, whose `traceparent` names the
//! same trace and the attempt span as parent. A search whose bearer token the gateway
//! revoked is two attempts (401, then re-sent with a renewed token), and the gateway saw
//! each with its own attempt as parent. A streamed `/export` goes the same send path: its
//! attempt span, under the application span, is the parent the gateway saw.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::TryStreamExt;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use opentelemetry_sdk::Resource;
use solr_client::auth::{Bearer, Refreshing, Token};
use solr_client::{Export, Select, SolrClient, TransportKind};
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;

use crate::support::nginx_gateway::Gateway;
use crate::support::otlp_receiver::{attr, hex, Receiver};
use crate::support::{self, tag};

const KINDS: [TransportKind; 3] = [
    TransportKind::Pooled,
    TransportKind::Fresh,
    TransportKind::Reqwest,
];

/// A tracer provider exporting in batches over OTLP/HTTP (protobuf) to `endpoint`.
fn provider(endpoint: String) -> SdkTracerProvider {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(endpoint)
        .build()
        .expect("OTLP exporter");
    SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(
            Resource::builder()
                .with_service_name("solr-client-e2e")
                .build(),
        )
        .build()
}

#[test]
fn a_search_is_one_trace_and_solr_gets_its_attempt_as_parent() {
    let _g = support::shared_blocking();
    let solr = support::standalone().url(None).expect("url");
    let name = "otel_trace::a_search_is_one_trace_and_solr_gets_its_attempt_as_parent";
    let Some(gw) = Gateway::start(solr, name) else {
        return;
    };
    let gw = Arc::new(gw);
    let t = tag("oteltrace");
    let receiver = Receiver::start();
    let provider = provider(receiver.endpoint());
    // The exporter's blocking HTTP client must not run inside the runtime: the runtime is
    // the test's own, and the provider is flushed after it.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(traced_calls(solr, &gw, &t, provider.tracer("e2e")));
    drop(rt);
    provider.force_flush().expect("flush to the receiver");
    let spans = receiver.spans();
    let port = url::Url::parse(&gw.url()).expect("gateway url").port();
    for kind in KINDS {
        let (trace, request, attempts) = one_trace(&spans, &format!("{kind:?}"), 1);
        assert_eq!(attr(request, "attempts").as_deref(), Some("1"), "{kind:?}");
        check_attempt(attempts[0], &format!("{kind:?}"), port);
        let lines = gw.matching(&format!("tag=\"{t}-{kind:?}\""));
        assert_eq!(lines.len(), 1, "{kind:?}: {lines:?}");
        assert_eq!(
            traceparent(&lines[0]),
            (trace, hex(&attempts[0].span_id), "01".to_string()),
            "{kind:?}: {}",
            lines[0]
        );
        let method = lines[0].split(' ').next().expect("method");
        let sent = attr(attempts[0], "http.request.method");
        assert_eq!(sent.as_deref(), Some(method), "{kind:?}");
    }
    // The 401 and its re-send: two attempts, each the parent of its own request.
    // (The request span's `attempts` is `Timing::attempts`, which does not count the
    // re-send after a 401; the attempt spans do.)
    let (trace, _, attempts) = one_trace(&spans, "resent", 2);
    let lines = gw.matching(&format!("tag=\"{t}-resent\""));
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (line, (attempt, status)) in lines.iter().zip(attempts.iter().zip(["401", "200"])) {
        assert!(line.contains(&format!("status={status}")), "{line}");
        assert_eq!(attr(attempt, "status").as_deref(), Some(status), "{line}");
        let parent = (trace.clone(), hex(&attempt.span_id), "01".to_string());
        assert_eq!(traceparent(line), parent, "{line}");
    }
    // A streamed call goes the one send path too: its request has an attempt span (a child
    // of the current span, the application's), which is the parent Solr gets.
    let export = app_span(&spans, "export");
    let lines = gw.matching(&format!("tag=\"{t}-export\""));
    assert_eq!(lines.len(), 1, "{lines:?}");
    let attempts: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "solr.attempt" && s.parent_span_id == export.span_id)
        .collect();
    assert_eq!(attempts.len(), 1, "one attempt under the export call");
    let parent = (
        hex(&export.trace_id),
        hex(&attempts[0].span_id),
        "01".to_string(),
    );
    assert_eq!(traceparent(&lines[0]), parent, "{}", lines[0]);
    provider.shutdown().expect("shutdown");
}

/// The calls, each in an application span `app.call` whose `call` names it: one search per
/// transport in [`KINDS`]; a search whose token the gateway revoked (401, renewed, re-sent);
/// an `/export` stream. Each call's requests carry the tag `{t}-{call}`.
async fn traced_calls(solr: &str, gw: &Arc<Gateway>, t: &str, tracer: SdkTracer) {
    support::index_tagged(&support::client(solr, TransportKind::Pooled, false), t, 2).await;
    let token = format!("tok-{t}");
    gw.allow(&token);
    let by_tag = Select::new("*:*").fq(format!("tag_s:{t}"));
    let renewing = renewing_client(gw, t).await;
    let layer = tracing_opentelemetry::layer().with_tracer(tracer);
    // Current-thread runtime: every task of the calls runs on this thread.
    let _sub = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    for kind in KINDS {
        let client = SolrClient::builder(gw.url())
            .collection("bench")
            .transport(kind)
            .auth(Bearer::new(&token).expect("token"))
            .header("X-Request-Tag", format!("{t}-{kind:?}"))
            .build()
            .expect("client");
        let r = client
            .select(&by_tag)
            .instrument(tracing::info_span!("app.call", call = ?kind))
            .await
            .expect("search through the gateway");
        assert_eq!(r.num_found(), 2, "{kind:?}");
    }
    let resent = renewing.with_header("X-Request-Tag", format!("{t}-resent"));
    let r = resent
        .expect("header")
        .select(&by_tag)
        .instrument(tracing::info_span!("app.call", call = "resent"))
        .await
        .expect("renewed and re-sent");
    assert_eq!(r.num_found(), 2, "after the re-send");
    let export = Export::new(format!("tag_s:{t}")).fl("id").sort("id asc");
    let tagged = renewing.with_header("X-Request-Tag", format!("{t}-export"));
    let rows: Vec<Row> = async {
        let rows = tagged.expect("header").export_as::<Row>(&export).await;
        rows.expect("export").try_collect().await.expect("rows")
    }
    .instrument(tracing::info_span!("app.call", call = "export"))
    .await;
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [format!("{t}-0"), format!("{t}-1")],
        "every tagged document once"
    );
}

/// A client whose bearer tokens come from a refreshing provider, after one call with its
/// first token, which the gateway then revokes: its next call gets a 401, renews, re-sends.
async fn renewing_client(gw: &Arc<Gateway>, t: &str) -> SolrClient {
    let (issuer, prefix) = (gw.clone(), format!("renew-{t}"));
    let issued = Arc::new(AtomicUsize::new(0));
    let provider = Refreshing::new(move || {
        let token = format!("{prefix}-{}", issued.fetch_add(1, Ordering::SeqCst));
        issuer.allow(&token);
        async move { Ok(Token::new(token, Duration::from_secs(3600))) }
    });
    let client = SolrClient::builder(gw.url())
        .collection("bench")
        .transport(TransportKind::Pooled)
        .auth(provider)
        .build()
        .expect("client");
    client.ping().await.expect("ping with the first token");
    gw.revoke(&format!("renew-{t}-0"));
    client
}

/// An exported row.
#[derive(Debug, serde::Deserialize)]
struct Row {
    id: String,
}

/// The one application span of the call named `call`.
fn app_span<'a>(spans: &'a [Span], call: &str) -> &'a Span {
    let app: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "app.call" && attr(s, "call").as_deref() == Some(call))
        .collect();
    assert_eq!(app.len(), 1, "{call}: one application span");
    app[0]
}

/// The trace of the call named `call`: exactly its application span, its `solr.request`
/// and `attempts` `solr.attempt` spans (in order), each the child of the one above, the
/// request span with the database attributes and the last attempt's QTime. Returns the
/// trace id (hex), the request span and the attempt spans.
fn one_trace<'a>(
    spans: &'a [Span],
    call: &str,
    attempts: usize,
) -> (String, &'a Span, Vec<&'a Span>) {
    let app = app_span(spans, call);
    let trace: Vec<&Span> = spans
        .iter()
        .filter(|s| s.trace_id == app.trace_id)
        .collect();
    let mut names: Vec<&str> = trace.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    let mut want = vec!["app.call"];
    want.extend(std::iter::repeat_n("solr.attempt", attempts));
    want.push("solr.request");
    assert_eq!(names, want, "{call}");
    let request = *trace
        .iter()
        .find(|s| s.name == "solr.request")
        .expect("request");
    let mut tries: Vec<&Span> = trace
        .iter()
        .copied()
        .filter(|s| s.name == "solr.attempt")
        .collect();
    tries.sort_by_key(|s| attr(s, "attempt"));
    assert_eq!(request.parent_span_id, app.span_id, "{call}");
    for a in &tries {
        assert_eq!(a.parent_span_id, request.span_id, "{call}");
        assert_eq!(a.kind, SpanKind::Client as i32, "{call}");
    }
    let r = |k: &str| attr(request, k);
    for (k, v) in [
        ("db.system.name", "solr"),
        ("db.collection.name", "bench"),
        ("http.response.status_code", "200"),
    ] {
        assert_eq!(r(k).as_deref(), Some(v), "{call} request {k}");
    }
    let last = tries.last().expect("an attempt");
    assert_eq!(r("qtime_ms"), attr(last, "qtime_ms"), "{call}");
    (hex(&app.trace_id), request, tries)
}

/// The attributes of a search's only attempt: its answer, where it went, every phase and
/// QTime.
fn check_attempt(attempt: &Span, call: &str, port: Option<u16>) {
    let a = |k: &str| attr(attempt, k);
    for (k, v) in [
        ("status", "200"),
        ("http.response.status_code", "200"),
        ("server.address", "127.0.0.1"),
        ("url.path", "/solr/bench/select"),
        ("attempt", "1"),
    ] {
        assert_eq!(a(k).as_deref(), Some(v), "{call} attempt {k}");
    }
    assert_eq!(a("server.port"), port.map(|p| p.to_string()), "{call}");
    for phase in ["blocked_ms", "write_ms", "wait_ms", "body_ms", "decode_ms"] {
        let ms: f64 = a(phase).expect(phase).parse().expect("a number");
        assert!(ms >= 0.0, "{call} {phase} = {ms}");
    }
    let qtime: Option<u32> = a("qtime_ms").and_then(|q| q.parse().ok());
    assert!(qtime.is_some(), "{call}: QTime {:?}", a("qtime_ms"));
}

/// The `traceparent` of a gateway log line: (trace id, parent span id, flags).
fn traceparent(line: &str) -> (String, String, String) {
    let v = line
        .split("traceparent=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a traceparent field");
    let parts: Vec<&str> = v.split('-').collect();
    assert_eq!(parts.len(), 4, "{line}");
    assert_eq!(parts[0], "00", "{line}");
    (parts[1].into(), parts[2].into(), parts[3].into())
}
