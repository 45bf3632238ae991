//! End-to-end tests against the real local Solr that `local-solr/solr.sh` starts.
//! One test binary (ripgrep's layout); modules by subject.

mod support;

mod accounting;
mod admin;
mod baseline;
mod bulk_index;
mod captures;
mod cli;
mod client;
mod cloud_routing;
mod crate_api;
mod document_truth;
mod failed_calls;
mod fault_table;
mod faults;
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
mod newcomer;
mod nrt;
mod outside_clock;
mod redirects;
mod response_formats;
mod routing;
mod routing_study;
mod search_api;
mod security;
mod stale;
mod update_chain;
mod updates;
mod wan;
mod watch;
mod watch_h2;
mod watch_solrj;
mod watch_tls;
mod witnesses;
