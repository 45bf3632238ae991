//! `transport-bench routing`: read routing under write pressure.
//!
//! Its options are still declared next to the scenario, which takes them as its
//! configuration ([`routing::RoutingArgs`]); this file is the command's entry.

use anyhow::Result;

use crate::scenario::routing;

pub use crate::scenario::routing::RoutingArgs;

/// Runs `routing`: the scenario prints its text report and saves the run folder.
pub async fn run(a: RoutingArgs) -> Result<()> {
    routing::cmd(a).await.map(|_| ())
}
