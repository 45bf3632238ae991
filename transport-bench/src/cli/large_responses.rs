//! `transport-bench large-responses`: Scenario S5 (seed 004): large pages with and without gzip across a slow link.
//!
//! Its options are still declared next to the scenario, which takes them as its
//! configuration ([`large_responses::LargeArgs`]); this file is the command's entry.

use anyhow::Result;

use crate::scenario::large_responses;

pub use crate::scenario::large_responses::LargeArgs;

/// Runs `large-responses`: the scenario prints its text report and saves the run folder.
pub async fn run(a: LargeArgs) -> Result<()> {
    large_responses::run_cmd(a).await
}
