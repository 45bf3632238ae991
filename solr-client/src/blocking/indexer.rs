//! The blocking twin of the bulk [`crate::Indexer`]: the same batching, concurrency and
//! exact report, driven from a thread without an async runtime.

use serde::Serialize;

use super::SolrClient;
use crate::batch::BatchReport;
use crate::error::Result;
use crate::indexer::IndexerBuilder;

/// A bulk indexer on a blocking client's runtime (see [`crate::Indexer`] for batching,
/// retries and the report). The runtime runs on the calling thread, so batches travel while
/// a call of this indexer (or of its client) is running: [`Self::push`] sends the batches
/// that are ready as it goes, and [`Self::finish`] waits for the rest.
///
/// ```no_run
/// # fn run() -> solr_client::Result<()> {
/// use solr_client::{blocking, Indexer, SolrClient};
/// let client = blocking::SolrClient::new(
///     SolrClient::builder("http://127.0.0.1:8983/solr").collection("books").build()?,
/// )?;
/// let mut indexer = client.indexer(Indexer::builder(client.inner().clone()).batch_docs(500))?;
/// indexer.index_iter((0..10_000).map(|i| serde_json::json!({"id": i.to_string()})))?;
/// let report = indexer.finish()?;
/// assert!(report.is_balanced());
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[must_use = "documents pushed are reported only by finish()"]
pub struct Indexer<'a> {
    client: &'a SolrClient,
    inner: crate::Indexer,
}

impl SolrClient {
    /// Starts the indexer that `builder` describes on this client's runtime. Build the
    /// builder over this client's async client ([`Self::inner`]) so that both share the
    /// transport and its connections.
    pub fn indexer(&self, builder: IndexerBuilder) -> Result<Indexer<'_>> {
        let inner = self.run("indexer", async move { builder.build() })??;
        Ok(Indexer {
            client: self,
            inner,
        })
    }
}

impl Indexer<'_> {
    /// See [`crate::Indexer::push`].
    pub fn push<T: Serialize>(&mut self, doc: T) -> Result<()> {
        self.client.run("indexer push", self.inner.push(doc))?
    }

    /// See [`crate::Indexer::index_iter`] (the twin of
    /// [`crate::Indexer::index_stream`] too: a blocking caller hands an iterator).
    pub fn index_iter<I>(&mut self, docs: I) -> Result<()>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        self.client
            .run("indexer index_iter", self.inner.index_iter(docs))?
    }

    /// See [`crate::Indexer::pushed`].
    pub fn pushed(&self) -> usize {
        self.inner.pushed()
    }

    /// See [`crate::Indexer::finish`]. An error only when called on a thread inside a
    /// Tokio runtime ([`crate::Error::Config`]); the indexer is then dropped, and the
    /// batches already sent complete in the background without a report.
    pub fn finish(self) -> Result<BatchReport> {
        self.client.run("indexer finish", self.inner.finish())
    }
}
