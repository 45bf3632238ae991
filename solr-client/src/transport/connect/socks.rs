//! The SOCKS5 handshake that turns a connection to a SOCKS5 proxy into a tunnel to the node
//! (RFC 1928, with the username method of RFC 1929): hyper-util's `SocksV5`, run over the
//! socket this crate already opened (and meters), so the handshake's bytes are counted and
//! the tunnel is timed like an HTTP proxy's `CONNECT`. (hyper-util reads the proxy's replies
//! through a buffer, so bytes after the last reply would be lost: none can come, as the node
//! never speaks first in HTTP or TLS.)

use std::future::Ready;
use std::io;
use std::task::{Context, Poll};

use hyper_util::client::legacy::connect::proxy::SocksV5;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tower_service::Service;

use crate::error::{Error, Result};
use crate::transport::connect::tunnel::TunnelEnds;

/// A "connector" that hands out the one socket it was given: `SocksV5` wraps a connector,
/// and here the socket to the proxy is already open.
struct Given<S>(Option<S>);

impl<S> Service<http::Uri> for Given<S> {
    type Response = S;
    type Error = io::Error;
    type Future = Ready<io::Result<S>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _proxy: http::Uri) -> Self::Future {
        std::future::ready(
            self.0
                .take()
                .ok_or_else(|| io::Error::other("the socket to the proxy was used already")),
        )
    }
}

/// Asks the SOCKS5 proxy on `io` for a tunnel to `ends.authority` (a name the proxy
/// resolves, or an address resolved here), with the username method when `auth` is given.
/// The socket comes back once the proxy answered success.
pub(crate) async fn open<S>(
    io: S,
    ends: &TunnelEnds<'_>,
    auth: Option<(String, String)>,
) -> Result<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let bad =
        |what: &str| Error::config(format!("SOCKS5 tunnel to {:?}: bad {what}", ends.authority));
    let proxy: http::Uri = ends.proxy.parse().map_err(|_| bad("proxy URL"))?;
    let target: http::Uri = format!("http://{}/", ends.authority)
        .parse()
        .map_err(|_| bad("node address"))?;
    let credentials_sent = auth.is_some();
    let mut socks = SocksV5::new(proxy, Given(Some(TokioIo::new(io))));
    if let Some((user, password)) = auth {
        socks = socks.with_auth(user, password);
    }
    match socks.call(target).await {
        Ok(io) => Ok(io.into_inner()),
        Err(e) => Err(refusal(ends, &e, &format!("{e:?}"), credentials_sent)),
    }
}

/// The typed error for a failed handshake. hyper-util's SOCKS error types are not public,
/// so the kind is told from their Debug form (`V5(Auth(..))`: the proxy refused the method
/// or the credentials), the message from their Display form (which carries no credentials).
fn refusal(
    ends: &TunnelEnds<'_>,
    shown: &dyn std::fmt::Display,
    debug: &str,
    credentials_sent: bool,
) -> Error {
    if debug.contains("Auth(") {
        return Error::ProxyAuth {
            node: ends.node.into(),
            proxy: ends.proxy.into(),
            credentials_sent,
        };
    }
    let kind = if debug.starts_with("Io(") {
        io::ErrorKind::ConnectionAborted
    } else {
        io::ErrorKind::ConnectionRefused
    };
    Error::Connect {
        node: ends.node.into(),
        source: crate::redact::redact_io(io::Error::new(
            kind,
            format!("proxy {}: {shown}", ends.proxy),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const ENDS: TunnelEnds<'static> = TunnelEnds {
        node: "https://solr:8984/solr",
        proxy: "socks5h://proxy:1080",
        authority: "solr:8984",
    };

    /// Runs `open` against a scripted proxy answer; returns the bytes it wrote too.
    async fn against(answer: &[u8], auth: Option<(&str, &str)>) -> (Result<()>, Vec<u8>) {
        let (client, mut proxy) = tokio::io::duplex(64 * 1024);
        proxy.write_all(answer).await.unwrap();
        let auth = auth.map(|(u, p)| (u.to_string(), p.to_string()));
        let r = open(client, &ENDS, auth).await.map(drop);
        let mut written = Vec::new();
        proxy.read_to_end(&mut written).await.unwrap();
        (r, written)
    }

    #[tokio::test]
    async fn success_asks_for_the_name_and_hands_the_socket_back() {
        let (client, mut proxy) = tokio::io::duplex(1024);
        // Method "no auth", then success bound to 127.0.0.1:1.
        proxy
            .write_all(&[5, 0, 5, 0, 0, 1, 127, 0, 0, 1, 0, 1])
            .await
            .unwrap();
        let mut io = open(client, &ENDS, None).await.expect("tunnel");
        // The node's bytes come through the same socket once the tunnel is open (the
        // node never speaks first in HTTP or TLS, so none can arrive with the reply).
        proxy.write_all(b"TLS").await.unwrap();
        let mut rest = [0u8; 3];
        io.read_exact(&mut rest).await.unwrap();
        assert_eq!(&rest, b"TLS");
        drop(io);
        let mut written = Vec::new();
        proxy.read_to_end(&mut written).await.unwrap();
        let mut want = vec![5, 1, 0, 5, 1, 0, 3, 4];
        want.extend_from_slice(b"solr");
        want.extend_from_slice(&8984u16.to_be_bytes());
        assert_eq!(written, want);
    }

    #[tokio::test]
    async fn refused_credentials_are_proxy_auth_without_the_password() {
        // Method "username", then the username method's failure.
        let (r, written) = against(&[5, 2, 1, 1], Some(("u", "s3cret"))).await;
        assert_eq!(&written[..3], &[5, 1, 2], "offers the username method");
        assert_eq!(&written[3..], b"\x01\x01u\x06s3cret", "RFC 1929 request");
        let err = r.unwrap_err();
        assert!(
            matches!(
                err,
                Error::ProxyAuth {
                    credentials_sent: true,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(!err.to_string().contains("s3cret"), "{err}");
        assert!(!format!("{err:?}").contains("s3cret"), "{err:?}");
    }

    #[tokio::test]
    async fn no_acceptable_method_is_proxy_auth_and_a_refused_connect_is_connect() {
        let (r, _) = against(&[5, 0xff], None).await;
        let err = r.unwrap_err();
        assert!(
            matches!(
                err,
                Error::ProxyAuth {
                    credentials_sent: false,
                    ..
                }
            ),
            "{err:?}"
        );
        // Reply 5: connection refused by the node.
        let (r, _) = against(&[5, 0, 5, 5, 0, 1, 0, 0, 0, 0, 0, 0], None).await;
        let err = r.unwrap_err();
        assert_eq!(err.kind(), "Connect");
        assert!(err.to_string().contains("socks5h://proxy:1080"), "{err}");
    }
}
