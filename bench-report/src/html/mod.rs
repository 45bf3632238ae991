//! The run's page: a self-contained `index.html` a person opens, in this order: the verdict
//! (first, prominent) with the findings linked to their explanation, the run's parameters,
//! the tables, the charts inline, and the witnesses.
//!
//! Self-contained means: CSS inline, every SVG inline (without its `xmlns` URL), one small
//! inline script (clicking a table's header sorts its rows, [`SORT_SCRIPT`]), no external
//! URL; the only links are relative ones (the run's own files, the docs). The tables are
//! HTML tables built from the same headers and rows the text report prints ([`blocks`]),
//! figures right-aligned; the page fits a 1,280-pixel window (a table wider than the page
//! scrolls in its own box, charts shrink to the page's width).
//!
//! ```
//! use bench_report::html::{blocks, Finding, Page};
//! use bench_report::table::{capture, Table};
//! let t = Table::new().left("transport", 9).right("p50", 6);
//! let (text, rows) = capture(|| format!("{}\n{}\n", t.header_line(), t.line(&[&"pooled", &"1.5"])));
//! let page = Page {
//!     title: "study".into(),
//!     verdict: "pooled <wins>".into(),
//!     findings: vec![Finding { text: "capture dropped packets".into(), href: "#tables".into() }],
//!     tables: blocks(&text, &rows),
//!     ..Page::default()
//! };
//! let html = page.render();
//! assert!(html.starts_with("<!DOCTYPE html>") && html.contains("pooled &lt;wins&gt;"));
//! assert!(html.contains("<td>pooled</td><td class=\"num\">1.5</td>"));
//! assert!(!html.contains("http") && html.matches("<script>").count() == 1);
//! ```

mod blocks;
mod data_table;
mod extract;
mod parameters;

use std::fmt::Write as _;

pub use blocks::{blocks, Block};
pub use data_table::{DataRow, DataTable, SORT_SCRIPT};
pub use extract::{docs_link, page_from_json, witness_rows};
pub use parameters::{parameters, value_text};

use crate::chart::esc;

/// The file every run folder holds beside `run.json`.
pub const INDEX: &str = "index.html";

/// A titled SVG document (a chart).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    /// Heading.
    pub title: String,
    /// The SVG markup.
    pub body: String,
}

/// A finding or warning and the relative link (into the docs, or an anchor) explaining it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Finding {
    /// What was found.
    pub text: String,
    /// Where it is explained: a relative path or `#anchor`.
    pub href: String,
}

/// Witness counts: a header and one row per measured item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grid {
    /// Column titles.
    pub columns: Vec<String>,
    /// Rows, as many cells as columns.
    pub rows: Vec<Vec<String>>,
}

/// Everything `index.html` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// The page title (the run's kind and folder).
    pub title: String,
    /// The one-line verdict.
    pub verdict: String,
    /// Findings and warnings, each linked to its explanation.
    pub findings: Vec<Finding>,
    /// The run's parameters, `(name, value)` ([`parameters`]).
    pub parameters: Vec<(String, String)>,
    /// The report's text and tables, in order ([`blocks`]).
    pub tables: Vec<Block>,
    /// SVG charts.
    pub charts: Vec<Section>,
    /// What the witnesses counted.
    pub witnesses: Grid,
    /// Other files of the run folder, linked at the end.
    pub files: Vec<String>,
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
h1{font-size:1.4em;overflow-wrap:anywhere}h2{font-size:1.15em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}\
#verdict{font-size:1.25em;font-weight:bold;background:#e8f1fb;border-left:6px solid #1e88e5;padding:.8em 1em;overflow-wrap:anywhere}\
p,li{overflow-wrap:anywhere}.scroll{max-width:100%;overflow-x:auto;margin:.5em 0 1.2em}\
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}\
th{background:#f2f2f2;white-space:nowrap}.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
table.data thead th{cursor:pointer}th[data-sort=asc]::after{content:\" \\25B2\"}th[data-sort=desc]::after{content:\" \\25BC\"}\
tr.note td{color:#555;font-style:italic;background:#fafafa}table.params td{overflow-wrap:anywhere}\
figure{margin:1em 0;max-width:100%}svg{max-width:100%;height:auto;display:block}";

impl Page {
    /// The whole `index.html`.
    pub fn render(&self) -> String {
        let mut h = String::new();
        let _ = write!(
            h,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
            esc(&self.title),
            esc(&self.title)
        );
        self.verdict_html(&mut h);
        self.parameters_html(&mut h);
        self.tables_html(&mut h);
        sections_html(&mut h, "charts", "Charts", &self.charts, inline_svg);
        self.witnesses_html(&mut h);
        self.files_html(&mut h);
        h.push_str(SORT_SCRIPT);
        h.push_str("\n</body>\n</html>\n");
        h
    }

    fn verdict_html(&self, h: &mut String) {
        let _ = writeln!(h, "<p id=\"verdict\">{}</p>", esc(&self.verdict));
        if self.findings.is_empty() {
            return;
        }
        h.push_str("<ul id=\"findings\">\n");
        for f in &self.findings {
            let _ = writeln!(
                h,
                "<li>{} (<a href=\"{}\">explained</a>)</li>",
                esc(&f.text),
                esc(&f.href)
            );
        }
        h.push_str("</ul>\n");
    }

    fn parameters_html(&self, h: &mut String) {
        h.push_str("<h2 id=\"parameters\">Parameters</h2>\n<table class=\"params\">\n");
        for (k, v) in &self.parameters {
            let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
        }
        h.push_str("</table>\n");
    }

    fn tables_html(&self, h: &mut String) {
        h.push_str("<h2 id=\"tables\">Tables</h2>\n");
        for b in &self.tables {
            match b {
                Block::Text(lines) => {
                    let lines: Vec<String> = lines.iter().map(|l| esc(l)).collect();
                    let _ = writeln!(h, "<p>{}</p>", lines.join("<br>\n"));
                }
                Block::Table(t) => t.render(h),
            }
        }
    }

    fn witnesses_html(&self, h: &mut String) {
        h.push_str("<h2 id=\"witnesses\">Witnesses</h2>\n");
        if self.witnesses.rows.is_empty() {
            h.push_str("<p>This run kind records no witness counts.</p>\n");
            return;
        }
        DataTable::from_grid(&self.witnesses).render(h);
    }

    fn files_html(&self, h: &mut String) {
        if self.files.is_empty() {
            return;
        }
        h.push_str("<h2 id=\"files\">Files</h2>\n<ul>\n");
        for f in &self.files {
            let _ = writeln!(h, "<li><a href=\"{0}\">{0}</a></li>", esc(f));
        }
        h.push_str("</ul>\n");
    }
}

fn sections_html(h: &mut String, id: &str, title: &str, s: &[Section], body: fn(&str) -> String) {
    let _ = writeln!(h, "<h2 id=\"{id}\">{title}</h2>");
    for x in s {
        let _ = writeln!(
            h,
            "<figure>\n<figcaption>{}</figcaption>\n{}\n</figure>",
            esc(&x.title),
            body(&x.body)
        );
    }
}

/// An SVG document as inline HTML: the XML declaration and the `xmlns` URL dropped (HTML
/// knows `svg`), so the page holds no URL.
fn inline_svg(svg: &str) -> String {
    let svg = svg.trim();
    let svg = match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(svg, |(_, r)| r.trim_start()),
        None => svg,
    };
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> Page {
        Page {
            title: "study <run>".into(),
            verdict: "pooled is 3x faster".into(),
            findings: vec![Finding {
                text: "1 warning".into(),
                href: "../../docs/commands/study.md".into(),
            }],
            parameters: vec![("docs".into(), "1000".into())],
            tables: vec![
                Block::Text(vec!["a < b".into()]),
                Block::Table(DataTable {
                    columns: vec![("n".into(), crate::table::Align::Right)],
                    rows: vec![DataRow::Cells(vec!["3".into()])],
                }),
            ],
            charts: vec![Section {
                title: "p.svg".into(),
                body: crate::chart::LineChart::new("p50").render(),
            }],
            witnesses: Grid {
                columns: vec!["transport".into(), "connector".into()],
                rows: vec![vec!["fresh".into(), "20".into()]],
            },
            files: vec!["summary.json".into()],
        }
    }

    #[test]
    fn sections_come_in_order_and_text_is_escaped() {
        let h = page().render();
        let at = |s: &str| h.find(s).unwrap_or_else(|| panic!("{s} missing"));
        assert!(at("id=\"verdict\"") < at("id=\"parameters\""));
        assert!(at("id=\"parameters\"") < at("id=\"tables\""));
        assert!(at("id=\"tables\"") < at("id=\"charts\""));
        assert!(at("id=\"charts\"") < at("id=\"witnesses\""));
        assert!(h.contains("<p>a &lt; b</p>") && h.contains("study &lt;run&gt;"));
        assert!(h.contains("<td class=\"num\">3</td>"));
        assert!(h.contains("<a href=\"../../docs/commands/study.md\">explained</a>"));
        assert_eq!(h.matches("<svg").count(), 1);
        assert!(!h.contains("http") && !h.contains("<script src"));
        assert_eq!(
            h.matches("<script>").count(),
            1,
            "the sorting script, inline"
        );
        assert!(h.contains("<td>fresh</td><td class=\"num\">20</td>"));
    }

    #[test]
    fn inline_svg_drops_the_declaration_and_namespace() {
        let s = inline_svg(
            "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\"></svg>",
        );
        assert_eq!(s, "<svg width=\"1\"></svg>");
    }
}
