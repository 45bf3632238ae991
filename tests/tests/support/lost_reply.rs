//! The race a server's idle timeout can cause, played by a [`FaultServer`]: a request is
//! written onto a kept-alive connection at the moment the server closes it, so the request
//! arrives and no answer comes. A transport resends an idempotent read once on a new
//! connection; a write is returned as possibly sent (`Error::Io { not_sent: false }`),
//! because the server may have applied it.

use std::future::Future;
use std::time::Duration;

use serde_json::json;
use solr_client::{Error, Select, SelectResponse, SolrClient};

use super::fault_server::{Fault, FaultServer, Seen, SELECT_OK, UPDATE_OK};

/// No step may take longer than this.
const LIMIT: Duration = Duration::from_secs(20);

/// Awaits `f`, failing the test if it takes longer than [`LIMIT`].
pub async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(LIMIT, f).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within {LIMIT:?} (the client hung)"),
    }
}

/// A server that answers `body`, closes the connection after reading the second request
/// without answering it, then answers `body` again.
async fn closing_server(body: &'static str) -> FaultServer {
    FaultServer::start(vec![
        Fault::Ok(body),
        Fault::CloseWithoutReply,
        Fault::Ok(body),
    ])
    .await
}

/// Sends two reads through the client `client(url)` makes; the second meets the closing
/// connection and must be resent once, on a new connection. Returns the second answer.
pub async fn read_resent(client: impl Fn(&str) -> SolrClient) -> SelectResponse {
    let srv = closing_server(SELECT_OK).await;
    let c = client(&srv.url());
    let q = Select::new("*:*").rows(0);
    bounded("read 1", c.select(&q)).await.expect("read 1");
    let r = bounded("read 2", c.select(&q))
        .await
        .expect("a read on a dying connection is resent");
    assert_eq!(r.timing.attempts, 2);
    assert_eq!(srv.accepted(), 2);
    let seen: Vec<usize> = srv.seen().iter().map(|s| s.conn).collect();
    assert_eq!(
        seen,
        [0, 0, 1],
        "read 2 sent on the old connection, then on a new one"
    );
    r
}

/// Sends two writes through the client `client(url)` makes; the second meets the closing
/// connection and must come back as possibly sent, not resent. Returns the requests the
/// server read.
pub async fn write_reported(client: impl Fn(&str) -> SolrClient) -> Vec<Seen> {
    let srv = closing_server(UPDATE_OK).await;
    let c = client(&srv.url());
    let docs = [json!({"id": "x1"})];
    bounded("write 1", c.add(&docs)).await.expect("write 1");
    match bounded("write 2", c.add(&docs)).await {
        Err(Error::Update {
            report,
            cause: Some(cause),
        }) => {
            assert_eq!(
                (report.sent, report.unknown.len()),
                (1, 1),
                "sent, then lost"
            );
            assert!(
                matches!(
                    *cause,
                    Error::Io {
                        not_sent: false,
                        ..
                    }
                ),
                "{cause:?}"
            );
        }
        other => panic!("expected an ambiguous write (Io, not_sent false), got {other:?}"),
    }
    assert_eq!(srv.accepted(), 1, "the write was not resent");
    let seen = srv.seen();
    assert_eq!(seen.len(), 2, "the server did receive the write");
    seen
}
