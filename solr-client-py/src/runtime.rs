//! The Tokio runtimes every client of this process shares, made again after `os.fork()`:
//!
//! - the multi-thread runtime (two workers): asyncio calls, the bulk indexer, exports and
//!   SolrCloud clients (whose background refresh needs a runtime that always runs);
//! - the current-thread runtime of blocking calls on a standalone node ([`block_on_direct`]):
//!   the calling Python thread itself drives the request and its connection (no worker
//!   thread, so no hop between threads and back per call). Its connections are only used
//!   from calls that drive it (see `crate::client`). Python threads calling at once take
//!   turns driving it, each waiting without the GIL.
//!
//! A forked child inherits the parent's memory but none of its threads, and shares its
//! epoll descriptors: a runtime is therefore kept with the pid that made it; a call from
//! another pid makes a new one (the old one is leaked, never dropped: dropping it would wait
//! for threads that do not exist in the child, or touch the parent's descriptors).

use std::future::Future;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use tokio::runtime::{Builder, Runtime};

/// A runtime and the pid that made it.
type Slot = Mutex<Option<(u32, Arc<Runtime>)>>;

static RUNTIME: Slot = Mutex::new(None);
static DIRECT: Slot = Mutex::new(None);

/// The runtime in `slot` if this process made it, else a new one from `build`.
fn per_process(slot: &Slot, build: fn() -> std::io::Result<Runtime>) -> PyResult<Arc<Runtime>> {
    let pid = std::process::id();
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((owner, rt)) = slot.as_ref() {
        if *owner == pid {
            return Ok(rt.clone());
        }
    }
    let rt =
        build().map_err(|e| crate::errors::config(format!("cannot start a Tokio runtime: {e}")))?;
    let rt = Arc::new(rt);
    if let Some(old) = slot.replace((pid, rt.clone())) {
        // Another process's runtime (before a fork): its threads are not here.
        std::mem::forget(old);
    }
    Ok(rt)
}

/// The multi-thread runtime of this process (made on first use, and again in a child).
pub fn handle() -> PyResult<Arc<Runtime>> {
    per_process(&RUNTIME, || {
        Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("solr-client")
            .enable_all()
            .build()
    })
}

/// Runs `fut` to completion on the multi-thread runtime with the GIL released, so other
/// Python threads run while this one waits on the network.
pub fn block_on<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let rt = handle()?;
    Ok(py.allow_threads(move || rt.block_on(fut)))
}

/// Runs `fut` on the current-thread runtime, driven by the calling thread, with the GIL
/// released. Only for futures whose connections live on that runtime (`crate::client`).
pub fn block_on_direct<F>(py: Python<'_>, fut: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let rt = per_process(&DIRECT, || {
        Builder::new_current_thread().enable_all().build()
    })?;
    Ok(py.allow_threads(move || rt.block_on(fut)))
}

/// Lets the current-thread runtime run its ready tasks once in a while: a dropped direct
/// client's connection tasks end there (closing their sockets) only when something drives
/// it. Does nothing inside a runtime (where it must not block), in a process that never
/// made that runtime, or while another thread drives it (that thread runs them).
pub fn settle_direct() {
    if tokio::runtime::Handle::try_current().is_ok() {
        return;
    }
    let pid = std::process::id();
    let rt = match DIRECT.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        Some((owner, rt)) if *owner == pid => rt.clone(),
        _ => return,
    };
    rt.block_on(async {
        for _ in 0..8 {
            tokio::task::yield_now().await;
        }
    });
}
