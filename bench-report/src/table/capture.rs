//! Tables as data: while [`capture`] runs a closure, every header and row a [`Table`] lays
//! out on that thread is also recorded as its cells, alignments and the exact text it
//! printed. The run's page ([`crate::html`]) builds its HTML tables from these records, so
//! the text report and the page show the same rows from one source, without re-parsing text.
//!
//! ```
//! use bench_report::table::{capture, Captured, Table};
//! let t = Table::new().left("transport", 9).right("p50", 5);
//! let mut out = Vec::new();
//! let ((), lines) = capture(|| {
//!     t.header(&mut out).unwrap();
//!     t.row(&mut out, &[&"pooled", &"1.25"]).unwrap();
//! });
//! assert_eq!(lines.len(), 2);
//! assert!(lines[0].header && !lines[1].header);
//! assert_eq!(lines[1].cells, ["pooled", "1.25"]);
//! assert_eq!(String::from_utf8(out).unwrap(), format!("{}\n{}\n", lines[0].text, lines[1].text));
//! ```

use std::cell::RefCell;

use super::{Align, Table};

/// One header or row a [`Table`] laid out while [`capture`] ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// A header line (titles with their units) rather than a row.
    pub header: bool,
    /// The cells, as printed but without padding.
    pub cells: Vec<String>,
    /// Each cell's alignment (a cell beyond the table's columns is left-aligned).
    pub aligns: Vec<Align>,
    /// The line exactly as the table laid it out (indent and padding included), which the
    /// printed line starts with.
    pub text: String,
}

thread_local! {
    static LINES: RefCell<Option<Vec<Captured>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns what it returned with every header and row a [`Table`] laid out on
/// this thread meanwhile, in order. Captures nest: an inner one takes its lines, the outer
/// one goes on after it.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<Captured>) {
    /// Puts the outer capture back even when `f` panics.
    struct Restore(Option<Vec<Captured>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            LINES.with(|l| *l.borrow_mut() = outer);
        }
    }
    let outer = LINES.with(|l| l.borrow_mut().replace(Vec::new()));
    let restore = Restore(outer);
    let r = f();
    let lines = LINES.with(|l| l.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    (r, lines)
}

/// Records one laid-out line of `table` when a capture is running.
pub(super) fn record(table: &Table, header: bool, cells: &[String], text: &str) {
    LINES.with(|l| {
        if let Some(lines) = l.borrow_mut().as_mut() {
            let aligns = (0..cells.len())
                .map(|i| table.columns.get(i).map_or(Align::Left, |c| c.align))
                .collect();
            lines.push(Captured {
                header,
                cells: cells.to_vec(),
                aligns,
                text: text.to_string(),
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_recorded_outside_a_capture_and_captures_nest() {
        let t = Table::new().left("a", 2).right("b", 3);
        let _ = t.line(&[&"x", &1]);
        let (inner, outer) = capture(|| {
            let _ = t.header_line();
            let ((), inner) = capture(|| {
                let _ = t.line(&[&"y", &2, &"tail"]);
            });
            let _ = t.line(&[&"z", &3]);
            inner
        });
        assert_eq!(inner.len(), 1);
        assert_eq!(inner[0].aligns, [Align::Left, Align::Right, Align::Left]);
        let cells: Vec<&[String]> = outer.iter().map(|c| c.cells.as_slice()).collect();
        assert_eq!(cells, [&["a", "b"][..], &["z", "3"][..]]);
        assert_eq!(capture(|| ()).1, []);
    }
}
