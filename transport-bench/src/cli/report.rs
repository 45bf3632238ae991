//! `transport-bench report RUN`: re-renders the tables, CSV and charts of a saved run.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::scenario::{bulk_files, knn, nrt, routing, study};

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
/// report to `w`, and says which kind it was.
pub fn rerender_any<W: Write>(run: &Path, w: &mut W) -> Result<&'static str> {
    let knn_json = run.join("knn.json");
    if knn_json.is_file() {
        let r: knn::KnnReport = serde_json::from_slice(&std::fs::read(&knn_json)?)
            .with_context(|| format!("{} is not a knn report", knn_json.display()))?;
        knn::render::save(run, &r)?;
        knn::render::print_text(&r, w)?;
        return Ok("knn");
    }
    let path = run.join("summary.json");
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    if serde_json::from_slice::<study::StudyReport>(&bytes).is_ok() {
        let r = crate::report::rerender(run)?;
        crate::report::print_text(&r, w)?;
        return Ok("study");
    }
    if let Ok(r) = serde_json::from_slice::<nrt::NrtReport>(&bytes) {
        nrt::report::save(run, &r)?;
        nrt::report::print_text(&r, w)?;
        return Ok("nrt");
    }
    if let Ok(r) = serde_json::from_slice::<bulk_files::BulkReport>(&bytes) {
        bulk_files::report::save(run, &r)?;
        bulk_files::report::print_text(&r, w)?;
        return Ok("bulk-files");
    }
    if let Ok(r) = serde_json::from_slice::<routing::RoutingReport>(&bytes) {
        routing::report::save(run, &r)?;
        routing::report::print_text(&r, w)?;
        return Ok("routing");
    }
    anyhow::bail!(
        "{} is none of a study/audit, nrt, bulk-files or routing summary (and there is no knn.json)",
        path.display()
    )
}
