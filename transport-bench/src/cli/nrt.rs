//! `transport-bench nrt`: near-real-time indexing under search load (seed 001).
//!
//! Its options are still declared next to the scenario, which takes them as its
//! configuration ([`nrt::NrtArgs`]); this file is the command's entry.

use anyhow::Result;

use crate::scenario::nrt;

pub use crate::scenario::nrt::NrtArgs;

/// Runs `nrt`: the scenario prints its text report and saves the run folder.
pub async fn run(a: NrtArgs) -> Result<()> {
    nrt::cmd(a).await.map(|_| ())
}
