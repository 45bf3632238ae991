//! The native half of the `solr_client` Python package (built with maturin; the Python
//! half, in `python/solr_client/`, holds the public classes). Table of contents:
//!
//! - [`client`]: `NativeClient`, one solr-client client, made again after `os.fork()`;
//! - [`future`]: its asyncio methods;
//! - [`indexer`], [`export`]: bulk indexing and `/export` tuples;
//! - [`config`], [`token`]: what a client is made of, the refreshing bearer token;
//! - [`errors`], [`timing`], [`batch`]: Rust values as Python ones;
//! - [`runtime`]: the shared Tokio runtimes (workers; the calling thread for blocking
//!   calls on a standalone node), per process.
#![forbid(unsafe_code)]

use pyo3::prelude::*;

pub mod batch;
pub mod client;
pub mod config;
pub mod errors;
pub mod export;
pub mod future;
pub mod indexer;
pub mod runtime;
pub mod timing;
pub mod token;

/// The `solr_client._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<client::NativeClient>()?;
    m.add_class::<indexer::NativeIndexer>()?;
    m.add_class::<export::NativeTuples>()?;
    Ok(())
}
