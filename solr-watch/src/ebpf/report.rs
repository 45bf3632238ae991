//! The `watch --ebpf` report: the pcap path's report per process, plus what only the kernel
//! knows (RTT, retransmits), and findings that name the process.

use std::io::Write;

use anyhow::Result;
use schemars::JsonSchema;
use serde::Serialize;

use super::process::ProcessInfo;
use super::session::ProcessConns;
use crate::conn::Proto;
use crate::report::{self, Finding, WatchReport};

/// One process's traffic to Solr.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProcessReport {
    /// Who.
    pub process: ProcessInfo,
    /// Requests (in order) with the QTime its response carried, when it carried one.
    pub qtimes: Vec<Option<u64>>,
    /// Median smoothed RTT of its closed connections (µs), from the sockets.
    pub srtt_us_median: Option<u64>,
    /// Retransmitted segments on its connections.
    pub retransmits: u64,
    /// The same report as a capture gives, for this process alone.
    pub report: WatchReport,
}

/// The whole `watch --ebpf` report.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EbpfReport {
    /// Ports watched.
    pub ports: Vec<u16>,
    /// Seconds from the first event to the last.
    pub span_s: f64,
    /// Files whose OpenSSL functions were probed (HTTPS plaintext without a key log).
    pub tls_libraries: Vec<String>,
    /// Events the kernel could not queue (ring buffer full): requests may be missing.
    pub lost_events: u64,
    /// Per process, by pid.
    pub processes: Vec<ProcessReport>,
    /// Findings of every process, each naming its process.
    pub findings: Vec<Finding>,
}

/// TLS connections whose plaintext the OpenSSL probes read: the capture's "TLS hides
/// requests" note and finding do not apply.
fn read_at_the_library(r: &mut WatchReport) {
    if let Some(t) = r.tls.as_mut() {
        t.note = "plaintext read at the TLS library (SSL_write/SSL_read probes): requests, QTime and sizes as for http".into();
    }
    r.findings.retain(|f| f.kind != "tls-opaque");
}

fn median(v: &mut [u64]) -> Option<u64> {
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// Builds the report from the session's per-process connections.
pub fn build(
    ports: &[u16],
    span_s: f64,
    tls_libraries: Vec<String>,
    lost_events: u64,
    procs: Vec<ProcessConns>,
) -> EbpfReport {
    let mut processes = Vec::new();
    let mut findings = Vec::new();
    for mut p in procs {
        let source = format!("{} {}", p.process.label(), p.process.cmdline);
        let mut r = report::build(&p.tracker, &source, lost_events, None);
        let plain_tls = p
            .tracker
            .conns
            .iter()
            .any(|c| c.proto == Proto::Tls && !c.requests.is_empty());
        if plain_tls {
            read_at_the_library(&mut r);
        }
        let label = p.process.label();
        for f in &r.findings {
            findings.push(Finding {
                what: format!("{label}: {}", f.what),
                ..f.clone()
            });
        }
        let qtimes = p
            .tracker
            .conns
            .iter()
            .flat_map(|c| {
                c.requests
                    .iter()
                    .enumerate()
                    .map(move |(i, _)| c.responses.get(i).and_then(|r| r.facts.qtime))
            })
            .collect();
        let opened = r.connections.opened;
        if let Some(rs) = r.requests.as_ref() {
            if opened > 1 && opened >= rs.requests {
                findings.push(Finding {
                    severity: report::Severity::High,
                    kind: "no-reuse-process".into(),
                    what: format!("{label} opened {opened} connections for {} requests", rs.requests),
                    fix: "reuse connections: one HTTP client (keep-alive pool) per process, not one per request".into(),
                });
            }
        }
        processes.push(ProcessReport {
            srtt_us_median: median(&mut p.srtt_us),
            retransmits: p.retransmits,
            process: p.process,
            qtimes,
            report: r,
        });
    }
    EbpfReport {
        ports: ports.to_vec(),
        span_s,
        tls_libraries,
        lost_events,
        processes,
        findings,
    }
}

/// The report as text: per process, its header line then the capture report's text.
pub fn print_text<W: Write>(r: &EbpfReport, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "watch --ebpf: ports {:?}, {:.1} s, OpenSSL probed in {}",
        r.ports,
        r.span_s,
        r.tls_libraries.join(", ")
    )?;
    if r.lost_events > 0 {
        writeln!(
            w,
            "  {} events lost (ring buffer full): figures below may be short",
            r.lost_events
        )?;
    }
    if r.processes.is_empty() {
        writeln!(w, "no process talked to Solr on these ports")?;
    }
    for p in &r.processes {
        let requests = p.report.requests.as_ref().map_or(0, |x| x.requests);
        writeln!(
            w,
            "\n== {} {} (cgroup {}): {} connections opened, {} requests, QTimes {:?}, srtt {} µs, {} retransmits",
            p.process.label(),
            p.process.cmdline,
            p.process.cgroup.as_deref().unwrap_or("?"),
            p.report.connections.opened,
            requests,
            p.qtimes.iter().map(|q| q.map_or("-".to_string(), |v| v.to_string())).collect::<Vec<_>>(),
            p.srtt_us_median.map_or("?".into(), |v| v.to_string()),
            p.retransmits
        )?;
        report::print_text(&p.report, w)?;
    }
    if !r.findings.is_empty() {
        writeln!(w, "\nfindings:")?;
        for f in &r.findings {
            writeln!(w, "  [{}] {} (fix: {})", f.severity, f.what, f.fix)?;
        }
    }
    Ok(())
}
