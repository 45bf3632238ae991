//! The report as text tables, ending with the verdict.

use std::io::Write;

use anyhow::Result;

use super::{ConnectionSummary, RequestSummary, TlsSummary, WatchReport};
use crate::wire::http2::Http2Summary;

fn opt(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.2}"))
}

/// Prints the report as text tables ending with the verdict.
pub fn print_text<W: Write>(r: &WatchReport, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "watch {} port {}: {} frames over {:.2} s",
        r.source, r.port, r.frames, r.span_s
    )?;
    writeln!(w)?;
    connections(&r.connections, w)?;
    let unknown = RequestSummary::default();
    let q = r.requests.as_ref().unwrap_or(&unknown);
    if let Some(why) = &r.requests_unknown {
        writeln!(w, "Requests: not judged: {why}")?;
    } else {
        writeln!(
            w,
            "Requests: {} ({} answered), Accept-Encoding gzip {}, compressed responses {}, wt {:?}",
            q.requests, q.answered, q.accept_gzip, q.compressed_responses, q.wt
        )?;
    }
    if !q.endpoints.is_empty() {
        endpoints(q, w)?;
        latency(q, w)?;
    }
    if let Some(h) = &r.http2 {
        http2(h, w)?;
    }
    if let Some(t) = &r.tls {
        tls(t, w)?;
    }
    writeln!(w)?;
    writeln!(w, "Findings")?;
    for f in &r.findings {
        writeln!(w, "  [{}] {}", f.severity, f.what)?;
        if f.fix != "nothing to change" {
            writeln!(w, "      fix: {}", f.fix)?;
        }
    }
    writeln!(w)?;
    writeln!(w, "{}", r.verdict)?;
    Ok(())
}

/// The connection lines.
fn connections<W: Write>(c: &ConnectionSummary, w: &mut W) -> Result<()> {
    let count = |v: Option<u64>| v.map_or("unknown".to_string(), |v| v.to_string());
    writeln!(w, "Connections")?;
    writeln!(
        w,
        "  seen {} (opened in capture {}, already open {}); http1 {}, tls {}, http2 {}, other {}, empty {}",
        c.seen, c.opened, c.already_open, c.http1, c.tls, c.http2, c.other, c.empty
    )?;
    writeln!(
        w,
        "  requests per connection: mean {}, max {} (over {} connections with requests)",
        c.requests_per_connection
            .map_or("unknown".to_string(), |v| format!("{v:.2}")),
        count(c.max_requests_per_connection),
        count(c.with_requests)
    )?;
    writeln!(
        w,
        "  lifetime ms: p50 {} p90 {} max {}; idle gaps ms: n {} p50 {} max {}",
        opt(c.lifetime.p50_ms),
        opt(c.lifetime.p90_ms),
        opt(c.lifetime.max_ms),
        c.idle_gap.n,
        opt(c.idle_gap.p50_ms),
        opt(c.idle_gap.max_ms)
    )?;
    writeln!(
        w,
        "  closed by: client FIN {}, server FIN {}, client RST {}, server RST {}, still open {}",
        c.closed_by_client, c.closed_by_server, c.reset_by_client, c.reset_by_server, c.still_open
    )?;
    writeln!(
        w,
        "  new connections/s {:.1} (peak {} in one second), {} in TIME_WAIT at the end; SYN retransmits {}, \
         retransmitted segments {}, out of order {}",
        c.new_per_second,
        c.new_per_second_peak,
        c.time_wait_at_end,
        c.syn_retransmits,
        c.retransmitted_segments,
        c.out_of_order_segments
    )?;
    writeln!(w)?;
    Ok(())
}

/// The table of endpoints.
fn endpoints<W: Write>(q: &RequestSummary, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "  {:<6} {:<32} {:>6} {:>10} {:>10} {:>5} {:>5} {:>9} {:>9} {:>9} {:>7}",
        "method",
        "path",
        "n",
        "req B",
        "resp B",
        "gzAsk",
        "gzGot",
        "wall p50",
        "wall p90",
        "wall max",
        "QT p50"
    )?;
    for e in &q.endpoints {
        writeln!(
            w,
            "  {:<6} {:<32} {:>6} {:>10.0} {:>10.0} {:>5} {:>5} {:>9} {:>9} {:>9} {:>7}",
            e.method,
            e.path,
            e.requests,
            e.request_bytes_mean,
            e.response_bytes_mean,
            e.accept_gzip,
            e.compressed,
            opt(e.wall.p50_ms),
            opt(e.wall.p90_ms),
            opt(e.wall.max_ms),
            e.qtime.p50_ms.map_or("-".into(), |x| format!("{x:.0}"))
        )?;
    }
    Ok(())
}

/// Latency, statuses and update formats over every request.
fn latency<W: Write>(q: &RequestSummary, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "  wall ms  p50 {} p90 {} p99 {} max {} | QTime ms p50 {} p90 {} max {} ({} decoded) | outside Solr p50 {}",
        opt(q.wall.p50_ms),
        opt(q.wall.p90_ms),
        opt(q.wall.p99_ms),
        opt(q.wall.max_ms),
        opt(q.qtime.p50_ms),
        opt(q.qtime.p90_ms),
        opt(q.qtime.max_ms),
        q.qtime_decoded,
        opt(q.outside_solr.p50_ms)
    )?;
    if !q.statuses.is_empty() {
        writeln!(w, "  statuses {:?}", q.statuses)?;
    }
    for fm in &q.update_formats {
        writeln!(
            w,
            "  updates as {}: {} requests, {} body bytes",
            fm.format, fm.requests, fm.body_bytes
        )?;
    }
    Ok(())
}

fn http2<W: Write>(h: &Http2Summary, w: &mut W) -> Result<()> {
    writeln!(w)?;
    writeln!(
        w,
        "HTTP/2: {} connections ({} prior knowledge, {} h2c upgrade, {} TLS), {} streams, \
         {} frames, {} push promises; GOAWAY {:?}, RST_STREAM {:?}",
        h.connections,
        h.prior_knowledge,
        h.upgraded,
        h.tls,
        h.streams,
        h.frames,
        h.control.push_promises,
        h.control.goaway,
        h.control.rst_stream
    )?;
    writeln!(
        w,
        "  flow-control stalls: server {} ({:.2} ms), client {} ({:.2} ms), longest {} ms",
        h.control.server_stalls,
        h.control.server_stalled_ms,
        h.control.client_stalls,
        h.control.client_stalled_ms,
        opt(h.control.max_stall_ms)
    )?;
    Ok(())
}

fn tls<W: Write>(t: &TlsSummary, w: &mut W) -> Result<()> {
    writeln!(w)?;
    writeln!(
        w,
        "TLS: {} connections, {} ClientHellos ({} offering a ticket, {} a PSK), {} full, {} \
         resumed, {} unknown handshakes, {} TLS 1.3; {} B to / {} B from the server",
        t.connections,
        t.client_hellos,
        t.offered_ticket,
        t.offered_psk,
        t.full,
        t.resumed,
        t.unknown,
        t.tls13,
        t.bytes_to_server,
        t.bytes_from_server
    )?;
    writeln!(w, "  {}", t.note)?;
    if let Some(d) = &t.decryption {
        crate::report::tls::print_text(d, w)?;
    }
    Ok(())
}
