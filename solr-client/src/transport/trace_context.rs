//! W3C trace context on the wire (feature `opentelemetry`): the `traceparent` (and
//! `tracestate`) headers of every request, made from the OpenTelemetry context of a
//! `tracing` span by `tracing-opentelemetry` and written by OpenTelemetry's
//! [`TraceContextPropagator`].
//!
//! Every base transport sends through `Counted` ([`crate::transport`]), which calls
//! [`inject`] on the request's own headers before any transport turns them into an HTTP
//! request, so every attempt of every stack (fresh, pooled, http2, reqwest; buffered and
//! streamed; each retry, failover, redirect hop and router refresh) carries the context of
//! its own span.

use http::header::{HeaderName, HeaderValue};
use http::HeaderMap;
use opentelemetry::propagation::{Injector, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The header that carries the trace and parent span ids.
const TRACEPARENT: &str = "traceparent";

/// Writes the W3C trace context of `span` into `headers`: `traceparent`, and `tracestate`
/// when the context has one.
///
/// Nothing is written when the caller set `traceparent` itself (a header set with
/// [`crate::SolrClientBuilder::header`] or per request is never overwritten), nor when the
/// span has no valid OpenTelemetry context (no `tracing-opentelemetry` layer, or the span
/// disabled by the subscriber's filter and no traced span around it): then the request is
/// sent as without the feature. A disabled `span` (the client's spans are DEBUG) falls back
/// to the current span, the application's.
pub(crate) fn inject(span: &tracing::Span, headers: &mut HeaderMap) {
    if headers.contains_key(TRACEPARENT) {
        return;
    }
    let cx = if span.is_disabled() {
        tracing::Span::current().context()
    } else {
        span.context()
    };
    if !cx.span().span_context().is_valid() {
        return;
    }
    TraceContextPropagator::new().inject_context(&cx, &mut Headers(headers));
}

/// The request's headers as a propagator's carrier: a value the caller set is kept, and an
/// empty one is not written (the propagator writes `tracestate` even when it is empty).
struct Headers<'a>(&'a mut HeaderMap);

impl Injector for Headers<'_> {
    fn set(&mut self, key: &str, value: String) {
        if value.is_empty() {
            return;
        }
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(key.as_bytes()),
            HeaderValue::from_str(&value),
        ) else {
            return;
        };
        self.0.entry(name).or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use tracing_subscriber::layer::SubscriberExt;

    /// A subscriber with the OpenTelemetry layer over an SDK tracer that exports nowhere.
    fn traced<R>(f: impl FnOnce() -> R) -> R {
        let provider = SdkTracerProvider::builder().build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, f)
    }

    /// `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`.
    fn ids(v: &HeaderValue) -> (String, String) {
        let parts: Vec<&str> = v.to_str().expect("ascii").split('-').collect();
        assert_eq!(parts.len(), 4, "{v:?}");
        assert_eq!((parts[0], parts[1].len(), parts[2].len()), ("00", 32, 16));
        (parts[1].to_string(), parts[2].to_string())
    }

    #[test]
    fn the_span_context_is_written_as_traceparent() {
        let (header, span_ids) = traced(|| {
            let span = tracing::debug_span!("solr.attempt");
            let mut h = HeaderMap::new();
            inject(&span, &mut h);
            let cx = span.context();
            let sc = cx.span().span_context().clone();
            (h, (sc.trace_id().to_string(), sc.span_id().to_string()))
        });
        assert_eq!(ids(&header[TRACEPARENT]), span_ids);
        assert!(!header.contains_key("tracestate"), "no tracestate was set");
    }

    #[test]
    fn a_traceparent_the_caller_set_is_kept() {
        let mine = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let header = traced(|| {
            let span = tracing::debug_span!("solr.attempt");
            let mut h = HeaderMap::new();
            h.insert(TRACEPARENT, HeaderValue::from_static(mine));
            inject(&span, &mut h);
            h
        });
        assert_eq!(header.get_all(TRACEPARENT).iter().count(), 1);
        assert_eq!(header[TRACEPARENT], mine);
    }

    #[test]
    fn without_an_opentelemetry_layer_nothing_is_written() {
        let subscriber = tracing_subscriber::registry();
        let header = tracing::subscriber::with_default(subscriber, || {
            let span = tracing::debug_span!("solr.attempt");
            let mut h = HeaderMap::new();
            inject(&span, &mut h);
            h
        });
        assert!(header.is_empty(), "{header:?}");
    }
}
