//! `solr-watch`: a passive audit of any application's Solr traffic, from the wire.
//!
//! Packets to and from the Solr port (a live libpcap capture or a saved pcap/pcapng file) are
//! put back into TCP connections ([`tcp`](wire::tcp), [`conn`](wire::conn)); cleartext HTTP/1.1 is parsed into
//! requests and responses ([`http`](wire::http)), cleartext HTTP/2 (prior knowledge or an h2c upgrade)
//! is decoded frame by frame with its header compression ([`http2`](wire::http2), [`hpack`](wire::hpack)) into the same
//! requests and responses, and both are read for Solr facts ([`solr`](wire::solr): endpoint, `wt`,
//! update format, QTime, gunzipped when needed); TLS connections are classified from their
//! handshake ([`tls`]: full or resumed) and, given the clients' key log (`--keylog`, the
//! `SSLKEYLOGFILE` format, [`keylog`](tls::keylog)), decrypted ([`tls::decrypt`]: TLS 1.2 and 1.3, AES-GCM
//! and ChaCha20-Poly1305) into the same HTTP/1.1 parser (or, with ALPN `h2`, the HTTP/2 decoder), so requests, gzip and QTime appear
//! for HTTPS as for http. Without a key the connection-level view stays, and the report says
//! "no key for N TLS connections". [`report`] turns that into connection and request
//! figures, findings with fixes and a one-line verdict; [`svg`](report::svg) draws the connections. [`packet`](wire::packet)
//! parses link-layer frames into TCP segments (the bench's SYN witness uses it too),
//! [`capture`] reads saved
//! files as a stream in pure Rust and, with the `live` feature (default, the only use of
//! libpcap), captures live ([`libpcap`], [`capture::live`]).
//!
//! Whatever cannot be decoded (frames that are not TCP/IP, bytes missing from the capture,
//! HTTP/1 out of sync, HTTP/2 frames or header blocks that do not decode, TLS records without a key or
//! failing authentication, unknown protocols) is counted and said, never a panic.
//!
//! Analysing a saved capture (`transport-bench watch --read FILE` does the same; the file is
//! read as a stream by [`pcap::reader`], without libpcap):
//!
//! ```
//! # fn main() -> anyhow::Result<()> {
//! use std::path::Path;
//! let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../captures/search-pooled.pcapng");
//! let report = solr_watch::watch_file(&capture, None)?; // port: from the first SYN
//! let requests = report.requests.as_ref().expect("whole packets: requests judged");
//! assert_eq!(requests.requests, 20);
//! assert_eq!(report.connections.opened, 1); // one pooled connection carried them all
//! for f in &report.findings {
//!     println!("[{}] {} (fix: {})", f.severity, f.what, f.fix);
//! }
//! solr_watch::print_text(&report, &mut std::io::stdout())?; // ends with the verdict
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

// The parts, leaves first: what is on the wire, TLS, saved files, libpcap, a capture put
// together, the report of it, and the eBPF watch.
pub mod capture;
#[cfg(feature = "ebpf")]
pub mod ebpf;
#[cfg(feature = "live")]
pub mod libpcap;
pub mod pcap;
pub mod report;
#[cfg(feature = "serve")]
pub mod serve;
pub mod tls;
pub mod wire;

use std::path::Path;

use anyhow::{Context, Result};

#[cfg(feature = "live")]
pub use capture::LiveWatch;
pub use capture::{read_file, Captured};
pub use report::{print_text, WatchReport};

/// Builds the report of a finished capture.
pub fn analyse(c: &Captured, source: &str) -> WatchReport {
    report::build(&c.tracker, source, c.dropped, c.error.clone())
}

/// Reads a saved capture and reports on it (`port` None: inferred from the first SYN).
pub fn watch_file(path: &Path, port: Option<u16>) -> Result<WatchReport> {
    let c = read_file(path, port)?;
    Ok(analyse(&c, &path.display().to_string()))
}

/// The JSON Schema of `watch.json`, as published in `transport-bench/schema/watch.schema.json`.
pub fn watch_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(WatchReport)).unwrap_or_default()
}

/// Saves `requests.csv`, then the report as a run folder (`watch.json`, `connections.csv`,
/// `watch.svg`, `run.json`, `index.html`: [`bench_report::RunReport::save`]) into `dir`.
pub fn save(dir: &Path, r: &WatchReport, c: &Captured) -> Result<()> {
    save_requests(dir, c)?;
    bench_report::RunReport::save(r, dir)
}

/// Saves `requests.csv`, one row per request of the capture, into `dir`.
pub fn save_requests(dir: &Path, c: &Captured) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    report::csv::requests(dir, &report::requests(&c.tracker))
}

#[cfg(test)]
mod tests;
