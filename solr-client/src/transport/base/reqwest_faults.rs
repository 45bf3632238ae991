//! What reqwest does not say about a failure, found out so that the `reqwest` transport
//! gives the same typed error as the others for the same fault.
//!
//! - A proxy's 407 to a request it forwards (an `http://` node) comes back from reqwest as
//!   a plain response: it is [`Error::ProxyAuth`] here, as on `fresh` and `pooled`.
//! - A `CONNECT` the proxy refused is a reqwest connect error whose text is all there is
//!   (hyper-util's tunnel error type is private): "proxy authorization required" (407) is
//!   [`Error::ProxyAuth`]; "unsuccessful" (any other status, 401 included) does not say
//!   which status, so the transport asks the proxy itself once ([`Faults::explain`]).
//! - A client certificate the server refuses under TLS 1.3 is an alert that arrives after
//!   the handshake, in reqwest's connection task, which drops it: the request sees only a
//!   closed or reset connection. The transport then opens one connection of its own to the
//!   node, with the same TLS options, identity and proxy, and reads the server's answer to
//!   the handshake: the alert, when the server refuses the certificate.
//!
//! The probe runs only on an `https://` node whose request broke with an untyped
//! [`Error::Io`] or a read-idle timeout (reqwest's HTTP/2 request was once seen waiting on
//! the connection the alert had closed), or on an untyped tunnel failure, after reqwest's own resend; it costs a
//! connection and at most a second (bounded by the read-idle timeout) of waiting for an
//! alert, and it is never counted as one of the transport's connections. What it cannot
//! reproduce leaves reqwest's error as it was.

use std::time::Duration;

use tokio::io::AsyncReadExt;

use crate::error::{Error, Result, TimeoutPhase};
use crate::transport::connect::connector::{Connector, HTTP1_ALPN};
use crate::transport::connect::proxy::{self, Proxy};
use crate::transport::connect::tls::TlsOptions;
use crate::transport::WireRequest;

/// The longest wait for the server's alert on the probe connection.
const ALERT_WAIT: Duration = Duration::from_secs(1);

/// The proxy and the probe of a `reqwest` transport.
pub(crate) struct Faults {
    proxy: Option<Proxy>,
    /// Opens the probe connection (the proxy's and TLS settings of the transport).
    probe: Connector,
}

impl Faults {
    /// For a transport with these TLS options and proxy.
    pub(crate) fn new(tls: &TlsOptions, proxy: Option<&Proxy>) -> Result<Self> {
        Ok(Faults {
            proxy: proxy.cloned(),
            probe: Connector::new(tls, HTTP1_ALPN)?.via(proxy, false),
        })
    }

    /// [`Error::ProxyAuth`] when a proxy forwarding `req` (an `http://` node) answered 407
    /// itself; Ok otherwise.
    pub(crate) fn answered(
        &self,
        status: http::StatusCode,
        node: &str,
        req: &WireRequest,
    ) -> Result<()> {
        let Some(p) = self.proxy.as_ref() else {
            return Ok(());
        };
        if req.node.scheme() != "http" || p.for_node(&req.node).is_none() {
            return Ok(());
        }
        proxy::forwarded_status(status, node, req, p)
    }

    /// `e`, reqwest's error for `req` as mapped, with the fault it hides found out (see
    /// the module docs); as it is when nothing is hidden or the probe does not reproduce it.
    pub(crate) async fn explain(&self, node: &str, req: &WireRequest, e: Error) -> Error {
        let text = e.to_string();
        let tunnel = text.contains("tunnel error");
        if tunnel && text.contains("proxy authorization required") {
            if let Some(p) = self.proxy.as_ref() {
                let hop = p.hop(&req.node);
                return Error::ProxyAuth {
                    node: node.into(),
                    proxy: hop
                        .as_ref()
                        .map(proxy::Hop::label)
                        .unwrap_or_default()
                        .into(),
                    credentials_sent: hop.is_some_and(|h| h.credentials_sent()),
                };
            }
        }
        let https = req.node.scheme() == "https";
        // Seen once in 30 tries: reqwest's HTTP/2 request kept waiting on the connection
        // the alert had closed, until its read timeout.
        let broken = matches!(
            e,
            Error::Io { .. }
                | Error::Timeout {
                    phase: TimeoutPhase::ReadIdle,
                    ..
                }
        );
        if !(tunnel || (https && broken)) {
            return e;
        }
        match self.probe(req).await {
            Some(found) => self.probe.settle::<()>(Err(found)).err().unwrap_or(e),
            None => e,
        }
    }

    /// The typed refusal the probe connection meets, if any: the proxy's answer to
    /// `CONNECT`, the TLS handshake's alert, or (TLS 1.3) the alert that follows it.
    async fn probe(&self, req: &WireRequest) -> Option<Error> {
        let mut conn = match self.probe.connect(&req.node, req.timeouts.connect).await {
            Ok(conn) => conn,
            Err(e) => return typed(e),
        };
        if req.node.scheme() != "https" {
            return None;
        }
        let node = crate::redact::node_label(&req.node);
        let wait = req.timeouts.read_idle.min(ALERT_WAIT);
        let mut byte = [0u8; 1];
        match tokio::time::timeout(wait, conn.io.read(&mut byte)).await {
            Ok(Err(_)) => conn
                .meter
                .cert_alert()
                .map(|alert| crate::transport::connect::client_auth::refusal_named(&node, alert)),
            _ => None,
        }
    }
}

/// `e` when it is a typed refusal (client certificate, proxy), else None.
fn typed(e: Error) -> Option<Error> {
    matches!(
        e,
        Error::ClientCertificate { .. } | Error::ProxyAuth { .. } | Error::ProxyRefused { .. }
    )
    .then_some(e)
}
