//! `transport-bench watch --ebpf` in a build without the `ebpf` feature: says so.

use anyhow::{bail, Result};

use super::watch::WatchArgs;

/// Refuses: this binary was built without the eBPF probes.
pub async fn run(_a: WatchArgs) -> Result<()> {
    bail!("watch --ebpf: this transport-bench was built without the `ebpf` feature; the pcap path (`watch --port N` or `--read FILE`) still works")
}

/// Refuses `watch --ebpf --serve` the same way.
pub async fn serve(a: WatchArgs, _metrics: solr_watch::serve::Shared) -> Result<()> {
    run(a).await
}
