//! One text-table writer for every printed report: columns with a width and an alignment,
//! an optional unit shown in the header, a header line, a rule, and rows, printed into any
//! [`std::io::Write`].
//!
//! A cell wider than its column pushes the rest of the row right (like `format!("{:>9}")`),
//! so a table never truncates a figure. Columns are separated by one space; the last column
//! is padded too, so a row prints exactly as `format!("{:<6} {:>9}", a, b)` would.
//!
//! ```
//! use bench_report::table::Table;
//! let t = Table::new().left("format", 6).right("seconds", 9).unit("s");
//! let mut out = Vec::new();
//! t.header(&mut out).unwrap();
//! t.row(&mut out, &[&"json", &format!("{:.2}", 1.5)]).unwrap();
//! assert_eq!(String::from_utf8(out).unwrap(), "format seconds s\njson        1.50\n");
//! ```

use std::fmt::Display;
use std::io::{self, Write};

mod capture;

pub use capture::{capture, Captured};

/// Where a cell sits in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Padded on the right (names).
    Left,
    /// Padded on the left (figures).
    Right,
}

/// One column: title, minimum width, alignment and an optional unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Header text.
    pub title: String,
    /// Minimum width in characters; wider cells are printed whole.
    pub width: usize,
    /// Alignment of the title and of every cell.
    pub align: Align,
    /// Unit appended to the title in the header (`"p50 ms"`); none by default.
    pub unit: Option<String>,
}

/// A text table: a list of columns and an indent, printing a header, rules and rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct Table {
    columns: Vec<Column>,
    indent: String,
}

impl Table {
    /// An empty table (no columns, no indent).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a left-aligned column `width` characters wide.
    pub fn left(self, title: impl Into<String>, width: usize) -> Self {
        self.column(title, width, Align::Left)
    }

    /// Adds a right-aligned column `width` characters wide.
    pub fn right(self, title: impl Into<String>, width: usize) -> Self {
        self.column(title, width, Align::Right)
    }

    /// Adds a column.
    pub fn column(mut self, title: impl Into<String>, width: usize, align: Align) -> Self {
        self.columns.push(Column {
            title: title.into(),
            width,
            align,
            unit: None,
        });
        self
    }

    /// Sets the unit of the last column added, shown after its title in the header.
    pub fn unit(mut self, unit: impl Into<String>) -> Self {
        if let Some(c) = self.columns.last_mut() {
            c.unit = Some(unit.into());
        }
        self
    }

    /// Text printed before every line (header, rule and rows); empty by default.
    pub fn indent(mut self, indent: impl Into<String>) -> Self {
        self.indent = indent.into();
        self
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Prints the titles (with their units) as one line.
    pub fn header<W: Write>(&self, w: &mut W) -> io::Result<()> {
        writeln!(w, "{}", self.header_line())
    }

    /// The header as a string, without the newline (for a line that goes on after it).
    pub fn header_line(&self) -> String {
        let titles: Vec<String> = self
            .columns
            .iter()
            .map(|c| match &c.unit {
                Some(u) => format!("{} {u}", c.title),
                None => c.title.clone(),
            })
            .collect();
        let text = self.layout(&titles);
        capture::record(self, true, &titles, &text);
        text
    }

    /// Prints a rule of `ch` as wide as the table's columns and separators.
    pub fn rule<W: Write>(&self, w: &mut W, ch: char) -> io::Result<()> {
        let width = self.columns.iter().map(|c| c.width).sum::<usize>()
            + self.columns.len().saturating_sub(1);
        let line: String = std::iter::repeat_n(ch, width).collect();
        writeln!(w, "{}{line}", self.indent)
    }

    /// Prints one row. Cells beyond the last column are printed unpadded; missing cells are
    /// left out (the line ends early).
    pub fn row<W: Write>(&self, w: &mut W, cells: &[&dyn Display]) -> io::Result<()> {
        writeln!(w, "{}", self.line(cells))
    }

    /// Prints one row of cells of one type (a `Vec<String>` built in a loop, say).
    pub fn row_iter<W: Write, D: Display>(
        &self,
        w: &mut W,
        cells: impl IntoIterator<Item = D>,
    ) -> io::Result<()> {
        let cells: Vec<D> = cells.into_iter().collect();
        let refs: Vec<&dyn Display> = cells.iter().map(|c| c as &dyn Display).collect();
        self.row(w, &refs)
    }

    /// One row as a string, without the newline.
    pub fn line(&self, cells: &[&dyn Display]) -> String {
        let cells: Vec<String> = cells.iter().map(ToString::to_string).collect();
        let text = self.layout(&cells);
        capture::record(self, false, &cells, &text);
        text
    }

    /// `cells` padded to their columns, after the indent.
    fn layout(&self, cells: &[String]) -> String {
        let mut out = self.indent.clone();
        for (i, text) in cells.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            match self.columns.get(i) {
                Some(c) => match c.align {
                    Align::Left => out.push_str(&format!("{text:<width$}", width = c.width)),
                    Align::Right => out.push_str(&format!("{text:>width$}", width = c.width)),
                },
                None => out.push_str(text),
            }
        }
        out
    }
}

/// One column of a table over records of type `T`, declared once: its title, width,
/// alignment, and the cell a record prints in it. A table is then a `const` list of fields:
///
/// ```
/// use bench_report::table::{Field, RecordTable};
/// struct Row { name: &'static str, ms: f64 }
/// const FIELDS: &[Field<Row>] = &[
///     Field::left("name", 6, |r| r.name.to_string()),
///     Field::right("ms", 6, |r| format!("{:.1}", r.ms)),
/// ];
/// let mut out = Vec::new();
/// RecordTable::new(FIELDS).print(&mut out, &[Row { name: "a", ms: 1.25 }]).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "name       ms\na         1.2\n");
/// ```
pub struct Field<T> {
    /// Header text.
    pub title: &'static str,
    /// Minimum width in characters; wider cells are printed whole.
    pub width: usize,
    /// Alignment of the title and of every cell.
    pub align: Align,
    /// The cell text of one record.
    pub cell: fn(&T) -> String,
}

impl<T> Field<T> {
    /// A left-aligned field `width` characters wide.
    pub const fn left(title: &'static str, width: usize, cell: fn(&T) -> String) -> Self {
        Self {
            title,
            width,
            align: Align::Left,
            cell,
        }
    }

    /// A right-aligned field `width` characters wide.
    pub const fn right(title: &'static str, width: usize, cell: fn(&T) -> String) -> Self {
        Self {
            title,
            width,
            align: Align::Right,
            cell,
        }
    }
}

impl<T> std::fmt::Debug for Field<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Field")
            .field("title", &self.title)
            .field("width", &self.width)
            .field("align", &self.align)
            .finish_non_exhaustive()
    }
}

/// A [`Table`] laid out from a list of [`Field`]s, printing a record per row.
#[must_use]
pub struct RecordTable<'a, T> {
    table: Table,
    fields: &'a [Field<T>],
}

impl<T> std::fmt::Debug for RecordTable<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordTable")
            .field("table", &self.table)
            .finish_non_exhaustive()
    }
}

impl<'a, T> RecordTable<'a, T> {
    /// The table of `fields`, in order.
    pub fn new(fields: &'a [Field<T>]) -> Self {
        let table = fields
            .iter()
            .fold(Table::new(), |t, f| t.column(f.title, f.width, f.align));
        Self { table, fields }
    }

    /// Sets the width of column `index` (a name column sized to the longest name, say).
    pub fn width(mut self, index: usize, width: usize) -> Self {
        if let Some(c) = self.table.columns.get_mut(index) {
            c.width = width;
        }
        self
    }

    /// The layout, for a header or rule printed on its own.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// One record's row as a string, without the newline.
    pub fn line(&self, record: &T) -> String {
        let cells: Vec<String> = self.fields.iter().map(|f| (f.cell)(record)).collect();
        let refs: Vec<&dyn Display> = cells.iter().map(|c| c as &dyn Display).collect();
        self.table.line(&refs)
    }

    /// Prints one record's row.
    pub fn row<W: Write>(&self, w: &mut W, record: &T) -> io::Result<()> {
        writeln!(w, "{}", self.line(record))
    }

    /// Prints the header, then a row per record.
    pub fn print<'r, W: Write>(
        &self,
        w: &mut W,
        records: impl IntoIterator<Item = &'r T>,
    ) -> io::Result<()>
    where
        T: 'r,
    {
        self.table.header(w)?;
        records.into_iter().try_for_each(|r| self.row(w, r))
    }
}

/// A table cell for an optional figure: `v` with `prec` decimals, or `-` when there is none.
pub fn fixed(v: Option<f64>, prec: usize) -> String {
    v.map(|x| format!("{x:.prec$}"))
        .unwrap_or_else(|| "-".into())
}

/// The closing lines every text report ends with: one `warning: ...` line per warning, then
/// `between` when given (a blank line, or how long the run took), then the verdict.
pub fn print_ending<W: Write>(
    w: &mut W,
    warnings: &[String],
    between: Option<&str>,
    verdict: &str,
) -> io::Result<()> {
    for warning in warnings {
        writeln!(w, "warning: {warning}")?;
    }
    if let Some(line) = between {
        writeln!(w, "{line}")?;
    }
    writeln!(w, "{verdict}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(f: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        f(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn rows_print_as_format_would() {
        let t = Table::new()
            .left("transport", 14)
            .right("n", 6)
            .right("p50", 8);
        let got = printed(|w| t.row(w, &[&"pooled", &200, &format!("{:.2}", 1.234)]));
        let want = format!(
            "{:<14} {:>6} {:>8}\n",
            "pooled",
            200,
            format!("{:.2}", 1.234)
        );
        assert_eq!(got, want);
        assert_eq!(
            printed(|w| t.header(w)),
            format!("{:<14} {:>6} {:>8}\n", "transport", "n", "p50")
        );
    }

    #[test]
    fn wide_cells_are_never_truncated_and_units_go_to_the_header() {
        let t = Table::new().right("bytes", 3).unit("B").left("x", 2);
        assert_eq!(printed(|w| t.header(w)), "bytes B x \n");
        assert_eq!(printed(|w| t.row(w, &[&123456, &"y"])), "123456 y \n");
    }

    #[test]
    fn missing_figures_print_as_a_dash() {
        assert_eq!(fixed(Some(1.256), 2), "1.26");
        assert_eq!(fixed(None, 2), "-");
    }

    #[test]
    fn indent_rule_and_extra_cells() {
        let t = Table::new().indent("  ").left("a", 3).right("b", 4);
        assert_eq!(printed(|w| t.rule(w, '-')), "  --------\n");
        assert_eq!(
            printed(|w| t.row(w, &[&"x", &1, &"tail"])),
            "  x      1 tail\n"
        );
        assert_eq!(printed(|w| t.row(w, &[&"x"])), "  x  \n");
        assert_eq!(
            printed(|w| t.row_iter(w, ["ab", "cd"])),
            printed(|w| t.row(w, &[&"ab", &"cd"]))
        );
    }

    #[test]
    fn the_ending_lists_warnings_then_the_line_then_the_verdict() {
        let warnings = vec!["a failed".to_string(), "b slow".to_string()];
        assert_eq!(
            printed(|w| print_ending(w, &warnings, Some(""), "fine")),
            "warning: a failed\nwarning: b slow\n\nfine\n"
        );
        assert_eq!(
            printed(|w| print_ending(w, &[], Some("took 1.0 s"), "ok")),
            "took 1.0 s\nok\n"
        );
        assert_eq!(
            printed(|w| print_ending(w, &warnings[..1], None, "v")),
            "warning: a failed\nv\n"
        );
    }

    #[test]
    fn a_record_table_prints_as_the_same_columns_would() {
        const FIELDS: &[Field<(u32, f64)>] = &[
            Field::left("id", 2, |r| r.0.to_string()),
            Field::right("ms", 7, |r| fixed(Some(r.1), 2)),
        ];
        let records = [(7, 1.5), (12345, 0.125)];
        let by_hand = Table::new().left("id", 4).right("ms", 7);
        let mut want = printed(|w| by_hand.header(w));
        for (id, ms) in records {
            want += &printed(|w| by_hand.row(w, &[&id, &fixed(Some(ms), 2)]));
        }
        let t = RecordTable::new(FIELDS).width(0, 4);
        assert_eq!(printed(|w| t.print(w, &records)), want);
        assert_eq!(t.line(&records[1]), "12345    0.12");
        assert_eq!(t.table().columns()[0].width, 4);
    }
}
