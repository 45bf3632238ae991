//! [`Timeline`]: one row per span (a connection) on a shared time axis, a tick at every
//! event inside it (a request), so "one connection per request" and "one connection for
//! everything" look different at a glance.

use std::fmt::Write as _;

use super::{esc, Chart, Frame, Svg};

/// One row of a [`Timeline`].
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// Tooltip of the bar.
    pub tip: String,
    /// Start on the time axis.
    pub start: f64,
    /// End on the time axis (at least `start`).
    pub end: f64,
    /// Fill colour.
    pub color: String,
    /// Events inside the span, each drawn as a tick.
    pub ticks: Vec<f64>,
}

/// Spans on a time axis from 0, drawn top to bottom in the given order.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Timeline {
    title: String,
    x_label: String,
    spans: Vec<Span>,
    legend: Vec<(String, String)>,
    max_rows: usize,
    width: f64,
}

impl Timeline {
    /// A 1000 pixels wide timeline titled `title`, at most 200 rows drawn.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            x_label: String::new(),
            spans: Vec::new(),
            legend: Vec::new(),
            max_rows: 200,
            width: 1000.0,
        }
    }

    /// The time axis' label (none by default).
    pub fn x_label(mut self, label: impl Into<String>) -> Self {
        self.x_label = label.into();
        self
    }

    /// The document width in pixels (default 1000).
    pub fn width(mut self, width: f64) -> Self {
        self.width = width.max(200.0);
        self
    }

    /// Rows drawn at most (default 200); the title says how many were left out.
    pub fn max_rows(mut self, n: usize) -> Self {
        self.max_rows = n.max(1);
        self
    }

    /// Adds a row; non-finite times are drawn at 0.
    pub fn span(mut self, span: Span) -> Self {
        self.spans.push(span);
        self
    }

    /// Adds a legend entry: `label` beside a swatch of `color`.
    pub fn legend(mut self, label: impl Into<String>, color: &str) -> Self {
        self.legend.push((label.into(), color.into()));
        self
    }

    fn rows(&self) -> usize {
        self.spans.len().min(self.max_rows)
    }

    fn row_height(&self) -> f64 {
        (300.0 / self.rows().max(1) as f64).clamp(8.0, 20.0)
    }

    fn frame(&self) -> Frame {
        let plot = self.rows() as f64 * self.row_height();
        let height = (50.0 + plot + 90.0).max(260.0);
        Frame::new(self.width, height, [60.0, 30.0, 50.0, height - 50.0 - plot])
    }

    fn span_max(&self) -> f64 {
        self.spans
            .iter()
            .map(|s| finite(s.end))
            .fold(0.0, f64::max)
            .max(1e-3)
    }

    fn draw_span(&self, svg: &mut Svg, f: &Frame, top: f64, s: &Span, max: f64) {
        let h = self.row_height() * 0.8;
        let (x0, x1) = (f.px(finite(s.start), max), f.px(finite(s.end), max));
        let _ = writeln!(
            svg,
            "<rect x=\"{x0:.1}\" y=\"{top:.1}\" width=\"{:.2}\" height=\"{h:.1}\" fill=\"{}\" opacity=\"0.5\"><title>{}</title></rect>",
            (x1 - x0).max(1.0),
            esc(&s.color),
            esc(&s.tip)
        );
        for t in &s.ticks {
            let x = f.px(finite(*t), max);
            svg.line((x, top), (x, top + h), "black");
        }
    }

    fn title(&self) -> String {
        match self.spans.len() - self.rows() {
            0 => self.title.clone(),
            more => format!("{} ({more} not drawn)", self.title),
        }
    }
}

impl Chart for Timeline {
    fn size(&self) -> (f64, f64) {
        let f = self.frame();
        (f.width, f.height)
    }

    fn render(&self) -> String {
        Timeline::render(self)
    }
}

impl Timeline {
    /// The SVG document.
    pub fn render(&self) -> String {
        let f = self.frame();
        let max = self.span_max();
        let mut svg = Svg::new(f.width as u32, f.height as u32, &self.title());
        for (i, s) in self.spans.iter().take(self.rows()).enumerate() {
            self.draw_span(&mut svg, &f, f.top + i as f64 * self.row_height(), s, max);
        }
        f.axes(&mut svg);
        f.x_ticks(&mut svg, max, 4);
        svg.text(
            (f.x0() + f.x1()) / 2.0,
            f.y0() + 36.0,
            "middle",
            &self.x_label,
        );
        for (k, (label, color)) in self.legend.iter().enumerate() {
            svg.swatch(f.x0() + k as f64 * 150.0, f.y0() + 50.0, color, label);
        }
        svg.finish()
    }
}

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml_check::check;
    use super::*;

    fn span(start: f64, end: f64, ticks: Vec<f64>) -> Span {
        Span {
            tip: "conn <1>".into(),
            start,
            end,
            color: "#1e88e5".into(),
            ticks,
        }
    }

    #[test]
    fn one_bar_per_row_and_one_tick_per_event() {
        let svg = Timeline::new("port 8983: 3 requests")
            .x_label("ms since the first packet")
            .span(span(0.0, 10.0, vec![1.0, 5.0]))
            .span(span(2.0, f64::NAN, vec![3.0]))
            .legend("client FIN", "#1e88e5")
            .render();
        let doc = check(&svg).unwrap();
        assert_eq!(
            doc.count("rect"),
            1 + 2 + 1,
            "background, two spans, one swatch"
        );
        // 3 ticks + 2 axes
        assert_eq!(doc.count("line"), 3 + 2);
        assert!(doc.has_text("ms since the first packet") && doc.has_text("client FIN"));
        assert!(doc.has_text("10.0") && doc.has_text("0.0"));
    }

    #[test]
    fn rows_beyond_the_limit_are_counted_in_the_title() {
        let t = (0..5).fold(Timeline::new("c").max_rows(2), |t, i| {
            t.span(span(i as f64, i as f64 + 1.0, vec![]))
        });
        let doc = check(&t.render()).unwrap();
        assert_eq!(doc.count("rect"), 1 + 2);
        assert!(doc.has_text("c (3 not drawn)"));
    }
}
