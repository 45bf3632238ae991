//! The `CONNECT` exchange that turns a connection to an HTTP proxy into a tunnel to the
//! node (RFC 9110 section 9.3.6).
//!
//! The proxy's answer is read one byte at a time up to its blank line, so not a byte of
//! what follows (the first bytes from the node) is taken from the socket.

use std::io;

use http::HeaderValue;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::error::{Error, Result};

/// Largest proxy answer to `CONNECT` read (status line and headers).
const MAX_ANSWER: usize = 16 * 1024;

/// The two ends of a tunnel, named for messages.
pub(crate) struct TunnelEnds<'a> {
    /// The node's base URL (errors name it).
    pub node: &'a str,
    /// The proxy, `http://host:port`.
    pub proxy: &'a str,
    /// `host:port` of the node, as the request target of `CONNECT`.
    pub authority: &'a str,
}

/// Asks the proxy on `io` for a tunnel to `ends.authority`; Ok once it answered 2xx.
pub(crate) async fn open<S>(
    io: &mut S,
    ends: &TunnelEnds<'_>,
    authorization: Option<&HeaderValue>,
) -> Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut request =
        format!("CONNECT {a} HTTP/1.1\r\nHost: {a}\r\n", a = ends.authority).into_bytes();
    if let Some(auth) = authorization {
        request.extend_from_slice(b"Proxy-Authorization: ");
        request.extend_from_slice(auth.as_bytes());
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    let io_err = |e: io::Error| broken(ends, e);
    io.write_all(&request).await.map_err(io_err)?;
    io.flush().await.map_err(io_err)?;
    let answer = read_answer(io).await.map_err(io_err)?;
    judge(&answer, ends, authorization.is_some())
}

/// Reads the proxy's answer up to and including its blank line.
async fn read_answer<S: AsyncRead + Unpin>(io: &mut S) -> io::Result<Vec<u8>> {
    let mut answer = Vec::with_capacity(128);
    while !answer.ends_with(b"\r\n\r\n") {
        if answer.len() >= MAX_ANSWER {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the answer to CONNECT has no end of headers within 16 KiB",
            ));
        }
        match io.read_u8().await {
            Ok(b) => answer.push(b),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the proxy closed the connection before answering CONNECT",
                ))
            }
            Err(e) => return Err(e),
        }
    }
    Ok(answer)
}

/// Ok for a 2xx answer; the typed refusal otherwise.
fn judge(answer: &[u8], ends: &TunnelEnds<'_>, credentials_sent: bool) -> Result<()> {
    let line = answer.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.trim_end().splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status = parts.next().and_then(|s| s.parse::<u16>().ok());
    let status = match status {
        Some(s) if version.starts_with("HTTP/1.") => s,
        _ => {
            return Err(broken(
                ends,
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the answer to CONNECT is not HTTP",
                ),
            ))
        }
    };
    // An answer to CONNECT is the proxy's own (there is no tunnel yet), so a 401 asks for
    // proxy credentials too: tinyproxy 1.11 answers a CONNECT without them with 401.
    match status {
        200..=299 => Ok(()),
        401 | 407 => Err(Error::ProxyAuth {
            node: ends.node.into(),
            proxy: ends.proxy.into(),
            credentials_sent,
        }),
        _ => Err(Error::ProxyRefused {
            node: ends.node.into(),
            proxy: ends.proxy.into(),
            status,
            reason: crate::snippet::snippet(parts.next().unwrap_or_default().as_bytes(), 200)
                .into(),
        }),
    }
}

/// A socket error while talking to the proxy, as a connect failure that names the proxy.
fn broken(ends: &TunnelEnds<'_>, e: io::Error) -> Error {
    Error::Connect {
        node: ends.node.into(),
        source: crate::redact::redact_io(io::Error::new(
            e.kind(),
            format!("proxy {}: CONNECT: {e}", ends.proxy),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENDS: TunnelEnds<'static> = TunnelEnds {
        node: "https://solr:8984/solr",
        proxy: "http://proxy:3128",
        authority: "solr:8984",
    };

    /// Runs `open` against a scripted proxy answer; returns the request it wrote too.
    async fn against(answer: &[u8], auth: Option<HeaderValue>) -> (Result<()>, String) {
        let (mut client, mut proxy) = tokio::io::duplex(64 * 1024);
        proxy.write_all(answer).await.unwrap();
        let r = open(&mut client, &ENDS, auth.as_ref()).await;
        drop(client);
        let mut written = String::new();
        proxy.read_to_string(&mut written).await.unwrap();
        (r, written)
    }

    #[tokio::test]
    async fn a_2xx_opens_the_tunnel_and_leaves_what_follows_unread() {
        let (mut client, mut proxy) = tokio::io::duplex(1024);
        proxy
            .write_all(b"HTTP/1.0 200 Connection established\r\n\r\nTLS")
            .await
            .unwrap();
        open(&mut client, &ENDS, None).await.expect("tunnel");
        let mut rest = [0u8; 3];
        client.read_exact(&mut rest).await.unwrap();
        assert_eq!(&rest, b"TLS");
    }

    #[tokio::test]
    async fn a_407_is_proxy_auth_and_the_header_is_sent_once() {
        let auth = HeaderValue::from_static("Basic dTpw");
        let (r, written) = against(
            b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n",
            Some(auth),
        )
        .await;
        assert_eq!(
            written,
            "CONNECT solr:8984 HTTP/1.1\r\nHost: solr:8984\r\nProxy-Authorization: Basic dTpw\r\n\r\n"
        );
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
        assert!(!err.to_string().contains("dTpw"), "{err}");
    }

    #[tokio::test]
    async fn a_401_to_connect_asks_for_proxy_credentials_too() {
        let (r, _) = against(b"HTTP/1.0 401 Unauthorized\r\n\r\n", None).await;
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
    }

    #[tokio::test]
    async fn a_403_is_refused_with_status_and_reason() {
        let (r, _) = against(b"HTTP/1.0 403 Access violation\r\n\r\n", None).await;
        let err = r.unwrap_err();
        assert_eq!(err.kind(), "ProxyRefused");
        assert!(err.to_string().contains("403 Access violation"), "{err}");
        let (r, _) = against(b"SSH-2.0-x\r\n\r\n", None).await;
        assert_eq!(r.unwrap_err().kind(), "Connect");
    }
}
