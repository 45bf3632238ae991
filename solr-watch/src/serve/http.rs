//! The `/metrics` endpoint: a hyper 1 server (hyper-util's auto connection: HTTP/1.1 or
//! HTTP/2) answering `GET /metrics` with the OpenMetrics text of the shared [`Metrics`],
//! 404 on any other path. On shutdown it stops accepting (later connections are refused)
//! and lets the scrapes in progress finish, up to 5 s.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, Result};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{header, Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::watch;

use super::metrics::Metrics;

/// The aggregator, shared by the watch that feeds it and the server that reads it.
pub type Shared = Arc<Mutex<Metrics>>;

/// The content type of the exposition.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Listens on `addr` (`ADDR:PORT`); the error says why first (the address in use, or not an
/// address).
pub async fn bind(addr: &str) -> Result<TcpListener> {
    match TcpListener::bind(addr).await {
        Ok(l) => Ok(l),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => Err(anyhow!(
            "address already in use: {addr} (another process listens there; choose another --serve ADDR:PORT)"
        )),
        Err(e) => Err(anyhow!("cannot listen on {addr}: {e}")),
    }
}

/// A running server; [`Server::shutdown`] stops it.
#[derive(Debug)]
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    /// Serves `metrics` on `listener` (on the current tokio runtime).
    pub fn spawn(listener: TcpListener, metrics: Shared) -> Result<Server> {
        let addr = listener.local_addr()?;
        let (stop, rx) = watch::channel(false);
        let task = tokio::spawn(accept_loop(listener, metrics, rx));
        Ok(Server { addr, stop, task })
    }

    /// Stops accepting, then waits (at most 5 s) for the scrapes in progress.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

async fn accept_loop(listener: TcpListener, metrics: Shared, mut stop: watch::Receiver<bool>) {
    let graceful = GracefulShutdown::new();
    let builder = Builder::new(TokioExecutor::new());
    loop {
        let stream = tokio::select! {
            r = listener.accept() => r,
            _ = stop.changed() => break,
        };
        let Ok((stream, _)) = stream else {
            // Out of file descriptors and the like: do not spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let m = metrics.clone();
        let svc = service_fn(move |req| {
            let m = m.clone();
            async move { Ok::<_, Infallible>(answer(&req, &m)) }
        });
        let conn = builder
            .serve_connection(TokioIo::new(stream), svc)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(Duration::from_secs(5)) => {}
    }
}

fn answer(req: &Request<Incoming>, metrics: &Shared) -> Response<Full<Bytes>> {
    if req.uri().path() != "/metrics" {
        return plain(
            StatusCode::NOT_FOUND,
            "not found: the metrics are at /metrics\n",
        );
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return plain(StatusCode::METHOD_NOT_ALLOWED, "GET /metrics\n");
    }
    let text = {
        let m = metrics.lock().unwrap_or_else(|e| e.into_inner());
        m.encode()
    };
    match text {
        Ok(t) => {
            let mut r = Response::new(Full::new(Bytes::from(t)));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static(OPENMETRICS),
            );
            r
        }
        Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "encoding failed\n"),
    }
}

fn plain(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *r.status_mut() = status;
    r
}
