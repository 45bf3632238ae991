//! From a connection being parsed to the aggregator: its answered requests, taken out of
//! it as they complete (so a connection kept open for days holds none of them), and at its
//! end whether its requests could be read at all.

use std::collections::VecDeque;

use super::findings::PAIRS;
use super::labels::{encoding, Who};
use super::metrics::{Metrics, RequestSample};
use crate::wire::conn::{Conn, Proto};
use crate::wire::http::Message;

/// What the daemon remembers of one connection between harvests.
#[derive(Debug, Default, Clone)]
pub struct Cursor {
    /// Requests taken out of the connection so far.
    pub taken: u64,
    /// Its opening was counted.
    opened: bool,
    /// Its last answered requests (at most [`PAIRS`]), for the findings.
    pub recent: VecDeque<(Message, Message)>,
}

/// An update: a POST to a path with an `update` segment.
fn is_update(q: &Message) -> bool {
    let path = q.target.split('?').next().unwrap_or("");
    q.method == "POST" && path.split('/').any(|s| s == "update")
}

/// The sample of request `q` answered by `r`.
pub fn sample(q: &Message, r: &Message, reused: bool) -> RequestSample {
    let wall_s = r.last_ts.saturating_sub(q.first_ts) as f64 / 1e6;
    let update = q
        .facts
        .format
        .filter(|_| is_update(q))
        .map(|f| (update_format(f.name()), q.body_len));
    RequestSample {
        wall_s,
        qtime_s: r.facts.qtime.map(|ms| ms as f64 / 1e3),
        response_bytes: r.body_len,
        encoding: encoding(r.header("content-encoding")),
        update,
        reused,
    }
}

/// The contract's update formats: json, xml, javabin, cbor, csv, or other.
fn update_format(name: &'static str) -> &'static str {
    match name {
        "json" | "xml" | "javabin" | "cbor" | "csv" => name,
        _ => "other",
    }
}

/// Counts the connection's opening (once, when its SYN or connect was seen) and takes its
/// answered requests out into `m`. A response cut short (at the end of the connection)
/// counts no request and no latency, but the next request on the connection is reused.
pub fn harvest(c: &mut Conn, cur: &mut Cursor, who: &Who, m: &mut Metrics) {
    if !cur.opened && c.syn_ts.is_some() {
        cur.opened = true;
        m.connection_opened(who);
    }
    let n = c.requests.len().min(c.responses.len());
    if n == 0 {
        return;
    }
    let qs: Vec<Message> = c.requests.drain(..n).collect();
    let rs: Vec<Message> = c.responses.drain(..n).collect();
    for (q, r) in qs.into_iter().zip(rs) {
        if !r.incomplete {
            m.request(who, &sample(&q, &r, cur.taken > 0));
        }
        cur.taken += 1;
        cur.recent.push_back((q, r));
        if cur.recent.len() > PAIRS {
            cur.recent.pop_front();
        }
    }
}

/// The connection ended: flushes it, takes what is left, and counts it as unreadable when
/// it spoke TLS and no request could be read from it (`tls_library`: who encrypted it,
/// `unknown` when not known).
pub fn end(c: &mut Conn, cur: &mut Cursor, who: &Who, m: &mut Metrics, tls_library: &str) {
    c.finish();
    harvest(c, cur, who, m);
    let unread = c.requests.is_empty() && cur.taken == 0;
    if c.proto == Proto::Tls && unread {
        m.unreadable_connection(who, tls_library);
    }
}
