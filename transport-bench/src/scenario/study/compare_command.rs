//! `transport-bench compare`: two saved studies side by side.

use std::path::PathBuf;

use anyhow::{bail, Result};

use super::{compare, load_summary};

/// Options of `compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Baseline summary.json (or its folder).
    pub baseline: PathBuf,
    /// Contender summary.json (or its folder).
    pub contender: PathBuf,
    /// `--json`: the differences as JSON on stdout, the table on stderr.
    #[command(flatten)]
    pub json: crate::args::json::JsonArgs,
}

/// Runs `compare`: prints the differences and the noise margin (with `--json`, as JSON on
/// stdout); two runs with no workload and
/// transport in common are an error that names both sides' runs.
pub fn run(a: CompareArgs) -> Result<()> {
    let base = load_summary(&a.baseline)?;
    let other = load_summary(&a.contender)?;
    if let Some(why) = compare::nothing_in_common(&base, &other) {
        bail!(
            "{} and {}: {why}",
            a.baseline.display(),
            a.contender.display()
        );
    }
    let diffs = compare::compare(&base, &other);
    a.json.print_value(&diffs, |w| compare::print(&diffs, w))
}
