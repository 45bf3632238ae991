//! The timed connector and the metered socket under every hyper-based transport.
//!
//! [`Connector::connect`] resolves, connects and (for https) runs the TLS handshake, timing
//! each step, and returns a [`Conn`] whose socket is wrapped in a meter: it counts the bytes
//! read and written and stamps the last write and the first read after it. Because the meter
//! sits *under* TLS, the counts are wire bytes (TLS records), and the stamps are when bytes
//! really left for and came from the kernel.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
#[cfg(feature = "rustls-base")]
use tokio_rustls::client::TlsStream;
use url::Url;

use super::tls::TlsOptions;
use crate::error::{Error, Result, TimeoutPhase};

/// Read/write stamps of one connection.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IoMarks {
    /// When the last byte was written.
    pub last_write: Option<Instant>,
    /// When the first byte was read after the last write.
    pub first_read: Option<Instant>,
    /// When the last byte was read.
    pub last_read: Option<Instant>,
}

/// Byte counters and stamps of one connection, shared between the socket and the transport.
#[derive(Debug)]
pub(crate) struct ConnMeter {
    /// Process-unique connection id.
    pub id: u64,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    /// Requests started on this connection.
    pub requests: AtomicU64,
    marks: Mutex<IoMarks>,
}

impl ConnMeter {
    pub(crate) fn new(id: u64) -> Self {
        ConnMeter {
            id,
            bytes_in: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            marks: Mutex::new(IoMarks::default()),
        }
    }

    /// (bytes_in, bytes_out) so far.
    pub fn bytes(&self) -> (u64, u64) {
        (
            self.bytes_in.load(Ordering::Relaxed),
            self.bytes_out.load(Ordering::Relaxed),
        )
    }

    /// Clears the stamps before a new request is written.
    pub fn reset_marks(&self) {
        *self.marks.lock().unwrap_or_else(|e| e.into_inner()) = IoMarks::default();
    }

    /// When a byte last moved either way on this socket (for the read-idle timer).
    pub fn last_activity(&self) -> Option<Instant> {
        let m = self.marks();
        match (m.last_read, m.last_write) {
            (Some(r), Some(w)) => Some(r.max(w)),
            (r, w) => r.or(w),
        }
    }

    /// The current stamps.
    pub fn marks(&self) -> IoMarks {
        *self.marks.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn on_write(&self, n: usize) {
        if n == 0 {
            return;
        }
        self.bytes_out.fetch_add(n as u64, Ordering::Relaxed);
        let mut m = self.marks.lock().unwrap_or_else(|e| e.into_inner());
        m.last_write = Some(Instant::now());
        m.first_read = None;
    }

    fn on_read(&self, n: usize) {
        if n == 0 {
            return;
        }
        self.bytes_in.fetch_add(n as u64, Ordering::Relaxed);
        let now = Instant::now();
        let mut m = self.marks.lock().unwrap_or_else(|e| e.into_inner());
        if m.first_read.is_none() {
            m.first_read = Some(now);
        }
        m.last_read = Some(now);
    }
}

pin_project_lite::pin_project! {
    /// A socket that reports every read and write to its [`ConnMeter`].
    #[derive(Debug)]
    pub(crate) struct Metered<S> {
        #[pin]
        inner: S,
        meter: Arc<ConnMeter>,
    }
}

impl<S: AsyncRead> AsyncRead for Metered<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let res = this.inner.poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = res {
            this.meter.on_read(buf.filled().len() - before);
        }
        res
    }
}

impl<S: AsyncWrite> AsyncWrite for Metered<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let res = this.inner.poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = res {
            this.meter.on_write(n);
        }
        res
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let res = this.inner.poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = res {
            this.meter.on_write(n);
        }
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }
}

/// A plain or TLS socket, metered underneath.
#[derive(Debug)]
pub(crate) enum MaybeTls {
    Plain(Metered<TcpStream>),
    #[cfg(feature = "rustls-base")]
    Tls(Box<TlsStream<Metered<TcpStream>>>),
}

impl AsyncRead for MaybeTls {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_read(cx, buf),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for MaybeTls {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_write(cx, buf),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            MaybeTls::Plain(s) => s.is_write_vectored(),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_flush(cx),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_shutdown(cx),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// How long each step of setting a connection up took.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SetupTiming {
    pub dns: Duration,
    pub connect: Duration,
    pub tls: Option<Duration>,
}

/// A freshly opened connection.
#[derive(Debug)]
pub(crate) struct Conn {
    pub io: MaybeTls,
    pub meter: Arc<ConnMeter>,
    pub setup: SetupTiming,
    /// True when ALPN selected h2 (read by the HTTP/2 transport only).
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    pub h2: bool,
}

/// ALPN offered by the HTTP/1.1 transports: `http/1.1`, as curl and most clients send it.
/// (Solr's embedded Jetty runner registers its HTTP/1.1 factory under the token `HTTP/1.1`
/// and refuses the standard token; this project's launcher corrects the token, as the Solr
/// distribution's Jetty configuration has it.)
pub(crate) const HTTP1_ALPN: &[&[u8]] = &[b"http/1.1"];

static NEXT_CONN_ID: AtomicU64 = AtomicU64::new(1);

/// Opens timed, metered connections and counts them. Cheap to clone; clones share the count.
#[derive(Clone)]
pub struct Connector {
    #[cfg(feature = "rustls-base")]
    tls: Option<Arc<rustls::ClientConfig>>,
    opened: Arc<AtomicU64>,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connector")
            .field("opened", &self.opened())
            .field("tls", &cfg!(feature = "rustls-base"))
            .finish()
    }
}

impl Connector {
    /// A connector whose TLS connections offer the given ALPN protocols.
    pub(crate) fn new(tls: &TlsOptions, alpn: &[&[u8]]) -> Result<Self> {
        #[cfg(not(feature = "rustls-base"))]
        let _ = (tls, alpn);
        Ok(Connector {
            #[cfg(feature = "rustls-base")]
            tls: Some(tls.client_config(alpn)?),
            opened: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Connections opened so far (successful TCP connects).
    pub fn opened(&self) -> u64 {
        self.opened.load(Ordering::Relaxed)
    }

    /// Resolves, connects and (for https) handshakes, within `timeout` in total.
    pub(crate) async fn connect(&self, node: &Url, timeout: Duration) -> Result<Conn> {
        let node_s = crate::error::node_label(node);
        match tokio::time::timeout(timeout, self.connect_inner(node, &node_s)).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                node: node_s,
                phase: TimeoutPhase::Connect,
                after: timeout,
            }),
        }
    }

    async fn connect_inner(&self, node: &Url, node_s: &str) -> Result<Conn> {
        let https = match node.scheme() {
            "http" => false,
            "https" if cfg!(not(feature = "rustls-base")) => {
                return Err(Error::Config(format!(
                    "{node_s}: https needs solr-client's `rustls` feature, which this build \
                     does not have (or use the reqwest transport, which brings its own TLS)"
                )))
            }
            "https" => true,
            other => {
                return Err(Error::Config(format!(
                    "unsupported scheme {other:?} in {node}"
                )))
            }
        };
        let host = node
            .host_str()
            .ok_or_else(|| Error::Config(format!("no host in {node}")))?
            .to_string();
        let port = node
            .port_or_known_default()
            .unwrap_or(if https { 443 } else { 80 });

        let t0 = Instant::now();
        let lookup_host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((lookup_host.as_str(), port))
            .await
            .map_err(|source| Error::Dns {
                node: node_s.to_string(),
                source,
            })?
            .collect();
        let t1 = Instant::now();
        if addrs.is_empty() {
            return Err(Error::Dns {
                node: node_s.to_string(),
                source: io::Error::new(io::ErrorKind::NotFound, "no address"),
            });
        }
        let mut last_err = None;
        let mut tcp = None;
        for addr in &addrs {
            match TcpStream::connect(addr).await {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last_err = Some(e),
            }
        }
        let tcp = match tcp {
            Some(t) => t,
            None => {
                return Err(Error::Connect {
                    node: node_s.to_string(),
                    source: last_err.unwrap_or_else(|| io::Error::other("connect failed")),
                })
            }
        };
        let t2 = Instant::now();
        let _ = tcp.set_nodelay(true);
        self.opened.fetch_add(1, Ordering::Relaxed);
        let meter = Arc::new(ConnMeter::new(NEXT_CONN_ID.fetch_add(1, Ordering::Relaxed)));
        let metered = Metered {
            inner: tcp,
            meter: meter.clone(),
        };

        if !https {
            return Ok(Conn {
                io: MaybeTls::Plain(metered),
                meter,
                setup: SetupTiming {
                    dns: t1 - t0,
                    connect: t2 - t1,
                    tls: None,
                },
                h2: false,
            });
        }
        // A `return` in each cfg branch: only one of them is compiled.
        #[cfg(feature = "rustls-base")]
        #[allow(clippy::needless_return)]
        {
            let config = self
                .tls
                .clone()
                .ok_or_else(|| Error::Config("TLS is not configured".into()))?;
            let server_name = rustls::pki_types::ServerName::try_from(lookup_host.clone())
                .map_err(|e| Error::Config(format!("bad TLS server name {host:?}: {e}")))?;
            let tls = tokio_rustls::TlsConnector::from(config)
                .connect(server_name, metered)
                .await
                .map_err(|source| Error::Tls {
                    node: node_s.to_string(),
                    source,
                })?;
            let t3 = Instant::now();
            let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
            return Ok(Conn {
                io: MaybeTls::Tls(Box::new(tls)),
                meter,
                setup: SetupTiming {
                    dns: t1 - t0,
                    connect: t2 - t1,
                    tls: Some(t3 - t2),
                },
                h2,
            });
        }
        // Unreachable: an https node was refused above.
        #[cfg(not(feature = "rustls-base"))]
        #[allow(clippy::needless_return)]
        {
            let _ = (metered, meter, host);
            return Err(Error::Config("https needs the `rustls` feature".into()));
        }
    }
}
