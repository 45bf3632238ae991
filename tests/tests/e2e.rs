//! End-to-end tests against the real local Solr that `local-solr/solr.sh` starts.
//! One test binary (ripgrep's layout); modules by subject.

mod support;

mod accounting;
mod admin;
mod admin_ops;
mod auth_gateway;
mod baseline;
mod bulk_index;
mod captures;
mod cli;
mod client;
mod cloud_basic_auth;
mod cloud_client;
mod cloud_export;
mod cloud_routing;
mod conformance;
mod crate_api;
mod document_truth;
mod failed_calls;
mod fault_parity;
mod fault_table;
mod faults;
mod fleet;
mod formats;
mod foundation;
mod h2_faults;
mod hostile_input;
mod html_report;
mod idle_timeout;
mod indexer;
mod indexer_cloud;
mod isolation;
mod knn;
mod load;
mod memory;
#[cfg(feature = "metrics")]
mod metrics;
mod mtls;
mod newcomer;
mod nrt;
#[cfg(feature = "opentelemetry")]
mod otel_trace;
mod outside_clock;
mod proxy;
mod proxy_cli;
mod redirects;
mod response_formats;
mod routing;
mod routing_study;
mod search_api;
mod security;
mod stale;
mod stream_expr;
mod streams;
mod typed_api;
mod update_chain;
mod updates;
mod wan;
mod watch;
mod watch_ebpf;
mod watch_h2;
mod watch_serve;
mod watch_solrj;
mod watch_tls;
mod witnesses;
