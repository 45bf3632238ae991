//! A line chart (x/y series with markers, optional dashed lines, linear or log x axis) for
//! the sweeps: p50 vs RTT per transport (`sweep`), time and bytes vs rows
//! (`large-responses`).

use std::fmt::Write;

use bench_report::chart::{esc, Frame, Svg, PALETTE as SERIES};

/// One line of a chart.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points `(x, y)`, drawn in the given order.
    pub points: Vec<(f64, f64)>,
    /// Dashed, without markers (e.g. a theory line).
    pub dashed: bool,
    /// Colour index (series sharing an index share a colour).
    pub color: usize,
}

/// Axes and title.
#[derive(Debug, Clone)]
pub struct Chart {
    /// Title.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Logarithmic x axis (all x must be > 0).
    pub log_x: bool,
}

/// Renders the series as an SVG line chart; the x ticks are the distinct x values.
pub fn render(chart: &Chart, series: &[Series]) -> String {
    let (w, h, l, rgt, top, bot) = (900.0, 460.0, 70.0, 230.0, 40.0, 60.0);
    let fx = |x: f64| if chart.log_x { x.max(1e-9).log10() } else { x };
    let xs: Vec<f64> = {
        let mut v: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .filter(|x| x.is_finite() && (!chart.log_x || *x > 0.0))
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let (xmin, xmax) = match (xs.first(), xs.last()) {
        (Some(a), Some(b)) if fx(*b) > fx(*a) => (fx(*a), fx(*b)),
        (Some(a), _) => (fx(*a) - 1.0, fx(*a) + 1.0),
        _ => (0.0, 1.0),
    };
    let ymax = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite())
        .fold(0.0, f64::max)
        .max(1e-3)
        * 1.1;
    let px = |x: f64| l + (fx(x) - xmin) / (xmax - xmin) * (w - l - rgt);
    let py = |y: f64| h - bot - y / ymax * (h - top - bot);
    let mut s = Svg::new(w as u32, h as u32, &chart.title);
    let frame = Frame::new(w, h, [l, rgt, top, bot]);
    frame.axes(&mut s);
    for x in &xs {
        frame.x_tick(&mut s, px(*x), &x.to_string());
    }
    frame.labels(&mut s, &chart.x_label, &chart.y_label);
    frame.y_ticks(&mut s, ymax, 4, true);
    let mut legend = 0usize;
    for se in series {
        let c = SERIES[se.color % SERIES.len()];
        let pts: Vec<(f64, f64)> = se
            .points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite() && (!chart.log_x || *x > 0.0))
            .collect();
        if pts.is_empty() {
            continue;
        }
        let line: Vec<String> = pts
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let dash = if se.dashed {
            " stroke-dasharray=\"5,4\" stroke-width=\"1\""
        } else {
            " stroke-width=\"2\""
        };
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\"{dash} points=\"{}\"/>",
            line.join(" ")
        );
        if !se.dashed {
            for (x, y) in &pts {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{c}\"><title>{}: {x} -> {y:.2}</title></circle>",
                    px(*x),
                    py(*y),
                    esc(&se.label)
                );
            }
        }
        let y = top + 14.0 + legend as f64 * 16.0;
        legend += 1;
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{:.1}\" x2=\"{}\" y2=\"{:.1}\" stroke=\"{c}\"{dash}/><text x=\"{}\" y=\"{y}\">{}</text>",
            w - rgt + 10.0,
            y - 4.0,
            w - rgt + 26.0,
            y - 4.0,
            w - rgt + 30.0,
            esc(&se.label)
        );
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_series_and_skips_bad_points() {
        let chart = Chart {
            title: "t <1>".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: true,
        };
        let s = render(
            &chart,
            &[
                Series {
                    label: "a&b".into(),
                    points: vec![(10.0, 1.0), (1000.0, 5.0), (0.0, 3.0), (40.0, f64::NAN)],
                    dashed: false,
                    color: 0,
                },
                Series {
                    label: "empty".into(),
                    points: vec![],
                    dashed: true,
                    color: 1,
                },
            ],
        );
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        assert_eq!(
            s.matches("<circle").count(),
            2,
            "x=0 on a log axis and NaN are skipped"
        );
        assert!(s.contains("a&amp;b") && s.contains("t &lt;1&gt;"));
        assert!(!s.contains("empty"), "an empty series has no legend entry");
    }
}
