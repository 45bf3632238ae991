//! `NativeTuples`: the tuples of `/export` read from the response body as they arrive and
//! handed to Python a chunk at a time (at most `max` tuples, as one JSON array); memory stays
//! at one chunk however many documents match. The export starts on the first chunk asked
//! for, from `Client.export` (blocking) or `AsyncClient.export` (an asyncio future per
//! chunk, so the event loop never blocks).

use std::sync::Arc;

use futures::StreamExt;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use solr_client::{Export, SolrClient, Tuples};
use tokio::sync::Mutex;

use crate::client::NativeClient;
use crate::{future, runtime};

/// Where an export is: not started, reading, or over (after the end or an error).
#[derive(Debug)]
enum State {
    Pending(Box<(SolrClient, Export)>),
    Reading(Box<Tuples<serde_json::Value>>),
    Over,
}

/// An export, read a chunk at a time.
#[pyclass(module = "solr_client._native", frozen)]
#[derive(Debug)]
pub struct NativeTuples {
    state: Arc<Mutex<State>>,
}

/// Up to `max` tuples as a JSON array, or `None` at the end. An error ends the export.
async fn chunk(state: Arc<Mutex<State>>, max: usize) -> solr_client::Result<Option<Vec<u8>>> {
    let mut guard = state.lock().await;
    if let State::Pending(p) = &*guard {
        let (client, export) = &**p;
        let started = client.export_as::<serde_json::Value>(export).await;
        match started {
            Ok(t) => *guard = State::Reading(Box::new(t)),
            Err(e) => {
                *guard = State::Over;
                return Err(e);
            }
        }
    }
    let State::Reading(stream) = &mut *guard else {
        return Ok(None);
    };
    let mut out = Vec::new();
    while out.len() < max.max(1) {
        match stream.next().await {
            Some(Ok(v)) => out.push(v),
            Some(Err(e)) => {
                *guard = State::Over;
                return Err(e);
            }
            None => {
                *guard = State::Over;
                break;
            }
        }
    }
    if out.is_empty() {
        return Ok(None);
    }
    serde_json::to_vec(&out)
        .map(Some)
        .map_err(|e| solr_client::Error::Config(format!("a tuple does not encode: {e}").into()))
}

fn to_py(py: Python<'_>, c: Option<Vec<u8>>) -> Py<PyAny> {
    match c {
        Some(json) => PyBytes::new(py, &json).into_any().unbind(),
        None => py.None(),
    }
}

#[pymethods]
impl NativeTuples {
    /// An export of `q` with fields `fl` sorted by `sort`, filtered by `fq` (started by the
    /// first chunk asked for).
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
        Ok(NativeTuples {
            state: Arc::new(Mutex::new(State::Pending(Box::new((c, ex))))),
        })
    }

    /// The next chunk of at most `max` tuples as JSON array bytes, or None at the end.
    fn next_chunk(&self, py: Python<'_>, max: usize) -> PyResult<Py<PyAny>> {
        let r = runtime::block_on(py, chunk(self.state.clone(), max))?;
        Ok(to_py(py, r.map_err(|e| crate::errors::to_py(py, e))?))
    }

    /// `next_chunk` as an asyncio future.
    fn next_chunk_async(
        &self,
        py: Python<'_>,
        event_loop: Bound<'_, PyAny>,
        done: Bound<'_, PyAny>,
        max: usize,
    ) -> PyResult<Py<PyAny>> {
        let fut = chunk(self.state.clone(), max);
        future::spawn(py, event_loop, done, fut, |py, c| Ok(to_py(py, c)))
    }
}
