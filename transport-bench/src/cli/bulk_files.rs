//! `transport-bench bulk-files`: bulk indexing of update files with the page cache hot and cold (seed 002).
//!
//! Its options are still declared next to the scenario, which takes them as its
//! configuration ([`bulk_files::BulkArgs`]); this file is the command's entry.

use anyhow::Result;

use crate::scenario::bulk_files;

pub use crate::scenario::bulk_files::BulkArgs;

/// Runs `bulk-files`: the scenario prints its text report and saves the run folder.
pub async fn run(a: BulkArgs) -> Result<()> {
    bulk_files::cmd(a).await.map(|_| ())
}
