//! `fresh`: a new TCP (+TLS) connection for every request, closed by the client afterwards.
//!
//! This is what Ruby's Net::HTTP under Faraday's default adapter does (Websolr's write-up): every
//! request pays DNS + TCP connect + TLS handshake, and every closed connection leaves a
//! TIME_WAIT socket behind. It is the baseline of every comparison.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;

use crate::error::Result;
use crate::timing::HttpVersion;
use crate::transport::connect::client_auth::h1_explained;
use crate::transport::connect::connector::{ConnMeter, Connector, SetupTiming};
use crate::transport::connect::proxy::{self, Proxy};
use crate::transport::connect::tls::TlsOptions;
use crate::transport::http::exchange::{
    build_request, exchange_head, map_hyper, read_body, ConnTimer, Head, Instants, Target, Watch,
};
use crate::transport::http::incoming::IncomingBody;
use crate::transport::{StreamingResponse, WireBytes, WireCount, WireRequest, WireResponse};

/// A transport that opens a new connection per request.
#[derive(Debug)]
pub struct Fresh {
    connector: Connector,
    counted: crate::transport::Counted,
}

impl Fresh {
    /// Builds the transport with the given TLS options (used for https nodes).
    pub fn new(tls: &TlsOptions) -> Result<Self> {
        Self::with_proxy(tls, None)
    }

    /// [`Self::new`], going through `proxy` when given: `http://` nodes in absolute form,
    /// `https://` nodes through a `CONNECT` tunnel.
    pub fn with_proxy(tls: &TlsOptions, proxy: Option<&Proxy>) -> Result<Self> {
        Ok(Fresh {
            connector: Connector::new(tls, crate::transport::connect::connector::HTTP1_ALPN)?
                .via(proxy, false),
            counted: crate::transport::Counted::new("fresh", tls.is_insecure()),
        })
    }

    async fn send_inner(&self, req: WireRequest) -> Result<WireResponse> {
        let node = crate::redact::node_label(&req.node);
        let head = self.head(&req, &node).await?;
        let Headed {
            resp,
            close,
            meter,
            mut timer,
            setup,
            mut at,
        } = head;
        let watch = Watch::new(&meter, &mut timer, req.timeouts.read_idle, at.done, None);
        let result = read_body(&node, &req, watch, resp.0, false).await;
        at.done = Instant::now();
        drop(close); // closes the socket: the client sends FIN, as Net::HTTP does
        let resp = result?;
        let (bin, bout) = meter.bytes();
        let mut timing = at.into_timing(Some(setup), HttpVersion::Http11, &node);
        timing.connection_id = meter.id;
        // A fresh connection carries one request: its bytes include the TLS handshake.
        timing.bytes_in = bin;
        timing.bytes_out = bout;
        timing.decoded_bytes = resp.body.len() as u64;
        Ok(WireResponse {
            status: resp.status,
            headers: resp.headers,
            body: resp.body,
            timing,
        })
    }

    /// The exchange up to the response head, what the buffered and the streaming path
    /// share: a new connection, the request written, the head read (its timing stamps with
    /// `done` at the head). The connection is closed when the returned [`Headed`]'s `close`
    /// is dropped (with it, on any error).
    async fn head(&self, req: &WireRequest, node: &str) -> Result<Headed> {
        let start = Instant::now();
        let conn = self
            .connector
            .connect(&req.node, req.timeouts.connect)
            .await?;
        let (meter, setup) = (conn.meter, conn.setup);
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(conn.io))
            .await
            .map_err(|e| map_hyper(node, e))?;
        let driver = tokio::spawn(async move {
            let _ = connection.await;
        });
        let mut close = CloseOnDrop(driver, sender);
        let conn_ready = Instant::now();
        meter.requests.fetch_add(1, Ordering::Relaxed);
        let mut http_req = build_request(req, Target::Origin(None))?;
        let forwarder = self.connector.forwarder(&req.node);
        if let Some(p) = forwarder {
            proxy::absolute_form(&mut http_req, req, p)?;
        }
        let mut timer = ConnTimer::new();
        // The call's deadline is the `Counted` wrapper's: a new connection per request makes
        // one more timer per request nothing to save.
        let watch = Watch::new(&meter, &mut timer, req.timeouts.read_idle, conn_ready, None);
        let resp = match exchange_head(node, req, watch, &mut close.1, http_req).await {
            Ok(resp) => resp,
            Err(e) => {
                return Err(h1_explained(
                    node,
                    req.node.scheme() == "https",
                    meter.cert_alert(),
                    e,
                ))
            }
        };
        if let Some(p) = forwarder {
            proxy::forwarded_status(resp.0.status(), node, req, p)?;
        }
        let marks = meter.marks();
        let at = Instants {
            start,
            conn_ready,
            write_done: marks.last_write.unwrap_or(conn_ready),
            first_byte: marks.first_read.unwrap_or(resp.1),
            done: resp.1,
        };
        Ok(Headed {
            resp,
            close,
            meter,
            timer,
            setup,
            at,
        })
    }

    /// The streaming path: the exchange up to the response head ([`Self::head`]); the
    /// connection is closed when the body has been read (its byte counts taken first) or
    /// dropped.
    async fn stream_inner(&self, req: WireRequest) -> Result<StreamingResponse> {
        let node = crate::redact::node_label(&req.node);
        let head = self.head(&req, &node).await?;
        let Headed {
            resp,
            close,
            meter,
            timer,
            setup,
            at,
        } = head;
        let mut timing = at.into_timing(Some(setup), HttpVersion::Http11, &node);
        timing.connection_id = meter.id;
        let (parts, body) = resp.0.into_parts();
        let wire = WireCount::default();
        let (count, back) = (wire.clone(), meter.clone());
        let body = IncomingBody::new(body, meter, timer, req.timeouts.read_idle, node).on_end(
            Box::new(move |_, _| {
                // A fresh connection carries one request: its bytes include the handshake.
                let (bytes_in, bytes_out) = back.bytes();
                count.set(WireBytes {
                    bytes_in,
                    bytes_out,
                    exact: true,
                });
                drop(close);
            }),
        );
        Ok(StreamingResponse::counted(
            parts.status,
            parts.headers,
            Box::pin(body),
            timing,
            wire,
        ))
    }
}

/// A request's exchange up to the response head ([`Fresh::head`]).
struct Headed {
    resp: Head,
    /// The connection: closed when dropped.
    close: CloseOnDrop,
    meter: Arc<ConnMeter>,
    timer: ConnTimer,
    setup: SetupTiming,
    /// The exchange's instants, `done` at the head.
    at: Instants,
}

/// A fresh connection's sender and the task driving it, which is aborted when this is
/// dropped: the connection is closed once its body has been read, or given up.
struct CloseOnDrop(tokio::task::JoinHandle<()>, SendRequest<Full<Bytes>>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

crate::transport::connector_base!(Fresh);
