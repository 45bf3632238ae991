//! The plot area of a chart: margins, the value-to-pixel mapping, axes and tick labels.

use super::{esc, Svg};

/// `v` with as many decimals as an axis reaching `max` needs: none from 100 up, one from 1,
/// two below.
pub fn tick_label(v: f64, max: f64) -> String {
    match max.abs() {
        m if m >= 100.0 => format!("{v:.0}"),
        m if m >= 1.0 => format!("{v:.1}"),
        _ => format!("{v:.2}"),
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

    /// The x pixel of `v` on a linear axis from 0 to `max`.
    pub fn px(&self, v: f64, max: f64) -> f64 {
        self.x0() + v / max.max(f64::MIN_POSITIVE) * (self.x1() - self.x0())
    }

    /// Labels the y axis with `n + 1` ticks from 0 to `max` (one decimal), with light grid
    /// lines across the plot when `grid`.
    pub fn y_ticks(&self, svg: &mut Svg, max: f64, n: usize, grid: bool) {
        let n = n.max(1);
        for k in 0..=n {
            let v = max * k as f64 / n as f64;
            self.y_tick(svg, self.py(v, max), &format!("{v:.1}"), grid);
        }
    }

    /// A tick label left of the y axis at pixel `y`, with a light grid line across the plot
    /// when `grid`.
    pub fn y_tick(&self, svg: &mut Svg, y: f64, label: &str, grid: bool) {
        svg.text(self.x0() - 4.0, y + 4.0, "end", label);
        if grid {
            svg.line((self.x0(), y), (self.x1(), y), "#eeeeee");
        }
    }

    /// Labels the x axis with `n + 1` ticks from 0 to `max`, each formatted by [`tick_label`].
    pub fn x_ticks(&self, svg: &mut Svg, max: f64, n: usize) {
        let n = n.max(1);
        for k in 0..=n {
            let v = max * k as f64 / n as f64;
            self.x_tick(svg, self.px(v, max), &tick_label(v, max));
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
