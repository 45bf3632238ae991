//! `bench-report`: the report layer every `transport-bench` command and `solr-watch` share.
//!
//! [`stats`] holds the percentile rules (HdrHistogram, microsecond resolution).
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

pub mod stats;

pub use stats::{percentiles, Percentiles};
