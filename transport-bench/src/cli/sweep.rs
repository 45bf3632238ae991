//! `transport-bench sweep`: the study's searches at several round-trip times through the WAN topology.
//!
//! Its options are still declared next to the scenario, which takes them as its
//! configuration ([`sweep::SweepArgs`]); this file is the command's entry.

use anyhow::Result;

use crate::scenario::sweep;

pub use crate::scenario::sweep::SweepArgs;

/// Runs `sweep`: the scenario prints its text report and saves the run folder.
pub async fn run(a: SweepArgs) -> Result<()> {
    sweep::run_cmd(a).await
}
