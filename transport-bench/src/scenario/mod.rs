//! The scenarios: each takes its configuration, runs against Solr and returns a report value.
//! None imports from the command line ([`crate::cli`]) or from the crate root.
//!
//! [`study`] is the transport study, [`idle`](study::idle) its idle-penalty probe and
//! [`study::formats`] its response-format axis; [`wan`]
//! runs a study through the emulated WAN link; [`sweep`] runs the study's searches at several
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
pub mod study;
pub mod sweep;
pub mod wan;
