//! `solr-harness`: the project's real local Solr for the bench and the end-to-end tests.
//!
//! [`local_solr`] is a thin handle on `local-solr/solr.sh`, which starts real Apache Solr 9
//! nodes (standalone, TLS, a leader/follower pair, SolrCloud) from Maven Central artifacts;
//! [`seedkit`] turns "the project's Solr or `--url`" into a [`seedkit::Target`] with pooled
//! clients, progress bars and exact document counts; [`auth`] reads basic-auth credentials
//! from the environment (never from a URL or a command line).
//!
//! ```no_run
//! use solr_harness::local_solr::{LocalSolr, Mode};
//! # fn main() -> anyhow::Result<()> {
//! let solr = LocalSolr::start(Mode::Standalone, "example", &[])?;
//! println!("Solr 9 at {}", solr.url(None)?);
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

pub mod auth;
pub mod local_solr;
pub mod seedkit;

pub use local_solr::{project_root, LocalSolr, Mode};
