//! The report's text as the page's blocks: paragraphs, and tables made from the headers and
//! rows a [`crate::table::Table`] laid out while the text was printed
//! ([`crate::table::capture`]). A printed line that starts with a captured line is that
//! header or row (what follows it on the line is one more cell); an indented line under a
//! row is a note of it; a blank line or any other line ends the table.

use crate::table::{Align, Captured};

use super::data_table::{DataRow, DataTable};

/// A block of the page's tables section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A paragraph: the report's lines between two tables or blank lines.
    Text(Vec<String>),
    /// A table.
    Table(DataTable),
}

/// Builds the blocks as they come.
#[derive(Default)]
struct Builder {
    blocks: Vec<Block>,
    paragraph: Vec<String>,
    table: Option<DataTable>,
}

impl Builder {
    fn end_paragraph(&mut self) {
        if !self.paragraph.is_empty() {
            self.blocks
                .push(Block::Text(std::mem::take(&mut self.paragraph)));
        }
    }

    fn end_table(&mut self) {
        if let Some(t) = self.table.take() {
            self.blocks.push(Block::Table(t));
        }
    }

    fn captured(&mut self, c: &Captured, tail: &str) {
        let mut cells = c.cells.clone();
        let mut aligns = c.aligns.clone();
        if !tail.is_empty() {
            cells.push(tail.to_string());
            aligns.push(Align::Left);
        }
        self.end_paragraph();
        if c.header {
            self.end_table();
            self.table = Some(DataTable {
                columns: cells.into_iter().zip(aligns).collect(),
                rows: Vec::new(),
            });
            return;
        }
        let table = self.table.get_or_insert_with(|| DataTable {
            columns: aligns.iter().map(|a| (String::new(), *a)).collect(),
            rows: Vec::new(),
        });
        if table.columns.iter().all(|c| c.0.is_empty()) && table.columns.len() < aligns.len() {
            table.columns = aligns.iter().map(|a| (String::new(), *a)).collect();
        }
        table.rows.push(DataRow::Cells(cells));
    }

    fn text(&mut self, line: &str) {
        let text = line.trim();
        if text.is_empty() {
            self.end_table();
            self.end_paragraph();
            return;
        }
        let under_a_row = self
            .table
            .as_ref()
            .is_some_and(|t| !t.rows.is_empty() && line.starts_with(char::is_whitespace));
        match (&mut self.table, under_a_row) {
            (Some(t), true) => t.rows.push(DataRow::Note(text.to_string())),
            _ => {
                self.end_table();
                self.paragraph.push(text.to_string());
            }
        }
    }
}

/// The blocks of `text`, whose tables' headers and rows are `captured` (in printed order).
pub fn blocks(text: &str, captured: &[Captured]) -> Vec<Block> {
    let mut b = Builder::default();
    let mut next = 0;
    for line in text.lines() {
        let found = captured[next.min(captured.len())..]
            .iter()
            .position(|c| !c.text.trim().is_empty() && line.starts_with(&c.text));
        match found {
            Some(k) => {
                let c = &captured[next + k];
                next += k + 1;
                b.captured(c, line[c.text.len()..].trim());
            }
            None => b.text(line),
        }
    }
    b.end_table();
    b.end_paragraph();
    b.blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{capture, Table};

    /// Prints a small report the way the reports do, capturing its tables.
    fn printed() -> (String, Vec<Captured>) {
        let t = Table::new().left("transport", 9).right("p50", 6).unit("ms");
        let ((), lines) = capture(|| {
            let _ = t.line(&[&"unprinted", &0]);
        });
        assert_eq!(lines.len(), 1);
        let mut out = String::from("Workload search\n");
        let ((), lines) = capture(|| {
            out += &format!("{}  verdict\n", t.header_line());
            out += &format!("{}  fast\n", t.line(&[&"pooled", &"1.50"]));
            out += "          open loop: 4 late starts\n";
            out += &format!("{}\n", t.line(&[&"fresh", &"-"]));
            out += "warning: x\n\n";
            out += &format!("{}\n", t.line(&[&"alone", &2]));
        });
        (out, lines)
    }

    #[test]
    fn tables_come_from_the_captured_lines_with_their_tails_and_notes() {
        let (text, captured) = printed();
        let b = blocks(&text, &captured);
        let right = |s: &str| (s.to_string(), Align::Right);
        let left = |s: &str| (s.to_string(), Align::Left);
        let cells = |c: &[&str]| DataRow::Cells(c.iter().map(|s| s.to_string()).collect());
        assert_eq!(
            b,
            [
                Block::Text(vec!["Workload search".into()]),
                Block::Table(DataTable {
                    columns: vec![left("transport"), right("p50 ms"), left("verdict")],
                    rows: vec![
                        cells(&["pooled", "1.50", "fast"]),
                        DataRow::Note("open loop: 4 late starts".into()),
                        cells(&["fresh", "-"]),
                    ],
                }),
                Block::Text(vec!["warning: x".into()]),
                Block::Table(DataTable {
                    columns: vec![left(""), right("")],
                    rows: vec![cells(&["alone", "2"])],
                }),
            ]
        );
    }

    #[test]
    fn text_without_tables_is_paragraphs() {
        assert_eq!(
            blocks("a\n b\n\nc\n", &[]),
            [
                Block::Text(vec!["a".into(), "b".into()]),
                Block::Text(vec!["c".into()])
            ]
        );
    }
}
