//! `transport-bench report RUN`: re-renders the tables, CSV and charts of a saved run.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

/// Options of `report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The run folder (summary.json + records.jsonl, or knn.json).
    pub run: PathBuf,
}

/// Runs `report`.
pub fn run(a: ReportArgs) -> Result<()> {
    let kind = rerender_any(&a.run, &mut std::io::stdout().lock())?;
    eprintln!("re-rendered ({kind}): {}", a.run.display());
    Ok(())
}

/// Re-renders whatever run `run` holds (see [`super::Command::Report`]), prints its text
/// report to `w`, and says which kind it was ([`super::registry::rerender_any`]).
pub fn rerender_any<W: Write>(run: &Path, w: &mut W) -> Result<&'static str> {
    super::registry::rerender_any(run, w)
}
