//! `NativeIndexer`: solr-client's bulk [`Indexer`] (batches of `batch_docs`, `in_flight`
//! requests at once) fed from Python, many JSON documents at a time. `finish()` waits for
//! every batch and returns the exact account. Each call has a blocking form (`Client`) and
//! an asyncio one (`AsyncClient`); both run on the shared runtime.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use solr_client::{BatchReport, Indexer};
use tokio::sync::Mutex;

use crate::client::NativeClient;
use crate::{future, runtime};

/// The indexer; `None` once finished.
type Slot = Arc<Mutex<Option<Indexer>>>;

/// The indexer behind `solr_client.Indexer` and `solr_client.AsyncIndexer`.
#[pyclass(module = "solr_client._native", frozen)]
#[derive(Debug)]
pub struct NativeIndexer {
    inner: Slot,
}

fn finished() -> solr_client::Error {
    solr_client::Error::Config("the indexer is finished".into())
}

/// Pushes `docs` (waiting while the queue is full); the number pushed so far.
async fn push(slot: Slot, docs: Vec<serde_json::Value>) -> solr_client::Result<usize> {
    let mut guard = slot.lock().await;
    let ix = guard.as_mut().ok_or_else(finished)?;
    for d in docs {
        ix.push(d).await?;
    }
    Ok(ix.pushed())
}

/// Waits for every batch: the account of every document pushed.
async fn finish(slot: Slot) -> solr_client::Result<BatchReport> {
    let ix = slot.lock().await.take().ok_or_else(finished)?;
    Ok(ix.finish().await)
}

#[pymethods]
impl NativeIndexer {
    /// An indexer over `client`.
    #[new]
    fn new(
        py: Python<'_>,
        client: &NativeClient,
        batch_docs: usize,
        in_flight: usize,
    ) -> PyResult<Self> {
        let c = client.client(py)?;
        let rt = runtime::handle()?;
        let _in_runtime = rt.enter();
        let ix = Indexer::builder(c)
            .batch_docs(batch_docs)
            .in_flight(in_flight)
            .build()
            .map_err(|e| crate::errors::to_py(py, e))?;
        Ok(NativeIndexer {
            inner: Arc::new(Mutex::new(Some(ix))),
        })
    }

    /// Pushes the documents of a JSON array (waits while the queue is full).
    fn push_many(&self, py: Python<'_>, docs_json: &[u8]) -> PyResult<usize> {
        let docs = crate::client::parse_docs(docs_json)?;
        let r = runtime::block_on(py, push(self.inner.clone(), docs))?;
        r.map_err(|e| crate::errors::to_py(py, e))
    }

    /// `push_many` as an asyncio future of the number pushed so far.
    fn push_many_async(
        &self,
        py: Python<'_>,
        event_loop: Bound<'_, PyAny>,
        done: Bound<'_, PyAny>,
        docs_json: &[u8],
    ) -> PyResult<Py<PyAny>> {
        let docs = crate::client::parse_docs(docs_json)?;
        let fut = push(self.inner.clone(), docs);
        future::spawn(py, event_loop, done, fut, |py, n| {
            Ok(n.into_pyobject(py)?.into_any().unbind())
        })
    }

    /// Waits for every batch; the account of every document pushed.
    fn finish(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let report = runtime::block_on(py, finish(self.inner.clone()))?;
        crate::batch::to_dict(py, &report.map_err(|e| crate::errors::to_py(py, e))?)
    }

    /// `finish` as an asyncio future of the account dict.
    fn finish_async(
        &self,
        py: Python<'_>,
        event_loop: Bound<'_, PyAny>,
        done: Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let fut = finish(self.inner.clone());
        future::spawn(py, event_loop, done, fut, |py, r| {
            Ok(crate::batch::to_dict(py, &r)?.into_any())
        })
    }
}
