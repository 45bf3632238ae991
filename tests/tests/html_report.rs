//! The run's page in a real browser: a short study against the real Solr saves
//! `index.html`; Debian's headless Chromium renders it. Asserted: no console message, every
//! chart drawn with a non-zero size, the verdict on the page, no network fetch in it; and
//! `report RUN --html --screenshot` saves a PNG beside it.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use transport_bench::cli::{run, Cli};
use transport_bench::scenario::study::load_summary;

use crate::support;
use crate::support::skip::{self, Installable};

/// Inserted before `</body>` of a copy of the page, never into the saved page: writes the
/// rendered size of every outermost `svg` into the DOM that `--dump-dom` returns.
const PROBE: &str = r#"<script>
const sizes = [...document.querySelectorAll("svg")]
  .filter(s => !s.parentElement.closest("svg"))
  .map(s => { const r = s.getBoundingClientRect(); return r.width + "x" + r.height; });
const out = document.createElement("pre");
out.id = "probe-sizes";
out.textContent = sizes.join(" ");
document.body.appendChild(out);
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
    assert!(!html.contains("<script"), "the saved page needs no script");
    assert!(
        !html.contains("xmlns=\"http"),
        "inline SVG carries no namespace URL"
    );
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
    let verdict = load_summary(&dir).expect("summary.json").verdict;
    assert!(!verdict.is_empty());

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
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    let shown = element_text(&dom, "p", "verdict").replace("&amp;", "&");
    assert_eq!(shown.replace("&lt;", "<").replace("&gt;", ">"), verdict);
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
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    if let Some(keep) = std::env::var_os("HTML_REPORT_PNG") {
        std::fs::copy(dir.join("index.png"), keep).expect("copy the screenshot");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
