//! `transport-bench`: latency audits of Solr clients. `main.rs` only calls [`cli::exit_code`].
//!
//! - [`cli`]: the command line, one file per command, the shared argument groups, and the
//!   ONE list of scenarios ([`cli::registry`]): subcommands, schema names, `report RUN`'s
//!   dispatch and `run.json` kinds come from it;
//! - [`scenario`]: one folder per scenario (study with audit's idle probe, sweep, large
//!   responses, nrt, routing, bulk files, bulk index, knn, baseline), each `mod.rs` (config
//!   and run), `model.rs` (report types) and `render.rs` (text, CSV, SVG);
//! - [`engine`]: what the scenarios share: load loops, workloads, connection witnesses, run
//!   folders, `/proc` sampling;
//! - [`report`] loads and compares saved studies and draws line charts; [`schema`] publishes
//!   the JSON Schemas; [`args`] holds the range-checked option parsers.
//!
//! The library crates are used by their own names: `solr_harness` (local Solr, seedkit,
//! auth), `bench_report` (stats, tables, charts, run manifests), `wan_emu`, `solr_watch`.

pub mod args;
pub mod cli;
pub mod engine;
pub mod report;
pub mod scenario;
pub mod schema;
