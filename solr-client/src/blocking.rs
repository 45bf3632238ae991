//! A blocking wrapper for applications without an async runtime. Each call runs the async
//! client on a private current-thread Tokio runtime.

use serde::Serialize;

use crate::client::{Commit, SolrClient as AsyncClient};
use crate::error::{Error, Result};
use crate::request::{Knn, Select};
use crate::response::{PingResponse, SelectResponse, UpdateResponse};

/// The blocking client. Do not use it from inside an async runtime.
#[derive(Debug)]
pub struct SolrClient {
    inner: AsyncClient,
    rt: tokio::runtime::Runtime,
}

impl SolrClient {
    /// Wraps an async client (build it with [`crate::SolrClient::builder`]).
    pub fn new(inner: AsyncClient) -> Result<Self> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Config(format!("cannot start a Tokio runtime: {e}")))?;
        Ok(SolrClient { inner, rt })
    }

    /// The async client inside.
    pub fn inner(&self) -> &AsyncClient {
        &self.inner
    }

    /// See [`crate::SolrClient::ping`].
    pub fn ping(&self) -> Result<PingResponse> {
        self.rt.block_on(self.inner.ping())
    }

    /// See [`crate::SolrClient::select`].
    pub fn select(&self, s: &Select) -> Result<SelectResponse> {
        self.rt.block_on(self.inner.select(s))
    }

    /// See [`crate::SolrClient::knn`].
    pub fn knn(&self, k: &Knn) -> Result<SelectResponse> {
        self.rt.block_on(self.inner.knn(k))
    }

    /// See [`crate::SolrClient::add`].
    pub fn add<T: Serialize>(&self, docs: &[T]) -> Result<UpdateResponse> {
        self.rt.block_on(self.inner.add(docs))
    }

    /// See [`crate::SolrClient::delete_by_ids`].
    pub fn delete_by_ids(&self, ids: &[&str]) -> Result<UpdateResponse> {
        self.rt.block_on(self.inner.delete_by_ids(ids))
    }

    /// See [`crate::SolrClient::delete_by_query`].
    pub fn delete_by_query(&self, q: &str) -> Result<UpdateResponse> {
        self.rt.block_on(self.inner.delete_by_query(q))
    }

    /// See [`crate::SolrClient::commit`].
    pub fn commit(&self, c: Commit) -> Result<UpdateResponse> {
        self.rt.block_on(self.inner.commit(c))
    }
}
