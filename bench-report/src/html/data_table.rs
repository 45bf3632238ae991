//! The page's HTML tables: a header row, one `<tr>` per row, figures right-aligned
//! (`class="num"`), notes spanning the whole row, and headers that sort the rows when
//! clicked ([`SORT_SCRIPT`], the page's only script, inline).

use std::fmt::Write as _;

use crate::chart::esc;
use crate::table::Align;

use super::Grid;

/// One line of a table's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataRow {
    /// A row of cells, one per column.
    Cells(Vec<String>),
    /// A note the report printed under the row before it (it moves with that row when the
    /// table is sorted).
    Note(String),
}

/// A table of the page: titles with their alignment, and rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataTable {
    /// Column titles (with their units), each with the alignment of its column: right for
    /// figures.
    pub columns: Vec<(String, Align)>,
    /// The rows and notes, in the report's order.
    pub rows: Vec<DataRow>,
}

/// Sorts a table's rows (with their notes) by the clicked header: figures by value, a cell
/// that is no figure (`-`, `n/a`) last; a second click reverses.
pub const SORT_SCRIPT: &str = r#"<script>
for (const th of document.querySelectorAll("table.data thead th")) {
  th.addEventListener("click", () => {
    const table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
    const asc = th.dataset.sort !== "asc", num = th.classList.contains("num");
    for (const h of table.tHead.rows[0].cells) delete h.dataset.sort;
    th.dataset.sort = asc ? "asc" : "desc";
    const groups = [];
    for (const tr of Array.from(body.rows)) {
      if (tr.classList.contains("note") && groups.length) groups[groups.length - 1].push(tr);
      else groups.push([tr]);
    }
    const key = g => {
      const c = g[0].cells[i], t = c && !g[0].classList.contains("note") ? c.textContent.trim() : "";
      if (!num) return t === "" ? null : t;
      const n = parseFloat(t);
      return Number.isNaN(n) ? null : n;
    };
    groups.sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === null || y === null) return (x === null) - (y === null);
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    for (const tr of groups.flat()) body.appendChild(tr);
  });
}
</script>"#;

impl DataTable {
    /// The witnesses' grid as a table: a column is right-aligned when every non-empty cell
    /// of it is a number.
    pub fn from_grid(g: &Grid) -> Self {
        let columns = g
            .columns
            .iter()
            .enumerate()
            .map(|(i, title)| {
                let mut cells = g
                    .rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .filter(|c| !c.is_empty());
                let num = i > 0 && cells.all(|c| c.parse::<f64>().is_ok());
                (title.clone(), if num { Align::Right } else { Align::Left })
            })
            .collect();
        let rows = g.rows.iter().cloned().map(DataRow::Cells).collect();
        Self { columns, rows }
    }

    /// How many columns the table needs: its titles, or its widest row.
    fn width(&self) -> usize {
        let widest = self.rows.iter().map(|r| match r {
            DataRow::Cells(c) => c.len(),
            DataRow::Note(_) => 1,
        });
        widest.chain([self.columns.len()]).max().unwrap_or(0)
    }

    fn align(&self, i: usize) -> Align {
        self.columns.get(i).map_or(Align::Left, |c| c.1)
    }

    /// The table as HTML, in a box that scrolls sideways when it is wider than the page.
    pub fn render(&self, h: &mut String) {
        let width = self.width();
        let class = |i: usize| match self.align(i) {
            Align::Right => " class=\"num\"",
            Align::Left => "",
        };
        h.push_str("<div class=\"scroll\"><table class=\"data\">\n");
        if self.columns.iter().any(|c| !c.0.is_empty()) {
            h.push_str("<thead><tr>");
            for i in 0..width {
                let title = self.columns.get(i).map_or("", |c| c.0.as_str());
                let _ = write!(h, "<th{}>{}</th>", class(i), esc(title));
            }
            h.push_str("</tr></thead>\n");
        }
        h.push_str("<tbody>\n");
        for row in &self.rows {
            match row {
                DataRow::Cells(cells) => {
                    h.push_str("<tr>");
                    for i in 0..width {
                        let cell = cells.get(i).map_or("", String::as_str);
                        let _ = write!(h, "<td{}>{}</td>", class(i), esc(cell));
                    }
                    h.push_str("</tr>\n");
                }
                DataRow::Note(text) => {
                    let _ = writeln!(
                        h,
                        "<tr class=\"note\"><td colspan=\"{width}\">{}</td></tr>",
                        esc(text)
                    );
                }
            }
        }
        h.push_str("</tbody>\n</table></div>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_carry_the_num_class_and_notes_span_the_row() {
        let t = DataTable {
            columns: vec![
                ("transport".into(), Align::Left),
                ("p50 ms".into(), Align::Right),
            ],
            rows: vec![
                DataRow::Cells(vec!["pooled".into(), "1.50".into(), "slow!".into()]),
                DataRow::Note("open loop <late>".into()),
            ],
        };
        let mut h = String::new();
        t.render(&mut h);
        assert!(h.contains(
            "<thead><tr><th>transport</th><th class=\"num\">p50 ms</th><th></th></tr></thead>"
        ));
        assert!(h.contains("<tr><td>pooled</td><td class=\"num\">1.50</td><td>slow!</td></tr>"));
        assert!(h.contains("<tr class=\"note\"><td colspan=\"3\">open loop &lt;late&gt;</td></tr>"));
    }

    #[test]
    fn a_grid_column_of_numbers_is_right_aligned() {
        let g = Grid {
            columns: vec![
                "item".into(),
                "connector".into(),
                "pcap".into(),
                "scope".into(),
            ],
            rows: vec![
                vec!["fresh".into(), "20".into(), "".into(), "netns".into()],
                vec!["pooled".into(), "1".into(), "1".into(), "host".into()],
            ],
        };
        let aligns: Vec<Align> = DataTable::from_grid(&g)
            .columns
            .iter()
            .map(|c| c.1)
            .collect();
        assert_eq!(
            aligns,
            [Align::Left, Align::Right, Align::Right, Align::Left]
        );
    }
}
