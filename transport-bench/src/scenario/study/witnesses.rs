//! The three connection witnesses of one transport run, which of them counted, and what a
//! report may say about them.
//!
//! - the connector: the transport's own count of TCP connects that succeeded; it always
//!   counts, but alone it proves nothing (it is the transport's word about itself);
//! - the kernel: `Tcp: ActiveOpens` of the client's network namespace; it counts only when
//!   that namespace held the client alone ([`Witnesses::kernel_isolated`]);
//! - pcap: SYNs to the Solr port; it counts only when a capture ran and dropped nothing.
//!
//! A witness that did not count is absent, never agreeing. Agreement needs two witnesses
//! that counted: with the connector alone there is nothing to compare ([`Witnesses::agree`]
//! is None). The count the transport should have opened ([`Witnesses::expected`]) is derived
//! from the transport's own request counter and the load: it is a check of the transport
//! ([`Witnesses::within_expected`]), not a witness.

use serde::{Deserialize, Serialize};
use solr_client::TransportKind;

use crate::engine::load::Load;

/// How many witnesses there are.
pub const WITNESSES: usize = 3;

/// The three witnesses of one transport run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Witnesses {
    /// Requests sent (warm-up included).
    pub requests: u64,
    /// The transport's own connector count: TCP connects that succeeded.
    pub connector: u64,
    /// Kernel `Tcp: ActiveOpens` delta: `connect()` calls that sent a SYN, in the client's
    /// network namespace (the client's own when `kernel_isolated`).
    pub kernel_active_opens: u64,
    /// Whether the kernel's namespace held the client alone. When false, other processes'
    /// connects are counted too: the kernel count is reported but the kernel does not count
    /// as a witness.
    #[serde(default)]
    pub kernel_isolated: bool,
    /// Kernel SYN retransmissions delta (None: the counter could not be read).
    pub kernel_syn_retrans: Option<u64>,
    /// pcap: SYN-only packets to the Solr port (None when no capture ran).
    pub pcap_syns: Option<u64>,
    /// pcap: retransmitted SYNs (counted apart).
    pub pcap_syn_retransmits: Option<u64>,
    /// pcap: packets the capture dropped (kernel + interface); must be 0 to trust it. None
    /// when no capture ran, or, with `pcap_syns` set, when `pcap_stats` failed (unknown).
    pub pcap_dropped: Option<u64>,
    /// pcap: frame bytes client -> Solr.
    pub pcap_bytes_out: Option<u64>,
    /// pcap: frame bytes Solr -> client.
    pub pcap_bytes_in: Option<u64>,
    /// What the transport should have opened (from its request count and the load; not a
    /// witness).
    pub expected: u64,
    /// The witnesses that counted, by name (`connector`, `kernel`, `pcap`).
    #[serde(default)]
    pub counted: Vec<String>,
    /// Whether the witnesses that counted report the same number. None when fewer than two
    /// counted: the connector alone has nothing to agree with.
    pub agree: Option<bool>,
    /// Whether the connector's count meets `expected`: equal in a closed loop; in an open
    /// loop (`--rate`) at most the in-flight cap for a pool, which grows with the requests
    /// in flight. None when there is no fixed expectation (reqwest's pool may open extra
    /// connections) or for a run saved before this was judged.
    #[serde(default)]
    pub within_expected: Option<bool>,
}

/// One witness's count, or why it did not count.
pub type Testimony = (&'static str, Result<u64, String>);

impl Witnesses {
    /// Each witness in order (connector, kernel, pcap): its count when it counted, else why
    /// it is absent.
    pub fn testimonies(&self) -> [Testimony; WITNESSES] {
        let kernel = if self.kernel_isolated {
            Ok(self.kernel_active_opens)
        } else {
            Err("not isolated".to_string())
        };
        let pcap = match (self.pcap_syns, self.pcap_dropped) {
            (None, _) => Err("no capture".to_string()),
            (Some(n), Some(0)) => Ok(n),
            (Some(_), Some(d)) => Err(format!("the capture dropped {d} packets")),
            (Some(_), None) => Err("the capture's drops unknown".to_string()),
        };
        [
            ("connector", Ok(self.connector)),
            ("kernel", kernel),
            ("pcap", pcap),
        ]
    }

    /// Sets `counted` and `agree` from the counts (also for a run saved before they existed).
    pub fn judge_agreement(&mut self) {
        let counts = self.counts();
        self.counted = counts.iter().map(|(name, _)| name.to_string()).collect();
        self.agree = (counts.len() >= 2).then(|| counts.iter().all(|(_, n)| *n == counts[0].1));
    }

    /// Sets `counted`, `agree` and `within_expected` for a run of `kind` under `load`.
    pub fn judge(&mut self, kind: TransportKind, load: Load) {
        self.judge_agreement();
        self.within_expected = within_expected(self.connector, self.expected, kind, load);
    }

    /// True when two witnesses or more counted and their counts differ.
    pub fn disagree(&self) -> bool {
        self.agree == Some(false)
    }

    /// The witnesses that counted, with their counts.
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        self.testimonies()
            .into_iter()
            .filter_map(|(name, c)| c.ok().map(|n| (name, n)))
            .collect()
    }

    /// The witnesses that did not count, each with why (`kernel: not isolated`).
    pub fn absent(&self) -> Vec<String> {
        self.testimonies()
            .into_iter()
            .filter_map(|(name, c)| c.err().map(|why| format!("{name}: {why}")))
            .collect()
    }

    /// The counts of the witnesses that counted: `connector 20, kernel 21, pcap 21`.
    pub fn counts_phrase(&self) -> String {
        let parts: Vec<String> = self
            .counts()
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        parts.join(", ")
    }

    /// Which witnesses counted and which did not, e.g. `3 of 3 witnesses counted (connector,
    /// kernel, pcap)` or `1 of 3 witnesses: connector only (kernel: not isolated, pcap: no
    /// capture)`.
    pub fn roll_call(&self) -> String {
        let names: Vec<&str> = self.counts().iter().map(|(name, _)| *name).collect();
        let absent = self.absent();
        let n = names.len();
        if n < 2 {
            return format!(
                "{n} of {WITNESSES} witnesses: {} only ({})",
                names.join(", "),
                absent.join(", ")
            );
        }
        let absent = if absent.is_empty() {
            String::new()
        } else {
            format!("; {}", absent.join(", "))
        };
        format!(
            "{n} of {WITNESSES} witnesses counted ({}{absent})",
            names.join(", ")
        )
    }

    /// One phrase for reports: how many witnesses counted, which, and whether they agree,
    /// e.g. `3 of 3 witnesses agree (connector, kernel, pcap: 20)`,
    /// `3 of 3 witnesses DISAGREE (connector 20, kernel 21, pcap 21)` or
    /// `1 of 3 witnesses: connector only (20; kernel: not isolated, pcap: no capture):
    /// nothing to compare`.
    pub fn describe(&self) -> String {
        let counts = self.counts();
        let n = counts.len();
        let absent = self.absent();
        let absent = if absent.is_empty() {
            String::new()
        } else {
            format!("; {}", absent.join(", "))
        };
        let names: Vec<&str> = counts.iter().map(|(name, _)| *name).collect();
        match (n, self.agree) {
            (0 | 1, _) => format!(
                "{n} of {WITNESSES} witnesses: {} only ({}{absent}): nothing to compare",
                names.join(", "),
                self.connector
            ),
            (_, Some(false)) => format!(
                "{n} of {WITNESSES} witnesses DISAGREE ({}{absent})",
                self.counts_phrase()
            ),
            _ => format!(
                "{n} of {WITNESSES} witnesses agree ({}: {}{absent})",
                names.join(", "),
                counts[0].1
            ),
        }
    }

    /// `opened N connections, more (fewer) than the M expected` when the connector's count
    /// is off its expectation, else None.
    pub fn unexpected(&self) -> Option<String> {
        (self.within_expected == Some(false)).then(|| {
            let side = if self.connector > self.expected {
                "more"
            } else {
                "fewer"
            };
            format!(
                "opened {} connections, {side} than the {} expected",
                self.connector, self.expected
            )
        })
    }
}

/// What a verdict says about the witnesses of `runs` (each with its label, e.g. `search
/// fresh`): the runs whose witnesses disagree, with their counts; the runs whose connector
/// is off its expectation; and how many witnesses counted (per group of runs when that
/// differs), with `and agree` only where two or more counted and agree.
pub fn verdict_parts(runs: &[(String, &Witnesses)]) -> Vec<String> {
    let mut parts = Vec::new();
    let bad: Vec<String> = runs
        .iter()
        .filter(|(_, w)| w.disagree())
        .map(|(label, w)| format!("{label} ({})", w.counts_phrase()))
        .collect();
    if !bad.is_empty() {
        parts.push(format!("WITNESSES DISAGREE for {}", bad.join(", ")));
    }
    let off: Vec<String> = runs
        .iter()
        .filter_map(|(label, w)| w.unexpected().map(|u| format!("{label} ({u})")))
        .collect();
    if !off.is_empty() {
        parts.push(format!(
            "UNEXPECTED CONNECTION COUNT for {}",
            off.join(", ")
        ));
    }
    // Per roll call: its runs, whether all of them agree, whether fewer than two counted.
    let mut groups: Vec<(String, Vec<&str>, bool, bool)> = Vec::new();
    for (label, w) in runs {
        let call = w.roll_call();
        let agree = w.agree == Some(true);
        match groups.iter_mut().find(|(c, ..)| *c == call) {
            Some((_, labels, all, _)) => {
                labels.push(label);
                *all &= agree;
            }
            None => groups.push((call, vec![label], agree, w.counts().len() < 2)),
        }
    }
    let several = groups.len() > 1;
    for (call, labels, agree, alone) in groups {
        let tail = match (alone, agree) {
            (true, _) => ": no agreement checked",
            (false, true) => " and agree",
            (false, false) => "",
        };
        let whose = if several {
            format!(" for {}", labels.join(", "))
        } else {
            String::new()
        };
        parts.push(format!("{call}{tail}{whose}"));
    }
    parts
}

/// What a transport of `kind` should open for `requests` requests under `load`: one per
/// request for fresh, one for http2, the concurrency (closed loop) or the in-flight cap (open
/// loop) for a pool. reqwest's ideal; its pool may open more ([`within_expected`]).
pub fn expected_connections(kind: TransportKind, requests: u64, load: Load) -> u64 {
    match (kind, load) {
        (TransportKind::Fresh, _) => requests,
        (TransportKind::Http2, _) => 1,
        (_, Load::Closed { concurrency }) => concurrency.max(1) as u64,
        (_, Load::Open { max_in_flight, .. }) => max_in_flight as u64,
    }
}

/// Whether `connector` meets `expected` for `kind` under `load`: exactly in a closed loop,
/// and for fresh and http2 under any load; in an open loop (`--rate`) a pool opens
/// connections as requests overlap, so at most the in-flight cap. None for reqwest, whose
/// pool may race a new connect against a returning connection (no fixed expectation).
pub fn within_expected(
    connector: u64,
    expected: u64,
    kind: TransportKind,
    load: Load,
) -> Option<bool> {
    match (kind, load) {
        (TransportKind::Reqwest, _) => None,
        (TransportKind::Fresh | TransportKind::Http2, _) | (_, Load::Closed { .. }) => {
            Some(connector == expected)
        }
        (_, Load::Open { .. }) => Some(connector <= expected),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(connector: u64, kernel: u64, isolated: bool, pcap: Option<u64>) -> Witnesses {
        let mut w = Witnesses {
            requests: 20,
            connector,
            kernel_active_opens: kernel,
            kernel_isolated: isolated,
            pcap_syns: pcap,
            pcap_dropped: pcap.map(|_| 0),
            expected: 20,
            ..Default::default()
        };
        w.judge(TransportKind::Fresh, Load::Closed { concurrency: 1 });
        w
    }

    #[test]
    fn the_connector_alone_is_no_agreement() {
        let w = counts(20, 23, false, None);
        assert_eq!(w.counted, vec!["connector"]);
        assert_eq!(w.agree, None);
        assert!(!w.disagree());
        assert_eq!(
            w.describe(),
            "1 of 3 witnesses: connector only (20; kernel: not isolated, pcap: no capture): \
             nothing to compare"
        );
        // The expectation is judged apart: a fresh run that opened 20 for 20 requests.
        assert_eq!(w.within_expected, Some(true));
    }

    #[test]
    fn counted_witnesses_agree_or_disagree_and_absent_ones_are_named() {
        let all = counts(20, 20, true, Some(20));
        assert_eq!(all.counted, vec!["connector", "kernel", "pcap"]);
        assert_eq!(all.agree, Some(true));
        assert_eq!(
            all.describe(),
            "3 of 3 witnesses agree (connector, kernel, pcap: 20)"
        );
        let extra = counts(20, 21, true, Some(21));
        assert_eq!(extra.agree, Some(false));
        assert_eq!(
            extra.describe(),
            "3 of 3 witnesses DISAGREE (connector 20, kernel 21, pcap 21)"
        );
        // A kernel count beside other processes' connects is absent, not disagreeing.
        let shared = counts(20, 23, false, Some(20));
        assert_eq!(shared.agree, Some(true));
        assert_eq!(
            shared.describe(),
            "2 of 3 witnesses agree (connector, pcap: 20; kernel: not isolated)"
        );
        // A capture that dropped packets is absent too.
        let mut dropped = counts(20, 20, true, Some(19));
        dropped.pcap_dropped = Some(4);
        dropped.judge_agreement();
        assert_eq!(dropped.counted, vec!["connector", "kernel"]);
        assert_eq!(dropped.agree, Some(true));
        assert!(dropped
            .describe()
            .ends_with("; pcap: the capture dropped 4 packets)"));
    }

    /// The `--rate` rule: in an open loop a pool may open up to the in-flight cap, never
    /// more; fresh and http2 are held to their exact count under any load.
    #[test]
    fn the_open_loop_rule_caps_a_pool_at_the_in_flight_limit() {
        let open = Load::Open {
            rate: 200.0,
            poisson: false,
            max_in_flight: 8,
        };
        let cap = expected_connections(TransportKind::Pooled, 400, open);
        assert_eq!(cap, 8);
        for (opened, ok) in [(1, true), (8, true), (9, false)] {
            assert_eq!(
                within_expected(opened, cap, TransportKind::Pooled, open),
                Some(ok),
                "pooled opened {opened} of at most 8"
            );
        }
        let fresh = expected_connections(TransportKind::Fresh, 400, open);
        assert_eq!(fresh, 400);
        assert_eq!(
            within_expected(399, fresh, TransportKind::Fresh, open),
            Some(false)
        );
        assert_eq!(
            within_expected(2, 1, TransportKind::Http2, open),
            Some(false)
        );
        assert_eq!(within_expected(9, 8, TransportKind::Reqwest, open), None);
        let closed = Load::Closed { concurrency: 4 };
        assert_eq!(
            within_expected(3, 4, TransportKind::Pooled, closed),
            Some(false)
        );
        let mut w = counts(9, 9, true, Some(9));
        w.expected = cap;
        w.judge(TransportKind::Pooled, open);
        assert_eq!(
            w.unexpected().as_deref(),
            Some("opened 9 connections, more than the 8 expected")
        );
    }
}
