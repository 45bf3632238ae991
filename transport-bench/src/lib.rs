//! `transport-bench`: latency audits of Solr clients. `main.rs` only calls [`run`].
//!
//! - [`cli`]: the command line, one file per command, shared argument groups;
//! - [`scenario`]: study, audit's idle probe, sweep, large responses, nrt, routing, bulk
//!   files, knn; each takes a configuration and returns a report;
//! - [`load`] drives closed and open loops; [`workload`] generates seeded documents and
//!   queries; [`witness`] counts the client's connections independently of it;
//! - [`report`] prints and saves a study; [`schema`] publishes the JSON Schemas; [`run_dir`]
//!   picks each run's folder; [`args`] holds the range-checked option parsers;
//! - re-exported library crates: [`local_solr`], [`seedkit`], [`auth`] (`solr-harness`),
//!   [`stats`] (`bench-report`), [`wan`] (`wan-emu`), [`watch`] (`solr-watch`).

pub mod args;
pub mod cli;
pub mod load;
pub mod report;
pub mod run_dir;
pub mod runs;
pub mod scenario;
pub mod schema;
pub mod witness;
pub mod workload;

pub use args::{check_solr_url, SolrUrl};
pub use bench_report::stats;
pub use cli::groups::default_interface;
pub use cli::report::rerender_any;
pub use cli::schema::named as schema_named;
pub use cli::study::StudyArgs;
pub use cli::{audit::AuditArgs, knn::KnnArgs, run, Cli, Command};
pub use run_dir::{out_dir, unique_dir};
pub use scenario::{bulk_index, knn, large_responses, study, sweep};
pub use schema::schema_of;
pub use solr_harness::{auth, local_solr, seedkit};

/// Bulk update files, hot vs cold page cache (`scenario::bulk_files`), with its command's
/// options and entry ([`cli::bulk_files`]).
pub mod bulk_files {
    pub use crate::cli::bulk_files::{cmd, BulkArgs};
    pub use crate::scenario::bulk_files::*;
}

/// The routing study (`scenario::routing`) with its command's options and entry
/// ([`cli::routing`]).
pub mod routing {
    pub use crate::cli::routing::{cmd, RoutingArgs};
    pub use crate::scenario::routing::*;
}

/// Near-real-time indexing (`scenario::nrt`) with its command's options and entry ([`cli::nrt`]).
pub mod nrt {
    pub use crate::cli::nrt::{cmd, NrtArgs};
    pub use crate::scenario::nrt::*;
}

/// The WAN emulator (crate `wan-emu`) and its command-line options.
pub mod wan {
    pub use crate::cli::wan as cli;
    pub use wan_emu::*;
}

/// The passive traffic analyser (crate `solr-watch`) and its command.
pub mod watch {
    pub use crate::cli::watch as cli;
    pub use solr_watch::*;
}
