//! Typed Solr requests. Each builds the query parameters of one request kind; the client
//! turns them into a [`crate::transport::WireRequest`].

mod get;
mod knn;
mod select;
mod update;

pub use get::{Get, GetResponse};
pub use knn::Knn;
pub use select::Select;
pub(crate) use update::{conflict_error, single_conflict};
pub use update::{AtomicOp, AtomicUpdate};
