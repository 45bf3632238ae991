//! A [`Page`] from what every run folder has: the report's JSON, its text report (whose last
//! line is the verdict) with the table lines captured while it printed, its SVG charts and
//! its other files. Parameters come from the JSON ([`super::parameters`]); findings are its
//! `warnings` and `findings`; witnesses are every `witnesses` object in it, one row each.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::parameters::{parameters, scalar};
use super::{blocks, Finding, Grid, Page, Section, INDEX};
use crate::table::Captured;

/// Sibling keys naming the item a `witnesses` object belongs to.
const ITEM_NAMES: [&str; 5] = ["scenario", "transport", "name", "label", "cache"];

/// The page of a run of kind `kind` saved in `dir`, from its report `json`, its `text` and
/// the headers and rows its tables laid out while it printed ([`crate::table::capture`]).
pub fn page_from_json(
    kind: &str,
    dir: &Path,
    json: &Value,
    text: &str,
    captured: &[Captured],
) -> Page {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let last = lines.last().copied().unwrap_or_default();
    let verdict = match json.get("verdict").and_then(Value::as_str) {
        Some(v) if !v.is_empty() => v.to_string(),
        _ => last.trim().to_string(),
    };
    let body = match lines.split_last() {
        Some((l, rest)) if l.trim() == verdict => rest.join("\n"),
        _ => lines.join("\n"),
    };
    let folder = dir
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let (charts, files) = folder_files(dir);
    Page {
        title: format!("{kind} run {folder}"),
        verdict,
        findings: findings(json, &docs_link(dir, kind)),
        parameters: parameters(json),
        tables: blocks(&body, captured),
        charts,
        witnesses: witness_rows(json),
        files,
    }
}

/// A relative link from `dir` to `docs/commands/<kind>.md` of the checkout holding `dir`;
/// `#tables` (the report's own explanation) when `dir` is not inside one.
pub fn docs_link(dir: &Path, kind: &str) -> String {
    let Ok(dir) = dir.canonicalize() else {
        return "#tables".into();
    };
    for (depth, a) in dir.ancestors().enumerate() {
        let page = a.join("docs").join("commands").join(format!("{kind}.md"));
        if page.is_file() {
            return format!("{}docs/commands/{kind}.md", "../".repeat(depth));
        }
    }
    "#tables".into()
}

fn findings(json: &Value, href: &str) -> Vec<Finding> {
    let warnings = json.get("warnings").and_then(Value::as_array);
    let found = json.get("findings").and_then(Value::as_array);
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("what").and_then(Value::as_str).map(str::to_string),
        _ => None,
    };
    warnings
        .into_iter()
        .chain(found)
        .flatten()
        .filter_map(text)
        .map(|text| Finding {
            text,
            href: href.into(),
        })
        .collect()
}

/// One row per `witnesses` object anywhere in `json`, named by its item's name fields.
pub fn witness_rows(json: &Value) -> Grid {
    let mut found: Vec<(String, &Map<String, Value>)> = Vec::new();
    collect_witnesses(json, &mut found);
    let mut columns = vec!["item".to_string()];
    for (_, w) in &found {
        for (k, v) in w.iter() {
            if scalar(v).is_some() && !columns.contains(k) {
                columns.push(k.clone());
            }
        }
    }
    let rows = found
        .iter()
        .map(|(name, w)| {
            let cells = columns[1..]
                .iter()
                .map(|c| w.get(c).and_then(scalar).unwrap_or_default());
            std::iter::once(name.clone()).chain(cells).collect()
        })
        .collect();
    Grid { columns, rows }
}

fn collect_witnesses<'a>(v: &'a Value, out: &mut Vec<(String, &'a Map<String, Value>)>) {
    match v {
        Value::Object(o) => {
            if let Some(w) = o.get("witnesses").and_then(Value::as_object) {
                let name: Vec<&str> = ITEM_NAMES
                    .iter()
                    .filter_map(|k| o.get(*k)?.as_str())
                    .collect();
                out.push((name.join(" "), w));
            }
            o.iter()
                .filter(|(k, _)| *k != "witnesses")
                .for_each(|(_, x)| collect_witnesses(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_witnesses(x, out)),
        _ => {}
    }
}

/// The folder's charts (every `.svg`, by name) and its other files, `index.html` and
/// `index.png` excepted.
fn folder_files(dir: &Path) -> (Vec<Section>, Vec<String>) {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    let (mut charts, mut files) = (Vec::new(), Vec::new());
    for p in paths {
        let name = p
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        if name == INDEX || name == "index.png" {
            continue;
        }
        match (
            p.extension().and_then(|e| e.to_str()),
            std::fs::read_to_string(&p),
        ) {
            (Some("svg"), Ok(body)) => charts.push(Section { title: name, body }),
            _ => files.push(name),
        }
    }
    (charts, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Value {
        serde_json::json!({
            "schema_version": 3,
            "url": "http://user:secret@127.0.0.1:8983/solr/bench",
            "settings": {"docs": 1000, "searches": [1, 2], "nested": {"a": 1}},
            "transports": [
                {"scenario": "search", "transport": "fresh", "witnesses": {"connector": 20, "pcap_syns": 20}},
                {"scenario": "search", "transport": "pooled", "witnesses": {"connector": 1, "pcap_syns": null}}
            ],
            "warnings": ["capture dropped 3 packets"],
            "verdict": "pooled wins"
        })
    }

    #[test]
    fn parameters_findings_and_witnesses_come_from_the_json() {
        let dir = std::env::temp_dir().join(format!("html-extract-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.svg"), "<svg width=\"1\" height=\"1\"></svg>").unwrap();
        std::fs::write(dir.join("a.csv"), "x\n").unwrap();
        std::fs::write(dir.join(INDEX), "old").unwrap();
        let p = page_from_json("study", &dir, &report(), "table\nrow\npooled wins\n", &[]);
        assert_eq!(p.verdict, "pooled wins");
        assert_eq!(
            p.tables,
            [super::super::Block::Text(vec![
                "table".into(),
                "row".into()
            ])]
        );
        assert_eq!(
            p.parameters,
            [
                ("docs".to_string(), "1000".to_string()),
                ("nested".into(), "a 1".into()),
                ("searches".into(), "1, 2".into()),
                ("url".into(), "http://***@127.0.0.1:8983/solr/bench".into()),
            ]
        );
        assert_eq!(p.findings.len(), 1);
        assert_eq!(
            p.findings[0].href, "#tables",
            "a temp folder is in no checkout"
        );
        assert_eq!(p.witnesses.columns, ["item", "connector", "pcap_syns"]);
        assert_eq!(p.witnesses.rows[1], ["search pooled", "1", ""]);
        assert_eq!(
            (p.charts.len(), p.files.as_slice()),
            (1, &["a.csv".to_string()][..])
        );
        assert!(!p.render().contains("secret"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
