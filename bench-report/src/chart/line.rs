//! [`LineChart`]: x/y series drawn as lines (with or without markers), dashed lines, dots
//! (a scatter) or columns, on linear, log or percentile axes, with horizontal reference
//! lines and a legend on the right.

use std::fmt::Write as _;

use super::{esc, tick_label, Chart, Frame, Svg, PALETTE};

/// Dash patterns a series can pick by index (solid first).
pub const DASHES: [&str; 4] = ["", "6,4", "2,3", "10,3,2,3"];

/// How an axis maps values to pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Scale {
    /// Linear: y from 0, x from the smallest value.
    #[default]
    Linear,
    /// Decades (log10); values at or below 0 are not drawn.
    Log,
    /// Percentiles (x only): `p` sits at log10(1 / (1 - p/100)), so p90, p99 and p99.9 are
    /// equally spaced; ticks at p50, p90, p99, p99.9.
    Percentile,
}

impl Scale {
    /// The value on the axis' own straight line, or None when the scale cannot place it.
    fn to_axis(self, v: f64) -> Option<f64> {
        let t = match self {
            Scale::Linear => v,
            Scale::Log if v > 0.0 => v.log10(),
            Scale::Percentile if (0.0..100.0).contains(&v) => (1.0 / (1.0 - v / 100.0)).log10(),
            _ => return None,
        };
        t.is_finite().then_some(t)
    }
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Style {
    /// A line with a marker (and tooltip) at every point.
    #[default]
    LineMarkers,
    /// A line alone.
    Line,
    /// A thin dashed line without markers (a theory or reference curve).
    Dashed,
    /// Dots alone: a scatter.
    Dots,
    /// One column per point, from the x axis up.
    Columns,
}

/// One series of a [`LineChart`].
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points `(x, y)`, drawn in the given order; non-finite ones are skipped.
    pub points: Vec<(f64, f64)>,
    /// How it is drawn; default [`Style::LineMarkers`].
    pub style: Style,
    /// Index into [`PALETTE`]; default: the series' position in the chart.
    pub color: Option<usize>,
    /// Index into the dash patterns (`DASHES`) for lines; default 0 (solid).
    pub dash: usize,
}

impl Series {
    /// A series drawn as a line with markers.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            label: label.into(),
            points,
            style: Style::default(),
            color: None,
            dash: 0,
        }
    }

    /// Draws it as `style`.
    pub fn style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }

    /// Colours it `PALETTE[color % 8]` (series sharing an index share a colour).
    pub fn color(mut self, color: usize) -> Self {
        self.color = Some(color);
        self
    }

    /// Dashes its line with `DASHES[dash % 4]`.
    pub fn dash(mut self, dash: usize) -> Self {
        self.dash = dash;
        self
    }
}

/// An x/y chart: title, axis labels and scales, series, reference lines.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct LineChart {
    title: String,
    x_label: String,
    y_label: String,
    x_scale: Scale,
    y_scale: Scale,
    series: Vec<Series>,
    x_ticks: Option<Vec<(f64, String)>>,
    refs: Vec<(f64, String)>,
    size: (f64, f64),
    legend: bool,
}

/// The value-to-pixel mapping of one axis.
#[derive(Debug, Clone, Copy)]
struct Axis {
    scale: Scale,
    lo: f64,
    hi: f64,
    p0: f64,
    p1: f64,
}

impl Axis {
    fn px(&self, v: f64) -> f64 {
        let t = self.scale.to_axis(v).unwrap_or(self.lo);
        self.p0 + (t - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)
    }
}

impl LineChart {
    /// A 900 x 420 chart titled `title`, linear axes, a legend, no series.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            x_label: String::new(),
            y_label: String::new(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series: Vec::new(),
            x_ticks: None,
            refs: Vec::new(),
            size: (900.0, 420.0),
            legend: true,
        }
    }

    /// The axis labels (none by default).
    pub fn labels(mut self, x: impl Into<String>, y: impl Into<String>) -> Self {
        self.x_label = x.into();
        self.y_label = y.into();
        self
    }

    /// The axis scales (default: both [`Scale::Linear`]).
    pub fn scales(mut self, x: Scale, y: Scale) -> Self {
        self.x_scale = x;
        self.y_scale = y;
        self
    }

    /// The document size in pixels (default 900 x 420).
    pub fn size(mut self, width: f64, height: f64) -> Self {
        self.size = (width.max(200.0), height.max(150.0));
        self
    }

    /// Leaves out the legend (and its margin); default: shown.
    pub fn no_legend(mut self) -> Self {
        self.legend = false;
        self
    }

    /// Adds a series.
    pub fn series(mut self, s: Series) -> Self {
        self.series.push(s);
        self
    }

    /// Places the x ticks at these values with these labels (default: the distinct x
    /// values when at most 15, else 6 evenly spaced; p50 to p99.9 on a percentile axis).
    pub fn x_ticks(mut self, ticks: Vec<(f64, String)>) -> Self {
        self.x_ticks = Some(ticks);
        self
    }

    /// Adds a dashed horizontal reference line at `y`, labelled at its right end.
    pub fn reference(mut self, y: f64, label: impl Into<String>) -> Self {
        self.refs.push((y, label.into()));
        self
    }

    /// The series' points the scales can place, non-finite ones dropped.
    fn placeable(&self, s: &Series) -> Vec<(f64, f64)> {
        s.points
            .iter()
            .copied()
            .filter(|(x, y)| {
                self.x_scale.to_axis(*x).is_some() && self.y_scale.to_axis(*y).is_some()
            })
            .collect()
    }

    fn frame(&self) -> Frame {
        let right = if self.legend { 230.0 } else { 30.0 };
        Frame::new(self.size.0, self.size.1, [70.0, right, 40.0, 60.0])
    }

    /// The distinct x values drawn, sorted.
    fn xs(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| self.placeable(s).into_iter().map(|p| p.0))
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    }

    fn x_axis(&self, f: &Frame, xs: &[f64]) -> Axis {
        let t: Vec<f64> = xs.iter().filter_map(|x| self.x_scale.to_axis(*x)).collect();
        let (mut lo, mut hi) = match (t.first(), t.last()) {
            (Some(a), Some(b)) if b > a => (*a, *b),
            (Some(a), _) => (a - 1.0, a + 1.0),
            _ => (0.0, 1.0),
        };
        if self.x_scale == Scale::Percentile {
            (lo, hi) = (0.0, hi.max(3.0));
        }
        if self.series.iter().any(|s| s.style == Style::Columns) {
            hi += column_step(&t);
        }
        Axis {
            scale: self.x_scale,
            lo,
            hi,
            p0: f.x0(),
            p1: f.x1(),
        }
    }

    fn y_axis(&self, f: &Frame) -> Axis {
        let ys = self
            .series
            .iter()
            .flat_map(|s| self.placeable(s).into_iter().map(|p| p.1))
            .chain(self.refs.iter().map(|r| r.0).filter(|y| y.is_finite()));
        let (lo, hi) = match self.y_scale {
            Scale::Log => {
                let (min, max) = ys
                    .filter(|y| *y > 0.0)
                    .fold((f64::MAX, f64::MIN_POSITIVE), |(a, b), y| {
                        (a.min(y), b.max(y))
                    });
                let lo = min.min(max).log10().floor();
                (lo, max.log10().ceil().max(lo + 1.0))
            }
            _ => (0.0, ys.fold(0.0, f64::max).max(1e-3) * 1.1),
        };
        Axis {
            scale: self.y_scale,
            lo,
            hi,
            p0: f.y0(),
            p1: f.top,
        }
    }

    fn draw_x_ticks(&self, svg: &mut Svg, f: &Frame, x: &Axis, xs: &[f64]) {
        let ticks = match (&self.x_ticks, self.x_scale) {
            (Some(t), _) => t.clone(),
            (None, Scale::Percentile) => [50.0, 90.0, 99.0, 99.9]
                .map(|p| (p, format!("p{p}")))
                .to_vec(),
            (None, _) if xs.len() <= 15 => xs.iter().map(|v| (*v, v.to_string())).collect(),
            (None, _) => (0..=5)
                .map(|k| {
                    let v = xs[0] + (xs[xs.len() - 1] - xs[0]) * k as f64 / 5.0;
                    (v, tick_label(v, xs[xs.len() - 1]))
                })
                .collect(),
        };
        for (v, label) in ticks {
            if self.x_scale.to_axis(v).is_some() {
                f.x_tick(svg, x.px(v), &label);
            }
        }
    }

    fn draw_y_ticks(&self, svg: &mut Svg, f: &Frame, y: &Axis) {
        match self.y_scale {
            Scale::Log => {
                for d in (y.lo as i32)..=(y.hi as i32) {
                    let v = 10f64.powi(d);
                    f.y_tick(svg, y.px(v), &format!("{v}"), true);
                }
            }
            _ => {
                for k in 0..=4 {
                    let v = y.hi * k as f64 / 4.0;
                    f.y_tick(svg, y.px(v), &tick_label(v, y.hi), true);
                }
            }
        }
    }

    fn draw_series(&self, svg: &mut Svg, s: &Series, c: &str, (x, y): (&Axis, &Axis), colw: f64) {
        let pts = self.placeable(s);
        let label = esc(&s.label);
        if matches!(s.style, Style::LineMarkers | Style::Line | Style::Dashed) {
            let line: Vec<String> = pts
                .iter()
                .map(|(a, b)| format!("{:.1},{:.1}", x.px(*a), y.px(*b)))
                .collect();
            let _ = writeln!(
                svg,
                "<polyline fill=\"none\" stroke=\"{c}\"{} points=\"{}\"><title>{label}</title></polyline>",
                stroke(s),
                line.join(" ")
            );
        }
        for (a, b) in &pts {
            let tip = format!("<title>{label}: {a} -&gt; {b:.2}</title>");
            let (px, py) = (x.px(*a), y.px(*b));
            let _ = match s.style {
                Style::LineMarkers => writeln!(
                    svg,
                    "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"3\" fill=\"{c}\">{tip}</circle>"
                ),
                Style::Dots => writeln!(
                    svg,
                    "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"2\" fill=\"{c}\" fill-opacity=\"0.7\">{tip}</circle>"
                ),
                Style::Columns => writeln!(
                    svg,
                    "<rect x=\"{px:.1}\" y=\"{py:.1}\" width=\"{colw:.2}\" height=\"{:.1}\" fill=\"{c}\">{tip}</rect>",
                    (y.p0 - py).max(0.0)
                ),
                Style::Line | Style::Dashed => Ok(()),
            };
        }
    }

    fn draw_refs(&self, svg: &mut Svg, f: &Frame, y: &Axis) {
        for (v, label) in &self.refs {
            if self.y_scale.to_axis(*v).is_none() {
                continue;
            }
            let py = y.px(*v);
            let _ = writeln!(
                svg,
                "<line x1=\"{:.1}\" y1=\"{py:.1}\" x2=\"{:.1}\" y2=\"{py:.1}\" stroke=\"black\" stroke-dasharray=\"4,3\"/>",
                f.x0(),
                f.x1()
            );
            svg.text(f.x1(), py - 3.0, "end", label);
        }
    }

    fn legend_entry(&self, svg: &mut Svg, f: &Frame, k: usize, s: &Series, c: &str) {
        let (x, y) = (f.x1() + 10.0, f.top + 10.0 + k as f64 * 16.0);
        let _ = writeln!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{c}\"{}/>",
            x + 16.0,
            stroke(s)
        );
        svg.text(x + 20.0, y + 4.0, "start", &s.label);
    }
}

impl Chart for LineChart {
    fn size(&self) -> (f64, f64) {
        self.size
    }

    fn render(&self) -> String {
        LineChart::render(self)
    }
}

impl LineChart {
    /// The SVG document.
    pub fn render(&self) -> String {
        let f = self.frame();
        let xs = self.xs();
        let (x, y) = (self.x_axis(&f, &xs), self.y_axis(&f));
        let mut svg = Svg::new(self.size.0 as u32, self.size.1 as u32, &self.title);
        self.draw_y_ticks(&mut svg, &f, &y);
        f.axes(&mut svg);
        self.draw_x_ticks(&mut svg, &f, &x, &xs);
        f.labels(&mut svg, &self.x_label, &self.y_label);
        let t: Vec<f64> = xs.iter().filter_map(|v| self.x_scale.to_axis(*v)).collect();
        let colw = (column_step(&t) / (x.hi - x.lo) * (f.x1() - f.x0()) - 1.0).max(0.5);
        let mut legend = 0;
        for (i, s) in self.series.iter().enumerate() {
            if self.placeable(s).is_empty() {
                continue;
            }
            let c = PALETTE[s.color.unwrap_or(i) % PALETTE.len()];
            self.draw_series(&mut svg, s, c, (&x, &y), colw);
            if self.legend {
                self.legend_entry(&mut svg, &f, legend, s, c);
                legend += 1;
            }
        }
        self.draw_refs(&mut svg, &f, &y);
        svg.finish()
    }
}

/// The stroke attributes of a series' line.
fn stroke(s: &Series) -> String {
    match s.style {
        Style::Dashed => " stroke-dasharray=\"5,4\" stroke-width=\"1\"".into(),
        _ if !s.dash.is_multiple_of(DASHES.len()) => format!(
            " stroke-width=\"2\" stroke-dasharray=\"{}\"",
            DASHES[s.dash % DASHES.len()]
        ),
        _ => " stroke-width=\"2\"".into(),
    }
}

/// The smallest gap between neighbouring sorted values (1 when there is none).
fn column_step(sorted: &[f64]) -> f64 {
    let min = sorted
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    if min.is_finite() {
        min
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml_check::check;
    use super::*;

    #[test]
    fn series_axes_and_bad_points() {
        let svg = LineChart::new("t <1>")
            .labels("rows", "ms")
            .scales(Scale::Log, Scale::Linear)
            .series(Series::new(
                "a&b",
                vec![(10.0, 1.0), (1000.0, 5.0), (0.0, 3.0), (40.0, f64::NAN)],
            ))
            .series(Series::new("theory", vec![(10.0, 2.0), (1000.0, 4.0)]).style(Style::Dashed))
            .series(Series::new("empty", vec![]))
            .render();
        let doc = check(&svg).unwrap();
        assert_eq!(doc.count("polyline"), 2);
        assert_eq!(
            doc.count("circle"),
            2,
            "x=0 on a log axis and NaN are skipped"
        );
        assert!(doc.has_text("t <1>") && doc.has_text("a&b") && doc.has_text("theory"));
        assert!(doc.has_text("rows") && doc.has_text("ms"));
        assert!(
            !doc.has_text("empty"),
            "an empty series has no legend entry"
        );
    }

    #[test]
    fn percentile_axis_dots_columns_and_references() {
        let svg = LineChart::new("p")
            .scales(Scale::Percentile, Scale::Log)
            .series(Series::new("pooled", vec![(50.0, 1.0), (99.0, 40.0)]).style(Style::Dots))
            .series(Series::new("fresh", vec![(50.0, 2.0), (90.0, 0.0)]).style(Style::Columns))
            .reference(10.0, "target 10")
            .no_legend()
            .render();
        let doc = check(&svg).unwrap();
        assert_eq!(doc.count("circle"), 2);
        assert_eq!(
            doc.count("rect"),
            2,
            "background + one column (0 has no log)"
        );
        assert!(doc.has_text("p99.9") && doc.has_text("target 10") && doc.has_text("100"));
        assert!(!doc.has_text("pooled"), "no legend asked for");
    }

    #[test]
    fn no_series_still_draws_a_valid_document() {
        let doc = check(&LineChart::new("nothing").render()).unwrap();
        assert_eq!(doc.count("polyline") + doc.count("circle"), 0);
        assert!(doc.has_text("nothing"));
    }
}
