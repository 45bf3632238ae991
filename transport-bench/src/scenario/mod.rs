//! The scenarios: each takes its configuration, runs against Solr and returns a report value.
//! None imports from the command line ([`crate::cli`]), from another scenario or from the
//! crate root; what they share is in [`crate::engine`] and [`crate::args`]. Each folder holds
//! `mod.rs` (config and run), `model.rs`, `render.rs` and `cli.rs` (its options and its
//! [`shape::Scenario`] impl).
//!
//! [`study`] is the transport study, with `audit` ([`study::audit`]), its idle-penalty probe
//! ([`study::idle`]), its response-format axis ([`study::formats`]), the study through the
//! emulated WAN link ([`study::wan`]) and [`study::sweep`], the study's searches at several
//! RTTs; [`large_responses`] is large responses across a slow link; [`nrt`] is near-real-time
//! indexing under search load; [`routing`] is read routing under write pressure;
//! [`bulk_files`] is bulk indexing of update files; [`bulk_index`] is bulk indexing
//! beside SolrJ; [`knn`] is the kNN load test. [`baseline`] is the
//! raw-hyper baseline.

pub mod baseline;
pub mod bulk_files;
pub mod bulk_index;
pub mod knn;
pub mod large_responses;
pub mod nrt;
pub mod routing;
pub mod shape;
pub mod study;
