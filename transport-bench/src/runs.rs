//! Every report a command saves, as a [`RunReport`]: its kind tag, its JSON file, how it is
//! saved and printed. `report RUN` ([`rerender_any`]) reads the kind from the run folder's
//! manifest (`run.json`) and dispatches on it; a folder saved before manifests existed is
//! recognised the old way, by the report JSON it holds.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use bench_report::run::{kind_of, RunReport};

use crate::scenario::baseline::BaselineReport;
use crate::scenario::bulk_files::BulkReport;
use crate::scenario::bulk_index::BulkIndexReport;
use crate::scenario::knn::KnnReport;
use crate::scenario::large_responses::LargeReport;
use crate::scenario::nrt::NrtReport;
use crate::scenario::routing::RoutingReport;
use crate::scenario::study::StudyReport;
use crate::scenario::sweep::SweepReport;

impl RunReport for StudyReport {
    const KIND: &'static str = "study";

    /// Everything but `records.jsonl`, which the run wrote (see [`crate::report::save`]).
    fn save(&self, dir: &Path) -> Result<()> {
        crate::scenario::study::save_report(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn Write) -> Result<()> {
        crate::scenario::study::print_text(self, &mut w)
    }

    /// Every figure is rebuilt from `records.jsonl` ([`crate::report::rerender`]).
    fn rerender(dir: &Path) -> Result<Self> {
        crate::report::rerender(dir)
    }
}

impl RunReport for NrtReport {
    const KIND: &'static str = "nrt";

    fn save(&self, dir: &Path) -> Result<()> {
        crate::scenario::nrt::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn Write) -> Result<()> {
        crate::scenario::nrt::print_text(self, &mut w)
    }
}

impl RunReport for BulkReport {
    const KIND: &'static str = "bulk-files";

    fn save(&self, dir: &Path) -> Result<()> {
        crate::scenario::bulk_files::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn Write) -> Result<()> {
        crate::scenario::bulk_files::print_text(self, &mut w)
    }
}

impl RunReport for RoutingReport {
    const KIND: &'static str = "routing";

    fn save(&self, dir: &Path) -> Result<()> {
        crate::scenario::routing::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn Write) -> Result<()> {
        crate::scenario::routing::print_text(self, &mut w)
    }
}

impl RunReport for KnnReport {
    const KIND: &'static str = "knn";
    const FILE: &'static str = "knn.json";

    fn save(&self, dir: &Path) -> Result<()> {
        crate::scenario::knn::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn Write) -> Result<()> {
        crate::scenario::knn::print_text(self, &mut w)
    }
}

impl RunReport for SweepReport {
    const KIND: &'static str = "sweep";
    const FILE: &'static str = "sweep.json";

    fn save(&self, dir: &Path) -> Result<()> {
        crate::scenario::sweep::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn Write) -> Result<()> {
        crate::scenario::sweep::print_text(self, &mut w)
    }
}

impl RunReport for LargeReport {
    const KIND: &'static str = "large-responses";
    const FILE: &'static str = "large-responses.json";

    /// Everything but `records.jsonl`, which the run wrote (see
    /// [`crate::scenario::large_responses::save`]).
    fn save(&self, dir: &Path) -> Result<()> {
        crate::scenario::large_responses::save_report(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn Write) -> Result<()> {
        crate::scenario::large_responses::print_text(self, &mut w)
    }
}

/// Re-renders `R` from `dir`, prints its text into `w` and returns its kind.
fn rerender<R: RunReport>(dir: &Path, w: &mut dyn Write) -> Result<&'static str> {
    let r = R::rerender(dir)?;
    r.print_text(w)?;
    Ok(R::KIND)
}

/// Re-renders whatever run `run` holds, prints its text report to `w`, and says which kind
/// it was: the kind named by `run.json`, or for an older folder without one, the first
/// report type its JSON reads as.
pub fn rerender_any(run: &Path, w: &mut dyn Write) -> Result<&'static str> {
    match kind_of(run)?.as_deref() {
        Some(StudyReport::KIND) => rerender::<StudyReport>(run, w),
        Some(NrtReport::KIND) => rerender::<NrtReport>(run, w),
        Some(BulkReport::KIND) => rerender::<BulkReport>(run, w),
        Some(RoutingReport::KIND) => rerender::<RoutingReport>(run, w),
        Some(KnnReport::KIND) => rerender::<KnnReport>(run, w),
        Some(SweepReport::KIND) => rerender::<SweepReport>(run, w),
        Some(LargeReport::KIND) => rerender::<LargeReport>(run, w),
        Some(BulkIndexReport::KIND) => rerender::<BulkIndexReport>(run, w),
        Some(BaselineReport::KIND) => rerender::<BaselineReport>(run, w),
        Some(other) => anyhow::bail!(
            "{} names the kind {other:?}, which this transport-bench cannot render",
            run.join(bench_report::run::MANIFEST).display()
        ),
        None => rerender_legacy(run, w),
    }
}

/// A folder saved before `run.json` existed: the kind is the first report type its JSON
/// reads as (`knn.json`, `sweep.json`, `large-responses.json`, then `summary.json` as a
/// study, nrt, bulk-files or routing report).
fn rerender_legacy(run: &Path, w: &mut dyn Write) -> Result<&'static str> {
    for (file, kind) in [
        (KnnReport::FILE, KnnReport::KIND),
        (SweepReport::FILE, SweepReport::KIND),
        (LargeReport::FILE, LargeReport::KIND),
    ] {
        if run.join(file).is_file() {
            return match kind {
                KnnReport::KIND => rerender::<KnnReport>(run, w),
                SweepReport::KIND => rerender::<SweepReport>(run, w),
                _ => rerender::<LargeReport>(run, w),
            };
        }
    }
    let path = run.join("summary.json");
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    if serde_json::from_slice::<StudyReport>(&bytes).is_ok() {
        return rerender::<StudyReport>(run, w);
    }
    if serde_json::from_slice::<NrtReport>(&bytes).is_ok() {
        return rerender::<NrtReport>(run, w);
    }
    if serde_json::from_slice::<BulkReport>(&bytes).is_ok() {
        return rerender::<BulkReport>(run, w);
    }
    if serde_json::from_slice::<RoutingReport>(&bytes).is_ok() {
        return rerender::<RoutingReport>(run, w);
    }
    anyhow::bail!(
        "{} is none of a study/audit, nrt, bulk-files or routing summary (and there is no run.json, knn.json, sweep.json or large-responses.json)",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("runs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn sweep() -> SweepReport {
        SweepReport {
            schema_version: 1,
            upstream: "http://127.0.0.1:8983/solr".into(),
            settings: serde_json::Value::Null,
            points: vec![],
            rows: vec![],
            warnings: vec![],
            duration_s: 1.5,
            verdict: "verdict: nothing measured".into(),
        }
    }

    #[test]
    fn report_run_dispatches_on_the_manifest_kind() {
        let dir = temp("sweep");
        sweep().save(&dir).unwrap();
        assert_eq!(kind_of(&dir).unwrap().as_deref(), Some("sweep"));
        let mut out = Vec::new();
        assert_eq!(rerender_any(&dir, &mut out).unwrap(), "sweep");
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().last(), Some("verdict: nothing measured"));
        assert_eq!(
            std::fs::read_to_string(dir.join("sweep.txt")).unwrap(),
            text,
            "the printed text is the saved one"
        );

        let knn = temp("knn");
        KnnReport::default().save(&knn).unwrap();
        assert_eq!(rerender_any(&knn, &mut Vec::new()).unwrap(), "knn");
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&knn);
    }

    #[test]
    fn a_folder_without_manifest_still_loads_and_gets_one() {
        let dir = temp("legacy");
        sweep().save(&dir).unwrap();
        std::fs::remove_file(dir.join(bench_report::run::MANIFEST)).unwrap();
        assert_eq!(kind_of(&dir).unwrap(), None);
        assert_eq!(rerender_any(&dir, &mut Vec::new()).unwrap(), "sweep");
        assert_eq!(
            kind_of(&dir).unwrap().as_deref(),
            Some("sweep"),
            "re-rendering writes the manifest"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unknown_kind_is_refused_by_name() {
        let dir = temp("unknown");
        bench_report::run::write_manifest(&dir, "teleport", "summary.json").unwrap();
        let e = rerender_any(&dir, &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("\"teleport\""), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
