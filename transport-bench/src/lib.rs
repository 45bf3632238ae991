//! `transport-bench`: latency audits of Solr clients. `main.rs` only calls [`cli::exit_code`].
//!
//! - [`cli`]: the command line and the ONE list of scenarios ([`cli::registry`]): the
//!   scenario subcommands, schema names, `report RUN`'s dispatch and `run.json` kinds come
//!   from it; the commands that are not scenarios (compare, watch, schema, report);
//! - [`scenario`]: one folder per scenario (study with audit, its idle probe and sweep, large
//!   responses, nrt, routing, bulk files, bulk index, knn, baseline), each `mod.rs` (config
//!   and run), `model.rs` (report types), `render.rs` (text, CSV, SVG) and `cli.rs` (its
//!   options and [`scenario::shape::Scenario`] impl);
//! - [`engine`]: what the scenarios share: load loops, workloads, connection witnesses, run
//!   folders, `/proc` sampling, the WAN topology's pieces;
//! - [`args`]: the range-checked option parsers and the argument groups commands share;
//!   [`report`] loads and compares saved studies and draws line charts; [`schema`] publishes
//!   the JSON Schemas.
//!
//! The library crates are used by their own names: `solr_harness` (local Solr, seedkit,
//! auth), `bench_report` (stats, tables, charts, run manifests), `wan_emu`, `solr_watch`.

pub mod args;
pub mod cli;
pub mod engine;
pub mod report;
pub mod scenario;
pub mod schema;
