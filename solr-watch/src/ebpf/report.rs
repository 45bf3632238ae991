//! The `watch --ebpf` report: the pcap path's report per process, plus what only the kernel
//! knows (RTT, retransmits), and findings that name the process.

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;
use schemars::JsonSchema;
use serde::Serialize;

use super::process::ProcessInfo;
use super::session::{Finished, ProcessConns, ServerConns};
use super::tls_library::{self, TlsLibrary};
use crate::report::{self, Finding, WatchReport};
use crate::wire::conn::Proto;

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

/// A server process on this host (Solr) and the connections it accepted on a watched port.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ServerReport {
    /// The accepting process.
    pub process: ProcessInfo,
    /// Connections it accepted while watched.
    pub accepted: u64,
    /// Of those, the ones a client process of this report opened, by that process's label.
    pub from_clients_seen: BTreeMap<String, u64>,
    /// The others (clients on other hosts, or connected before the watch began), by the
    /// client's address.
    pub from_elsewhere: BTreeMap<String, u64>,
}

/// The OpenSSL probes: where they attached, and where not.
#[derive(Debug, Default, Clone)]
pub struct TlsProbes {
    /// Files probed.
    pub probed: Vec<String>,
    /// Files tried but not probed.
    pub refused: Vec<TlsRefused>,
}

/// A file the OpenSSL probes could not attach to.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TlsRefused {
    /// The file.
    pub path: String,
    /// Why: no OpenSSL functions in it, or the kernel's refusal (a missing privilege).
    pub why: String,
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
    /// Files tried but not probed, and why: HTTPS of their users is not readable.
    pub tls_refused: Vec<TlsRefused>,
    /// Events the kernel could not queue (ring buffer full): requests may be missing.
    pub lost_events: u64,
    /// Client processes, by pid.
    pub processes: Vec<ProcessReport>,
    /// Server processes on this host that accepted connections on a watched port, by pid.
    pub servers: Vec<ServerReport>,
    /// Findings of every process, each naming its process.
    pub findings: Vec<Finding>,
    /// The one-line conclusion.
    pub verdict: String,
}

/// TLS in a library the probes do not read: the requests are unknown (the report says so),
/// and the key-log advice of the pcap report becomes what to do for that library.
fn not_probed(r: &mut WatchReport, lib: Option<&TlsLibrary>, refused: bool) {
    r.findings.retain(|f| f.kind != "tls-opaque");
    r.findings.push(Finding {
        severity: report::Severity::Info,
        kind: "tls-not-read".into(),
        what: r.requests_unknown.clone().unwrap_or_default(),
        fix: tls_library::advice(lib, refused),
    });
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

/// Builds the report from what the session saw.
pub fn build(
    ports: &[u16],
    span_s: f64,
    tls: TlsProbes,
    lost_events: u64,
    seen: Finished,
) -> EbpfReport {
    let mut endpoints = BTreeMap::new();
    for p in &seen.clients {
        for c in &p.tracker.conns {
            endpoints.insert(c.client.clone(), p.process.label());
        }
    }
    let mut processes = Vec::new();
    let mut findings = Vec::new();
    for p in seen.clients {
        let (r, f) = process_report(p, lost_events, &tls.refused);
        processes.push(r);
        findings.extend(f);
    }
    let servers: Vec<_> = seen
        .servers
        .into_iter()
        .map(|s| server_report(s, &endpoints))
        .collect();
    let mut verdict = verdict(&processes, &servers, &findings, lost_events);
    if !tls.refused.is_empty() {
        verdict.push_str(&format!("; {}", not_readable(&tls.refused)));
    }
    EbpfReport {
        ports: ports.to_vec(),
        span_s,
        tls_libraries: tls.probed,
        tls_refused: tls.refused,
        lost_events,
        processes,
        servers,
        findings,
        verdict,
    }
}

/// `https not readable: PATH (WHY); ...`: the warning line and the verdict's part.
pub fn not_readable(refused: &[TlsRefused]) -> String {
    let each: Vec<String> = refused
        .iter()
        .map(|r| format!("{} ({})", r.path, r.why))
        .collect();
    format!("https not readable: {}", each.join("; "))
}

/// One client process's report and its findings, each naming the process.
fn process_report(
    mut p: ProcessConns,
    lost_events: u64,
    refused: &[TlsRefused],
) -> (ProcessReport, Vec<Finding>) {
    let source = format!("{} {}", p.process.label(), p.process.cmdline);
    let tls = |read: bool| {
        p.tracker
            .conns
            .iter()
            .filter(|c| c.proto == Proto::Tls && c.requests.is_empty() != read)
            .count()
    };
    let (plain_tls, unread_tls) = (tls(true) > 0, tls(false));
    let lib = p.process.tls_library.as_ref();
    let why = lib.and_then(|l| refused.iter().find(|r| r.path == l.path));
    let why = why.map(|r| r.why.as_str());
    if !plain_tls && unread_tls > 0 {
        p.tracker.requests_unread = Some(tls_library::not_read(lib, unread_tls, why));
    }
    let mut r = report::build(&p.tracker, &source, lost_events, None);
    if plain_tls {
        read_at_the_library(&mut r);
    } else if unread_tls > 0 {
        not_probed(&mut r, lib, why.is_some());
    }
    let label = p.process.label();
    let findings: Vec<Finding> = r
        .findings
        .iter()
        .map(|f| Finding {
            what: format!("{label}: {}", f.what),
            ..f.clone()
        })
        .collect();
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
    let out = ProcessReport {
        srtt_us_median: median(&mut p.srtt_us),
        retransmits: p.retransmits,
        process: p.process,
        qtimes,
        report: r,
    };
    (out, findings)
}

/// A server's accepted connections, each matched to the client process that opened it
/// when that client was seen (`endpoints`: client address:port to process label).
fn server_report(s: ServerConns, endpoints: &BTreeMap<String, String>) -> ServerReport {
    let mut from_clients_seen = BTreeMap::new();
    let mut from_elsewhere = BTreeMap::new();
    for a in &s.accepted {
        let (ip, port) = a.peer;
        match endpoints.get(&format!("{ip}:{port}")) {
            Some(label) => *from_clients_seen.entry(label.clone()).or_insert(0) += 1,
            None => *from_elsewhere.entry(ip.to_string()).or_insert(0) += 1,
        }
    }
    ServerReport {
        process: s.process,
        accepted: s.accepted.len() as u64,
        from_clients_seen,
        from_elsewhere,
    }
}

/// `1 request`, `2 requests`.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The one line: what was seen, and the most severe finding or that none was found.
fn verdict(
    processes: &[ProcessReport],
    servers: &[ServerReport],
    findings: &[Finding],
    lost_events: u64,
) -> String {
    let conns: u64 = processes.iter().map(|p| p.report.connections.opened).sum();
    let requests: u64 = processes
        .iter()
        .map(|p| p.report.requests.as_ref().map_or(0, |x| x.requests))
        .sum();
    let unknown = processes
        .iter()
        .filter(|p| p.report.requests.is_none())
        .count();
    let requests = match unknown {
        0 => count(requests, "request", "requests"),
        n => format!(
            "{} plus the unknown requests of {} (TLS not read)",
            count(requests, "request", "requests"),
            count(n as u64, "process", "processes")
        ),
    };
    let accepted: u64 = servers.iter().map(|s| s.accepted).sum();
    let mut v = format!(
        "verdict: {}, {} opened, {requests}; {} accepted by {} on this host",
        count(processes.len() as u64, "client process", "client processes"),
        count(conns, "connection", "connections"),
        count(accepted, "connection", "connections"),
        count(servers.len() as u64, "server", "servers"),
    );
    if lost_events > 0 {
        v.push_str(&format!(
            "; {lost_events} events lost, figures may be short"
        ));
    }
    // Severity orders the most important first.
    match findings.iter().min_by_key(|f| f.severity) {
        Some(f) if f.severity <= report::Severity::Medium => {
            v.push_str(&format!("; worst: {} (fix: {})", f.what, f.fix))
        }
        _ if unknown > 0 => v.push_str("; no problem found in what was read (tls-not-read)"),
        _ => v.push_str("; no problem found"),
    }
    v
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
    if !r.tls_refused.is_empty() {
        writeln!(w, "  warning: {}", not_readable(&r.tls_refused))?;
    }
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
        let requests = p
            .report
            .requests
            .as_ref()
            .map_or("unknown".into(), |x| x.requests.to_string());
        writeln!(
            w,
            "\n== {} {} (cgroup {}{}): {} connections opened, {} requests, QTimes {:?}, srtt {} µs, {} retransmits",
            p.process.label(),
            p.process.cmdline,
            p.process.cgroup.as_deref().unwrap_or("?"),
            p.process.container_id.as_deref().map_or(String::new(), |id| format!(", container {}", id.get(..12).unwrap_or(id))),
            p.report.connections.opened,
            requests,
            p.qtimes.iter().map(|q| q.map_or("-".to_string(), |v| v.to_string())).collect::<Vec<_>>(),
            p.srtt_us_median.map_or("?".into(), |v| v.to_string()),
            p.retransmits
        )?;
        report::print_text(&p.report, w)?;
    }
    for s in &r.servers {
        print_server(s, w)?;
    }
    if !r.findings.is_empty() {
        writeln!(w, "\nfindings:")?;
        for f in &r.findings {
            writeln!(w, "  [{}] {} (fix: {})", f.severity, f.what, f.fix)?;
        }
    }
    writeln!(w, "\n{}", r.verdict)?;
    Ok(())
}

fn print_server<W: Write>(s: &ServerReport, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "\n== server {} {}: accepted {} connections",
        s.process.label(),
        s.process.cmdline,
        s.accepted
    )?;
    for (label, n) in &s.from_clients_seen {
        writeln!(w, "  {n} from {label}")?;
    }
    for (addr, n) in &s.from_elsewhere {
        writeln!(w, "  {n} from {addr} (a client not seen here: another host, or connected before the watch)")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};

    use super::*;
    use crate::ebpf::event::{Event, Kind};
    use crate::ebpf::session::Session;

    /// Pids above Linux's limit (2^22): no /proc entry, the event's name stays.
    const CLIENT: u32 = u32::MAX - 1;
    const SOLR: u32 = u32::MAX - 2;

    fn event(kind: Kind, pid: u32, comm: &str, local: (u8, u16), remote: (u8, u16)) -> Event {
        let ip = |last| IpAddr::V4(Ipv4Addr::new(127, 0, 0, last));
        Event {
            kind,
            to_server: false,
            old_state: 0,
            tls_plaintext: false,
            pid,
            ts_us: 1_000,
            sk: u64::from(local.1),
            cgroup: 0,
            extra: 0,
            retransmits: 0,
            local: (ip(local.0), local.1),
            remote: (ip(remote.0), remote.1),
            comm: comm.into(),
            data: Vec::new(),
        }
    }

    #[test]
    fn tls_that_no_probe_read_is_unknown_never_zero_and_judged_on_nothing() {
        let mut s = Session::default();
        for port in [40_010, 40_011, 40_012] {
            let mut open = event(Kind::Open, CLIENT, "wget", (1, 0), (2, 8983));
            open.sk = u64::from(port);
            s.event(open);
            // A ClientHello on the socket, and no plaintext from any probe.
            let mut hello = event(Kind::Data, CLIENT, "wget", (1, port), (2, 8983));
            hello.to_server = true;
            hello.data = crate::tls::tests::client_hello_record(&[], &[]);
            s.event(hello);
            s.event(event(Kind::Close, CLIENT, "wget", (1, port), (2, 8983)));
        }
        let r = build(&[8983], 1.0, TlsProbes::default(), 0, s.finish(8983));
        let p = &r.processes[0];
        assert_eq!(p.report.connections.opened, 3);
        assert!(p.report.requests.is_none(), "{:?}", p.report.requests);
        let why = p.report.requests_unknown.as_deref().expect("why");
        assert!(
            why.starts_with("3 TLS connections encrypted by a TLS library linked"),
            "{why}"
        );
        assert!(
            r.verdict
                .contains("0 requests plus the unknown requests of 1 process (TLS not read)"),
            "{}",
            r.verdict
        );
        assert!(
            r.verdict
                .ends_with("; no problem found in what was read (tls-not-read)"),
            "{}",
            r.verdict
        );
        let kinds: Vec<_> = r.findings.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, ["tls-not-read"], "{:?}", r.findings);
        assert!(
            r.findings[0].fix.contains("KeyLogWriter"),
            "{}",
            r.findings[0].fix
        );
        let mut text = Vec::new();
        print_text(&r, &mut text).expect("text");
        let text = String::from_utf8(text).expect("utf-8");
        assert!(
            text.contains("3 connections opened, unknown requests"),
            "{text}"
        );
    }

    #[test]
    fn refused_probes_are_a_warning_line_and_part_of_the_verdict() {
        let tls = TlsProbes {
            probed: Vec::new(),
            refused: vec![TlsRefused {
                path: "/usr/lib/x86_64-linux-gnu/libssl.so.3".into(),
                why: "the kernel refused its uprobes: denied".into(),
            }],
        };
        let r = build(&[8983], 1.0, tls, 0, Session::default().finish(8983));
        let said = "https not readable: /usr/lib/x86_64-linux-gnu/libssl.so.3 \
                    (the kernel refused its uprobes: denied)";
        assert!(r.verdict.ends_with(&format!("; {said}")), "{}", r.verdict);
        let mut text = Vec::new();
        print_text(&r, &mut text).expect("text");
        let text = String::from_utf8(text).expect("utf-8");
        assert!(text.contains(&format!("  warning: {said}\n")), "{text}");
    }

    #[test]
    fn accepted_connections_are_matched_to_the_client_that_opened_them() {
        let mut s = Session::default();
        for port in [40_000, 40_001] {
            // The connect event precedes the choice of the source port: the next names it.
            let mut open = event(Kind::Open, CLIENT, "php-fpm", (1, 0), (2, 8983));
            open.sk = u64::from(port);
            s.event(open);
            s.event(event(Kind::Close, CLIENT, "php-fpm", (1, port), (2, 8983)));
            s.event(event(Kind::Accept, SOLR, "java", (2, 8983), (1, port)));
        }
        // A client this watch never saw (another host, or connected before it began).
        s.event(event(Kind::Accept, SOLR, "java", (2, 8983), (9, 50_000)));
        let r = build(&[8983], 1.0, TlsProbes::default(), 0, s.finish(8983));
        assert_eq!(r.processes.len(), 1);
        assert_eq!(r.processes[0].report.connections.opened, 2);
        let solr = &r.servers[..];
        assert_eq!(solr.len(), 1);
        assert_eq!((solr[0].process.pid, solr[0].accepted), (SOLR, 3));
        let client = format!("pid {CLIENT} (php-fpm)");
        assert_eq!(solr[0].from_clients_seen, BTreeMap::from([(client, 2)]));
        assert_eq!(
            solr[0].from_elsewhere,
            BTreeMap::from([("127.0.0.9".to_string(), 1)])
        );
        assert!(
            r.verdict.starts_with(
                "verdict: 1 client process, 2 connections opened, 0 requests; \
                 3 connections accepted by 1 server on this host"
            ),
            "{}",
            r.verdict
        );
        let mut text = Vec::new();
        print_text(&r, &mut text).expect("text");
        let text = String::from_utf8(text).expect("utf-8");
        assert!(
            text.contains(&format!("== server pid {SOLR} (java)")),
            "{text}"
        );
        assert_eq!(text.lines().last(), Some(r.verdict.as_str()));
    }
}
