//! The watch chart, drawn with `bench-report`'s builders: one row per connection on a time
//! axis with a tick at every request, so "one connection per request" and "one connection
//! for everything" look different at a glance; beside it the wall time vs QTime percentiles.

use bench_report::chart::{BarChart, BarRow, Figure, Layout, Span, Timeline, PALETTE};

use super::{ConnectionRecord, RequestSummary, WatchReport};

/// Rows drawn at most (the rest are counted in the title).
const MAX_ROWS: usize = 200;

/// Bar colours by who closed the connection: client FIN, server FIN, a reset, still open.
const CLOSE_COLORS: [(&str, &str); 4] = [
    ("client FIN", "#1e88e5"),
    ("server FIN", "#fb8c00"),
    ("RST", "#e53935"),
    ("open", "#9e9e9e"),
];

/// The SVG document.
pub fn chart(r: &WatchReport) -> String {
    Figure::new(format!("Solr traffic on port {}", r.port))
        .across()
        .panel(&connections(r))
        .panel(&wall_vs_qtime(r))
        .render()
}

fn close_color(c: &ConnectionRecord) -> &'static str {
    let k = match c.closed_by.as_str() {
        "client_fin" => 0,
        "server_fin" => 1,
        "client_rst" | "server_rst" => 2,
        _ => 3,
    };
    CLOSE_COLORS[k].1
}

fn unknown_or(n: Option<impl ToString>) -> String {
    n.map_or("unknown".to_string(), |n| n.to_string())
}

/// One bar per connection, a tick per request.
fn connections(r: &WatchReport) -> Timeline {
    let title = format!(
        "{} requests on {} connections",
        unknown_or(r.requests.as_ref().map(|q| q.requests)),
        r.connections.seen
    );
    let t = Timeline::new(title)
        .width(700.0)
        .max_rows(MAX_ROWS)
        .x_label("ms since the capture's first packet (ticks: requests)");
    let t = CLOSE_COLORS.iter().fold(t, |t, (l, c)| t.legend(*l, c));
    r.connection_list.iter().fold(t, |t, c| {
        t.span(Span {
            tip: format!(
                "{} {}: {} requests, closed by {}",
                c.id,
                c.client,
                unknown_or(c.requests),
                c.closed_by
            ),
            start: c.start_ms,
            end: c.end_ms,
            color: close_color(c).into(),
            ticks: c.request_starts_ms.clone(),
        })
    })
}

/// Wall time vs QTime at p50, p90, p99 and max (a percentile the sample cannot support is
/// left out).
fn wall_vs_qtime(r: &WatchReport) -> BarChart {
    let unknown = RequestSummary::default();
    let q = r.requests.as_ref().unwrap_or(&unknown);
    let rows = [
        ("p50", q.wall.p50_ms, q.qtime.p50_ms),
        ("p90", q.wall.p90_ms, q.qtime.p90_ms),
        ("p99", q.wall.p99_ms, q.qtime.p99_ms),
        ("max", q.wall.max_ms, q.qtime.max_ms),
    ];
    let chart = BarChart::new("wall vs QTime")
        .width(400.0)
        .layout(Layout::Grouped)
        .unit("ms")
        .legend("wall", PALETTE[0])
        .legend("QTime", PALETTE[2]);
    rows.into_iter().fold(chart, |chart, (name, wall, qtime)| {
        let mut row = BarRow::new(name);
        if let Some(v) = wall {
            row = row.segment("wall", v, PALETTE[0]);
        }
        if let Some(v) = qtime {
            row = row.segment("QTime", v, PALETTE[2]);
        }
        chart.row(row)
    })
}
