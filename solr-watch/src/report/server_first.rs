//! Who ended a connection before the client's next request went on another one. A client
//! that closes its connection after each request (or asks the server to) does not reuse
//! connections; a client whose connections the server closed first, unasked, before its
//! next request had nothing to reuse: the requests came further apart than the server's
//! idle timeout, or the server (or a proxy before it) does not keep connections alive, or
//! the client waited for the close itself (a response read to the end of the connection).
//! Only the first is the `no-reuse` finding; the second is `server-closed-first`.

use super::wire::{asks_close, last_answer, ms};
use super::{Finding, Severity};
use crate::wire::conn::{Close, Tracker};

/// The connections the client replaced: after a connection's last answer, the client's
/// next request went on another connection.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Replaced {
    /// Connections replaced by a later one.
    pub replaced: usize,
    /// Of those, the ones the server closed first, unasked, before the client's next
    /// request.
    pub server_first: usize,
    /// For those, from the last answer to the server's close, µs, sorted.
    pub idle_us: Vec<u64>,
}

/// Counts the replaced connections and the ones the server closed first.
pub(super) fn replaced(t: &Tracker) -> Replaced {
    let mut starts: Vec<(u64, usize)> = t
        .conns
        .iter()
        .flat_map(|c| c.requests.iter().map(move |q| (q.first_ts, c.id)))
        .collect();
    starts.sort_unstable();
    let mut out = Replaced::default();
    for c in &t.conns {
        let Some(answered) = last_answer(c) else {
            continue;
        };
        let from = starts.partition_point(|(s, _)| *s < answered);
        let Some((next, _)) = starts[from..].iter().find(|(_, id)| *id != c.id) else {
            continue;
        };
        out.replaced += 1;
        let unasked = !c.requests.last().is_some_and(asks_close);
        if let Some((Close::ServerFin, at)) = c.close {
            if unasked && at <= *next {
                out.server_first += 1;
                out.idle_us.push(at.saturating_sub(answered));
            }
        }
    }
    out.idle_us.sort_unstable();
    out
}

/// The `server-closed-first` finding when the server, not the client, ended most of the
/// replaced connections; `None` when the client did (then it is `no-reuse`).
pub(super) fn finding(t: &Tracker, requests: u64) -> Option<Finding> {
    let r = replaced(t);
    if r.server_first == 0 || r.server_first * 2 <= r.replaced {
        return None;
    }
    let median = r.idle_us[r.idle_us.len() / 2];
    Some(Finding {
        severity: Severity::Medium,
        kind: "server-closed-first".into(),
        what: format!(
            "{requests} requests on {} connections, but the client did not leave them: the \
             server closed {} of the {} connections followed by a new one, unasked, {:.1} ms \
             (median) after their last answer and before the client's next request, so \
             there was no open connection to reuse",
            t.conns.iter().filter(|c| !c.requests.is_empty()).count(),
            r.server_first,
            r.replaced,
            ms(median)
        ),
        fix: "a close long after the answer is the server's idle timeout: requests further \
              apart than it need a new connection (raise the timeout only if the handshake \
              costs matter); a client that stalls until that close reads responses to the \
              end of the connection instead of by Content-Length, so fix the client's \
              response reading; a close right after the answer is a server or proxy that \
              does not keep connections alive"
            .into(),
    })
}
