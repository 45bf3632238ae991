//! `bench-report`: the report layer every `transport-bench` command and `solr-watch` share.
//!
//! - [`stats`]: the percentile rules (HdrHistogram, microsecond resolution);
//! - [`table`]: the one text-table writer (columns, alignment, header, rule, units);
//! - [`csv_out`]: the one CSV path (serde records, RFC 4180 quoting);
//! - [`chart`]: the one SVG chart module (frame, axes, ticks, legend, palette, escaping);
//! - [`run`]: the [`RunReport`] trait and the run folder's kind manifest;
//! - [`html`]: the run's self-contained `index.html`.
//!
//! ```
//! use std::time::Duration;
//! let p = bench_report::stats::percentiles((1..=100).map(Duration::from_millis));
//! assert_eq!(p.n, 100);
//! let p50 = p.p50_ms.unwrap();
//! assert!((49.0..=51.0).contains(&p50));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod chart;
pub mod csv_out;
pub mod html;
pub mod run;
pub mod stats;
pub mod table;

pub use csv_out::write_csv;
pub use run::RunReport;
pub use stats::{percentiles, Percentiles};
pub use table::Table;
