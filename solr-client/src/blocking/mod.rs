//! A blocking wrapper for applications without an async runtime. Each call runs the async
//! client on a private current-thread Tokio runtime.
//!
//! Every method of the async [`crate::SolrClient`] that talks to Solr has a blocking twin
//! here; a cursor becomes an [`Iterator`] ([`SolrClient::cursor`]). The synchronous helpers
//! (`wire`, `select_request`, `encode_add`, `node`, `collection`...) are on the async client,
//! reachable through [`SolrClient::inner`]. The admin API handles have blocking twins too
//! ([`SolrClient::collections`], [`SolrClient::configsets`], [`SolrClient::schema`],
//! [`SolrClient::cores`], [`SolrClient::system`]; module [`admin`]), and so has the bulk
//! [`crate::Indexer`] ([`Indexer`]). A unit test lists every `pub async fn` of the crate
//! and fails when one has no blocking twin (or is not on its short list of exceptions,
//! each with its reason).
//!
//! A blocking call from a thread inside a Tokio runtime (an `async fn`, a task) would stall
//! that runtime's thread, and Tokio would panic on it: every method checks first and returns
//! [`Error::Config`] instead, saying to use the async client there or a plain thread
//! (`std::thread::spawn`). Tokio's `spawn_blocking` threads count as inside (they carry the
//! runtime's context, and no public Tokio API tells them apart from its workers).
//!
//! ```no_run
//! # fn run() -> solr_client::Result<()> {
//! use solr_client::{blocking, Select, SolrClient};
//! let client = blocking::SolrClient::new(
//!     SolrClient::builder("http://127.0.0.1:8983/solr").collection("bench").build()?,
//! )?;
//! for doc in client.cursor(Select::new("*:*").fl("id"), 1000) {
//!     println!("{}", doc?["id"]);
//! }
//! # Ok(()) }
//! ```

use std::pin::Pin;

pub mod admin;
mod indexer;
#[cfg(test)]
mod parity_tests;
mod tuples;
pub use indexer::Indexer;
pub use tuples::TupleIter;

use futures::{Stream, StreamExt};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::batch::BatchReport;
use crate::client::{Commit, SolrClient as AsyncClient};
use crate::error::{Error, Result};
use crate::request::{Get, GetResponse, JsonQuery, Knn, Select};
use crate::response::{Document, PingResponse, SelectResponse, UpdateResponse};
use crate::transport::{WireRequest, WireResponse};

/// The blocking client. Calls made from inside an async runtime return an error.
#[derive(Debug)]
pub struct SolrClient {
    inner: AsyncClient,
    /// Always `Some` until dropped (taken by `Drop`, which shuts it down without blocking).
    rt: Option<tokio::runtime::Runtime>,
}

impl SolrClient {
    /// Wraps an async client (build it with [`crate::SolrClient::builder`]). It may be
    /// created (and dropped) anywhere, an async context included, for use on another thread.
    pub fn new(inner: AsyncClient) -> Result<Self> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::config(format!("cannot start a Tokio runtime: {e}")))?;
        Ok(SolrClient {
            inner,
            rt: Some(rt),
        })
    }

    /// The async client inside.
    pub fn inner(&self) -> &AsyncClient {
        &self.inner
    }

    /// Runs `fut` to completion on the private runtime, or refuses when called from inside
    /// a runtime (where blocking would stall it, and Tokio panics).
    fn run<F: std::future::Future>(&self, what: &str, fut: F) -> Result<F::Output> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(Error::config(format!(
                "blocking::SolrClient::{what} called on a thread inside a Tokio runtime, \
                 where blocking would stall it: call the async client there \
                 (blocking::SolrClient::inner()), or make the blocking call from a thread of \
                 your own (std::thread::spawn)"
            )));
        }
        match &self.rt {
            Some(rt) => Ok(rt.block_on(fut)),
            None => Err(Error::config("blocking client already shut down")),
        }
    }

    /// See [`crate::SolrClient::ping`].
    pub fn ping(&self) -> Result<PingResponse> {
        self.run("ping", self.inner.ping())?
    }

    /// See [`crate::SolrClient::select`].
    pub fn select(&self, s: &Select) -> Result<SelectResponse> {
        self.run("select", self.inner.select(s))?
    }

    /// See [`crate::SolrClient::select_as`]: the hits decoded into `T`.
    pub fn select_as<T: DeserializeOwned>(&self, s: &Select) -> Result<SelectResponse<T>> {
        self.run("select_as", self.inner.select_as::<T>(s))?
    }

    /// See [`crate::SolrClient::knn`].
    pub fn knn(&self, k: &Knn) -> Result<SelectResponse> {
        self.run("knn", self.inner.knn(k))?
    }

    /// See [`crate::SolrClient::knn_as`].
    pub fn knn_as<T: DeserializeOwned>(&self, k: &Knn) -> Result<SelectResponse<T>> {
        self.run("knn_as", self.inner.knn_as::<T>(k))?
    }

    /// See [`crate::SolrClient::get`]: real-time get, decoded into `T`.
    pub fn get<T: DeserializeOwned>(&self, get: &Get) -> Result<GetResponse<T>> {
        self.run("get", self.inner.get::<T>(get))?
    }

    /// See [`crate::SolrClient::cursor`]: every document matching `select`, one page of
    /// `page_rows` in memory at a time, as an iterator. Each page is fetched on the call to
    /// `next` that needs it; after an error from Solr or the network the iterator ends.
    pub fn cursor(&self, select: Select, page_rows: u64) -> Cursor<'_> {
        self.cursor_as::<Document>(select, page_rows)
    }

    /// See [`crate::SolrClient::cursor_as`]: [`Self::cursor`] with each page decoded straight
    /// into `T`.
    pub fn cursor_as<T: DeserializeOwned + Send + 'static>(
        &self,
        select: Select,
        page_rows: u64,
    ) -> Cursor<'_, T> {
        Cursor {
            client: self,
            stream: Box::pin(self.inner.cursor_as::<T>(select, page_rows)),
        }
    }

    /// See [`crate::SolrClient::add`].
    pub fn add<T: Serialize>(&self, docs: &[T]) -> Result<UpdateResponse> {
        self.run("add", self.inner.add(docs))?
    }

    /// See [`crate::SolrClient::add_with`].
    pub fn add_with<T: Serialize>(
        &self,
        docs: &[T],
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        self.run("add_with", self.inner.add_with(docs, commit_within_ms))?
    }

    /// See [`crate::SolrClient::add_batched`].
    pub fn add_batched<T: Serialize>(&self, docs: &[T], batch_size: usize) -> Result<BatchReport> {
        self.run("add_batched", self.inner.add_batched(docs, batch_size))?
    }

    /// See [`crate::SolrClient::delete_by_ids`].
    pub fn delete_by_ids(&self, ids: &[&str]) -> Result<UpdateResponse> {
        self.run("delete_by_ids", self.inner.delete_by_ids(ids))?
    }

    /// See [`crate::SolrClient::delete_by_ids_with`].
    pub fn delete_by_ids_with(
        &self,
        ids: &[&str],
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        self.run(
            "delete_by_ids_with",
            self.inner.delete_by_ids_with(ids, commit_within_ms),
        )?
    }

    /// See [`crate::SolrClient::delete_by_query`].
    pub fn delete_by_query(&self, q: &str) -> Result<UpdateResponse> {
        self.run("delete_by_query", self.inner.delete_by_query(q))?
    }

    /// See [`crate::SolrClient::delete_by_query_with`].
    pub fn delete_by_query_with(
        &self,
        q: &str,
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        self.run(
            "delete_by_query_with",
            self.inner.delete_by_query_with(q, commit_within_ms),
        )?
    }

    /// See [`crate::SolrClient::commit`].
    pub fn commit(&self, c: Commit) -> Result<UpdateResponse> {
        self.run("commit", self.inner.commit(c))?
    }

    /// See [`crate::SolrClient::send_raw`].
    pub fn send_raw(&self, req: WireRequest) -> Result<WireResponse> {
        self.run("send_raw", self.inner.send_raw(req))?
    }

    /// See [`crate::SolrClient::query_json`]: a JSON Request API query, hits decoded into
    /// `T`.
    pub fn query_json<T: DeserializeOwned>(&self, q: &JsonQuery) -> Result<SelectResponse<T>> {
        self.run("query_json", self.inner.query_json::<T>(q))?
    }

    /// See [`crate::SolrClient::with_schema_unique_key`]: a new blocking client (with its
    /// own runtime) whose uniqueKey field is the one the schema declares.
    pub fn with_schema_unique_key(&self) -> Result<SolrClient> {
        let inner = self.run(
            "with_schema_unique_key",
            self.inner.with_schema_unique_key(),
        )??;
        SolrClient::new(inner)
    }
}

impl Drop for SolrClient {
    fn drop(&mut self) {
        // Dropping a runtime inside an async context panics; shutting it down in the
        // background never blocks, so the client can be dropped anywhere.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// The iterator of [`SolrClient::cursor`] and [`SolrClient::cursor_as`]: documents in sort
/// order, pages fetched as needed. Like every blocking call, `next` yields an error when
/// called inside a Tokio runtime.
#[must_use = "an iterator does nothing until consumed"]
pub struct Cursor<'a, T = Document> {
    client: &'a SolrClient,
    stream: Pin<Box<dyn Stream<Item = Result<T>> + Send + 'static>>,
}

impl<T> std::fmt::Debug for Cursor<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cursor")
            .field("collection", &self.client.inner.collection())
            .finish_non_exhaustive()
    }
}

impl<T> Iterator for Cursor<'_, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        match self.client.run("cursor", self.stream.next()) {
            Ok(item) => item,
            Err(e) => Some(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> SolrClient {
        // Port 9 (discard): nothing listens; no call below gets that far.
        SolrClient::new(
            crate::SolrClient::builder("http://127.0.0.1:9/solr")
                .collection("bench")
                .build()
                .expect("client"),
        )
        .expect("blocking client")
    }

    #[tokio::test]
    async fn inside_a_runtime_every_call_is_an_error_not_a_panic() {
        let c = client();
        let err = c.select(&Select::new("*:*")).expect_err("inside a runtime");
        assert!(matches!(err, Error::Config(_)), "{err:?}");
        assert!(err.to_string().contains("std::thread::spawn"), "{err}");
        assert!(matches!(c.ping(), Err(Error::Config(_))));
        assert!(matches!(c.commit(Commit::default()), Err(Error::Config(_))));
        let mut cur = c.cursor(Select::new("*:*"), 10);
        assert!(matches!(cur.next(), Some(Err(Error::Config(_)))));
        drop(cur);
        // The admin handles' blocking twins check too, and name the call.
        let err = c.collections().list().expect_err("inside a runtime");
        assert!(err.to_string().contains("collections().list"), "{err}");
        assert!(matches!(c.schema().fields(), Err(Error::Config(_))));
        assert!(matches!(c.cores().status(None), Err(Error::Config(_))));
        assert!(matches!(c.system().info(), Err(Error::Config(_))));
        assert!(matches!(c.configsets().list(), Err(Error::Config(_))));
        // Dropped inside the runtime: no panic either.
        drop(c);
    }

    #[test]
    fn outside_a_runtime_calls_run() {
        let c = client();
        // Nothing listens on port 9: a connect error, from the private runtime.
        let err = c.ping().expect_err("nothing listens");
        assert!(err.is_connect(), "{err:?}");
        let mut cur = c.cursor(Select::new("*:*"), 10);
        assert!(matches!(cur.next(), Some(Err(e)) if e.is_connect()));
        // The admin twins run on the private runtime as well.
        let err = c.system().info().expect_err("nothing listens");
        assert!(err.is_connect(), "{err:?}");
        // Input checks run before anything is sent, exactly as in the async handle.
        let err = c.collections().delete("a/b").expect_err("bad name");
        assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    }
}
