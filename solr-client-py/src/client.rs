//! `NativeClient`: one solr-client [`SolrClient`] behind the Python classes. Every call
//! releases the GIL while it waits on the network, so threads share one client.
//!
//! After `os.fork()` the child must not use the parent's connections (both processes would
//! read and write the same sockets). The client keeps the pid that made it; a call from
//! another pid makes a new client from the same [`Config`] first, with connections of its
//! own, and leaves the parent's untouched (never closed from the child, never used).
//!
//! Blocking calls on a standalone node go through a second client of the same [`Config`]
//! whose connections live on the current-thread runtime ([`runtime::block_on_direct`]):
//! the calling thread drives the exchange itself. Its connections are never handed to the
//! multi-thread runtime's tasks (asyncio calls, the indexer, exports use the first client),
//! which could not make them progress. A SolrCloud client keeps every call on the
//! multi-thread runtime: its background refresh runs there and shares the connections.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use solr_client::{Method, RequestKind, SolrClient, WireRequest};

use crate::config::Config;
use crate::{future, runtime};

/// The client and the pid it belongs to; `None` after `close()`.
type Slot = Option<(u32, SolrClient)>;

/// The Rust client behind `solr_client.Client`, `solr_client.Solr` and `AsyncClient`.
#[pyclass(module = "solr_client._native", frozen)]
#[derive(Debug)]
pub struct NativeClient {
    config: Config,
    slot: Mutex<Slot>,
    /// The client of blocking calls on a standalone node, made on the first one.
    direct: Mutex<Slot>,
    /// Every call on the multi-thread runtime: SolrCloud, or asked for through the
    /// environment (`SOLR_CLIENT_PY_BLOCKING=shared`, read when the client is made).
    shared_only: bool,
}

/// What one exchange returns to Python: status, body and the timing dict.
pub type Answer = (u16, Py<PyBytes>, Py<PyDict>);

impl NativeClient {
    /// The client of this process, made again after a fork.
    pub fn client(&self, py: Python<'_>) -> PyResult<SolrClient> {
        let pid = std::process::id();
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some((owner, c)) if *owner == pid => return Ok(c.clone()),
            None => return Err(crate::errors::config("the client is closed".into())),
            Some(_) => {}
        }
        let fresh = self.make(py)?;
        if let Some(parent) = slot.replace((pid, fresh.clone())) {
            // The parent's connections: neither used nor closed here.
            std::mem::forget(parent);
        }
        Ok(fresh)
    }

    /// Runs `call`'s future for a blocking call: on the current-thread runtime with the
    /// direct client (standalone), or on the multi-thread runtime (SolrCloud).
    pub fn run_blocking<C, F>(&self, py: Python<'_>, call: C) -> PyResult<F::Output>
    where
        C: FnOnce(SolrClient) -> PyResult<F>,
        F: std::future::Future + Send,
        F::Output: Send,
    {
        let shared = self.client(py)?;
        if self.shared_only {
            return runtime::block_on(py, call(shared)?);
        }
        let direct = {
            let pid = std::process::id();
            let mut slot = self.direct.lock().unwrap_or_else(|p| p.into_inner());
            match slot.as_ref() {
                Some((owner, c)) if *owner == pid => c.clone(),
                _ => {
                    let fresh = self.make(py)?;
                    if let Some(parent) = slot.replace((pid, fresh.clone())) {
                        std::mem::forget(parent); // the parent's (see `client`)
                    }
                    fresh
                }
            }
        };
        runtime::block_on_direct(py, call(direct)?)
    }

    fn make(&self, py: Python<'_>) -> PyResult<SolrClient> {
        let rt = runtime::handle()?;
        let _in_runtime = rt.enter();
        self.config.build(py)
    }
}

impl Drop for NativeClient {
    /// A client dropped without `close()`: its direct connections end now, not at the
    /// next blocking call of another client.
    fn drop(&mut self) {
        let direct = self
            .direct
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some((owner, c)) = direct {
            if owner == std::process::id() {
                drop(c);
                runtime::settle_direct();
            } else {
                std::mem::forget(c);
            }
        }
    }
}

/// A wire request for `path` under the collection.
pub fn wire(
    client: &SolrClient,
    method: &str,
    path: &str,
    params: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    content_type: Option<&str>,
) -> PyResult<WireRequest> {
    let m = Method::from_bytes(method.as_bytes())
        .map_err(|_| crate::errors::config(format!("not an HTTP method: {method:?}")))?;
    let kind = match (method, path) {
        (_, p) if p.starts_with("admin") => RequestKind::Admin,
        ("GET", _) => RequestKind::Read,
        (_, p) if p.starts_with("update") => RequestKind::Write,
        _ => RequestKind::Read,
    };
    let mut req = client.wire(m, path, params, kind);
    if let Some(b) = body {
        req.body = b.into();
    }
    if let Some(ct) = content_type {
        let v = http::HeaderValue::from_str(ct)
            .map_err(|_| crate::errors::config(format!("not a header value: {ct:?}")))?;
        req.headers.insert(http::header::CONTENT_TYPE, v);
    }
    Ok(req)
}

/// The Python side of an answer.
pub fn answer(py: Python<'_>, r: solr_client::WireResponse) -> PyResult<Answer> {
    let body = PyBytes::new(py, &r.body).unbind();
    Ok((
        r.status.as_u16(),
        body,
        crate::timing::to_dict(py, &r.timing)?,
    ))
}

#[pymethods]
impl NativeClient {
    /// Makes the client (see `solr_client.Client` for the arguments).
    #[new]
    #[pyo3(signature = (nodes, collection, cloud=false, transport="pooled".to_string(), gzip=true,
        timeout=60.0, connect_timeout=None, basic=None, bearer=None, token_fn=None,
        client_cert=None, ca_file=None, proxy=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        nodes: Vec<String>,
        collection: String,
        cloud: bool,
        transport: String,
        gzip: bool,
        timeout: f64,
        connect_timeout: Option<f64>,
        basic: Option<(String, String)>,
        bearer: Option<String>,
        token_fn: Option<Py<PyAny>>,
        client_cert: Option<(String, String)>,
        ca_file: Option<String>,
        proxy: Option<String>,
    ) -> PyResult<Self> {
        let config = Config {
            nodes,
            collection,
            cloud,
            transport,
            gzip,
            timeout,
            connect_timeout,
            basic,
            bearer,
            token_fn,
            client_cert,
            ca_file,
            proxy,
        };
        let c = NativeClient {
            slot: Mutex::new(None),
            direct: Mutex::new(None),
            shared_only: config.cloud
                || std::env::var("SOLR_CLIENT_PY_BLOCKING").is_ok_and(|v| v == "shared"),
            config,
        };
        let first = c.make(py)?;
        *c.slot.lock().unwrap_or_else(|p| p.into_inner()) = Some((std::process::id(), first));
        Ok(c)
    }

    /// One HTTP exchange under the collection: `(status, body, timing)`. A non-2xx answer
    /// raises the matching `SolrError` subclass.
    #[pyo3(signature = (method, path, params, body=None, content_type=None))]
    fn request(
        &self,
        py: Python<'_>,
        method: &str,
        path: &str,
        params: Vec<(String, String)>,
        body: Option<Vec<u8>>,
        content_type: Option<&str>,
    ) -> PyResult<Answer> {
        let r = self.run_blocking(py, |client| {
            let req = wire(&client, method, path, params, body, content_type)?;
            Ok(async move { client.send_raw(req).await })
        })?;
        answer(py, r.map_err(|e| crate::errors::to_py(py, e))?)
    }

    /// Adds documents (a JSON array) in batches of `batch_size`; the exact account of every
    /// document as a dict (see `solr_client.Client.add`).
    fn add_batched(
        &self,
        py: Python<'_>,
        docs_json: &[u8],
        batch_size: usize,
    ) -> PyResult<Py<PyDict>> {
        let docs = parse_docs(docs_json)?;
        let r = self.run_blocking(py, |client| {
            Ok(async move { client.add_batched(&docs, batch_size).await })
        })?;
        crate::batch::to_dict(py, &r.map_err(|e| crate::errors::to_py(py, e))?)
    }

    /// The connections this client's transports opened and the requests they sent (the
    /// blocking calls' and the others', in this process).
    fn stats(&self, py: Python<'_>) -> PyResult<(u64, u64)> {
        let s = self.client(py)?.transport().stats();
        let pid = std::process::id();
        let direct = self.direct.lock().unwrap_or_else(|p| p.into_inner());
        let d = match direct.as_ref() {
            Some((owner, c)) if *owner == pid => c.transport().stats(),
            _ => Default::default(),
        };
        Ok((
            s.connections_opened + d.connections_opened,
            s.requests + d.requests,
        ))
    }

    /// Drops the clients and their connections; later calls raise `SolrError`.
    fn close(&self) {
        for slot in [&self.slot, &self.direct] {
            let old = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some((owner, c)) = old {
                if owner == std::process::id() {
                    drop(c);
                } else {
                    std::mem::forget(c);
                }
            }
        }
        runtime::settle_direct();
    }

    /// True once `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.slot
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_none()
    }

    /// `request` as an asyncio future of `(status, body, timing)`.
    #[pyo3(signature = (event_loop, done, method, path, params, body=None, content_type=None))]
    #[allow(clippy::too_many_arguments)]
    fn request_async(
        &self,
        py: Python<'_>,
        event_loop: Bound<'_, PyAny>,
        done: Bound<'_, PyAny>,
        method: &str,
        path: &str,
        params: Vec<(String, String)>,
        body: Option<Vec<u8>>,
        content_type: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let client = self.client(py)?;
        let req = wire(&client, method, path, params, body, content_type)?;
        let fut = async move { client.send_raw(req).await };
        future::spawn(py, event_loop, done, fut, |py, r| {
            Ok(answer(py, r)?.into_pyobject(py)?.into_any().unbind())
        })
    }

    /// `add_batched` as an asyncio future of the account dict.
    fn add_batched_async(
        &self,
        py: Python<'_>,
        event_loop: Bound<'_, PyAny>,
        done: Bound<'_, PyAny>,
        docs_json: &[u8],
        batch_size: usize,
    ) -> PyResult<Py<PyAny>> {
        let docs = parse_docs(docs_json)?;
        let client = self.client(py)?;
        let fut = async move { client.add_batched(&docs, batch_size).await };
        future::spawn(py, event_loop, done, fut, |py, r| {
            Ok(crate::batch::to_dict(py, &r)?.into_any())
        })
    }
}

/// The documents of a JSON array.
pub fn parse_docs(json: &[u8]) -> PyResult<Vec<serde_json::Value>> {
    serde_json::from_slice(json)
        .map_err(|e| crate::errors::config(format!("documents are not a JSON array: {e}")))
}
