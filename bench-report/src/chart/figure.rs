//! [`Figure`]: several charts as panels of one SVG document, side by side or one under the
//! other, each keeping its own axes and legend; and [`Chart`], what a panel must tell.

/// A chart builder: its document size and its SVG.
pub trait Chart {
    /// Width and height of the rendered document, in pixels.
    fn size(&self) -> (f64, f64);
    /// The SVG document.
    fn render(&self) -> String;
}

/// Panels under a common title.
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Figure {
    title: String,
    across: bool,
    panels: Vec<(String, (f64, f64))>,
}

impl Figure {
    /// An empty figure titled `title` whose panels go one under the other.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            across: false,
            panels: Vec::new(),
        }
    }

    /// Places the panels side by side instead.
    pub fn across(mut self) -> Self {
        self.across = true;
        self
    }

    /// Adds `chart` as the next panel.
    pub fn panel(mut self, chart: &dyn Chart) -> Self {
        self.panels.push((chart.render(), chart.size()));
        self
    }

    /// The SVG document: the title, then every panel translated into place.
    pub fn render(&self) -> String {
        let (mut w, mut h) = (0.0f64, 0.0f64);
        for (_, (pw, ph)) in &self.panels {
            (w, h) = if self.across {
                (w + pw, h.max(*ph))
            } else {
                (w.max(*pw), h + ph)
            };
        }
        let top = 30.0;
        let mut svg = super::Svg::new(w.max(200.0) as u32, (h + top) as u32, &self.title);
        let (mut x, mut y) = (0.0, top);
        for (text, (pw, ph)) in &self.panels {
            svg.raw(&format!("<g transform=\"translate({x:.1},{y:.1})\">"));
            svg.raw(text.trim_end());
            svg.raw("</g>");
            if self.across {
                x += pw;
            } else {
                y += ph;
            }
        }
        svg.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml_check::check;
    use super::super::{LineChart, Series};
    use super::*;

    #[test]
    fn panels_nest_as_whole_documents() {
        let a = LineChart::new("left").series(Series::new("x", vec![(1.0, 2.0)]));
        let b = LineChart::new("right").size(400.0, 300.0);
        let doc = check(&Figure::new("both").across().panel(&a).panel(&b).render()).unwrap();
        assert_eq!(doc.count("svg"), 3);
        assert_eq!(doc.count("g"), 2);
        assert!(doc.has_text("both") && doc.has_text("left") && doc.has_text("right"));
        assert_eq!(doc.root_size, Some((1300.0, 450.0)));
    }
}
