//! The sweeps' line charts (p50 vs RTT per transport for `sweep`, time and bytes vs rows for
//! `large-responses`), drawn with `bench-report`'s [`LineChart`]: x/y series with markers,
//! optional dashed theory lines, a linear or log x axis.

use bench_report::chart::{LineChart, Scale, Series as Line, Style};

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
    let x_scale = if chart.log_x {
        Scale::Log
    } else {
        Scale::Linear
    };
    let c = LineChart::new(&chart.title)
        .labels(&chart.x_label, &chart.y_label)
        .scales(x_scale, Scale::Linear)
        .size(900.0, 460.0);
    series
        .iter()
        .fold(c, |c, s| {
            let style = if s.dashed {
                Style::Dashed
            } else {
                Style::LineMarkers
            };
            c.series(
                Line::new(&s.label, s.points.clone())
                    .style(style)
                    .color(s.color),
            )
        })
        .render()
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
