//! The findings of a study or audit, each with a severity: the same [`Finding`] and
//! [`Severity`] as `watch`'s (one type, from `solr_watch::report`), so `--fail-on` means the
//! same on every command. The rules are the verdict's:
//!
//! - per transport, its connections ([`finding_line`] says what): `witnesses-disagree`
//!   (high) when the witnesses disagree; else `no-reuse`, high when a connection per request
//!   is more than the transport should open (a pooled client whose connections something
//!   closes), info when it opens one per request by design (`fresh`, the study's contrast:
//!   nothing to fix); else `unexpected-connections` (high) when the count is off its
//!   expectation; else `reuse` (info);
//! - per transport with failed requests, `errors` (medium);
//! - `audit` with captures, each paced-response finding, `paced-responses` (medium).

use solr_watch::report::{Finding, Severity};

use super::summary::{finding_line, reuses_none};
use super::TransportSummary;

/// The kind of a paced-response finding ([`paced`]), kept when a run is re-rendered (it comes
/// from captures a run does not keep).
pub const PACED: &str = crate::engine::witness::pacing::PACED;

/// The findings of `ts`, in the order of the transports.
pub fn findings(ts: &[TransportSummary]) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in ts {
        out.push(connections(t));
        if t.errors > 0 {
            out.push(errors(t));
        }
    }
    out
}

/// The findings of a re-rendered run: those of `ts` again, and the paced-response findings
/// `before` held.
pub fn rejudge(ts: &[TransportSummary], before: &[Finding]) -> Vec<Finding> {
    let mut out = findings(ts);
    out.extend(before.iter().filter(|f| f.kind == PACED).cloned());
    out
}

fn finding(severity: Severity, kind: &str, what: String, fix: &str) -> Finding {
    Finding {
        severity,
        kind: kind.into(),
        what,
        fix: fix.into(),
    }
}

fn connections(t: &TransportSummary) -> Finding {
    let w = &t.witnesses;
    let what = format!("{} {}: {}", t.scenario, t.transport, finding_line(t));
    if w.disagree() {
        return finding(
            Severity::High,
            "witnesses-disagree",
            what,
            "the connection counts cannot be trusted: something else connected to Solr \
             beside the measured client; rerun with nothing else talking to it",
        );
    }
    let unexpected = w.unexpected().is_some();
    match (reuses_none(t), unexpected) {
        (true, true) => finding(
            Severity::High,
            "no-reuse",
            what,
            "something closes each connection after one request (Solr's or a proxy's \
             keep-alive or idle timeout, `Connection: close`), so every request pays a new \
             connection: keep connections open between Solr and its clients",
        ),
        (true, false) => finding(
            Severity::Info,
            "no-reuse",
            what,
            "nothing to change: this transport opens a connection per request by design; its \
             row shows what an application without connection reuse pays",
        ),
        (false, true) => finding(
            Severity::High,
            "unexpected-connections",
            what,
            "connections were opened more (or less) often than this transport should: check \
             the keep-alive and idle timeouts of Solr and of anything in between",
        ),
        (false, false) => finding(Severity::Info, "reuse", what, "nothing to change"),
    }
}

fn errors(t: &TransportSummary) -> Finding {
    let top = t
        .error_kinds
        .iter()
        .max_by_key(|(_, n)| *n)
        .map(|(e, n)| format!("; the most frequent ({n}x): {e}"))
        .unwrap_or_default();
    finding(
        Severity::Medium,
        "errors",
        format!(
            "{} {}: {} measured requests failed{top}",
            t.scenario, t.transport, t.errors
        ),
        "see `error_kinds` in summary.json and the errors in records.jsonl",
    )
}

/// The paced-response findings of `audit`'s captures (`stem: what; fix: how`,
/// [`crate::engine::witness::pacing::findings_in_dir`]), each a `paced-responses` finding.
pub fn paced(lines: &[String]) -> Vec<Finding> {
    lines
        .iter()
        .map(|l| {
            let (what, fix) = l.split_once("; fix: ").unwrap_or((l.as_str(), ""));
            finding(Severity::Medium, PACED, what.to_string(), fix)
        })
        .collect()
}

/// `severity what` lines of `findings`, as `audit` prints them.
pub fn lines(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| format!("{:<6} {}", f.severity.as_str(), f.what))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use solr_client::{Timing, TransportKind};

    use super::*;
    use crate::engine::load::Load;
    use crate::scenario::study::{summarize, Record, Witnesses};

    fn rec(error: Option<&str>) -> Record {
        Record {
            scenario: "search".into(),
            op: "select".into(),
            transport: "t".into(),
            rep: 0,
            warmup: false,
            error: error.map(str::to_string),
            timing: error.is_none().then(|| {
                let mut t = Timing::default();
                t.server_wait = Duration::from_millis(10);
                t.qtime_ms = Some(2);
                t
            }),
            latency_ms: None,
            start_delay_ms: None,
            num_found: None,
            seq: None,
        }
    }

    /// `kind` counted `connections` for 10 requests by the connector and pcap (`pcap` SYNs),
    /// with `failed` of its measured requests failing.
    fn one(kind: TransportKind, connections: u64, pcap: u64, failed: usize) -> TransportSummary {
        let mut w = Witnesses {
            requests: 10,
            connector: connections,
            kernel_isolated: false,
            pcap_syns: Some(pcap),
            pcap_dropped: Some(0),
            expected: if kind == TransportKind::Fresh { 10 } else { 1 },
            ..Default::default()
        };
        w.judge(kind, Load::Closed { concurrency: 1 });
        let recs: Vec<Record> = (0..10)
            .map(|i| rec((i < failed).then_some("refused")))
            .collect();
        let refs: Vec<&Record> = recs.iter().collect();
        let name = kind.to_string();
        summarize(
            "search",
            &name,
            kind,
            &refs,
            w,
            vec![],
            Duration::from_secs(1),
        )
    }

    fn kinds(fs: &[Finding]) -> Vec<String> {
        fs.iter()
            .map(|f| format!("{} {}", f.severity, f.kind))
            .collect()
    }

    #[test]
    fn each_transport_is_judged_by_the_verdicts_rules() {
        let fs = findings(&[
            one(TransportKind::Fresh, 10, 10, 0),
            one(TransportKind::Pooled, 1, 1, 0),
            one(TransportKind::Pooled, 10, 10, 0),
            one(TransportKind::Pooled, 3, 3, 2),
            one(TransportKind::Pooled, 1, 4, 0),
        ]);
        assert_eq!(
            kinds(&fs),
            [
                "info no-reuse",
                "info reuse",
                "high no-reuse",
                "high unexpected-connections",
                "medium errors",
                "high witnesses-disagree",
            ]
        );
        assert!(
            fs[0]
                .what
                .starts_with("search fresh: NO connection reuse: 10 requests, 10 connections"),
            "{}",
            fs[0].what
        );
        assert!(
            fs[4].what.contains("2 measured requests failed"),
            "{}",
            fs[4].what
        );
        assert!(fs[4].what.ends_with("(2x): refused"), "{}", fs[4].what);
        let paced_line = "search-pooled: paced responses: 5 of 6; fix: gzip".to_string();
        let mut before = fs.clone();
        before.extend(paced(std::slice::from_ref(&paced_line)));
        assert_eq!(
            (before[6].what.as_str(), before[6].fix.as_str()),
            ("search-pooled: paced responses: 5 of 6", "gzip")
        );
        let again = rejudge(&[one(TransportKind::Pooled, 1, 1, 0)], &before);
        assert_eq!(kinds(&again), ["info reuse", "medium paced-responses"]);
        assert_eq!(lines(&again[..1]), [format!("info   {}", again[0].what)]);
    }
}
