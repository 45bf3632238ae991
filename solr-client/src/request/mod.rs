//! Typed Solr requests. Each builds the query parameters of one request kind; the client
//! turns them into a [`crate::transport::WireRequest`].

mod knn;
mod select;

pub use knn::Knn;
pub use select::Select;
