//! [`BarChart`]: one labelled row per item, its values as horizontal bars, either stacked
//! into one bar (the phases of a request, the parts of a run's wall time) or grouped one
//! under the other (what each witness counted), on a shared linear axis from 0.

use super::{Chart, Frame, Svg};

/// How the segments of a row are laid out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// End to end in one bar; the row's note (or its total) is written after it.
    #[default]
    Stacked,
    /// One thin bar per segment, one under the other, each with its value.
    Grouped,
}

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// What it measures (the tooltip).
    pub name: String,
    /// The value; a non-finite or negative one is drawn as 0.
    pub value: f64,
    /// Fill colour.
    pub color: String,
}

/// One row of a [`BarChart`].
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct BarRow {
    /// Label left of the bars.
    pub label: String,
    /// The values, in drawing order.
    pub segments: Vec<Segment>,
    /// Text after a stacked bar (default: its total).
    pub note: Option<String>,
}

impl BarRow {
    /// A row labelled `label`, no segments.
    pub fn new(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            segments: Vec::new(),
            note: None,
        }
    }

    /// Adds a segment.
    pub fn segment(mut self, name: impl Into<String>, value: f64, color: &str) -> Self {
        let value = if value.is_finite() {
            value.max(0.0)
        } else {
            0.0
        };
        self.segments.push(Segment {
            name: name.into(),
            value,
            color: color.into(),
        });
        self
    }

    /// The text after a stacked bar (default: the total with the chart's decimals).
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    fn total(&self) -> f64 {
        self.segments.iter().map(|s| s.value).sum()
    }
}

/// Horizontal bars, one row per item.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct BarChart {
    title: String,
    unit: String,
    layout: Layout,
    rows: Vec<BarRow>,
    legend: Vec<(String, String)>,
    width: f64,
    decimals: usize,
}

impl BarChart {
    /// A 900 pixels wide stacked chart titled `title`, values with 2 decimals.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            unit: String::new(),
            layout: Layout::Stacked,
            rows: Vec::new(),
            legend: Vec::new(),
            width: 900.0,
            decimals: 2,
        }
    }

    /// The value axis' label (none by default).
    pub fn unit(mut self, unit: impl Into<String>) -> Self {
        self.unit = unit.into();
        self
    }

    /// Stacked (default) or grouped.
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// The document width in pixels (default 900).
    pub fn width(mut self, width: f64) -> Self {
        self.width = width.max(300.0);
        self
    }

    /// Decimals of the values written beside the bars (default 2).
    pub fn decimals(mut self, decimals: usize) -> Self {
        self.decimals = decimals;
        self
    }

    /// Adds a row.
    pub fn row(mut self, row: BarRow) -> Self {
        self.rows.push(row);
        self
    }

    /// Adds a legend entry: `label` beside a swatch of `color`.
    pub fn legend(mut self, label: impl Into<String>, color: &str) -> Self {
        self.legend.push((label.into(), color.into()));
        self
    }

    fn bar_height(&self) -> f64 {
        match self.layout {
            Layout::Stacked => 22.0,
            Layout::Grouped => 12.0,
        }
    }

    fn row_height(&self, row: &BarRow) -> f64 {
        match self.layout {
            Layout::Stacked => self.bar_height() + 10.0,
            Layout::Grouped => row.segments.len().max(1) as f64 * self.bar_height() + 10.0,
        }
    }

    fn frame(&self) -> Frame {
        let plot: f64 = self.rows.iter().map(|r| self.row_height(r)).sum();
        let legend = if self.legend.is_empty() { 0.0 } else { 26.0 };
        let height = 40.0 + plot.max(20.0) + 50.0 + legend;
        Frame::new(self.width, height, [150.0, 90.0, 40.0, 50.0 + legend])
    }

    fn max(&self) -> f64 {
        let per_row = |r: &BarRow| match self.layout {
            Layout::Stacked => r.total(),
            Layout::Grouped => r.segments.iter().map(|s| s.value).fold(0.0, f64::max),
        };
        self.rows.iter().map(per_row).fold(0.0, f64::max).max(1e-6)
    }

    fn draw_row(&self, svg: &mut Svg, f: &Frame, top: f64, row: &BarRow, max: f64) {
        let bar = self.bar_height();
        svg.text(f.x0() - 6.0, top + bar * 0.7, "end", &row.label);
        let d = self.decimals;
        let mut x = f.x0();
        for (k, s) in row.segments.iter().enumerate() {
            let w = f.px(s.value, max) - f.x0();
            let tip = format!("{}: {:.*}", s.name, d, s.value);
            match self.layout {
                Layout::Stacked => {
                    if w > 0.0 {
                        svg.rect(x, top, w, bar, &s.color, Some(&tip));
                    }
                    x += w;
                }
                Layout::Grouped => {
                    let y = top + k as f64 * bar;
                    svg.rect(f.x0(), y, w.max(1.0), bar - 1.0, &s.color, Some(&tip));
                    svg.text(
                        f.x0() + w + 4.0,
                        y + bar - 2.0,
                        "start",
                        &format!("{:.*}", d, s.value),
                    );
                }
            }
        }
        if self.layout == Layout::Stacked {
            let note = row
                .note
                .clone()
                .unwrap_or_else(|| format!("{:.*}", d, row.total()));
            svg.text(x + 4.0, top + bar * 0.7, "start", &note);
        }
    }
}

impl Chart for BarChart {
    fn size(&self) -> (f64, f64) {
        let f = self.frame();
        (f.width, f.height)
    }

    fn render(&self) -> String {
        BarChart::render(self)
    }
}

impl BarChart {
    /// The SVG document.
    pub fn render(&self) -> String {
        let f = self.frame();
        let max = self.max();
        let mut svg = Svg::new(f.width as u32, f.height as u32, &self.title);
        let mut top = f.top;
        for row in &self.rows {
            self.draw_row(&mut svg, &f, top, row, max);
            top += self.row_height(row);
        }
        f.axes(&mut svg);
        f.x_ticks(&mut svg, max, 4);
        svg.text((f.x0() + f.x1()) / 2.0, f.y0() + 36.0, "middle", &self.unit);
        let ly = f.height - 26.0;
        for (k, (label, color)) in self.legend.iter().enumerate() {
            svg.swatch(20.0 + k as f64 * 140.0, ly, color, label);
        }
        svg.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml_check::check;
    use super::*;

    #[test]
    fn stacked_rows_draw_one_rect_per_positive_segment() {
        let svg = BarChart::new("phases <ms>")
            .unit("ms")
            .row(
                BarRow::new("pooled")
                    .segment("connect", 0.0, "#9e9e9e")
                    .segment("wait", 2.5, "#1e88e5"),
            )
            .row(
                BarRow::new("fresh")
                    .segment("connect", 1.0, "#9e9e9e")
                    .segment("wait", f64::NAN, "#1e88e5"),
            )
            .legend("connect", "#9e9e9e")
            .render();
        let doc = check(&svg).unwrap();
        // background + 2 drawn segments + 1 legend swatch
        assert_eq!(doc.count("rect"), 4);
        assert!(doc.has_text("phases <ms>") && doc.has_text("pooled") && doc.has_text("2.50"));
        assert!(doc.has_text("1.00") && doc.has_text("ms") && doc.has_text("connect"));
    }

    #[test]
    fn grouped_rows_draw_every_value() {
        let svg = BarChart::new("connections")
            .layout(Layout::Grouped)
            .decimals(0)
            .row(
                BarRow::new("fresh")
                    .segment("connector", 20.0, "red")
                    .segment("pcap", 20.0, "blue"),
            )
            .row(
                BarRow::new("pooled")
                    .segment("connector", 1.0, "red")
                    .segment("pcap", 1.0, "blue"),
            )
            .render();
        let doc = check(&svg).unwrap();
        assert_eq!(doc.count("rect"), 1 + 4);
        assert_eq!(
            doc.texts.iter().filter(|t| *t == "20").count(),
            2,
            "the two bars of 20"
        );
        assert!(doc.has_text("20.0"), "the axis ends at the largest value");
    }
}
