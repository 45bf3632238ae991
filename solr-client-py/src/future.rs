//! The asyncio bridge of `AsyncClient`: a call runs as a task on the shared Tokio runtime
//! and completes an asyncio future through the loop's `call_soon_threadsafe`, calling the
//! Python helper `done(future, ok, value)` (which ignores a future already cancelled). The
//! event loop's thread never blocks.

use std::future::Future;

use pyo3::prelude::*;

use crate::runtime;

/// Spawns `fut` and returns an asyncio future completed with `convert(output)`, or with the
/// error as the matching `SolrError`.
pub fn spawn<T, F, C>(
    py: Python<'_>,
    event_loop: Bound<'_, PyAny>,
    done: Bound<'_, PyAny>,
    fut: F,
    convert: C,
) -> PyResult<Py<PyAny>>
where
    T: Send + 'static,
    F: Future<Output = solr_client::Result<T>> + Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>> + Send + 'static,
{
    let future = event_loop.call_method0("create_future")?;
    let (lp, fu, dn) = (event_loop.unbind(), future.clone().unbind(), done.unbind());
    runtime::handle()?.spawn(async move {
        let out = fut.await;
        Python::with_gil(|py| {
            let result = out
                .map_err(|e| crate::errors::to_py(py, e))
                .and_then(|v| convert(py, v));
            let (ok, value) = match result {
                Ok(v) => (true, v),
                Err(e) => (false, e.into_value(py).into_any()),
            };
            // A closed loop cannot be told; the awaiting coroutine is gone with it.
            let _ = lp.call_method1(py, "call_soon_threadsafe", (dn, fu, ok, value));
        });
    });
    let _ = py;
    Ok(future.unbind())
}
