//! Testing an application without Solr (feature `testing`): a transport that answers from
//! recorded exchanges or from a closure, and a decorator that records a real Solr's answers
//! for it.
//!
//! [`Replay`] is a [`Transport`]: give it to [`SolrClientBuilder::custom_transport`] and the
//! client decodes its answers exactly as it decodes Solr's (typed responses, Solr errors,
//! batch reports), with no socket opened. It answers
//! - from a closure ([`Replay::answer`]), for a hand-made answer per request;
//! - from a saved run ([`Replay::from_file`]): JSON lines of [`Exchange`]s that [`Recorder`]
//!   wrote while the application's tests ran once against a real Solr.
//!
//! A request nothing answers is [`Error::NoNode`] naming it (nothing was sent), so a test
//! fails on a request it did not expect. [`Replay::requests`] gives what the application sent,
//! for assertions.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> solr_client::Result<()> {
//! use std::sync::Arc;
//! use solr_client::testing::{Replay, Reply};
//! use solr_client::{Select, SolrClient};
//!
//! let replay = Arc::new(Replay::new().answer(|req| {
//!     (req.path == "books/select").then(|| Reply::json(200, serde_json::json!({
//!         "responseHeader": {"status": 0, "QTime": 3},
//!         "response": {"numFound": 1, "start": 0, "docs": [{"id": "b1"}]}
//!     })))
//! }));
//! let client = SolrClient::builder("http://solr.invalid:8983/solr")
//!     .collection("books")
//!     .custom_transport(replay.clone())
//!     .build()?;
//! let r = client.select(&Select::new("title:rust")).await?;
//! assert_eq!(r.response.map(|d| d.num_found), Some(1));
//! assert_eq!(replay.requests()[0].query.iter().find(|(k, _)| k == "q").map(|(_, v)| v.as_str()), Some("title:rust"));
//! assert!(client.ping().await.is_err()); // nothing answers the ping: a typed error
//! # Ok(()) }
//! ```
//!
//! [`SolrClientBuilder::custom_transport`]: crate::SolrClientBuilder::custom_transport

mod exchange;
mod recorder;

use std::path::Path;
use std::sync::Mutex;

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::{HeaderMap, StatusCode};

use crate::error::{Error, Result};
use crate::timing::Timing;
use crate::transport::{BoxFuture, Transport, TransportStats, WireRequest, WireResponse};

pub use exchange::Exchange;
pub use recorder::Recorder;

/// An answer [`Replay`] gives: a status, a content type and a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type` of the body.
    pub content_type: String,
    /// The body.
    pub body: Bytes,
}

impl Reply {
    /// A JSON body (`application/json`), as Solr answers with `wt=json`.
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply::bytes(status, "application/json;charset=utf-8", body.to_string())
    }

    /// Any body with its content type (an HTML error page, XML, a proxy's text).
    pub fn bytes(status: u16, content_type: &str, body: impl Into<Bytes>) -> Reply {
        Reply {
            status,
            content_type: content_type.to_string(),
            body: body.into(),
        }
    }
}

type Answer = Box<dyn Fn(&WireRequest) -> Option<Reply> + Send + Sync>;

/// A transport answering from recorded exchanges or a closure; see the module docs.
#[derive(Default)]
pub struct Replay {
    answer: Option<Answer>,
    /// Recorded exchanges and whether each has answered already.
    recorded: Mutex<Vec<(Exchange, bool)>>,
    sent: Mutex<Vec<WireRequest>>,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let recorded = self.recorded.lock().map_or(0, |r| r.len());
        f.debug_struct("Replay")
            .field("closure", &self.answer.is_some())
            .field("recorded", &recorded)
            .finish()
    }
}

impl Replay {
    /// A transport that answers nothing yet.
    pub fn new() -> Replay {
        Replay::default()
    }

    /// Answers with `f`: `Some(reply)` answers a request, `None` leaves it to the recorded
    /// exchanges (and, failing those, to the "nothing answers" error).
    pub fn answer(
        mut self,
        f: impl Fn(&WireRequest) -> Option<Reply> + Send + Sync + 'static,
    ) -> Replay {
        self.answer = Some(Box::new(f));
        self
    }

    /// Answers from `exchanges`: a request takes the first exchange not used yet with the
    /// same method, path and query parameters (in any order), so a run recorded once
    /// replays in the same order, each answer once.
    pub fn exchanges(self, exchanges: impl IntoIterator<Item = Exchange>) -> Replay {
        if let Ok(mut r) = self.recorded.lock() {
            r.extend(exchanges.into_iter().map(|e| (e, false)));
        }
        self
    }

    /// Answers from the JSON lines [`Recorder`] wrote to `path`.
    pub fn from_file(path: &Path) -> Result<Replay> {
        Ok(Replay::new().exchanges(Exchange::read_file(path)?))
    }

    /// Every request sent so far, in order.
    pub fn requests(&self) -> Vec<WireRequest> {
        self.sent.lock().map(|s| s.clone()).unwrap_or_default()
    }

    fn reply_to(&self, req: &WireRequest) -> Option<Reply> {
        if let Some(reply) = self.answer.as_ref().and_then(|f| f(req)) {
            return Some(reply);
        }
        let mut recorded = self.recorded.lock().ok()?;
        let (exchange, used) = recorded
            .iter_mut()
            .find(|(e, used)| !*used && e.matches(req))?;
        *used = true;
        Some(exchange.reply())
    }
}

impl Transport for Replay {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<crate::transport::Reply>> {
        let reply = self.reply_to(&req);
        if let Ok(mut sent) = self.sent.lock() {
            sent.push(req.clone());
        }
        Box::pin(async move {
            let Some(reply) = reply else {
                return Err(Error::no_node(format!(
                    "the test transport has no answer for {} {}",
                    req.method,
                    exchange::target(&req)
                )));
            };
            response(&req, reply).map(crate::transport::Reply::Whole)
        })
    }

    fn name(&self) -> String {
        "replay".into()
    }

    fn stats(&self) -> TransportStats {
        let requests = self.sent.lock().map_or(0, |s| s.len() as u64);
        TransportStats {
            connections_opened: 0,
            requests,
        }
    }
}

/// The response `reply` makes for `req`: its bytes counted, no connection.
fn response(req: &WireRequest, reply: Reply) -> Result<WireResponse> {
    let status = StatusCode::from_u16(reply.status).map_err(|_| {
        Error::config(format!(
            "the test reply has no valid status: {}",
            reply.status
        ))
    })?;
    let mut headers = HeaderMap::new();
    let ct = HeaderValue::from_str(&reply.content_type).map_err(|_| {
        Error::config(format!(
            "the test reply's content type {:?} is no header value",
            reply.content_type
        ))
    })?;
    headers.insert(CONTENT_TYPE, ct);
    let timing = Timing {
        node: crate::redact::node_label(&req.node),
        bytes_out: req.body.len() as u64,
        bytes_in: reply.body.len() as u64,
        ..Timing::default()
    };
    Ok(WireResponse {
        status,
        headers,
        body: reply.body,
        timing,
    })
}
