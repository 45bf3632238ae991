//! `NativeIndexer`: solr-client's bulk [`Indexer`] (batches of `batch_docs`, `in_flight`
//! requests at once) fed from Python, one JSON document at a time or many at once.
//! `finish()` waits for every batch and returns the exact account.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use solr_client::Indexer;

use crate::client::NativeClient;
use crate::runtime;

/// The indexer behind `solr_client.Indexer`; `None` once finished.
#[pyclass(module = "solr_client._native", frozen)]
#[derive(Debug)]
pub struct NativeIndexer {
    inner: Mutex<Option<Indexer>>,
}

fn finished() -> PyErr {
    crate::errors::config("the indexer is finished".into())
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
            inner: Mutex::new(Some(ix)),
        })
    }

    /// Pushes the documents of a JSON array (waits while the queue is full).
    fn push_many(&self, py: Python<'_>, docs_json: &[u8]) -> PyResult<usize> {
        let docs = crate::client::parse_docs(docs_json)?;
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let ix = guard.as_mut().ok_or_else(finished)?;
        let r = runtime::block_on(py, async move {
            for d in docs {
                ix.push(d).await?;
            }
            Ok::<usize, solr_client::Error>(ix.pushed())
        })?;
        r.map_err(|e| crate::errors::to_py(py, e))
    }

    /// Waits for every batch; the account of every document pushed.
    fn finish(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let ix = self.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
        let ix = ix.ok_or_else(finished)?;
        let report = runtime::block_on(py, ix.finish())?;
        crate::batch::to_dict(py, &report)
    }
}
