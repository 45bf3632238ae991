//! The one chart module every SVG of the workspace is drawn with.
//!
//! Typed builders for the kinds of chart the bench and `solr-watch` draw:
//! - [`LineChart`]: x/y series as lines, markers, dashed lines, dots (scatter) or columns,
//!   on linear, log or percentile axes, with reference lines;
//! - [`BarChart`]: horizontal bars per row, stacked (phases of a request) or grouped (what
//!   each witness counted);
//! - [`Timeline`]: one row per connection on a time axis, a tick at every request;
//! - [`Figure`]: several charts as panels of one document.
//!
//! Underneath: the document [`Svg`] (size, white background, centred title), a plot
//! [`Frame`] with axes and tick labels, legend swatches, the shared palettes, and [`esc`] for
//! any text placed in the SVG. Every builder drops non-finite values, so no `NaN` reaches a
//! coordinate.
//!
//! ```
//! use bench_report::chart::{LineChart, Series};
//! let svg = LineChart::new("p50 <ms> by RTT")
//!     .labels("RTT ms", "p50 ms")
//!     .series(Series::new("pooled & fresh", vec![(1.0, 2.0), (10.0, 12.5)]))
//!     .render();
//! assert!(svg.contains("p50 &lt;ms&gt; by RTT") && svg.contains("pooled &amp; fresh"));
//! assert!(svg.ends_with("</svg>\n"));
//! ```

mod bars;
mod figure;
mod frame;
mod line;
mod timeline;
#[cfg(test)]
mod xml_check;

pub use bars::{BarChart, BarRow, Layout, Segment};
pub use figure::{Chart, Figure};
pub use frame::{tick_label, Frame};
pub use line::{LineChart, Scale, Series, Style};
pub use timeline::{Span, Timeline};

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
}
