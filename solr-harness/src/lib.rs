//! `solr-harness`: a real local Apache Solr for tests and benchmarks, started from
//! `cargo test` in any project.
//!
//! [`Harness`] extracts a built-in copy of this repository's `local-solr/` (`solr.sh`, a small
//! Java launcher built with Maven from Maven Central artifacts, the `bench` configset) into a
//! home folder and runs it there; [`LocalSolr`] is a running instance (standalone, TLS, a
//! leader/follower pair, SolrCloud). It needs `java` (17+), `javac`, `mvn`, `curl`, `openssl`
//! and `flock` on `PATH`: a missing one is [`Error::MissingTool`] naming it.
//! [`seedkit`] turns "the project's Solr or `--url`" into a [`seedkit::Target`] with pooled
//! clients, progress bars and exact document counts; [`auth`] reads basic-auth credentials
//! from the environment (never from a URL or a command line).
//!
//! ```no_run
//! use solr_harness::{Harness, Mode};
//! # fn main() -> Result<(), solr_harness::Error> {
//! let harness = Harness::new()?; // SOLR_HARNESS_HOME, else ~/.cache/solr-harness/...
//! let solr = harness.start(Mode::Standalone, "example", &[])?;
//! println!("Solr 9 at {}, core bench", solr.url(None)?);
//! solr.stop()?;
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

mod assets;
pub mod auth;
mod error;
mod harness;
pub mod local_solr;
pub mod seedkit;
mod tools;

pub use assets::MARKER;
pub use error::{Error, Result};
pub use harness::{Harness, HOME_VAR};
pub use local_solr::{project_root, LocalSolr, Mode};
