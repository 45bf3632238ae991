//! Redirects, refused streams, slow nodes and read-idle over HTTP/2, against the h2c fault
//! server (`support::h2_fault`) and real Solr:
//!
//! - redirects: a redirected write is an error and reaches no other host; a read follows only
//!   on opt-in;
//! - refused streams: a GOAWAY whose last-stream-id is below the request's stream, or a
//!   `REFUSED_STREAM`, is "not sent" (`Error::Io { not_sent: true }`), so even a write is
//!   resent once on a new connection; a read lost on a reused connection the server closed
//!   is resent once; such a write is not;
//! - slow nodes: a node that is slow to connect does not hold up requests to other nodes;
//! - read-idle on a shared connection: a stream that gets no byte is cut at read-idle while
//!   the complete frames of other streams keep arriving on the same connection.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use solr_client::transport::Http2;
use solr_client::{
    Error, Select, SolrClient, TimeoutPhase, Timeouts, TlsOptions, Transport, TransportKind,
};

use crate::support::fault_server::{SELECT_OK, UPDATE_OK};
use crate::support::h2_fault::{H2Fault, H2FaultServer, H2Seen};
use crate::support::{self, lost_reply};

async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(20), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within 20 s"),
    }
}

fn h2_client(url: &str) -> SolrClient {
    SolrClient::builder(url)
        .collection("bench")
        .transport(TransportKind::Http2)
        .build()
        .expect("client")
}

fn seen(conn: usize, stream: u32) -> (usize, u32) {
    (conn, stream)
}

fn ids(s: &[H2Seen]) -> Vec<(usize, u32)> {
    s.iter().map(|s| (s.conn, s.stream)).collect()
}

#[tokio::test]
async fn h2_redirected_write_is_an_error_and_reads_follow_only_on_opt_in() {
    let _g = support::shared().await;
    let target = H2FaultServer::start(vec![H2Fault::Ok(SELECT_OK)]).await;
    let to = format!("http://{}/solr/bench/update?wt=json", target.authority());
    let src = H2FaultServer::start(vec![H2Fault::Redirect(307, to.clone())]).await;
    for follow in [0, 3] {
        let c = SolrClient::builder(src.url())
            .collection("bench")
            .transport(TransportKind::Http2)
            .follow_redirects(follow)
            .build()
            .expect("client");
        let report = bounded(
            "h2 write",
            c.add_batched(&[json!({"id": "a"}), json!({"id": "b"})], 10),
        )
        .await
        .expect("report");
        assert_eq!(report.acknowledged, 0);
        assert_eq!(report.failed.len(), 2);
        match bounded("h2 write", c.add(&[json!({"id": "c"})])).await {
            Err(Error::Update {
                cause: Some(cause), ..
            }) => assert!(
                matches!(&*cause, Error::Redirect { status: 307, location: Some(l), .. } if *l == to),
                "{cause:?}"
            ),
            other => panic!("expected Update caused by a redirect, got {other:?}"),
        }
    }
    assert_eq!(target.accepted(), 0, "the other host saw nothing");
    assert_eq!(src.seen().len(), 4, "each write sent once");

    // Reads: an error without opt-in, followed with it (here to real Solr, over h2c).
    let s = support::standalone();
    let solr = s.url(None).expect("url").trim_end_matches('/').to_string();
    let src = H2FaultServer::start(vec![H2Fault::Redirect(
        302,
        format!("{solr}/bench/select?q=*:*&rows=0&wt=json"),
    )])
    .await;
    let err = bounded("h2 read", h2_client(&src.url()).select(&Select::new("x")))
        .await
        .expect_err("not followed without opt-in");
    assert!(
        matches!(err, Error::Redirect { status: 302, .. }),
        "{err:?}"
    );
    let c = SolrClient::builder(src.url())
        .collection("bench")
        .transport(TransportKind::Http2)
        .follow_redirects(1)
        .build()
        .expect("client");
    let r = bounded("h2 read", c.select(&Select::new("x")))
        .await
        .expect("followed to Solr");
    assert_eq!(r.timing.redirects, 1);
    assert_eq!(r.timing.http_version, solr_client::HttpVersion::Http2);
    assert!(r
        .timing
        .final_url
        .as_deref()
        .is_some_and(|u| u.starts_with(&solr)));
}

#[tokio::test]
async fn goaway_below_the_stream_and_refused_stream_are_not_sent_and_resent_once() {
    let _g = support::shared().await;
    let docs = [json!({"id": "g1"})];
    for fault in [H2Fault::GoAwayBelow, H2Fault::Refuse] {
        // On a new connection: returned as not sent (the caller may resend, even a write).
        let srv = H2FaultServer::start(vec![fault.clone()]).await;
        let c = h2_client(&srv.url());
        match bounded("write", c.add(&docs)).await {
            Err(Error::Update {
                cause: Some(cause), ..
            }) => {
                assert!(
                    matches!(&*cause, Error::Io { not_sent: true, .. }) && cause.is_not_sent(),
                    "{fault:?}: {cause:?}"
                );
            }
            other => panic!("{fault:?}: expected Update with a not-sent cause, got {other:?}"),
        }
        assert_eq!(ids(&srv.seen()), [seen(0, 1)], "{fault:?}");

        // On a reused connection: a write is resent once on a new connection, and succeeds.
        let srv = H2FaultServer::start(vec![
            H2Fault::Ok(UPDATE_OK),
            fault.clone(),
            H2Fault::Ok(UPDATE_OK),
        ])
        .await;
        let c = h2_client(&srv.url());
        bounded("write 1", c.add(&docs)).await.expect("write 1");
        let r = bounded("write 2", c.add(&docs))
            .await
            .unwrap_or_else(|e| panic!("{fault:?}: a refused write is resent: {e}"));
        assert_eq!(r.timing.attempts, 2, "{fault:?}");
        assert_eq!(srv.accepted(), 2, "{fault:?}");
        assert_eq!(
            ids(&srv.seen()),
            [seen(0, 1), seen(0, 3), seen(1, 1)],
            "{fault:?}"
        );
        assert!(srv.seen().iter().all(|s| s.body == srv.seen()[0].body));
    }
}

#[tokio::test]
async fn h2_request_lost_to_a_closing_connection_read_retried_write_reported() {
    let _g = support::shared().await;
    let srv = H2FaultServer::start(lost_reply::script(SELECT_OK)).await;
    let r = lost_reply::read_resent(&srv, &h2_client(&srv.url())).await;
    assert!(!r.timing.reused, "the retry used a new connection");
    assert_eq!(ids(&srv.seen()), [seen(0, 1), seen(0, 3), seen(1, 1)]);

    let srv = H2FaultServer::start(lost_reply::script(UPDATE_OK)).await;
    let c = h2_client(&srv.url());
    let docs = [json!({"id": "w1"})];
    let got = lost_reply::write_reported(&srv, &c, &docs).await;
    assert_eq!(ids(&got), [seen(0, 1), seen(0, 3)]);
    // The next request opens a new connection (the dead one was forgotten).
    bounded("write 3", c.add(&docs)).await.expect("write 3");
    assert_eq!(srv.accepted(), 2);
}

#[tokio::test]
async fn a_node_slow_to_connect_does_not_block_requests_to_other_nodes() {
    let _g = support::shared().await;
    let connect = Duration::from_secs(3);
    let timeouts = Timeouts::DEFAULT
        .connect(connect)
        .read_idle(Duration::from_secs(10))
        .request(Duration::from_secs(30));
    let hole = support::blackhole::start().await;
    let slow_url = hole.url.clone();
    let healthy = H2FaultServer::start(vec![H2Fault::Ok(SELECT_OK)]).await;
    let h2: Arc<dyn Transport> = Arc::new(Http2::new(&TlsOptions::default()).expect("http2"));
    let client = |url: &str| {
        SolrClient::builder(url)
            .collection("bench")
            .custom_transport(h2.clone())
            .timeouts(timeouts)
            .build()
            .expect("client")
    };
    let slow = client(&slow_url);
    let t0 = Instant::now();
    let slow_task = tokio::spawn(async move { slow.select(&Select::new("*:*")).await });
    // Let the slow request start its connect (it holds its node's slot from now on).
    while h2.stats().requests == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;

    let fast = client(&healthy.url());
    for i in 0..5 {
        bounded("healthy node", fast.select(&Select::new("*:*")))
            .await
            .unwrap_or_else(|e| panic!("request {i} to the healthy node: {e}"));
    }
    let healthy_done = t0.elapsed();
    assert!(
        !slow_task.is_finished(),
        "the slow node's connect ended before the healthy requests completed"
    );
    assert_eq!(healthy.seen().len(), 5);
    assert_eq!(
        healthy.accepted(),
        1,
        "one shared connection to the healthy node"
    );

    let err = bounded("slow node", slow_task)
        .await
        .expect("task")
        .expect_err("the slow node never accepts");
    assert!(
        matches!(
            err,
            Error::Timeout {
                phase: TimeoutPhase::Connect,
                ..
            }
        ),
        "{err:?}"
    );
    let slow_done = t0.elapsed();
    println!(
        "h2 per-node slots: 5 requests to the healthy node done after {healthy_done:?}; \
         the blackholed node's connect timed out after {slow_done:?} (configured {connect:?})"
    );
    assert!(
        healthy_done < slow_done && healthy_done.as_secs_f64() < 0.9 * connect.as_secs_f64(),
        "healthy requests took {healthy_done:?}, the slow connect timed out after {slow_done:?}"
    );
}

/// One connection, two kinds of streams: the first request is never answered, the others
/// are answered at once, one every 50 ms, for as long as the first one waits. The bytes of
/// their complete frames are not the stalled stream's: it ends in a read-idle timeout about
/// read-idle after it was sent (not at the request timeout), every other request succeeds,
/// and the server saw all of them on its one connection.
#[tokio::test]
async fn a_stalled_stream_is_cut_at_read_idle_while_other_streams_get_frames() {
    let _g = support::shared().await;
    let server = H2FaultServer::start(vec![H2Fault::NoReply, H2Fault::Ok(SELECT_OK)]).await;
    let t = Timeouts::DEFAULT
        .read_idle(Duration::from_millis(600))
        .request(Duration::from_secs(10));
    let client = SolrClient::builder(server.url())
        .collection("bench")
        .transport(TransportKind::Http2)
        .timeouts(t)
        .build()
        .expect("client");
    let every = Duration::from_millis(50);
    let stalled_done = std::sync::atomic::AtomicBool::new(false);
    let select = Select::new("*:*").rows(0);
    let stalled = async {
        let t0 = Instant::now();
        let res = client.select(&select).await;
        stalled_done.store(true, std::sync::atomic::Ordering::SeqCst);
        (res.map(drop), t0.elapsed())
    };
    let others = async {
        while server.seen().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let mut answered = 0u32;
        while !stalled_done.load(std::sync::atomic::Ordering::SeqCst) {
            client.select(&select).await.expect("answered at once");
            answered += 1;
            tokio::time::sleep(every).await;
        }
        answered
    };
    let ((res, elapsed), answered) =
        bounded("stalled stream", async { tokio::join!(stalled, others) }).await;
    match res {
        Err(Error::Timeout { phase, after, .. }) => {
            assert_eq!((phase, after), (TimeoutPhase::ReadIdle, t.read_idle));
        }
        other => panic!("expected a read-idle timeout, got {other:?}"),
    }
    let ratio = elapsed.as_secs_f64() / t.read_idle.as_secs_f64();
    assert!(
        (0.9..3.0).contains(&ratio),
        "cut after {ratio:.2} x read-idle"
    );
    assert!(
        every * answered >= t.read_idle / 2,
        "{answered} requests answered while the stalled one waited: too few to overlap it"
    );
    assert_eq!(server.seen().len(), 1 + answered as usize, "requests seen");
    assert_eq!(server.accepted(), 1, "one shared connection");
    println!(
        "h2 shared connection: {answered} streams answered while the stalled one waited; \
         it was cut after {elapsed:?} (read-idle {:?})",
        t.read_idle
    );
}
