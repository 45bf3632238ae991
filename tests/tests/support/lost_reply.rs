//! The race a server's idle timeout can cause, played by a fault server (HTTP/1.1 or 2): a request is
//! written onto a kept-alive connection at the moment the server closes it, so the request
//! arrives and no answer comes. A transport resends an idempotent read once on a new
//! connection; a write is returned as possibly sent (`Error::Io { not_sent: false }`),
//! because the server may have applied it.

use std::future::Future;
use std::time::Duration;

use serde_json::Value;
use solr_client::{Error, Select, SelectResponse, SolrClient};

use super::fault_server::{Fault, Seen};
use super::h2_fault::{H2Fault, H2Seen};
use super::script_server::ScriptServer;

/// No step may take longer than this.
const LIMIT: Duration = Duration::from_secs(20);

/// Awaits `f`, failing the test if it takes longer than [`LIMIT`].
pub async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(LIMIT, f).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within {LIMIT:?} (the client hung)"),
    }
}

/// A fault script entry that can play the race.
pub trait RaceFault: Clone + Send + Sync + 'static {
    /// Answers `body`.
    fn ok(body: &'static str) -> Self;
    /// Reads the request and closes the connection without answering.
    fn close_without_reply() -> Self;
}

/// A request a fault server read.
pub trait SeenOn: Clone + Send + 'static {
    /// The connection (from 0) that carried it.
    fn conn(&self) -> usize;
}

impl RaceFault for Fault {
    fn ok(body: &'static str) -> Self {
        Fault::Ok(body)
    }
    fn close_without_reply() -> Self {
        Fault::CloseWithoutReply
    }
}

impl SeenOn for Seen {
    fn conn(&self) -> usize {
        self.conn
    }
}

impl RaceFault for H2Fault {
    fn ok(body: &'static str) -> Self {
        H2Fault::Ok(body)
    }
    fn close_without_reply() -> Self {
        H2Fault::CloseWithoutReply
    }
}

impl SeenOn for H2Seen {
    fn conn(&self) -> usize {
        self.conn
    }
}

/// The script of the race: answer `body`, close the connection after reading the second
/// request without answering it, then answer `body` again.
pub fn script<F: RaceFault>(body: &'static str) -> Vec<F> {
    vec![F::ok(body), F::close_without_reply(), F::ok(body)]
}

/// Sends two reads through `c` to `srv`, playing [`script`]`(SELECT_OK)`: the second meets
/// the closing connection and must be resent once, on a new connection. Returns the second
/// answer.
pub async fn read_resent<F: RaceFault, S: SeenOn>(
    srv: &ScriptServer<F, S>,
    c: &SolrClient,
) -> SelectResponse {
    let q = Select::new("*:*").rows(0);
    bounded("read 1", c.select(&q)).await.expect("read 1");
    let r = bounded("read 2", c.select(&q))
        .await
        .expect("a read on a dying connection is resent");
    assert_eq!(r.timing.attempts, 2);
    assert_eq!(srv.accepted(), 2);
    let seen: Vec<usize> = srv.seen().iter().map(SeenOn::conn).collect();
    assert_eq!(
        seen,
        [0, 0, 1],
        "read 2 sent on the old connection, then on a new one"
    );
    r
}

/// Sends two writes of `docs` through `c` to `srv`, playing [`script`]`(UPDATE_OK)`: the
/// second meets the closing connection and must come back as possibly sent, not resent.
/// Returns the requests the server read.
pub async fn write_reported<F: RaceFault, S: SeenOn>(
    srv: &ScriptServer<F, S>,
    c: &SolrClient,
    docs: &[Value],
) -> Vec<S> {
    bounded("write 1", c.add(docs)).await.expect("write 1");
    match bounded("write 2", c.add(docs)).await {
        Err(Error::Update {
            report,
            cause: Some(cause),
            ..
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
