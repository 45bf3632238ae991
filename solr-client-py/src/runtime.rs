//! The Tokio runtime every client of this process shares, made again after `os.fork()`.
//!
//! A forked child inherits the parent's memory but none of its threads: the parent's runtime
//! has no worker left there. The runtime is therefore kept with the pid that made it; a call
//! from another pid makes a new one (the old one is leaked, never dropped: dropping it would
//! wait for threads that do not exist in the child).

use std::future::Future;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

/// The runtime and the pid that made it.
static RUNTIME: Mutex<Option<(u32, Arc<tokio::runtime::Runtime>)>> = Mutex::new(None);

/// The runtime of this process (made on first use, and again in a forked child).
pub fn handle() -> PyResult<Arc<tokio::runtime::Runtime>> {
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((owner, rt)) = slot.as_ref() {
        if *owner == pid {
            return Ok(rt.clone());
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("solr-client")
        .enable_all()
        .build()
        .map_err(|e| crate::errors::config(format!("cannot start a Tokio runtime: {e}")))?;
    let rt = Arc::new(rt);
    if let Some(old) = slot.replace((pid, rt.clone())) {
        // Another process's runtime (before a fork): its threads are not here.
        std::mem::forget(old);
    }
    Ok(rt)
}

/// Runs `fut` to completion on the shared runtime with the GIL released, so other Python
/// threads run while this one waits on the network.
pub fn block_on<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let rt = handle()?;
    Ok(py.allow_threads(move || rt.block_on(fut)))
}
