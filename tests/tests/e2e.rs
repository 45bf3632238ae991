//! End-to-end tests against the real local Solr that `local-solr/solr.sh` starts.
//! One test binary (ripgrep's layout); modules by subject.

mod support;

mod captures;
mod cli;
mod client;
mod faults;
mod foundation;
mod hostile_input;
mod idle_timeout;
mod knn;
mod load;
mod nrt;
mod routing;
mod routing_study;
mod security;
mod wan;
mod watch;
mod witnesses;
