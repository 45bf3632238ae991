//! The timed connector and the metered socket under every hyper-based transport.
//!
//! [`Connector::connect`] resolves, connects and (for https) runs the TLS handshake, timing
//! each step, and returns a [`Conn`] whose socket is wrapped in a meter: it counts the bytes
//! read and written and stamps the last write and the first read after it. Because the meter
//! sits *under* TLS, the counts are wire bytes (TLS records), and the stamps are when bytes
//! really left for and came from the kernel.
//!
//! With a [`Proxy`] the socket goes to the proxy: behind an HTTP proxy an `https://` node
//! (and, for HTTP/2, an `http://` one) is reached through a `CONNECT` tunnel opened here,
//! timed as the `tunnel` phase, and an `http://` node's requests are forwarded in absolute
//! form by the proxy, which the HTTP/1.1 transports learn from [`Connector::forwarder`].
//! Behind a SOCKS5 proxy every node is reached through a SOCKS5 tunnel (the `tunnel` phase
//! too), TLS inside it for an `https://` node.

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

use crate::error::{Error, Result, TimeoutPhase};
use crate::transport::connect::proxy::{Hop, HopKind, Proxy};
use crate::transport::connect::socks;
use crate::transport::connect::tls::TlsOptions;
use crate::transport::connect::tunnel::{self, TunnelEnds};

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
    /// The client-certificate alert the server closed the connection with, once seen. HTTP/2
    /// loses it when the connection fails before a stream could carry it (hyper logs a
    /// connection's error and drops it), so the socket keeps it for the transport to read.
    #[cfg(feature = "rustls-base")]
    cert_alert: std::sync::OnceLock<String>,
    /// The first bytes read from the socket (up to 8, as they came: under TLS, the first
    /// record's header), which tell what kind of server answered ([`ConnMeter::first_bytes`]).
    first: std::sync::OnceLock<([u8; 8], u8)>,
}

impl ConnMeter {
    pub(crate) fn new(id: u64) -> Self {
        ConnMeter {
            id,
            bytes_in: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            marks: Mutex::new(IoMarks::default()),
            #[cfg(feature = "rustls-base")]
            cert_alert: std::sync::OnceLock::new(),
            first: std::sync::OnceLock::new(),
        }
    }

    /// The client-certificate alert the server closed this connection with, if one was read.
    pub fn cert_alert(&self) -> Option<&str> {
        #[cfg(feature = "rustls-base")]
        return self.cert_alert.get().map(String::as_str);
        #[cfg(not(feature = "rustls-base"))]
        None
    }

    /// The first bytes the server sent on this connection (at most 8; empty before any).
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    pub fn first_bytes(&self) -> &[u8] {
        self.first.get().map_or(&[], |(b, n)| &b[..usize::from(*n)])
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
            let read = &buf.filled()[before..];
            if !read.is_empty() && this.meter.first.get().is_none() {
                let mut first = [0u8; 8];
                let n = read.len().min(8);
                first[..n].copy_from_slice(&read[..n]);
                let _ = this.meter.first.set((first, n as u8));
            }
            this.meter.on_read(read.len());
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
            MaybeTls::Tls(s) => Pin::new(s.as_mut())
                .poll_read(cx, buf)
                .map_err(|e| noted(s, e)),
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
            MaybeTls::Plain(s) => Pin::new(&mut *s)
                .poll_write(cx, buf)
                .map_err(|e| first_behind(s, e)),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => Pin::new(s.as_mut())
                .poll_write(cx, buf)
                .map_err(|e| alert_behind(s, e)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(&mut *s)
                .poll_write_vectored(cx, bufs)
                .map_err(|e| first_behind(s, e)),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => Pin::new(s.as_mut())
                .poll_write_vectored(cx, bufs)
                .map_err(|e| alert_behind(s, e)),
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
            MaybeTls::Tls(s) => Pin::new(s.as_mut())
                .poll_flush(cx)
                .map_err(|e| alert_behind(s, e)),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_shutdown(cx),
            #[cfg(feature = "rustls-base")]
            MaybeTls::Tls(s) => Pin::new(s.as_mut())
                .poll_shutdown(cx)
                .map_err(|e| alert_behind(s, e)),
        }
    }
}

/// `e`, a failed write on a plain socket, after the first bytes the server sent before it
/// closed are noted ([`ConnMeter::first_bytes`]) when nothing read them yet: a server that
/// answers an HTTP/2 preface with HTTP/1.1 (and closes) may reset the connection while the
/// preface or the request is being written, and what it answered still tells what it is.
/// The kernel still holds it (queued data is read before a reset is reported), but the
/// runtime may not know yet that the socket is readable, so the socket is read directly,
/// without waiting. What is read is dropped: the connection is dead anyway.
fn first_behind(s: &Metered<TcpStream>, e: io::Error) -> io::Error {
    use io::ErrorKind::{BrokenPipe, ConnectionReset};
    if !matches!(e.kind(), BrokenPipe | ConnectionReset) || s.meter.first.get().is_some() {
        return e;
    }
    #[cfg(feature = "http2")]
    {
        use std::io::Read;
        let mut read = [0u8; 8];
        let sock = socket2::SockRef::from(&s.inner);
        if let Ok(n) = (&*sock).read(&mut read) {
            if n > 0 {
                let _ = s.meter.first.set((read, n as u8));
            }
        }
    }
    e
}

/// `e`, a failed write on `tls`, or the certificate alert the server sent before closing
/// (see `client_auth::alert_behind`), noted on the connection's meter.
#[cfg(feature = "rustls-base")]
fn alert_behind(tls: &mut TlsStream<Metered<TcpStream>>, e: io::Error) -> io::Error {
    let (io, conn) = tls.get_mut();
    let e = crate::transport::connect::client_auth::alert_behind(&io.inner, conn, e);
    noted(tls, e)
}

/// `e`, a failed read or write on `tls`; a client-certificate alert in it is noted on the
/// connection's meter ([`ConnMeter::cert_alert`]).
#[cfg(feature = "rustls-base")]
fn noted(tls: &TlsStream<Metered<TcpStream>>, e: io::Error) -> io::Error {
    if let Some(alert) = crate::transport::connect::client_auth::certificate_alert(&e) {
        let _ = tls.get_ref().0.meter.cert_alert.set(alert);
    }
    e
}

/// How long each step of setting a connection up took. Behind a proxy, `dns` and
/// `connect` are those of the proxy, and `tunnel` is the `CONNECT` exchange.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SetupTiming {
    pub dns: Duration,
    pub connect: Duration,
    pub tunnel: Option<Duration>,
    pub tls: Option<Duration>,
}

impl SetupTiming {
    /// The sum of the steps.
    pub fn sum(&self) -> Duration {
        self.dns + self.connect + self.tunnel.unwrap_or_default() + self.tls.unwrap_or_default()
    }
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

/// Where a socket goes: the node, or the proxy in front of it.
#[derive(Debug, Clone)]
struct Endpoint {
    /// The host as the resolver and TLS take it (IPv6 without brackets).
    host: String,
    port: u16,
    https: bool,
    /// `host:port` as a request target (IPv6 in brackets).
    authority: String,
}

impl Endpoint {
    /// The endpoint of a node or proxy URL; an unsupported scheme is an [`Error::Config`].
    fn of(url: &Url, node_s: &str) -> Result<Self> {
        let https = match url.scheme() {
            "http" => false,
            "https" if cfg!(not(feature = "rustls-base")) => {
                return Err(Error::config(format!(
                    "{node_s}: https needs solr-client's `rustls` feature, which this build \
                     does not have (or use the reqwest transport, which brings its own TLS)"
                )))
            }
            "https" => true,
            other => {
                return Err(Error::config(format!(
                    "unsupported scheme {other:?} in {url}"
                )))
            }
        };
        let raw = url
            .host_str()
            .ok_or_else(|| Error::config(format!("no host in {url}")))?;
        let port = url
            .port_or_known_default()
            .unwrap_or(if https { 443 } else { 80 });
        Ok(Endpoint {
            host: raw
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string(),
            port,
            https,
            authority: format!("{raw}:{port}"),
        })
    }

    /// The endpoint of the proxy `hop` (plain TCP to it).
    fn proxy(hop: &Hop) -> Self {
        Endpoint {
            host: hop.host.clone(),
            port: hop.port,
            https: false,
            authority: format!("{}:{}", hop.url.host_str().unwrap_or_default(), hop.port),
        }
    }
}

/// Opens timed, metered connections and counts them. Cheap to clone; clones share the count.
#[derive(Clone)]
pub struct Connector {
    #[cfg(feature = "rustls-base")]
    tls: Option<Arc<rustls::ClientConfig>>,
    has_identity: bool,
    opened: Arc<AtomicU64>,
    proxy: Option<Arc<Proxy>>,
    /// Tunnel `http://` nodes too (HTTP/2 without TLS cannot be forwarded in absolute form).
    tunnel_plain: bool,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connector")
            .field("opened", &self.opened())
            .field("tls", &cfg!(feature = "rustls-base"))
            .field("proxy", &self.proxy)
            .finish()
    }
}

impl Connector {
    /// A connector whose TLS connections offer the given ALPN protocols.
    pub(crate) fn new(tls: &TlsOptions, alpn: &[&[u8]]) -> Result<Self> {
        #[cfg(not(feature = "rustls-base"))]
        let _ = alpn;
        Ok(Connector {
            #[cfg(feature = "rustls-base")]
            tls: Some(tls.client_config(alpn)?),
            has_identity: tls.identity().is_some(),
            opened: Arc::new(AtomicU64::new(0)),
            proxy: None,
            tunnel_plain: false,
        })
    }

    /// Goes through `proxy` (when given); `tunnel_plain` tunnels `http://` nodes as well.
    pub(crate) fn via(mut self, proxy: Option<&Proxy>, tunnel_plain: bool) -> Self {
        self.proxy = proxy.cloned().map(Arc::new);
        self.tunnel_plain = tunnel_plain;
        self
    }

    /// `r`, a client-certificate refusal settled by whether this connector offers one.
    pub(crate) fn settle<T>(&self, r: Result<T>) -> Result<T> {
        r.map_err(|e| crate::transport::connect::client_auth::settle(e, self.has_identity))
    }

    /// Connections opened so far (successful TCP connects: to the proxy, behind one).
    pub fn opened(&self) -> u64 {
        self.opened.load(Ordering::Relaxed)
    }

    /// The proxy that forwards requests to `node` in absolute form: a plain `http://` node
    /// behind a proxy that is not tunnelled. `None` when requests go straight to the node.
    pub(crate) fn forwarder(&self, node: &Url) -> Option<&Proxy> {
        let proxy = self.proxy.as_deref()?;
        let forwarded = node.scheme() == "http" && !self.tunnel_plain;
        let http_proxy = || proxy.hop(node).is_some_and(|h| h.kind == HopKind::Http);
        (forwarded && http_proxy()).then_some(proxy)
    }

    /// Resolves, connects, tunnels (behind a proxy) and handshakes (for https), within
    /// `timeout` in total.
    pub(crate) async fn connect(&self, node: &Url, timeout: Duration) -> Result<Conn> {
        let node_s = crate::redact::node_label(node);
        match tokio::time::timeout(timeout, self.connect_inner(node, &node_s)).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                node: node_s.into(),
                phase: TimeoutPhase::Connect,
                after: timeout,
            }),
        }
    }

    async fn connect_inner(&self, node: &Url, node_s: &str) -> Result<Conn> {
        let target = Endpoint::of(node, node_s)?;
        let hop = self.proxy.as_deref().and_then(|p| p.hop(node));
        let dial_to = match &hop {
            Some(hop) => Endpoint::proxy(hop),
            None => target.clone(),
        };
        let t0 = Instant::now();
        let addrs = resolve(&dial_to, node_s).await?;
        let t1 = Instant::now();
        let tcp = dial(&addrs, node_s, hop.as_ref()).await?;
        let t2 = Instant::now();
        let (mut io, meter) = self.metered(tcp);
        let mut setup = SetupTiming {
            dns: t1 - t0,
            connect: t2 - t1,
            tunnel: None,
            tls: None,
        };
        match hop {
            Some(hop) if matches!(hop.kind, HopKind::Socks5 { .. }) => {
                io = socks_tunnel(io, &hop, &target, node_s).await?;
                setup.tunnel = Some(t2.elapsed());
            }
            Some(hop) if target.https || self.tunnel_plain => {
                self.tunnel(&mut io, &hop, &target, node_s).await?;
                setup.tunnel = Some(t2.elapsed());
            }
            _ => {}
        }
        if !target.https {
            return Ok(Conn {
                io: MaybeTls::Plain(io),
                meter,
                setup,
                h2: false,
            });
        }
        self.handshake(io, meter, &target, node_s, setup).await
    }

    /// Counts the connection and wraps its socket in a fresh meter.
    fn metered(&self, tcp: TcpStream) -> (Metered<TcpStream>, Arc<ConnMeter>) {
        let _ = tcp.set_nodelay(true);
        self.opened.fetch_add(1, Ordering::Relaxed);
        let meter = Arc::new(ConnMeter::new(NEXT_CONN_ID.fetch_add(1, Ordering::Relaxed)));
        let io = Metered {
            inner: tcp,
            meter: meter.clone(),
        };
        (io, meter)
    }

    /// Opens the `CONNECT` tunnel to `target` through the HTTP proxy `hop`.
    async fn tunnel(
        &self,
        io: &mut Metered<TcpStream>,
        hop: &Hop,
        target: &Endpoint,
        node_s: &str,
    ) -> Result<()> {
        let proxy_s = hop.label();
        let ends = TunnelEnds {
            node: node_s,
            proxy: &proxy_s,
            authority: &target.authority,
        };
        tunnel::open(io, &ends, hop.authorization.as_ref()).await
    }

    /// The TLS handshake with the node over `io` (a socket to it, or a tunnel).
    #[cfg(feature = "rustls-base")]
    async fn handshake(
        &self,
        io: Metered<TcpStream>,
        meter: Arc<ConnMeter>,
        target: &Endpoint,
        node_s: &str,
        mut setup: SetupTiming,
    ) -> Result<Conn> {
        let t0 = Instant::now();
        let config = self
            .tls
            .clone()
            .ok_or_else(|| Error::config("TLS is not configured"))?;
        let server_name = rustls::pki_types::ServerName::try_from(target.host.clone())
            .map_err(|e| Error::config(format!("bad TLS server name {:?}: {e}", target.host)))?;
        let tls = tokio_rustls::TlsConnector::from(config)
            .connect(server_name, io)
            .await
            .map_err(|source| {
                crate::transport::connect::client_auth::refusal(
                    node_s,
                    &source,
                    Some(self.has_identity),
                )
                .unwrap_or(Error::Tls {
                    node: node_s.into(),
                    source: crate::redact::redact_io(source),
                })
            })?;
        setup.tls = Some(t0.elapsed());
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        Ok(Conn {
            io: MaybeTls::Tls(Box::new(tls)),
            meter,
            setup,
            h2,
        })
    }

    /// Unreachable: [`Endpoint::of`] refuses https without the `rustls` feature.
    #[cfg(not(feature = "rustls-base"))]
    async fn handshake(
        &self,
        _io: Metered<TcpStream>,
        _meter: Arc<ConnMeter>,
        _target: &Endpoint,
        _node_s: &str,
        _setup: SetupTiming,
    ) -> Result<Conn> {
        Err(Error::config("https needs the `rustls` feature"))
    }
}

/// The addresses of `to`; none is an [`Error::Dns`].
async fn resolve(to: &Endpoint, node_s: &str) -> Result<Vec<SocketAddr>> {
    let dns_err = |source: io::Error| Error::Dns {
        node: node_s.into(),
        source: crate::redact::redact_io(source),
    };
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((to.host.as_str(), to.port))
        .await
        .map_err(dns_err)?
        .collect();
    if addrs.is_empty() {
        return Err(dns_err(io::Error::new(
            io::ErrorKind::NotFound,
            "no address",
        )));
    }
    Ok(addrs)
}

/// Opens the SOCKS5 tunnel to `target` through `hop`: the node's name is given to the
/// proxy (`socks5h://`) or resolved here first (`socks5://`, the resolution counted in the
/// tunnel phase).
async fn socks_tunnel(
    io: Metered<TcpStream>,
    hop: &Hop,
    target: &Endpoint,
    node_s: &str,
) -> Result<Metered<TcpStream>> {
    let authority = match hop.kind {
        HopKind::Socks5 { remote_dns: false } => resolve(target, node_s).await?[0].to_string(),
        _ => target.authority.clone(),
    };
    let proxy_s = hop.label();
    let ends = TunnelEnds {
        node: node_s,
        proxy: &proxy_s,
        authority: &authority,
    };
    socks::open(io, &ends, hop.socks_auth.clone()).await
}

/// A TCP connection to the first address that accepts; the last error names the proxy
/// when the socket was meant for one.
async fn dial(addrs: &[SocketAddr], node_s: &str, via: Option<&Hop>) -> Result<TcpStream> {
    let mut last_err = None;
    for addr in addrs {
        match TcpStream::connect(addr).await {
            Ok(s) => return Ok(s),
            Err(e) => last_err = Some(e),
        }
    }
    let e = last_err.unwrap_or_else(|| io::Error::other("connect failed"));
    let source = match via {
        Some(hop) => io::Error::new(e.kind(), format!("proxy {}: {e}", hop.label())),
        None => e,
    };
    Err(Error::Connect {
        node: node_s.into(),
        source: crate::redact::redact_io(source),
    })
}

/// Where a read watch (`h1::Watch`) learns when a byte of its request last moved.
pub(crate) trait Activity {
    /// The instant of the last byte (None: none yet).
    fn last_activity(&self) -> Option<Instant>;
}

/// HTTP/1.1: the connection carries one request at a time, so every byte read from or
/// written to its socket is a byte of that request.
impl Activity for ConnMeter {
    fn last_activity(&self) -> Option<Instant> {
        ConnMeter::last_activity(self)
    }
}
