//! Watching requests from the application: a metrics hook called once per response
//! ([`ResponseEvent`], set with [`SolrClientBuilder::on_response`]) and, with the `tracing`
//! feature, one `tracing` span per attempt.
//!
//! # The hook
//! The hook is called once for every HTTP response that reaches a [`SolrClient`] call, after
//! the body was decoded (or failed to decode): a success, a Solr error (4xx/5xx with Solr's
//! error body, whose `responseHeader` QTime the event carries in `qtime_ms` and
//! `timing.qtime_ms`, as for a success), or any other answer (an HTML 404 page, a proxy's
//! 502). It is not called when
//! no response came back (connect refused, timeout, broken connection). It sees the **final**
//! response of a call only: an attempt answered with 429/503 and retried, or a failover to
//! another node, is not reported separately; [`Timing::attempts`] says how many attempts the
//! call took, and the tracing spans below show each one. A call whose retries were exhausted
//! ([`Error::RetriesExhausted`]) ends without a response and
//! without a hook call. [`SolrClient::send_raw`] reports its response too, with no QTime and
//! no decode phase (it decodes nothing).
//!
//! The hook runs on the task that made the request, before the call returns: keep it short
//! (update a histogram, increment a counter).
//!
//! ```no_run
//! # fn run() -> solr_client::Result<()> {
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use std::sync::Arc;
//! use solr_client::SolrClient;
//! let slow = Arc::new(AtomicU64::new(0));
//! let seen = slow.clone();
//! let client = SolrClient::builder("http://127.0.0.1:8983/solr")
//!     .collection("bench")
//!     .on_response(Arc::new(move |e: &solr_client::ResponseEvent<'_>| {
//!         if e.timing.total().as_millis() > 100 {
//!             seen.fetch_add(1, Ordering::Relaxed);
//!         }
//!     }))
//!     .build()?;
//! # let _ = client; Ok(()) }
//! ```
//!
//! # Spans (feature `tracing`)
//! Each client call opens a `solr.request` span (level DEBUG, target `solr_client`) with
//! `method`, `path`, `status`, `attempts`, `qtime_ms` and `total_ms`, and for a failed call
//! `error_kind` ([`Error::kind`]) and `error`. Inside it, every HTTP
//! exchange the transports make (the first try, each retry, each failover, each redirect
//! hop, each re-send on a stale pooled connection, and a SolrCloud router's own
//! CLUSTERSTATUS refreshes) is a `solr.attempt` span with:
//!
//! | field | meaning |
//! |---|---|
//! | `node`, `method`, `path` | where it went (the node URL without user info, the path below it) |
//! | `attempt` | 1, 2, ... within the call |
//! | `status`, `reused`, `connection_id` | the answer, and whether the connection had served before |
//! | `blocked_ms`, `dns_ms`, `connect_ms`, `tls_ms`, `write_ms`, `wait_ms`, `body_ms` | the phases of [`crate::timing`] (`wait` is `server_wait`, `body` is `transfer`); the connection phases only when a connection was opened |
//! | `decompress_ms`, `decode_ms`, `qtime_ms` | on the attempt whose response was decoded, when known |
//! | `error` | the error of a failed attempt, or the error the call failed with on the response of its last attempt (its `Display` on one line: no credentials) |
//!
//! A retry (429/503) or failover is also an INFO event (`solr.retry`) with the node, the
//! reason and the wait.
//!
//! # The `solr.error` event (feature `tracing`)
//! Every call that fails (a Solr error answer, any other unusable answer, or no answer at
//! all) emits one `solr.error` event (target `solr_client`), so an application logging at
//! INFO sees it although the spans are DEBUG. Its level:
//! - INFO for an answer with a 4xx status (the request was refused: a syntax error, an
//!   unknown field, a missing core);
//! - WARN for everything else: 5xx, no answer (connect, timeout, broken connection),
//!   an answer that did not decode, retries exhausted, a redirect not followed.
//!
//! Its fields: `kind` ([`Error::kind`]: `Solr`, `Timeout`, ...), `status` (when there was
//! one), `node`, `method`, `path`, `attempts`, `qtime_ms` (Solr's, from its error answer),
//! `solr_msg` (Solr's message, for [`Error::Solr`]) and `error` (the error's `Display`, on one
//! line).
//! Headers, query strings and bodies are never recorded, and every text is redacted like
//! the error's `Display` (no user info).
//!
//! # OpenTelemetry (feature `opentelemetry`, includes `tracing`)
//! With an OpenTelemetry layer in the application's subscriber (`tracing-opentelemetry`),
//! the spans above become OpenTelemetry spans, and every request the client sends (each
//! attempt, retry, failover, redirect hop and router refresh, over every transport,
//! buffered or streamed) carries the W3C `traceparent` header, and `tracestate` when the
//! context has one, made from its `solr.attempt` span (a streamed call from the current
//! span): Solr's side of the trace is a child of the client's attempt. A `traceparent` the
//! caller set ([`SolrClientBuilder::header`](crate::SolrClientBuilder::header), per request)
//! is sent as it is. Without an OpenTelemetry context (no such layer, or the client's DEBUG
//! spans filtered out and no traced span around the call) no header is added.
//!
//! The spans also carry OpenTelemetry's semantic-convention attributes beside the fields
//! above (those keep their names): `solr.request` has `db.system.name` = `solr`,
//! `db.collection.name` (the path's first segment; none for `admin/...`),
//! `http.request.method` and `http.response.status_code`; `solr.attempt` is a CLIENT span
//! with `http.request.method`, `server.address`, `server.port`, `url.path` (below the
//! host, e.g. `/solr/bench/select`) and `http.response.status_code`.
//!
#![cfg_attr(feature = "opentelemetry", doc = "```no_run")]
#![cfg_attr(not(feature = "opentelemetry"), doc = "```ignore")]
//! # async fn run() -> solr_client::Result<()> {
//! use opentelemetry::trace::TracerProvider as _;
//! use tracing_subscriber::layer::SubscriberExt;
//! // Add the application's exporter here (e.g. opentelemetry-otlp's SpanExporter with
//! // `.with_batch_exporter(exporter)`).
//! let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
//! let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("app"));
//! tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
//!     .expect("one global subscriber");
//! let client = solr_client::SolrClient::builder("http://127.0.0.1:8983/solr")
//!     .collection("bench")
//!     .build()?;
//! // One trace: this search's solr.request and solr.attempt spans, and Solr's, whose
//! // parent is the attempt.
//! client.select(&solr_client::Select::new("*:*")).await?;
//! # Ok(()) }
//! ```
//!
//! # Metrics (feature `metrics`)
//! With the `metrics` feature the client records, with no hook to write, every response a
//! hook would see and every call that ended without one, into the [`metrics`] facade: to
//! whatever recorder the application installed (`metrics-exporter-prometheus`, ...), a
//! no-op without one. A hook set with [`SolrClientBuilder::on_response`] is called as
//! well. The names are those of `solr-watch --serve` with `solr_client_` for `solr_watch_`
//! where the meaning is the same, so one dashboard shows both sides
//! (`{__name__=~"solr_(watch|client)_requests_total"}`):
//!
//! | metric | type | labels | what |
//! |---|---|---|---|
//! | `solr_client_requests_total` | counter | `collection`, `handler`, `status`, `transport` | responses (success, Solr error, any other answer) |
//! | `solr_client_request_wall_seconds` | histogram | same | [`Timing::total`] of the final attempt |
//! | `solr_client_qtime_seconds` | histogram | same | Solr's QTime (responses that carry one, Solr's error answers too) |
//! | `solr_client_outside_solr_seconds` | histogram | same | wall minus QTime, per response with a QTime |
//! | `solr_client_connections_opened_total` | counter | `transport` | responses on a connection opened for them ([`Timing::reused`] false) |
//! | `solr_client_connections_reused_requests_total` | counter | `transport` | responses on a connection that had served before |
//! | `solr_client_response_bytes_total` | counter | `encoding`, `transport` | [`Timing::bytes_in`]: socket bytes of the response (headers, and TLS records, included; payload bytes on a shared HTTP/2 connection) by Content-Encoding (`identity`, `gzip`, `br`, `deflate`, `zstd`, `other`) |
//! | `solr_client_update_bytes_total` | counter | `format`, `collection`, `transport` | update request bodies as the client encoded them (before a gzip request encoding), by format (`json`, `xml`, `javabin`, `cbor`, `csv`, `other`) |
//! | `solr_client_requests_without_response_total` | counter | `collection`, `handler`, `kind`, `transport` | calls that ended without a response, by [`Error::kind`] (`Connect`, `Timeout`, `RetriesExhausted`, ...) |
//!
//! Labels stay bounded: `collection` is the first segment of the path (empty for a
//! node-level admin call), `handler` at most the next two (`select`, `update`,
//! `schema/fields`, `admin/ping`; never the query string, never an id), `status` the
//! HTTP status, `transport` the client's transport name (`pooled`, `fresh+gzip`, ...).
//! As for the hook, a retried or failed-over call counts once, with its final response;
//! streamed calls (`/export`, `/stream`, `/sql`) are not counted. [`describe_metrics`] gives
//! an exporter the help texts and units.
//!
//! Cost: the keys are built once per label set and client; a response is then a lookup
//! and 6 registrations with the current recorder (3 counters, 3 histograms; one more
//! counter for an update). Measured with callgrind: ~1,100 instructions per response with
//! no recorder, ~12,100 with `metrics-exporter-prometheus` (most of them the exporter's),
//! against ~44,300 for the client's whole search (docs/client.md, "Metrics").
//!
//! [`SolrClient`]: crate::SolrClient
//! [`SolrClient::send_raw`]: crate::SolrClient::send_raw
//! [`SolrClientBuilder::on_response`]: crate::SolrClientBuilder::on_response
//! [`metrics`]: https://docs.rs/metrics
//! [`describe_metrics`]: https://docs.rs/solr-client/latest/solr_client/observe/fn.describe_metrics.html

use std::sync::Arc;

use http::Method;

use crate::error::Error;
use crate::timing::Timing;
pub(crate) use crate::transport::span::Outcome;

/// One response, as the metrics hook sees it (see the [module docs](self)).
#[derive(Debug)]
#[non_exhaustive]
pub struct ResponseEvent<'a> {
    /// The HTTP method.
    pub method: &'a Method,
    /// The path below the node, e.g. `bench/select`.
    pub path: &'a str,
    /// The node that answered (its base URL without user info).
    pub node: &'a str,
    /// The HTTP status.
    pub status: u16,
    /// Solr's QTime, when the response was decoded and carried one (Solr's error answers
    /// carry one too).
    pub qtime_ms: Option<u32>,
    /// The phases of the call's final attempt ([`Timing::parse`] is the decode phase, None
    /// when the body was not decoded), with [`Timing::attempts`].
    pub timing: &'a Timing,
    /// The error the call returns, when the response was not a success (a Solr error, an
    /// unexpected answer, a body that did not decode).
    pub error: Option<&'a Error>,
}

/// The metrics hook: see [`SolrClientBuilder::on_response`](crate::SolrClientBuilder::on_response).
pub type ResponseHook = Arc<dyn Fn(&ResponseEvent<'_>) + Send + Sync>;

mod metrics;
#[cfg(feature = "metrics")]
pub use metrics::describe_metrics;
pub(crate) use metrics::{ClientMeter, Pending};

/// The observers of a client; its `Debug` shows whether a hook is set.
#[derive(Clone, Default)]
pub(crate) struct Observer {
    pub(crate) hook: Option<ResponseHook>,
    /// The `metrics` feature's recorder (empty without it).
    pub(crate) meter: ClientMeter,
}

impl Observer {
    /// Whether an error answer's timing must be kept (for the hook, the spans or the
    /// metrics).
    pub(crate) fn wants_timing(&self) -> bool {
        self.hook.is_some() || cfg!(feature = "tracing") || cfg!(feature = "metrics")
    }

    /// Reports one response: to the hook, and to the `metrics` facade with the feature.
    pub(crate) fn response(&self, pending: &Pending, event: &ResponseEvent<'_>) {
        if let Some(hook) = &self.hook {
            hook(event);
        }
        pending.response(event.path, event.status, event.timing);
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("hook", &self.hook.as_ref().map(|_| "Fn(&ResponseEvent)"))
            .finish()
    }
}

/// Solr's QTime carried by an error answer (from the `responseHeader` beside the `error`
/// object), for the hook and the spans.
pub(crate) fn error_qtime(e: &Error) -> Option<u32> {
    match e {
        Error::Solr { body, .. } => body.qtime_ms,
        _ => None,
    }
}

/// A streamed call (`/export`, `/stream`, `/sql`) that failed, before it handed out a tuple
/// or in the stream: the same `solr.error` event a buffered call emits (a no-op without the
/// `tracing` feature).
pub(crate) fn stream_failed(method: &Method, path: &str, e: &Error) {
    #[cfg(feature = "tracing")]
    {
        let text = e.to_string().replace(['\n', '\r'], " ");
        let o = Outcome {
            method,
            path,
            status: e.status(),
            timing: None,
            error: Some(e),
        };
        crate::transport::span::failed(&o, e, &text);
    }
    #[cfg(not(feature = "tracing"))]
    let _ = (method, path, e);
}

impl CallTrace {
    /// The response, with the trace to finish once it is decoded; or the transport's error
    /// (no response came back), recorded as the call's outcome.
    pub(crate) fn answered(
        self,
        resp: crate::error::Result<crate::transport::WireResponse>,
        method: &Method,
        path: &str,
    ) -> crate::error::Result<(crate::transport::WireResponse, Self)> {
        match resp {
            Ok(r) => Ok((r, self)),
            Err(e) => {
                self.finish(Outcome::no_response(method, path, &e));
                Err(e)
            }
        }
    }
}

/// What a call leaves to record once its response is decoded.
#[cfg(not(feature = "tracing"))]
pub(crate) struct CallTrace;

#[cfg(not(feature = "tracing"))]
impl CallTrace {
    pub(crate) fn finish(self, _outcome: Outcome<'_>) {}
}

/// What a call leaves to record once its response is decoded: its span and the span of the
/// attempt whose response it decoded.
#[cfg(feature = "tracing")]
pub(crate) struct CallTrace {
    pub(crate) span: tracing::Span,
    pub(crate) last: Option<tracing::Span>,
}

#[cfg(feature = "tracing")]
impl CallTrace {
    /// Records the outcome on the call's span (and the last attempt's), and emits the
    /// `solr.error` event of a failed call.
    pub(crate) fn finish(self, o: Outcome<'_>) {
        if let Some(s) = o.status {
            self.span.record("status", s);
            self.span.record("http.response.status_code", s);
        }
        if let Some(t) = o.timing {
            self.record_timing(t);
        }
        if let Some(e) = o.error {
            // One line: Solr's messages (a query parser's) span several.
            let text = e.to_string().replace(['\n', '\r'], " ");
            self.span.record("error_kind", e.kind());
            self.span.record("error", text.as_str());
            if let (Some(last), Some(_)) = (&self.last, o.status) {
                // An answer that failed to decode, or Solr's error: the transport saw a
                // response and left the attempt's `error` empty.
                last.record("error", text.as_str());
            }
            self.span
                .in_scope(|| crate::transport::span::failed(&o, e, &text));
        }
    }

    fn record_timing(&self, t: &Timing) {
        self.span.record("attempts", t.attempts.max(1));
        if let Some(q) = t.qtime_ms {
            self.span.record("qtime_ms", q);
        }
        self.span
            .record("total_ms", crate::transport::span::ms(t.total()));
        if let Some(last) = &self.last {
            if let Some(q) = t.qtime_ms {
                last.record("qtime_ms", q);
            }
            if let Some(d) = t.decompress {
                last.record("decompress_ms", crate::transport::span::ms(d));
            }
            if let Some(d) = t.parse {
                last.record("decode_ms", crate::transport::span::ms(d));
            }
        }
    }
}
