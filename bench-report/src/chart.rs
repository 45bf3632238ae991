//! The one chart module every SVG of the bench is drawn with: the document frame (size,
//! white background, centred title), a plot [`Frame`] with axes and tick labels, legend
//! swatches, the shared palettes, and [`esc`] for any text placed in the SVG.
//!
//! No plotting dependency: an [`Svg`] is a string being written, so callers can still add
//! their own marks (`Svg::raw`, or `writeln!` since it implements `std::fmt::Write`). `solr-watch` can adopt it as is: [`Svg::new`] and [`esc`]
//! cover what its own renderer writes by hand.
//!
//! ```
//! use bench_report::chart::{Frame, Svg, PALETTE};
//! let frame = Frame { width: 400.0, height: 200.0, left: 50.0, right: 20.0, top: 40.0, bottom: 30.0 };
//! let mut svg = Svg::new(400, 200, "p50 <ms> by RTT");
//! frame.axes(&mut svg);
//! frame.y_ticks(&mut svg, 10.0, 4, false);
//! svg.swatch(60.0, 170.0, PALETTE[0], "pooled & fresh");
//! let text = svg.finish();
//! assert!(text.contains("p50 &lt;ms&gt; by RTT") && text.contains("pooled &amp; fresh"));
//! assert!(text.ends_with("</svg>\n"));
//! ```

use std::fmt::Write as _;

/// Series colours, in order: blue, red, green, orange, purple, cyan, brown, grey.
pub const PALETTE: [&str; 8] = [
    "#1e88e5", "#e53935", "#43a047", "#fb8c00", "#8e24aa", "#00acc1", "#6d4c41", "#546e7a",
];

/// Colours of the request phases in stacked bars (connect first, grey).
pub const PHASE_COLORS: [&str; 9] = [
    "#9e9e9e", "#8e24aa", "#1e88e5", "#e53935", "#fb8c00", "#43a047", "#00acc1", "#6d4c41",
    "#fdd835",
];

/// `s` made safe as SVG text or as a double- or single-quoted attribute value: `&`, `<`,
/// `>`, `"` and `'` become entities.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document being written: opened with its size, background and title, closed by
/// [`Svg::finish`].
///
/// `Svg` implements [`std::fmt::Write`], so a chart's own marks are written with
/// `writeln!(svg, ...)` between the shared ones.
#[derive(Debug, Clone)]
pub struct Svg {
    text: String,
}

impl std::fmt::Write for Svg {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

impl Svg {
    /// Opens a `width` x `height` document with a white background and `title` (escaped)
    /// centred at the top.
    pub fn new(width: u32, height: u32, title: &str) -> Self {
        Self {
            text: format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
                width / 2,
                esc(title)
            ),
        }
    }

    /// Appends raw SVG markup followed by a newline (the caller escapes any text in it).
    pub fn raw(&mut self, markup: &str) {
        self.text.push_str(markup);
        self.text.push('\n');
    }

    /// A text label at `(x, y)`; `anchor` is `start`, `middle` or `end`.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, label: &str) {
        let anchor = if anchor == "start" {
            String::new()
        } else {
            format!(" text-anchor=\"{anchor}\"")
        };
        let _ = writeln!(
            self.text,
            "<text x=\"{x:.1}\" y=\"{y:.1}\"{anchor}>{}</text>",
            esc(label)
        );
    }

    /// A straight line.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str) {
        let _ = writeln!(
            self.text,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{stroke}\"/>"
        );
    }

    /// A filled rectangle with an optional tooltip (escaped).
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, tip: Option<&str>) {
        match tip {
            Some(t) => {
                let _ = writeln!(
                    self.text,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{h:.1}\" fill=\"{fill}\"><title>{}</title></rect>",
                    esc(t)
                );
            }
            None => {
                let _ = writeln!(
                    self.text,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{h:.1}\" fill=\"{fill}\"/>"
                );
            }
        }
    }

    /// A legend entry: a 12 x 12 swatch of `color` at `(x, y)` and `label` (escaped) right
    /// of it.
    pub fn swatch(&mut self, x: f64, y: f64, color: &str, label: &str) {
        let _ = writeln!(
            self.text,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"12\" height=\"12\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            x + 16.0,
            y + 10.0,
            esc(label)
        );
    }

    /// A row of legend swatches from `(x, y)`, `step` apart.
    pub fn legend_row(&mut self, x: f64, y: f64, step: f64, entries: &[(&str, &str)]) {
        for (k, (label, color)) in entries.iter().enumerate() {
            self.swatch(x + k as f64 * step, y, color, label);
        }
    }

    /// Closes the document and returns its text.
    pub fn finish(mut self) -> String {
        self.text.push_str("</svg>\n");
        self.text
    }
}

/// A plot area inside a document: the margins around it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// Document width.
    pub width: f64,
    /// Document height.
    pub height: f64,
    /// Space left of the y axis (tick labels).
    pub left: f64,
    /// Space right of the plot (legend).
    pub right: f64,
    /// Space above the plot (title).
    pub top: f64,
    /// Space below the x axis (tick labels, axis label).
    pub bottom: f64,
}

impl Frame {
    /// A `width` x `height` document's plot area inside the margins `[left, right, top,
    /// bottom]`.
    pub fn new(width: f64, height: f64, [left, right, top, bottom]: [f64; 4]) -> Self {
        Self {
            width,
            height,
            left,
            right,
            top,
            bottom,
        }
    }

    /// The x pixel of the y axis.
    pub fn x0(&self) -> f64 {
        self.left
    }

    /// The x pixel of the plot's right edge.
    pub fn x1(&self) -> f64 {
        self.width - self.right
    }

    /// The y pixel of the x axis.
    pub fn y0(&self) -> f64 {
        self.height - self.bottom
    }

    /// The y pixel of `v` on a linear axis from 0 to `max`.
    pub fn py(&self, v: f64, max: f64) -> f64 {
        self.y0() - v / max.max(f64::MIN_POSITIVE) * (self.y0() - self.top)
    }

    /// Draws the x axis and the y axis in black.
    pub fn axes(&self, svg: &mut Svg) {
        svg.line((self.x0(), self.y0()), (self.x1(), self.y0()), "black");
        svg.line((self.x0(), self.top), (self.x0(), self.y0()), "black");
    }

    /// Labels the y axis with `n + 1` ticks from 0 to `max` (one decimal), with light grid
    /// lines across the plot when `grid`.
    pub fn y_ticks(&self, svg: &mut Svg, max: f64, n: usize, grid: bool) {
        let n = n.max(1);
        for k in 0..=n {
            let v = max * k as f64 / n as f64;
            let y = self.py(v, max);
            svg.text(self.x0() - 4.0, y + 4.0, "end", &format!("{v:.1}"));
            if grid {
                svg.line((self.x0(), y), (self.x1(), y), "#eeeeee");
            }
        }
    }

    /// A tick label under the x axis at pixel `x`.
    pub fn x_tick(&self, svg: &mut Svg, x: f64, label: &str) {
        svg.text(x, self.y0() + 16.0, "middle", label);
    }

    /// The axis labels: `x` centred under the x ticks, `y` turned along the y axis.
    pub fn labels(&self, svg: &mut Svg, x: &str, y: &str) {
        svg.text((self.x0() + self.x1()) / 2.0, self.y0() + 36.0, "middle", x);
        let mid = (self.top + self.y0()) / 2.0;
        svg.raw(&format!(
            "<text x=\"16\" y=\"{mid:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {mid:.1})\">{}</text>",
            esc(y)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc(r#"a<b & "c" 'd'>"#),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
        assert_eq!(esc("plain"), "plain");
    }

    #[test]
    fn titles_labels_and_tooltips_are_escaped() {
        let mut s = Svg::new(100, 50, "<t>");
        s.text(1.0, 2.0, "end", "a&b");
        s.rect(0.0, 0.0, 1.0, 1.0, "red", Some("x<y"));
        s.swatch(0.0, 0.0, "red", "\"q\"");
        let out = s.finish();
        assert!(out.contains(">&lt;t&gt;</text>"));
        assert!(out.contains("text-anchor=\"end\">a&amp;b</text>"));
        assert!(out.contains("<title>x&lt;y</title>"));
        assert!(out.contains(">&quot;q&quot;</text>"));
        assert!(!out.contains("<t>") && out.ends_with("</svg>\n"));
    }

    #[test]
    fn frame_maps_values_and_draws_ticks() {
        let f = Frame {
            width: 200.0,
            height: 100.0,
            left: 20.0,
            right: 30.0,
            top: 10.0,
            bottom: 10.0,
        };
        assert_eq!(f.py(0.0, 8.0), 90.0);
        assert_eq!(f.py(8.0, 8.0), 10.0);
        let mut s = Svg::new(200, 100, "t");
        f.axes(&mut s);
        f.y_ticks(&mut s, 8.0, 4, true);
        let out = s.finish();
        assert_eq!(out.matches("stroke=\"black\"").count(), 2);
        assert_eq!(out.matches("stroke=\"#eeeeee\"").count(), 5);
        assert!(out.contains(">8.0</text>") && out.contains(">0.0</text>"));
    }
}
