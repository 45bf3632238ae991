//! The run's page in a real browser: a short study against the real Solr saves
//! `index.html`; Debian's headless Chromium renders it in a 1,280 x 900 window. Asserted from
//! the DOM after the page's script ran: no console message, every chart drawn with a non-zero
//! size, the verdict on the page, no network fetch in it; the tables are HTML tables with one
//! row per transport of the run (exactly), figures in `num` cells, sorted by a header click;
//! parameters read as values (no Debug braces); the page no wider than the window. And
//! `report RUN --html --screenshot` saves a 1,280-pixel-wide PNG that is not blank.
//! Without Chromium the check is recorded as skipped (the skip ledger), never as passed.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use transport_bench::cli::{run, Cli};
use transport_bench::scenario::study::load_summary;

use crate::support;
use crate::support::skip::{self, Installable};

mod png;

/// Inserted before `</body>` of a copy of the page, never into the saved page, so it runs
/// after the page's own script. Once the page has loaded it writes into the DOM that
/// `--dump-dom` returns: the rendered size of every outermost `svg`, the page's width
/// (`scrollWidth`), and the `p50` column of the first table having one after a click on its
/// header.
const PROBE: &str = r#"<script>
addEventListener("load", () => {
  const put = (id, text) => {
    const out = document.createElement("pre");
    out.id = id;
    out.textContent = text;
    document.body.appendChild(out);
  };
  const sizes = [...document.querySelectorAll("svg")]
    .filter(s => !s.parentElement.closest("svg"))
    .map(s => { const r = s.getBoundingClientRect(); return r.width + "x" + r.height; });
  put("probe-sizes", sizes.join(" "));
  put("probe-width", String(document.documentElement.scrollWidth));
  const th = [...document.querySelectorAll("table.data thead th")].find(h => h.textContent === "p50");
  if (th) {
    th.click();
    const rows = [...th.closest("table").tBodies[0].rows].filter(r => !r.classList.contains("note"));
    put("probe-sorted", rows.map(r => r.cells[th.cellIndex].textContent).join(" "));
  }
});
</script>"#;

/// The Chromium the set-up installs, or None (recorded as a skip).
fn chromium() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("CHROMIUM").unwrap_or_else(|| "chromium".into()));
    let ok = Command::new(&path)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip::record(
            "html_report: the page in a headless browser",
            "chromium is not installed",
            Installable::BySetup,
        );
    }
    ok.then_some(path)
}

/// `chromium --dump-dom` of `page`: the DOM after scripts ran, and the browser's log.
fn dump_dom(chromium: &Path, page: &Path) -> (String, String) {
    let out = Command::new(chromium)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--window-size=1280,900",
            "--run-all-compositor-stages-before-draw",
            "--virtual-time-budget=5000",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (text(&out.stdout), text(&out.stderr))
}

/// The text of the element `<tag id="id">` in `html` (no markup inside).
fn element_text<'a>(html: &'a str, tag: &str, id: &str) -> &'a str {
    let open = format!("<{tag} id=\"{id}\">");
    let start = html.find(&open).unwrap_or_else(|| panic!("{open} missing")) + open.len();
    let len = html[start..].find(&format!("</{tag}>")).expect("closed");
    &html[start..start + len]
}

/// A cell of a table in the dumped DOM: its text and whether it carries the `num` class.
#[derive(Debug)]
struct Cell {
    num: bool,
    text: String,
}

/// `html` with the five entities the page escapes turned back into characters.
fn unescape(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every `<tag ...>text</tag>` element of `html` (`th` is not `thead`).
fn cells(html: &str, tag: &str) -> Vec<Cell> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at + open.len()..];
        if !after.starts_with(['>', ' ']) {
            rest = after;
            continue;
        }
        let gt = after.find('>').expect("tag closed");
        let body = &after[gt + 1..];
        let end = body.find(&close).expect("element closed");
        out.push(Cell {
            num: after[..gt].contains("class=\"num\""),
            text: unescape(&body[..end]),
        });
        rest = &body[end..];
    }
    out
}

/// Every `<table class="class">` of `html` as its header titles and its body rows, notes
/// (`<tr class="note">`) left out.
fn tables(html: &str, class: &str) -> Vec<(Vec<String>, Vec<Vec<Cell>>)> {
    let open = format!("<table class=\"{class}\">");
    html.split(&open)
        .skip(1)
        .map(|t| {
            let t = &t[..t.find("</table>").expect("table closed")];
            let (head, body) = t.split_once("</thead>").unwrap_or(("", t));
            let titles = cells(head, "th").into_iter().map(|c| c.text).collect();
            let rows = body
                .split("<tr")
                .skip(1)
                .filter(|r| r.starts_with('>'))
                .map(|r| {
                    let mut row = cells(r, "th");
                    row.extend(cells(r, "td"));
                    row
                })
                .collect();
            (titles, rows)
        })
        .collect()
}

/// Every `src=`/`href=` value of `html`: none may reach the network; links go to the run's
/// own files, an anchor, or the docs.
fn assert_no_fetch(html: &str) {
    let mut links = 0;
    for attr in ["src=\"", "href=\""] {
        for (at, _) in html.match_indices(attr) {
            let v = &html[at + attr.len()..];
            let v = &v[..v.find('"').expect("closed attribute")];
            links += 1;
            assert!(!v.contains("://"), "a fetchable URL in the page: {v}");
            assert!(!v.starts_with("//"), "a protocol-relative URL: {v}");
        }
    }
    assert!(links > 0, "the page links its files and explanations");
    assert_eq!(
        (
            html.matches("<script").count(),
            html.matches("<script>").count()
        ),
        (1, 1),
        "one inline script (sorting the tables), nothing loaded"
    );
    assert!(
        !html.contains("xmlns=\"http"),
        "inline SVG carries no namespace URL"
    );
}

/// The tables of the dumped DOM: the workload and phase tables and the witnesses hold one
/// row per transport of the run, exactly; every figure sits in a `num` cell, every name in a
/// plain one; the probe's click sorted the workload table by p50.
fn assert_tables(dom: &str, transports: &[String]) {
    let tables = tables(dom, "data");
    let titles: Vec<&str> = tables.iter().map(|(t, _)| t[0].as_str()).collect();
    assert_eq!(
        titles,
        ["transport", "transport", "item"],
        "workload, phases, witnesses"
    );
    let mut want: Vec<&str> = transports.iter().map(String::as_str).collect();
    want.sort_unstable();
    for (titles, rows) in &tables {
        let mut names: Vec<&str> = rows.iter().map(|r| r[0].text.as_str()).collect();
        names.sort_unstable();
        let names: Vec<&str> = names
            .iter()
            .map(|n| n.trim_start_matches("search "))
            .collect();
        assert_eq!(names, want, "one row per transport in the {titles:?} table");
        for row in rows {
            assert_eq!(row.len(), titles.len(), "{titles:?}: {row:?}");
            assert!(!row[0].num, "a name is no figure: {row:?}");
            let figures = row.iter().filter(|c| c.text.parse::<f64>().is_ok());
            assert!(figures.clone().count() > 0, "{row:?}");
            assert!(figures.clone().all(|c| c.num), "{titles:?}: {row:?}");
        }
    }
    let sorted: Vec<f64> = element_text(dom, "pre", "probe-sorted")
        .split_whitespace()
        .map(|v| v.parse().expect("a p50 figure"))
        .collect();
    assert_eq!(sorted.len(), transports.len());
    assert!(sorted.is_sorted(), "a click on p50 sorts by it: {sorted:?}");
}

/// The parameters read as values: the study's load in words, no Debug braces anywhere.
fn assert_parameters(dom: &str) {
    let params = tables(dom, "params");
    assert_eq!(params.len(), 1, "one parameters table");
    let rows: Vec<(&str, &str)> = params[0]
        .1
        .iter()
        .map(|r| (r[0].text.as_str(), r[1].text.as_str()))
        .collect();
    assert!(
        rows.contains(&("load", "closed, concurrency 1")),
        "{rows:?}"
    );
    assert!(rows.contains(&("searches", "20")), "{rows:?}");
    for (k, v) in &rows {
        assert!(!v.contains("{ ") && !v.contains(" }"), "{k}: {v}");
    }
}

/// `report RUN --html --screenshot` saves a PNG 1,280 pixels wide, white at the corner and
/// not one flat colour.
async fn assert_screenshot(dir: &Path) {
    let report = [
        "transport-bench",
        "report",
        dir.to_str().unwrap(),
        "--html",
        "--screenshot",
    ];
    run(Cli::parse_from(report))
        .await
        .expect("report --html --screenshot");
    let png = std::fs::read(dir.join("index.png")).expect("index.png saved");
    let picture = png::decode(&png);
    assert_eq!(picture.width, 1280, "{picture:?}");
    assert!(picture.height > 0 && picture.colours, "{picture:?}");
    assert_eq!(
        picture.corner[..3],
        [255, 255, 255],
        "the page's background"
    );
    if let Some(keep) = std::env::var_os("HTML_REPORT_PNG") {
        std::fs::copy(dir.join("index.png"), keep).expect("copy the screenshot");
    }
}

#[tokio::test]
async fn a_saved_run_page_renders_in_chromium() {
    let Some(chromium) = chromium() else { return };
    let url = support::standalone().url(None).unwrap().to_string();
    let dir = std::env::temp_dir().join(support::tag("html-report"));
    let transports = ["--reps", "1", "--transports", "fresh,pooled"];
    {
        let _g = support::exclusive().await;
        run(support::searches_only_study(&url, &dir, "20", &transports))
            .await
            .expect("study runs");
    }
    let page = std::fs::read_to_string(dir.join("index.html")).expect("index.html saved");
    assert_no_fetch(&page);
    let summary = load_summary(&dir).expect("summary.json");
    assert!(!summary.verdict.is_empty());
    let ran: Vec<String> = summary
        .transports
        .iter()
        .map(|t| t.transport.clone())
        .collect();
    assert_eq!(ran, ["fresh", "pooled"], "the searches of two transports");

    let charts = [
        "connections-search.svg",
        "percentiles-search.svg",
        "phases-search.svg",
    ];
    for c in charts {
        assert!(dir.join(c).is_file(), "{c}");
    }
    let probe = dir.join("probe.html");
    std::fs::write(&probe, page.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let (dom, log) = dump_dom(&chromium, &probe);
    if let Some(keep) = std::env::var_os("HTML_REPORT_DOM") {
        std::fs::write(keep, &dom).expect("keep the DOM");
    }
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    assert_eq!(
        unescape(element_text(&dom, "p", "verdict")),
        summary.verdict
    );
    let sizes: Vec<(f64, f64)> = element_text(&dom, "pre", "probe-sizes")
        .split_whitespace()
        .map(|s| {
            let (w, h) = s.split_once('x').expect("WxH");
            (w.parse().unwrap(), h.parse().unwrap())
        })
        .collect();
    assert_eq!(
        sizes.len(),
        charts.len(),
        "one drawn svg per chart file: {sizes:?}"
    );
    assert!(sizes.iter().all(|(w, h)| *w > 0.0 && *h > 0.0), "{sizes:?}");
    let width: u32 = element_text(&dom, "pre", "probe-width").parse().unwrap();
    assert!(
        width <= 1280,
        "the page is {width} px wide in a 1280 px window"
    );
    assert_tables(&dom, &ran);
    assert_parameters(&dom);
    assert_screenshot(&dir).await;
    let _ = std::fs::remove_dir_all(&dir);
}
