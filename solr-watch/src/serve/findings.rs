//! The `solr_watch_findings{finding}` gauge: the report's findings (the same rules as the
//! end-of-watch report), judged every 10 s over each process's last [`CONNS`] ended
//! connections, each keeping its last [`PAIRS`] answered requests. A finding holds (1)
//! while that window shows it; its series goes when the window no longer does, and with the
//! process. A connection still open is judged once it ends.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::Duration;

use super::labels::Who;
use super::metrics::Metrics;
use crate::wire::conn::{Conn, Proto, Tracker};
use crate::wire::http::Message;

/// Ended connections kept per process.
pub const CONNS: usize = 16;
/// Answered requests kept per connection.
pub const PAIRS: usize = 16;
/// How often the windows are judged.
const EVERY: Duration = Duration::from_secs(10);

/// A process's recent connections.
#[derive(Debug)]
struct Window {
    who: Who,
    tracker: Tracker,
    changed: bool,
}

/// Every process's window.
#[derive(Debug)]
pub struct Windows {
    port: u16,
    by_pid: HashMap<Option<u32>, Window>,
    last: Option<Duration>,
}

impl Windows {
    /// Windows for connections to server port `port`.
    pub fn new(port: u16) -> Self {
        Windows {
            port,
            by_pid: HashMap::new(),
            last: None,
        }
    }

    /// Connection `c` of `who` ended, `recent` its last answered requests (already counted).
    pub fn ended(&mut self, who: &Who, mut c: Conn, recent: VecDeque<(Message, Message)>) {
        let (qs, rs): (Vec<Message>, Vec<Message>) = recent.into_iter().unzip();
        let later = std::mem::replace(&mut c.requests, qs);
        c.requests.extend(later);
        let later = std::mem::replace(&mut c.responses, rs);
        c.responses.extend(later);
        let w = self.by_pid.entry(who.pid).or_insert_with(|| Window {
            who: who.clone(),
            tracker: Tracker::new(self.port),
            changed: true,
        });
        if w.who != *who {
            w.who = who.clone();
            w.tracker.conns.clear();
        }
        let t = &mut w.tracker;
        t.first_ts = Some(t.first_ts.map_or(c.first_ts, |f| f.min(c.first_ts)));
        t.last_ts = t.last_ts.max(c.last_ts);
        t.conns.push(c);
        if t.conns.len() > CONNS {
            t.conns.remove(0);
            t.first_ts = t.conns.iter().map(|c| c.first_ts).min();
        }
        w.changed = true;
    }

    /// Every 10 s (of `now`): the findings of each window that changed, into `m`.
    pub fn judge(&mut self, now: Duration, m: &mut Metrics) {
        if self.last.is_some_and(|t| now.saturating_sub(t) < EVERY) {
            return;
        }
        self.last = Some(now);
        for w in self.by_pid.values_mut().filter(|w| w.changed) {
            w.changed = false;
            m.set_findings(&w.who, &kinds(&w.tracker));
        }
    }

    /// Drops the window of process `pid`.
    pub fn forget(&mut self, pid: u32) {
        self.by_pid.remove(&Some(pid));
    }

    /// Windows held, and connections in them.
    pub fn held(&self) -> (usize, usize) {
        let conns = self.by_pid.values().map(|w| w.tracker.conns.len()).sum();
        (self.by_pid.len(), conns)
    }
}

/// The finding ids the report gives for `t`; "TLS hides the requests" only when a TLS
/// connection in it gave no request (eBPF reads OpenSSL's plaintext).
fn kinds(t: &Tracker) -> BTreeSet<String> {
    let r = crate::report::build(t, "serve", 0, None);
    let opaque = t
        .conns
        .iter()
        .any(|c| c.proto == Proto::Tls && c.requests.is_empty());
    r.findings
        .into_iter()
        .map(|f| f.kind)
        .filter(|k| k != "tls-opaque" || opaque)
        .collect()
}
