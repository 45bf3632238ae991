//! `NativeTuples`: the tuples of `/export` (or a streaming expression) read from the
//! response body as they arrive, one at a time, each handed to Python as JSON bytes; memory
//! stays at one chunk of the body however many documents match.

use std::sync::Mutex;

use futures::StreamExt;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use solr_client::{Export, Tuples};

use crate::client::NativeClient;
use crate::runtime;

/// An iterator of JSON tuples.
#[pyclass(module = "solr_client._native", frozen)]
#[derive(Debug)]
pub struct NativeTuples {
    inner: Mutex<Option<Tuples<serde_json::Value>>>,
}

#[pymethods]
impl NativeTuples {
    /// Starts an export of `q` with fields `fl` sorted by `sort`, filtered by `fq`.
    #[new]
    #[pyo3(signature = (client, q, fl, sort, fq=Vec::new()))]
    fn new(
        py: Python<'_>,
        client: &NativeClient,
        q: String,
        fl: String,
        sort: String,
        fq: Vec<String>,
    ) -> PyResult<Self> {
        let c = client.client(py)?;
        let mut ex = Export::new(q).fl(fl).sort(sort);
        for f in fq {
            ex = ex.fq(f);
        }
        let t = runtime::block_on(
            py,
            async move { c.export_as::<serde_json::Value>(&ex).await },
        )?;
        let t = t.map_err(|e| crate::errors::to_py(py, e))?;
        Ok(NativeTuples {
            inner: Mutex::new(Some(t)),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next tuple as JSON bytes, or the end.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyBytes>>> {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let Some(stream) = guard.as_mut() else {
            return Ok(None);
        };
        let next = runtime::block_on(py, stream.next())?;
        match next {
            Some(Ok(v)) => {
                let json =
                    serde_json::to_vec(&v).map_err(|e| crate::errors::config(e.to_string()))?;
                Ok(Some(PyBytes::new(py, &json).unbind()))
            }
            Some(Err(e)) => {
                *guard = None;
                Err(crate::errors::to_py(py, e))
            }
            None => {
                *guard = None;
                Ok(None)
            }
        }
    }
}
