//! The watch chart: one row per connection on a time axis, a tick at every request, so
//! "one connection per request" and "one connection for everything" look different at a
//! glance; beside it the wall time vs QTime percentiles.

use std::fmt::Write;

use super::report::WatchReport;

/// Rows drawn at most (the rest are counted in the title).
const MAX_ROWS: usize = 200;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The SVG document.
pub fn chart(r: &WatchReport) -> String {
    let rows = r.connection_list.len().min(MAX_ROWS);
    let (left, right, top, row) = (
        60.0,
        330.0,
        50.0,
        8.0_f64.max(300.0 / rows.max(1) as f64).min(20.0),
    );
    let width = 1000.0;
    let plot_w = width - left - right;
    let height = top + rows as f64 * row + 60.0;
    let height = height.max(260.0);
    let span = r
        .connection_list
        .iter()
        .map(|c| c.end_ms)
        .fold(0.0, f64::max)
        .max(1e-3);
    let x = |t: f64| left + t / span * plot_w;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>"
    );
    let more = r.connection_list.len().saturating_sub(rows);
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">{}</text>",
        width / 2.0,
        esc(&format!(
            "port {}: {} requests on {} connections{}",
            r.port,
            r.requests
                .as_ref()
                .map_or("unknown".to_string(), |q| q.requests.to_string()),
            r.connections.seen,
            if more > 0 {
                format!(" ({more} not drawn)")
            } else {
                String::new()
            }
        ))
    );
    for (i, c) in r.connection_list.iter().take(rows).enumerate() {
        let y = top + i as f64 * row;
        let color = match c.closed_by.as_str() {
            "client_fin" => "#1e88e5",
            "server_fin" => "#fb8c00",
            "client_rst" | "server_rst" => "#e53935",
            _ => "#9e9e9e",
        };
        let _ = writeln!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{:.1}\" fill=\"{color}\" opacity=\"0.5\"><title>{} {}: {} requests, closed by {}</title></rect>",
            x(c.start_ms),
            y,
            (x(c.end_ms) - x(c.start_ms)).max(1.0),
            row * 0.8,
            c.id,
            esc(&c.client),
            c.requests.map_or("unknown".to_string(), |n| n.to_string()),
            c.closed_by
        );
        for t in &c.request_starts_ms {
            let _ = writeln!(
                s,
                "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1:.1}\" y2=\"{2:.1}\" stroke=\"black\"/>",
                x(*t),
                y,
                y + row * 0.8
            );
        }
    }
    let axis_y = top + rows as f64 * row + 15.0;
    let _ = writeln!(
        s,
        "<text x=\"{left}\" y=\"{axis_y}\">0 ms</text><text x=\"{:.1}\" y=\"{axis_y}\" text-anchor=\"end\">{span:.1} ms</text>",
        left + plot_w
    );
    let _ = writeln!(
        s,
        "<text x=\"{left}\" y=\"{:.1}\">bars: connections (blue client FIN, orange server FIN, red RST, grey open); ticks: requests</text>",
        axis_y + 18.0
    );
    // Wall vs QTime percentiles.
    let unknown = crate::report::RequestSummary::default();
    let q = r.requests.as_ref().unwrap_or(&unknown);
    let bars: Vec<(&str, Option<f64>, Option<f64>)> = vec![
        ("p50", q.wall.p50_ms, q.qtime.p50_ms),
        ("p90", q.wall.p90_ms, q.qtime.p90_ms),
        ("p99", q.wall.p99_ms, q.qtime.p99_ms),
        ("max", q.wall.max_ms, q.qtime.max_ms),
    ];
    let max = bars
        .iter()
        .flat_map(|b| [b.1, b.2])
        .flatten()
        .fold(0.0, f64::max)
        .max(1e-3);
    let bx = width - right + 60.0;
    let bw = right - 90.0;
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{top}\" text-anchor=\"middle\">wall (blue) vs QTime (green), ms</text>",
        bx + bw / 2.0
    );
    for (i, (name, wall, qt)) in bars.iter().enumerate() {
        let y = top + 20.0 + i as f64 * 40.0;
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{name}</text>",
            bx - 6.0,
            y + 14.0
        );
        for (k, (v, color)) in [(wall, "#1e88e5"), (qt, "#43a047")].into_iter().enumerate() {
            if let Some(v) = v {
                let w = v / max * bw;
                let yy = y + k as f64 * 16.0;
                let _ = writeln!(
                    s,
                    "<rect x=\"{bx:.1}\" y=\"{yy:.1}\" width=\"{:.2}\" height=\"14\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{:.1}\">{v:.2}</text>",
                    w.max(0.5),
                    bx + w + 4.0,
                    yy + 11.0
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
