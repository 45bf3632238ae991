//! `transport-bench report RUN`: re-renders the tables, CSV, charts and `index.html` of a
//! saved run; `--screenshot` photographs the page with headless Chromium.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// Options of `report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The run folder (summary.json + records.jsonl, or knn.json).
    pub run: PathBuf,
    /// Says where the run's page, `index.html`, is (it is rewritten with every re-render,
    /// so a run saved before pages existed gets one too).
    #[arg(long)]
    pub html: bool,
    /// Also saves `index.png` beside `index.html`: the page as headless Chromium draws it
    /// (the `chromium` command, or the one `CHROMIUM` names).
    #[arg(long, requires = "html")]
    pub screenshot: bool,
    /// `--json`: the re-rendered report as JSON on stdout (as saved), the text on stderr.
    #[command(flatten)]
    pub json: crate::args::json::JsonArgs,
}

/// Runs `report`.
pub fn run(a: ReportArgs) -> Result<()> {
    let kind = rerender_any(&a.run, &mut a.json.human())?;
    a.json
        .print_file(&a.run.join(super::registry::file_of(kind)))?;
    eprintln!("re-rendered ({kind}): {}", a.run.display());
    let index = a.run.join(bench_report::html::INDEX);
    if a.html {
        eprintln!("page: {}", index.display());
    }
    if a.screenshot {
        eprintln!("screenshot: {}", screenshot(&index)?.display());
    }
    Ok(())
}

/// Re-renders whatever run `run` holds (see [`super::registry::Other::Report`]), prints its text
/// report to `w`, and says which kind it was ([`super::registry::rerender_any`]).
pub fn rerender_any<W: Write>(run: &Path, w: &mut W) -> Result<&'static str> {
    super::registry::rerender_any(run, w)
}

/// Saves `index.png` beside the page `index` (1280 pixels wide, the window the page fits) with headless Chromium, its
/// network fetches off; returns the picture's path.
pub fn screenshot(index: &Path) -> Result<PathBuf> {
    let page = index
        .canonicalize()
        .with_context(|| format!("cannot find {}", index.display()))?;
    let png = page.with_file_name("index.png");
    let chromium = std::env::var_os("CHROMIUM").unwrap_or_else(|| "chromium".into());
    let out = Command::new(&chromium)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--hide-scrollbars",
            "--window-size=1280,1800",
        ])
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .with_context(|| {
            format!(
                "cannot start {} (install Debian's chromium: scripts/setup.sh)",
                chromium.to_string_lossy()
            )
        })?;
    if !out.status.success() || !png.is_file() {
        bail!(
            "{} did not save {} ({}): {}",
            chromium.to_string_lossy(),
            png.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(png)
}
