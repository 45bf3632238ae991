//! The `early-close` finding: a client that closes kept-alive connections itself after a
//! few requests and opens a new one to go on, although the server would have kept them
//! open (the next request came far sooner than the server's idle timeout) and fewer
//! connections would have carried every request in flight. Such a client reuses
//! connections, just not for long: each new one costs a handshake (and TLS, a full or
//! resumed one) and leaves a socket in TIME_WAIT on the client.

use super::wire::{asks_close, last_answer, ms};
use super::{Finding, Severity};
use crate::wire::conn::{Close, Tracker};

/// Jetty's idle timeout in Solr 9 (`solr.jetty.http.idleTimeout`), µs: what the server
/// waits for when the capture shows no idle close of its own.
const SOLR_IDLE_TIMEOUT_US: u64 = 120_000_000;

/// A close counts as early when the client's next request came within this fraction of the
/// server's idle timeout after the connection's last answer ("well below" it).
const WELL_BELOW: u64 = 2;

/// One connection the client closed and then replaced.
struct Dropped {
    /// Requests it carried.
    requests: usize,
    /// From its last answer to the client's next request (on another connection), µs.
    gap_us: u64,
}

/// The server's idle timeout as the capture shows it (the shortest idle time after which
/// the server closed a connection unasked), else Solr's default; and whether it was seen.
fn server_idle_timeout(t: &Tracker) -> (u64, bool) {
    let seen = t
        .conns
        .iter()
        .filter(|c| !c.requests.last().is_some_and(asks_close))
        .filter_map(|c| match (c.close, last_answer(c)) {
            (Some((Close::ServerFin, at)), Some(a)) => Some(at.saturating_sub(a)),
            _ => None,
        })
        .min();
    seen.map_or((SOLR_IDLE_TIMEOUT_US, false), |s| (s, true))
}

/// Most requests in flight at once: first request byte to last response byte.
fn peak_in_flight(t: &Tracker) -> usize {
    let mut events: Vec<(u64, i32)> = Vec::new();
    for c in &t.conns {
        for (i, q) in c.requests.iter().enumerate() {
            let end = c.responses.get(i).map_or(c.last_ts, |r| r.last_ts);
            events.push((q.first_ts, 1));
            events.push((end.max(q.first_ts), -1));
        }
    }
    // At equal times an end goes first: back-to-back requests are not concurrent.
    events.sort_unstable();
    let (mut now, mut peak) = (0i32, 0i32);
    for (_, d) in events {
        now += d;
        peak = peak.max(now);
    }
    peak as usize
}

/// The connections the client closed first and replaced with a new one for a request that
/// came within `limit` µs of the closed connection's last answer.
fn dropped(t: &Tracker, limit: u64) -> Vec<Dropped> {
    let mut starts: Vec<u64> = t
        .conns
        .iter()
        .flat_map(|c| c.requests.iter().map(|q| q.first_ts))
        .collect();
    starts.sort_unstable();
    t.conns
        .iter()
        .filter_map(|c| {
            let Some((Close::ClientFin, closed)) = c.close else {
                return None;
            };
            let answered = last_answer(c)?;
            let next = starts[starts.partition_point(|s| *s < closed)..].first()?;
            let gap_us = next.saturating_sub(answered);
            (gap_us < limit).then_some(Dropped {
                requests: c.requests.len(),
                gap_us,
            })
        })
        .collect()
}

/// The finding, when the client closed at least one connection early and used more
/// connections than its peak concurrency needed.
pub(super) fn finding(t: &Tracker) -> Option<Finding> {
    let used = t.conns.iter().filter(|c| !c.requests.is_empty()).count();
    let peak = peak_in_flight(t);
    let (timeout, seen) = server_idle_timeout(t);
    let mut d = dropped(t, timeout / WELL_BELOW);
    if d.is_empty() || used <= peak {
        return None;
    }
    d.sort_unstable_by_key(|x| x.requests);
    let median = d[d.len() / 2].requests;
    let longest = d.iter().map(|x| x.gap_us).max().unwrap_or(0);
    let timeout_said = if seen {
        format!(
            "{:.1} s, as the server's own idle closes show",
            ms(timeout) / 1000.0
        )
    } else {
        format!("Solr's default {:.0} s", ms(timeout) / 1000.0)
    };
    Some(Finding {
        severity: Severity::Medium,
        kind: "early-close".into(),
        what: format!(
            "the client closed {} of {used} connections itself after {median} requests \
             (median) and opened a new one for its next request, at most {:.1} ms after the \
             last answer: far below the server's idle timeout ({timeout_said}); requests in \
             flight at once: {peak} at most, so {peak} kept-alive connection(s) would have \
             carried them all",
            d.len(),
            ms(longest)
        ),
        fix: "keep connections until the server's idle timeout. A client drops a kept-alive \
              connection when a response body was not fully read or not closed (read every \
              response to its end and close it: the InputStream, the response, the entity), \
              or when its pool says so: a limit on connections per host, on requests or \
              lifetime per connection, or a keep-alive time shorter than the gaps between \
              requests. Check both before tuning anything else"
            .into(),
    })
}
