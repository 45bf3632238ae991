//! The `solr.attempt` span of every HTTP exchange a base transport makes, and the
//! `solr.retry` and `solr.error` events (no-ops without the `tracing` feature). The call's
//! own span and the metrics hook are in [`crate::observe`].

use crate::error::Result;

use super::{Reply, WireRequest};

/// How a call ended, for its span and the `solr.error` event: the request's method and
/// path, the status and timing of the response (None when none came back), and the error
/// the call returns, if any.
#[cfg_attr(not(feature = "tracing"), allow(dead_code))]
pub(crate) struct Outcome<'a> {
    pub(crate) method: &'a http::Method,
    pub(crate) path: &'a str,
    pub(crate) status: Option<u16>,
    pub(crate) timing: Option<&'a crate::timing::Timing>,
    pub(crate) error: Option<&'a crate::error::Error>,
}

impl<'a> Outcome<'a> {
    /// A call that got no response: `error` is what the transport returned.
    pub(crate) fn no_response(
        method: &'a http::Method,
        path: &'a str,
        error: &'a crate::error::Error,
    ) -> Self {
        Outcome {
            method,
            path,
            status: None,
            timing: None,
            error: Some(error),
        }
    }
}

/// Milliseconds, to the microsecond.
#[cfg(feature = "tracing")]
pub(crate) fn ms(d: std::time::Duration) -> f64 {
    d.as_micros() as f64 / 1e3
}

/// One HTTP exchange of a base transport, in its `solr.attempt` span (no span without the
/// `tracing` feature). Every base transport sends through this (`Counted::send` in
/// [`crate::transport`]), so each attempt of every stack is one span.
pub(crate) struct Attempt {
    #[cfg(feature = "tracing")]
    span: tracing::Span,
}

impl Attempt {
    /// The attempt of `req`, its span opened now (in the caller's span, the call's
    /// `solr.request`); with the `opentelemetry` feature, `req` carries the span's W3C trace
    /// context from here on ([`super::trace_context`]).
    pub(crate) fn new(req: &mut WireRequest) -> Self {
        #[cfg(not(feature = "tracing"))]
        let _ = req;
        #[cfg(feature = "tracing")]
        let span = attempt_span(req);
        #[cfg(feature = "opentelemetry")]
        super::trace_context::inject(&span, &mut req.headers);
        Attempt {
            #[cfg(feature = "tracing")]
            span,
        }
    }

    /// Runs `fut`, the exchange: `fut` itself (no span, so no wrapper to move it into).
    #[cfg(not(feature = "tracing"))]
    pub(crate) fn run<F>(self, fut: F) -> F
    where
        F: std::future::Future<Output = Result<Reply>>,
    {
        fut
    }

    /// Runs `fut`, the exchange, in its span, and records the answer's fields on it.
    #[cfg(feature = "tracing")]
    pub(crate) async fn run<F>(self, fut: F) -> Result<Reply>
    where
        F: std::future::Future<Output = Result<Reply>>,
    {
        use tracing::Instrument;
        let span = self.span;
        let res = fut.instrument(span.clone()).await;
        record(&span, &res);
        let _ = CALL.try_with(|c| c.borrow_mut().last = Some(span));
        res
    }
}

/// The `solr.attempt` span of `req`, numbered within its call. Beside the crate's own
/// fields it carries OpenTelemetry's HTTP client attributes (`http.request.method`,
/// `server.address`, `server.port`, `url.path`; `http.response.status_code` once answered)
/// and `otel.kind = client`, which `tracing-opentelemetry` maps to the span kind.
#[cfg(feature = "tracing")]
fn attempt_span(req: &WireRequest) -> tracing::Span {
    let node = crate::redact::node_label(&req.node);
    let n = CALL
        .try_with(|c| {
            let mut c = c.borrow_mut();
            c.attempts += 1;
            c.attempts
        })
        .unwrap_or(1);
    let url_path = format!("{}/{}", req.node.path().trim_end_matches('/'), req.path);
    tracing::debug_span!(
        target: "solr_client",
        "solr.attempt",
        node = %node,
        method = %req.method,
        path = %req.path,
        attempt = n,
        otel.kind = "client",
        http.request.method = %req.method,
        server.address = req.node.host_str().unwrap_or_default(),
        server.port = req.node.port_or_known_default(),
        url.path = %url_path,
        http.response.status_code = tracing::field::Empty,
        status = tracing::field::Empty,
        reused = tracing::field::Empty,
        connection_id = tracing::field::Empty,
        blocked_ms = tracing::field::Empty,
        dns_ms = tracing::field::Empty,
        connect_ms = tracing::field::Empty,
        tls_ms = tracing::field::Empty,
        write_ms = tracing::field::Empty,
        wait_ms = tracing::field::Empty,
        body_ms = tracing::field::Empty,
        decompress_ms = tracing::field::Empty,
        decode_ms = tracing::field::Empty,
        qtime_ms = tracing::field::Empty,
        error = tracing::field::Empty,
    )
}

/// The collection (or core) a request path names, for the `db.collection.name` field: its
/// first segment (`bench` of `bench/select`); None for node-level paths (`admin/...`).
#[cfg(feature = "tracing")]
pub(crate) fn collection(path: &str) -> Option<&str> {
    match path.split_once('/') {
        Some(("admin", _)) | None => None,
        Some((c, _)) if !c.is_empty() => Some(c),
        Some(_) => None,
    }
}

/// Records the attempt's outcome on its span: the answer's status, connection and phase
/// times, or the error.
#[cfg(feature = "tracing")]
fn record(span: &tracing::Span, res: &Result<Reply>) {
    let r = match res {
        Ok(r) => r,
        Err(e) => {
            span.record("error", tracing::field::display(e));
            return;
        }
    };
    let t = r.timing();
    span.record("status", r.status().as_u16());
    span.record("http.response.status_code", r.status().as_u16());
    span.record("reused", t.reused);
    span.record("connection_id", t.connection_id);
    span.record("blocked_ms", ms(t.blocked));
    for (name, d) in [
        ("dns_ms", t.dns),
        ("connect_ms", t.connect),
        ("tls_ms", t.tls),
    ] {
        if let Some(d) = d {
            span.record(name, ms(d));
        }
    }
    span.record("write_ms", ms(t.write));
    span.record("wait_ms", ms(t.server_wait));
    span.record("body_ms", ms(t.transfer));
}

/// A retry or failover is about to happen: the INFO event `solr.retry` (a no-op without
/// the `tracing` feature). `reason` is a status or an error's `Display`.
pub(crate) fn retrying(
    node: &str,
    attempt: u32,
    reason: &dyn std::fmt::Display,
    wait: std::time::Duration,
) {
    #[cfg(feature = "tracing")]
    tracing::info!(
        target: "solr_client",
        node = %node,
        attempt,
        reason = %reason,
        wait_ms = ms(wait),
        "solr.retry"
    );
    #[cfg(not(feature = "tracing"))]
    let _ = (node, attempt, reason, wait);
}

/// Whether a failed call is reported at INFO rather than WARN: an answer with a 4xx status
/// (the request was refused: a bad query, a missing core); everything else (5xx, no answer,
/// an answer that did not decode, retries exhausted, a redirect not followed) is WARN.
#[cfg(feature = "tracing")]
pub(crate) fn refused_by_server(e: &crate::error::Error) -> bool {
    !matches!(e, crate::error::Error::RetriesExhausted { .. })
        && e.status().is_some_and(|s| (400..500).contains(&s))
}

/// A call failed: the `solr.error` event, at INFO for a 4xx answer and WARN otherwise (see
/// [`refused_by_server`]), with the error's kind, the status, Solr's message and QTime.
/// Every text goes through the error's redaction: no user info, no header value. `text` is
/// the error's `Display` on one line.
#[cfg(feature = "tracing")]
pub(crate) fn failed(o: &Outcome<'_>, e: &crate::error::Error, text: &str) {
    use crate::error::Error;
    use crate::redact::redact;
    let node = e.node().map(redact);
    let solr_msg = match e {
        Error::Solr { body, .. } => Some(redact(&body.msg)),
        _ => None,
    };
    macro_rules! event {
        ($level:expr) => {
            tracing::event!(
                target: "solr_client",
                $level,
                kind = e.kind(),
                status = o.status.or_else(|| e.status()),
                node = node.as_deref(),
                method = %o.method,
                path = %o.path,
                attempts = o.timing.map(|t| t.attempts.max(1)),
                qtime_ms = o.timing.and_then(|t| t.qtime_ms),
                solr_msg = solr_msg.as_deref(),
                error = text,
                "solr.error"
            )
        };
    }
    if refused_by_server(e) {
        event!(tracing::Level::INFO);
    } else {
        event!(tracing::Level::WARN);
    }
}

#[cfg(feature = "tracing")]
pub(crate) use call::{CallState, CALL};

#[cfg(feature = "tracing")]
mod call {
    use std::cell::RefCell;

    /// The attempt counter and last attempt span of one client call.
    #[derive(Default)]
    pub(crate) struct CallState {
        pub(crate) attempts: u32,
        pub(crate) last: Option<tracing::Span>,
    }

    tokio::task_local! {
        pub(crate) static CALL: RefCell<CallState>;
    }
}

#[cfg(all(test, feature = "tracing"))]
mod collection_tests {
    use super::collection;

    #[test]
    fn the_collection_is_the_first_segment_of_a_collection_path() {
        assert_eq!(collection("books/select"), Some("books"));
        assert_eq!(collection("books/admin/ping"), Some("books"));
        assert_eq!(collection("admin/collections"), None);
        assert_eq!(collection("admin/info/system"), None);
        assert_eq!(collection("/select"), None);
        assert_eq!(collection("books"), None);
    }
}
