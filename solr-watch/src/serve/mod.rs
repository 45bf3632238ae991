//! `watch --serve`: the watcher as a long-running daemon exposing Prometheus metrics
//! (OpenMetrics text at `GET /metrics`) that update as requests complete.
//!
//! - [`metrics`]: the aggregator, the metric families of the names contract and the
//!   processes that own series, forgotten a grace period after they exit;
//! - [`labels`]: the `host`/`pid`/`comm`/`cgroup`/`container` labels, escaped;
//! - [`harvest`]: answered requests taken out of a connection as they complete;
//! - [`findings`]: the report's findings over each process's recent connections;
//! - [`http`]: the hyper server;
//! - [`pcap`](mod@pcap) (live capture) and [`ebpf`](mod@ebpf) (kernel probes): the two
//!   watches, feeding the aggregator and holding only what is still in use.

#[cfg(feature = "ebpf")]
pub mod ebpf;
pub mod findings;
pub mod harvest;
pub mod http;
pub mod labels;
pub mod metrics;
#[cfg(feature = "live")]
pub mod pcap;

pub use http::{bind, Server, Shared};
pub use labels::{hostname, Who};
pub use metrics::{Metrics, RequestSample};

#[cfg(test)]
mod tests;
