//! What the client does when the server (or a proxy in front of it)
//! misbehaves in ways real Solr cannot be made to on demand. Each case runs through the
//! real `SolrClient` over every HTTP/1.1 transport the fault server can speak (fresh,
//! pooled, reqwest; the h2 transport is tested against real Solr elsewhere), asserts the
//! typed error, and fails (instead of hanging) if the client does not answer within
//! [`LIMIT`].

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use solr_client::transport::{Gzip, Pooled, PooledConfig, Retry, RetryPolicy};
use solr_client::{
    Error, Select, SolrClient, TimeoutPhase, Timeouts, TlsOptions, Transport, TransportKind,
};

use crate::support::fault_server::{Fault, FaultServer, SELECT_OK, UPDATE_OK};
use crate::support::{self, lost_reply};

/// No fault may take longer than this to surface.
const LIMIT: Duration = Duration::from_secs(20);

/// The transports the fault server can speak (HTTP/1.1).
const H1: [TransportKind; 3] = [
    TransportKind::Fresh,
    TransportKind::Pooled,
    TransportKind::Reqwest,
];

/// Awaits `f`, failing the test if it takes longer than [`LIMIT`].
async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(LIMIT, f).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within {LIMIT:?} (the client hung)"),
    }
}

fn transport(kind: TransportKind, gzip: bool) -> Arc<dyn Transport> {
    kind.build(&TlsOptions::default(), gzip)
        .expect("transport builds")
}

fn client_on(url: &str, t: Arc<dyn Transport>) -> SolrClient {
    SolrClient::builder(url)
        .collection("bench")
        .custom_transport(t)
        .build()
        .expect("client builds")
}

fn q() -> Select {
    Select::new("*:*").rows(0)
}

/// Runs one select against a fresh fault server playing `script`; returns the error
/// and the server (for its counters).
async fn select_err(
    kind: TransportKind,
    gzip: bool,
    script: Vec<Fault>,
    tune: impl FnOnce(solr_client::SolrClientBuilder) -> solr_client::SolrClientBuilder,
) -> (Error, FaultServer) {
    let srv = FaultServer::start(script).await;
    let c = tune(
        SolrClient::builder(srv.url())
            .collection("bench")
            .custom_transport(transport(kind, gzip)),
    )
    .build()
    .expect("client builds");
    let what = format!("{kind}{}", if gzip { "+gzip" } else { "" });
    let err = bounded(&what, c.select(&q()))
        .await
        .expect_err("the fault must surface as an error");
    (err, srv)
}

#[tokio::test]
async fn reset_mid_body_is_a_broken_connection() {
    let _g = support::shared().await;
    for kind in H1 {
        let (err, srv) = select_err(kind, false, vec![Fault::ResetMidBody], |b| b).await;
        assert!(
            matches!(
                err,
                Error::Io {
                    not_sent: false,
                    ..
                }
            ),
            "{kind}: {err:?}"
        );
        assert_eq!(srv.accepted(), 1, "{kind}: one connection, no retry");
        assert_eq!(srv.seen().len(), 1, "{kind}");
    }
}

#[tokio::test]
async fn stall_after_headers_fires_the_read_idle_timeout_on_time() {
    let _g = support::shared().await;
    let idle = Duration::from_millis(400);
    let timeouts = Timeouts::DEFAULT
        .connect(Duration::from_secs(5))
        .read_idle(idle)
        .request(Duration::from_secs(15));
    for kind in H1 {
        let t0 = Instant::now();
        let (err, srv) = select_err(kind, false, vec![Fault::StallAfterHeaders], |b| {
            b.timeouts(timeouts)
        })
        .await;
        let ratio = t0.elapsed().as_secs_f64() / idle.as_secs_f64();
        match err {
            Error::Timeout { phase, after, .. } => {
                assert_eq!(phase, TimeoutPhase::ReadIdle, "{kind}");
                assert_eq!(after, idle, "{kind}");
            }
            other => panic!("{kind}: expected a read-idle timeout, got {other:?}"),
        }
        assert!(
            (0.9..3.0).contains(&ratio),
            "{kind}: fired after {ratio:.2} x the configured read-idle timeout"
        );
        assert_eq!(srv.seen().len(), 1, "{kind}: not retried");
    }
}

/// The request timeout bounds the wait for a connection slot too: the one connection the
/// pool may open to the host is taken by a request that hangs (with long timeouts of its
/// own); a second request with a 500 ms request timeout ends at its deadline, as a request
/// timeout, without reaching the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pooled_wait_for_a_slot_ends_at_the_request_deadline() {
    let _g = support::shared().await;
    let srv = FaultServer::start(vec![Fault::NoReply]).await;
    let pooled: Arc<dyn Transport> = Arc::new(
        Pooled::new(
            &TlsOptions::default(),
            PooledConfig::default().max_connections_per_host(1),
        )
        .expect("pooled"),
    );
    let on = |t: Timeouts| {
        SolrClient::builder(srv.url())
            .collection("bench")
            .custom_transport(pooled.clone())
            .timeouts(t)
            .build()
            .expect("client builds")
    };
    let long = Timeouts::DEFAULT
        .read_idle(Duration::from_secs(60))
        .request(Duration::from_secs(60));
    let short = long.request(Duration::from_millis(500));
    let holder = on(long);
    let hanging = tokio::spawn(async move { holder.select(&q()).await });
    // The first request holds the slot once the server has seen it.
    bounded("the first request reaches the server", async {
        while srv.seen().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    let t0 = Instant::now();
    let err = bounded("the second request", on(short).select(&q()))
        .await
        .expect_err("no slot before the deadline");
    let ratio = t0.elapsed().as_secs_f64() / short.request.as_secs_f64();
    match err {
        Error::Timeout { phase, after, .. } => {
            assert_eq!(phase, TimeoutPhase::Request);
            assert_eq!(after, short.request);
        }
        other => panic!("expected a request timeout, got {other:?}"),
    }
    assert!(
        (0.9..3.0).contains(&ratio),
        "ended after {ratio:.2} x the configured request timeout"
    );
    assert!(
        !hanging.is_finished(),
        "the first request still holds the slot"
    );
    assert_eq!(srv.accepted(), 1, "one connection: the cap");
    assert_eq!(
        srv.seen().len(),
        1,
        "the second request never reached the server"
    );
    hanging.abort();
}

#[tokio::test]
async fn connection_refused_is_a_connect_error_for_reads_and_writes() {
    let _g = support::shared().await;
    let (_held, port) = support::refused_port();
    let url = format!("http://127.0.0.1:{port}/solr");
    for kind in TransportKind::ALL {
        let c = client_on(&url, transport(kind, false));
        let err = bounded(kind.as_str(), c.select(&q()))
            .await
            .expect_err("nothing listens there");
        assert!(matches!(err, Error::Connect { .. }), "{kind}: {err:?}");
        assert!(err.is_connect() && err.is_not_sent(), "{kind}");
        // A write: every document is reported failed, with the connect error as cause.
        let docs = vec![json!({"id": "r1"}), json!({"id": "r2"})];
        match bounded(kind.as_str(), c.add(&docs)).await {
            Err(Error::Update {
                report,
                cause: Some(cause),
                ..
            }) => {
                assert_eq!(report.sent, 2, "{kind}");
                assert_eq!(report.failed.len(), 2, "{kind}: not sent, so not indexed");
                assert!(cause.is_connect() && cause.is_not_sent(), "{kind}: {cause}");
            }
            other => panic!("{kind}: expected Update with a connect cause, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn status_429_and_503_without_retry_are_typed_solr_errors() {
    let _g = support::shared().await;
    for kind in H1 {
        for code in [429u16, 503] {
            let (err, srv) =
                select_err(kind, false, vec![Fault::Status(code, Some(1))], |b| b).await;
            assert!(
                matches!(err, Error::Solr { status, .. } if status == code),
                "{kind}: {err:?}"
            );
            assert_eq!(err.status(), Some(code));
            assert_eq!(
                srv.seen().len(),
                1,
                "{kind}: no retry without the decorator"
            );
        }
    }
}

fn retrying(kind: TransportKind, policy: RetryPolicy) -> Arc<dyn Transport> {
    Arc::new(Retry::new(transport(kind, false), policy))
}

/// The builder's `retry` gives a standalone client the 429/503 rule on every HTTP/1.1
/// transport (this server speaks HTTP/1.1 only):
/// an update refused twice with 503 is sent three times in all and acknowledged; a search
/// answered 503 every time ends after the budget with `RetriesExhausted`; without `retry`,
/// one 503 is the call's answer and nothing is re-sent.
#[tokio::test]
async fn the_builders_retry_resends_after_503_on_every_transport() {
    let _g = support::shared().await;
    let policy = RetryPolicy::default()
        .max_attempts(3)
        .base_backoff(Duration::from_millis(5))
        .max_wait(Duration::from_secs(5));
    for kind in H1 {
        let build = |url: String, retry: bool| {
            let b = SolrClient::builder(url).collection("bench").transport(kind);
            let b = if retry { b.retry(policy) } else { b };
            b.build().expect("client")
        };
        let doc = [json!({"id": "retry-1"})];
        let srv = FaultServer::start(vec![
            Fault::Status(503, Some(0)),
            Fault::Status(503, None),
            Fault::Ok(UPDATE_OK),
        ])
        .await;
        let r = bounded(kind.as_str(), build(srv.url(), true).add(&doc))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!((r.timing.attempts, srv.seen().len()), (3, 3), "{kind}");
        let srv = FaultServer::start(vec![Fault::Status(503, None)]).await;
        let e = bounded(kind.as_str(), build(srv.url(), true).select(&q()))
            .await
            .expect_err("stays 503");
        assert!(
            matches!(
                e,
                Error::RetriesExhausted {
                    status: 503,
                    attempts: 3,
                    ..
                }
            ),
            "{kind}: {e:?}"
        );
        assert_eq!(srv.seen().len(), 3, "{kind}: the budget, exactly");
        let srv = FaultServer::start(vec![Fault::Status(503, None)]).await;
        let e = bounded(kind.as_str(), build(srv.url(), false).select(&q()))
            .await
            .expect_err("503");
        assert_eq!(e.status(), Some(503), "{kind}: {e:?}");
        assert!(
            !matches!(e, Error::RetriesExhausted { .. }),
            "{kind}: {e:?}"
        );
        assert_eq!(srv.seen().len(), 1, "{kind}: no retry by default");
    }
}

#[tokio::test]
async fn retry_honours_retry_after_then_succeeds() {
    let _g = support::shared().await;
    let policy = RetryPolicy::default()
        .max_attempts(3)
        .base_backoff(Duration::from_millis(50))
        .max_wait(Duration::from_secs(5));
    for kind in H1 {
        let srv = FaultServer::start(vec![
            Fault::Status(429, Some(1)),
            Fault::Status(503, None),
            Fault::Ok(SELECT_OK),
        ])
        .await;
        let c = client_on(&srv.url(), retrying(kind, policy));
        let t0 = Instant::now();
        let r = bounded(kind.as_str(), c.select(&q()))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let elapsed = t0.elapsed();
        assert_eq!(r.timing.attempts, 3, "{kind}");
        assert_eq!(srv.seen().len(), 3, "{kind}");
        // Waited Retry-After (1 s) plus one backoff (25..50 ms), and not much more.
        let ratio = elapsed.as_secs_f64() / 1.0;
        assert!((0.9..3.0).contains(&ratio), "{kind}: took {elapsed:?}");
    }
}

#[tokio::test]
async fn retry_budget_exhausted_is_typed() {
    let _g = support::shared().await;
    let policy = RetryPolicy::default()
        .max_attempts(3)
        .base_backoff(Duration::from_millis(20))
        .max_wait(Duration::from_secs(2));
    for kind in H1 {
        let srv = FaultServer::start(vec![Fault::Status(503, Some(0))]).await;
        let c = client_on(&srv.url(), retrying(kind, policy));
        let err = bounded(kind.as_str(), c.select(&q()))
            .await
            .expect_err("always 503");
        assert!(
            matches!(
                err,
                Error::RetriesExhausted {
                    status: 503,
                    attempts: 3,
                    ..
                }
            ),
            "{kind}: {err:?}"
        );
        assert_eq!(srv.seen().len(), 3, "{kind}");

        // A Retry-After beyond the policy's longest wait ends the retries at once.
        let srv = FaultServer::start(vec![Fault::Status(429, Some(3600))]).await;
        let c = client_on(&srv.url(), retrying(kind, policy));
        let t0 = Instant::now();
        let err = bounded(kind.as_str(), c.select(&q()))
            .await
            .expect_err("429 for an hour");
        assert!(
            matches!(
                err,
                Error::RetriesExhausted {
                    status: 429,
                    attempts: 1,
                    waited: Duration::ZERO,
                    ..
                }
            ),
            "{kind}: {err:?}"
        );
        assert!(t0.elapsed() < policy.max_wait, "{kind}: did not wait");
        assert_eq!(srv.seen().len(), 1, "{kind}");
    }
}

#[tokio::test]
async fn retry_resends_a_write_refused_with_429_once_acknowledged() {
    let _g = support::shared().await;
    for kind in H1 {
        let srv = FaultServer::start(vec![Fault::Status(429, Some(0)), Fault::Ok(UPDATE_OK)]).await;
        let c = client_on(&srv.url(), retrying(kind, RetryPolicy::default()));
        let docs = vec![json!({"id": "w1"}), json!({"id": "w2"})];
        let r = bounded(kind.as_str(), c.add(&docs))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(r.docs_sent, 2);
        assert_eq!(r.timing.attempts, 2, "{kind}");
        let seen = srv.seen();
        assert_eq!(seen.len(), 2, "{kind}");
        assert_eq!(seen[0].body, seen[1].body, "{kind}: the same body twice");
        // A 500 is not retried: a write that failed that way may have been applied.
        let srv = FaultServer::start(vec![Fault::Status(500, None), Fault::Ok(UPDATE_OK)]).await;
        let c = client_on(&srv.url(), retrying(kind, RetryPolicy::default()));
        match bounded(kind.as_str(), c.add(&docs)).await {
            Err(Error::Update {
                report,
                cause: Some(cause),
                ..
            }) => {
                assert_eq!(report.sent, 2, "{kind}");
                assert_eq!(
                    report.unknown.len(),
                    2,
                    "{kind}: a 500 may have indexed them"
                );
                assert_eq!(cause.status(), Some(500), "{kind}");
            }
            other => panic!("{kind}: expected Update(500), got {other:?}"),
        }
        assert_eq!(srv.seen().len(), 1, "{kind}");
    }
}

#[tokio::test]
async fn truncated_gzip_is_a_decompress_error() {
    let _g = support::shared().await;
    for kind in H1 {
        for gzip in [true, false] {
            let (err, _srv) = select_err(kind, gzip, vec![Fault::TruncatedGzip], |b| b).await;
            match &err {
                Error::Decompress { encoding, .. } => assert_eq!(encoding, "gzip", "{kind}"),
                other => panic!("{kind} gzip={gzip}: expected Decompress, got {other:?}"),
            }
        }
    }
}

#[tokio::test]
async fn html_502_from_a_proxy_is_an_unexpected_response() {
    let _g = support::shared().await;
    for kind in H1 {
        let (err, _srv) = select_err(kind, false, vec![Fault::Html502], |b| b).await;
        match &err {
            Error::UnexpectedResponse {
                status,
                content_type,
                snippet,
                ..
            } => {
                assert_eq!(*status, 502, "{kind}");
                assert_eq!(content_type.as_deref(), Some("text/html"), "{kind}");
                assert!(snippet.contains("502 Bad Gateway"), "{kind}: {snippet}");
            }
            other => panic!("{kind}: expected UnexpectedResponse, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn invalid_json_and_wrong_shape_are_decode_errors() {
    let _g = support::shared().await;
    for kind in H1 {
        for fault in [Fault::InvalidJson, Fault::WrongShape] {
            let (err, _srv) = select_err(kind, false, vec![fault.clone()], |b| b).await;
            match &err {
                Error::Decode { what, snippet, .. } => {
                    assert_eq!(*what, "select response", "{kind}");
                    assert!(snippet.starts_with("{\"responseHeader\""), "{kind}");
                }
                other => panic!("{kind} {fault:?}: expected Decode, got {other:?}"),
            }
        }
    }
}

#[tokio::test]
async fn bodies_over_the_size_limit_are_refused() {
    let _g = support::shared().await;
    let limit = 64 * 1024;
    for kind in H1 {
        for chunked in [false, true] {
            let (err, _srv) = select_err(
                kind,
                false,
                vec![Fault::Oversized {
                    n: 1024 * 1024,
                    chunked,
                }],
                |b| b.max_response_bytes(limit),
            )
            .await;
            assert!(
                matches!(err, Error::TooLarge { limit: l, .. } if l == limit),
                "{kind} chunked={chunked}: {err:?}"
            );
        }
        // A gzip bomb: 4 KiB on the wire, 16 MiB inflated.
        let (err, _srv) = select_err(kind, true, vec![Fault::GzipOf(16 << 20)], |b| {
            b.max_response_bytes(limit)
        })
        .await;
        assert!(
            matches!(err, Error::TooLarge { limit: l, .. } if l == limit),
            "{kind}+gzip bomb: {err:?}"
        );
    }
}

#[tokio::test]
async fn server_closing_an_idle_keepalive_connection_is_invisible() {
    let _g = support::shared().await;
    for kind in [TransportKind::Pooled, TransportKind::Reqwest] {
        let srv = FaultServer::start(vec![Fault::OkThenCloseIdle(
            SELECT_OK,
            Duration::from_millis(100),
        )])
        .await;
        let c = client_on(&srv.url(), transport(kind, false));
        let first = bounded(kind.as_str(), c.select(&q()))
            .await
            .expect("first select");
        // 10x the server's idle close: room for a busy machine to run it first.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let second = bounded(kind.as_str(), c.select(&q()))
            .await
            .unwrap_or_else(|e| panic!("{kind}: the closed idle connection surfaced: {e}"));
        assert_eq!(srv.accepted(), 2, "{kind}: a new connection for the second");
        assert_eq!(
            srv.seen().len(),
            2,
            "{kind}: nothing sent on the closed one"
        );
        if kind == TransportKind::Pooled {
            assert_ne!(first.timing.connection_id, second.timing.connection_id);
            assert!(!second.timing.reused);
            assert_eq!(second.timing.attempts, 1, "found closed before sending");
        }
    }
}

/// The race the server's idle timeout can cause: the request is written onto a pooled
/// connection at the moment the server closes it, so the request arrives and no answer
/// comes. `pooled` retries a read once on a new connection; a write is returned as
/// `Error::Io { not_sent: false }`, because the server may have applied it (here it did
/// receive it: the server's request log shows it).
#[tokio::test]
async fn pooled_request_lost_to_a_closing_connection_read_retried_write_reported() {
    let _g = support::shared().await;
    let pooled = || -> Arc<dyn Transport> {
        Arc::new(Pooled::new(&TlsOptions::default(), PooledConfig::default()).expect("pooled"))
    };

    let srv = FaultServer::start(lost_reply::script(SELECT_OK)).await;
    let r = lost_reply::read_resent(&srv, &client_on(&srv.url(), pooled())).await;
    assert!(!r.timing.reused, "the retry used a new connection");

    let srv = FaultServer::start(lost_reply::script(UPDATE_OK)).await;
    let c = client_on(&srv.url(), pooled());
    let seen = lost_reply::write_reported(&srv, &c, &[json!({"id": "x1"})]).await;
    assert!(
        seen[1].line.starts_with("POST /solr/bench/update"),
        "{}",
        seen[1].line
    );
}

#[tokio::test]
async fn pooled_gzip_decorator_reports_faults_the_same_way() {
    let _g = support::shared().await;
    // The decorator must not turn an inner error into something else.
    let srv = FaultServer::start(vec![Fault::ResetMidBody]).await;
    let t: Arc<dyn Transport> = Arc::new(Gzip::new(transport(TransportKind::Pooled, false)));
    let c = client_on(&srv.url(), t);
    let err = bounded("pooled+gzip", c.select(&q()))
        .await
        .expect_err("reset");
    assert!(
        matches!(
            err,
            Error::Io {
                not_sent: false,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(srv.seen()[0]
        .headers
        .iter()
        .any(|h| h.eq_ignore_ascii_case("accept-encoding: gzip")));
}
