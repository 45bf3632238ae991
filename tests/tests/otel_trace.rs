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
//! same trace and the attempt span as parent.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use solr_client::auth::Bearer;
use solr_client::{Select, SolrClient, TransportKind};
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
    let t = tag("oteltrace");
    let token = format!("tok-{t}");
    gw.allow(&token);
    let receiver = Receiver::start();
    let provider = provider(receiver.endpoint());
    // The exporter's blocking HTTP client must not run inside the runtime: the runtime is
    // the test's own, and the provider is flushed after it.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let direct = support::client(solr, TransportKind::Pooled, false);
        support::index_tagged(&direct, &t, 2).await;
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("e2e"));
        // Current-thread runtime: every task of the searches runs on this thread.
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
                .select(&Select::new("*:*").fq(format!("tag_s:{t}")))
                .instrument(tracing::info_span!("app.search", kind = ?kind))
                .await
                .expect("search through the gateway");
            assert_eq!(r.num_found(), 2, "{kind:?}");
        }
    });
    drop(rt);
    provider.force_flush().expect("flush to the receiver");
    let spans = receiver.spans();
    let port = url::Url::parse(&gw.url()).expect("gateway url").port();
    for kind in KINDS {
        let (trace, attempt) = one_trace(&spans, kind, port);
        let lines = gw.matching(&format!("tag=\"{t}-{kind:?}\""));
        assert_eq!(lines.len(), 1, "{kind:?}: {lines:?}");
        let sent = traceparent(&lines[0]);
        assert_eq!(
            sent,
            (trace, hex(&attempt.span_id), "01".to_string()),
            "{kind:?}: {}",
            lines[0]
        );
        let method = lines[0].split(' ').next().expect("method");
        assert_eq!(
            attr(attempt, "http.request.method").as_deref(),
            Some(method)
        );
    }
    provider.shutdown().expect("shutdown");
}

/// The trace of the search made with `kind`: exactly the application's span, its
/// `solr.request` and one `solr.attempt`, each the child of the one before, with the
/// attributes the module docs promise. Returns the trace id (hex) and the attempt span.
fn one_trace(spans: &[Span], kind: TransportKind, port: Option<u16>) -> (String, &Span) {
    let kind_text = format!("{kind:?}");
    let app: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "app.search" && attr(s, "kind").as_deref() == Some(&kind_text))
        .collect();
    assert_eq!(app.len(), 1, "{kind:?}: one application span");
    let app = app[0];
    let trace: Vec<&Span> = spans
        .iter()
        .filter(|s| s.trace_id == app.trace_id)
        .collect();
    let mut names: Vec<&str> = trace.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["app.search", "solr.attempt", "solr.request"],
        "{kind:?}"
    );
    let named = |n: &str| *trace.iter().find(|s| s.name == n).expect("span");
    let (request, attempt) = (named("solr.request"), named("solr.attempt"));
    assert_eq!(request.parent_span_id, app.span_id, "{kind:?}");
    assert_eq!(attempt.parent_span_id, request.span_id, "{kind:?}");
    assert_eq!(attempt.kind, SpanKind::Client as i32, "{kind:?}");

    let a = |k: &str| attr(attempt, k);
    let r = |k: &str| attr(request, k);
    for (k, v) in [
        ("status", "200"),
        ("http.response.status_code", "200"),
        ("server.address", "127.0.0.1"),
        ("url.path", "/solr/bench/select"),
        ("attempt", "1"),
    ] {
        assert_eq!(a(k).as_deref(), Some(v), "{kind:?} attempt {k}");
    }
    assert_eq!(a("server.port"), port.map(|p| p.to_string()), "{kind:?}");
    for phase in ["blocked_ms", "write_ms", "wait_ms", "body_ms", "decode_ms"] {
        let ms: f64 = a(phase).expect(phase).parse().expect("a number");
        assert!(ms >= 0.0, "{kind:?} {phase} = {ms}");
    }
    let qtime: u32 = a("qtime_ms").expect("qtime").parse().expect("QTime");
    for (k, v) in [
        ("db.system.name", "solr"),
        ("db.collection.name", "bench"),
        ("http.response.status_code", "200"),
        ("attempts", "1"),
    ] {
        assert_eq!(r(k).as_deref(), Some(v), "{kind:?} request {k}");
    }
    assert_eq!(r("qtime_ms"), Some(qtime.to_string()), "{kind:?}");
    (hex(&app.trace_id), attempt)
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
