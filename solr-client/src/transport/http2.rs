//! `http2`: one HTTP/2 connection per host, multiplexing every request as a stream.
//!
//! Over https the connection negotiates `h2` by ALPN (Solr's Jetty offers h2 and
//! http/1.1); over plain http it speaks h2c with prior knowledge (Jetty accepts the HTTP/2
//! preface on its HTTP/1.1 port). Concurrent requests share the one connection; the first
//! request opens it while the others wait (their wait is the `blocked` phase).
//!
//! Timing: on an HTTP/2 socket the client writes control frames (SETTINGS ACK,
//! WINDOW_UPDATE, PING ACK) while responses are pending, so socket stamps cannot mark the
//! end of one request. `write` is therefore zero (the request is handed to its stream at
//! once), `server_wait` runs to the decoded response headers and `transfer` to the last body
//! byte. Byte counts are exact socket counts while the request is alone on the connection;
//! when streams overlap they are payload bytes (`Timing::bytes_exact == false`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};

use super::connector::{ConnMeter, Connector, SetupTiming};
use super::h1::{build_request, map_hyper, read_response, IdleClock, Instants};
use super::tls::TlsOptions;
use super::{BoxFuture, Transport, TransportStats, WireRequest, WireResponse};
use crate::error::{Error, Result};
use crate::timing::HttpVersion;

#[derive(Clone)]
struct H2Conn {
    sender: SendRequest<Full<Bytes>>,
    meter: Arc<ConnMeter>,
    inflight: Arc<AtomicU64>,
}

/// The multiplexing HTTP/2 transport.
pub struct Http2 {
    connector: Connector,
    conns: tokio::sync::Mutex<HashMap<String, H2Conn>>,
    counted: super::Counted,
}

impl std::fmt::Debug for Http2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http2")
            .field("connector", &self.connector)
            .finish()
    }
}

impl Http2 {
    /// Builds the transport.
    pub fn new(tls: &TlsOptions) -> Result<Self> {
        Ok(Http2 {
            connector: Connector::new(tls, &[b"h2"])?,
            conns: tokio::sync::Mutex::new(HashMap::new()),
            counted: super::Counted::new("http2", tls.is_insecure()),
        })
    }

    async fn connection(
        &self,
        req: &WireRequest,
        node: &str,
    ) -> Result<(H2Conn, Option<SetupTiming>)> {
        let key = format!("{}://{}", req.node.scheme(), req.authority());
        let mut conns = self.conns.lock().await;
        if let Some(c) = conns.get(&key) {
            if !c.sender.is_closed() {
                return Ok((c.clone(), None));
            }
            conns.remove(&key);
        }
        let conn = self
            .connector
            .connect(&req.node, req.timeouts.connect)
            .await?;
        if req.node.scheme() == "https" && !conn.h2 {
            return Err(Error::Io {
                node: node.to_string(),
                message: "server did not negotiate h2 by ALPN".into(),
                not_sent: true,
            });
        }
        let (sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(conn.io))
                .await
                .map_err(|e| map_hyper(node, e))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let c = H2Conn {
            sender,
            meter: conn.meter,
            inflight: Arc::new(AtomicU64::new(0)),
        };
        conns.insert(key, c.clone());
        Ok((c, Some(conn.setup)))
    }

    async fn send_inner(&self, req: WireRequest) -> Result<WireResponse> {
        let node = crate::error::node_label(&req.node);
        let start = Instant::now();
        let (mut conn, setup) = self.connection(&req, &node).await?;
        let conn_ready = Instant::now();
        let alone_at_start = conn.inflight.fetch_add(1, Ordering::SeqCst) == 0;
        let (in0, out0) = if setup.is_some() {
            (0, 0)
        } else {
            conn.meter.bytes()
        };
        conn.meter.requests.fetch_add(1, Ordering::Relaxed);
        let http_req = build_request(&req, true)?;
        let body_len = req.body.len() as u64;
        let result = read_response(
            &node,
            &req,
            IdleClock::Frames,
            conn.sender.send_request(http_req),
        )
        .await;
        let done = Instant::now();
        let alone = alone_at_start && conn.inflight.load(Ordering::SeqCst) == 1;
        conn.inflight.fetch_sub(1, Ordering::SeqCst);
        let resp = result?;
        // Stream-level stamps: on an HTTP/2 socket the client also writes control frames
        // (SETTINGS ACK, WINDOW_UPDATE, PING ACK) while a response is pending, so socket
        // stamps cannot tell when this request's last byte left.
        let (write_done, first_byte) = (conn_ready, resp.headers_at);
        let mut timing = Instants {
            start,
            conn_ready,
            write_done,
            first_byte,
            done,
        }
        .into_timing(setup, HttpVersion::Http2, &node);
        timing.connection_id = conn.meter.id;
        if alone {
            let (bin, bout) = conn.meter.bytes();
            timing.bytes_in = bin - in0;
            timing.bytes_out = bout - out0;
        } else {
            timing.bytes_exact = false;
            timing.bytes_in = resp.body.len() as u64;
            timing.bytes_out = body_len;
        }
        timing.decoded_bytes = resp.body.len() as u64;
        Ok(WireResponse {
            status: resp.status,
            headers: resp.headers,
            body: resp.body,
            timing,
        })
    }
}

impl Transport for Http2 {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
        self.counted.send(req, |req| self.send_inner(req))
    }

    fn name(&self) -> String {
        self.counted.name()
    }

    fn stats(&self) -> TransportStats {
        self.counted.stats(self.connector.opened())
    }
}
