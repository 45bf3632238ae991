//! SVG charts, hand-written (no plotting dependency): the seed's stacked phase breakdown per
//! transport, latency percentile curves, and connections opened by witness.

use std::fmt::Write;

use bench_report::chart::{esc, Frame, Svg, PALETTE as SERIES, PHASE_COLORS as COLORS};

use crate::study::StudyReport;

/// Stacked horizontal bars: mean time per phase for each transport of `scenario`.
pub fn phases(r: &StudyReport, scenario: &str) -> String {
    let ts: Vec<_> = r
        .transports
        .iter()
        .filter(|t| t.scenario == scenario)
        .collect();
    let (left, right, bar, gap) = (130.0, 40.0, 22.0, 10.0);
    let width = 900.0;
    let height = 70.0 + ts.len() as f64 * (bar + gap) + 60.0;
    let max: f64 = ts
        .iter()
        .map(|t| t.phases_mean_ms.iter().map(|(_, v)| v).sum::<f64>())
        .fold(0.0, f64::max)
        .max(1e-6);
    let scale = (width - left - right) / max;
    let mut s = Svg::new(
        width as u32,
        height as u32,
        &format!("Mean request time by phase, {scenario} workload (ms)"),
    );
    for (i, t) in ts.iter().enumerate() {
        let y = 40.0 + i as f64 * (bar + gap);
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + bar * 0.7,
            esc(&t.transport)
        );
        let mut x = left;
        for (k, (name, v)) in t.phases_mean_ms.iter().enumerate() {
            let wpx = v * scale;
            if wpx > 0.0 {
                let _ = writeln!(
                    s,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{wpx:.2}\" height=\"{bar}\" fill=\"{}\"><title>{name}: {v:.3} ms</title></rect>",
                    COLORS[k % COLORS.len()]
                );
            }
            x += wpx;
        }
        let total: f64 = t.phases_mean_ms.iter().map(|(_, v)| v).sum();
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\">{total:.2}</text>",
            x + 4.0,
            y + bar * 0.7
        );
    }
    let ly = height - 30.0;
    if let Some(t) = ts.first() {
        for (k, (name, _)) in t.phases_mean_ms.iter().enumerate() {
            s.swatch(20.0 + k as f64 * 97.0, ly, COLORS[k % COLORS.len()], name);
        }
    }
    s.finish()
}

/// Latency percentile curves (x: percentile on a log scale of 1/(1-p); y: ms).
pub fn percentiles(r: &StudyReport, scenario: &str) -> String {
    let ts: Vec<_> = r
        .transports
        .iter()
        .filter(|t| t.scenario == scenario && !t.curve_ms.is_empty())
        .collect();
    let (w, h, l, rgt, top, bot) = (900.0, 420.0, 60.0, 170.0, 40.0, 50.0);
    let xmax = (1.0f64 / (1.0 - 0.999)).log10();
    let ymax = ts
        .iter()
        .flat_map(|t| t.curve_ms.iter().map(|(_, v)| *v))
        .fold(0.0, f64::max)
        .max(1e-3)
        * 1.1;
    let px = |p: f64| l + (1.0 / (1.0 - p / 100.0)).log10() / xmax * (w - l - rgt);
    let py = |v: f64| h - bot - v / ymax * (h - top - bot);
    let mut s = Svg::new(
        w as u32,
        h as u32,
        &format!("Wall latency percentiles, {scenario} workload (ms)"),
    );
    let frame = Frame::new(w, h, [l, rgt, top, bot]);
    frame.axes(&mut s);
    for p in [50.0, 90.0, 99.0, 99.9] {
        frame.x_tick(&mut s, px(p), &format!("p{p}"));
    }
    frame.y_ticks(&mut s, ymax, 4, false);
    for (i, t) in ts.iter().enumerate() {
        let c = SERIES[i % SERIES.len()];
        let pts: Vec<String> = t
            .curve_ms
            .iter()
            .map(|(p, v)| format!("{:.1},{:.1}", px(*p), py(*v)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>",
            pts.join(" ")
        );
        let y = top + 14.0 + i as f64 * 16.0;
        let _ = writeln!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"3\" fill=\"{c}\"/>",
            w - rgt + 10.0,
            y - 4.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{y}\">{}</text>",
            w - rgt + 26.0,
            esc(&t.transport)
        );
    }
    s.finish()
}

/// Connections opened per transport, as each witness counted them.
pub fn connections(r: &StudyReport, scenario: &str) -> String {
    let ts: Vec<_> = r
        .transports
        .iter()
        .filter(|t| t.scenario == scenario)
        .collect();
    let (left, bar, gap) = (130.0, 8.0, 12.0);
    let width = 900.0;
    let height = 60.0 + ts.len() as f64 * (3.0 * bar + gap) + 40.0;
    let max = ts
        .iter()
        .map(|t| {
            t.witnesses
                .connector
                .max(t.witnesses.kernel_active_opens)
                .max(t.witnesses.pcap_syns.unwrap_or(0))
        })
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let scale = (width - left - 80.0) / max;
    let mut s = Svg::new(
        width as u32,
        height as u32,
        &format!(
            "Connections opened, {scenario} workload: connector / kernel ActiveOpens / pcap SYNs"
        ),
    );
    for (i, t) in ts.iter().enumerate() {
        let y0 = 40.0 + i as f64 * (3.0 * bar + gap);
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y0 + 2.0 * bar,
            esc(&t.transport)
        );
        let vals = [
            Some(t.witnesses.connector),
            Some(t.witnesses.kernel_active_opens),
            t.witnesses.pcap_syns,
        ];
        for (k, v) in vals.iter().enumerate() {
            let Some(v) = v else { continue };
            let y = y0 + k as f64 * bar;
            let _ = writeln!(
                s,
                "<rect x=\"{left}\" y=\"{y}\" width=\"{:.1}\" height=\"{}\" fill=\"{}\"/>",
                (*v as f64 * scale).max(1.0),
                bar - 1.0,
                SERIES[k]
            );
            if k == 0 {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{}\">{v}</text>",
                    left + *v as f64 * scale + 4.0,
                    y + bar
                );
            }
        }
    }
    let ly = height - 25.0;
    s.legend_row(
        left,
        ly,
        110.0,
        &[
            ("connector", SERIES[0]),
            ("kernel", SERIES[1]),
            ("pcap", SERIES[2]),
        ],
    );
    s.finish()
}
