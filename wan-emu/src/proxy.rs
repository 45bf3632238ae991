//! The front proxy in the `solr` namespace: accepts on the namespace address (optionally
//! terminating TLS 1.2 or 1.3 with rustls) and relays each connection's bytes to one Solr
//! node on 127.0.0.1 in the root namespace, one upstream connection per client connection,
//! so the client's connection reuse is what Solr sees.
//!
//! How one process spans two namespaces: the listening socket is created by a thread that
//! entered the `solr` namespace ([`super::namespaces::bind_in`]); accepted sockets belong to
//! the listener's namespace; the relay tasks run on a runtime whose threads stayed in the
//! root namespace, so their upstream `connect` reaches Solr's loopback.
//!
//! The upstream connection is opened only when the client has sent its first byte (after
//! the TLS handshake with TLS), so a bare TCP connect (the calibration's) never reaches Solr.
//! Session resumption is off unless asked for: every fresh connection pays a full handshake
//! (TLS 1.3: 1 RTT, TLS 1.2: 2 RTT), as for a client that shares no session cache.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

/// TLS protocol version the proxy accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TlsVersion {
    /// TLS 1.2 only.
    Tls12,
    /// TLS 1.3 only.
    Tls13,
}

impl std::str::FromStr for TlsVersion {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "1.2" => Ok(TlsVersion::Tls12),
            "1.3" => Ok(TlsVersion::Tls13),
            other => Err(format!("TLS version must be 1.2 or 1.3, not {other:?}")),
        }
    }
}

impl std::fmt::Display for TlsVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TlsVersion::Tls12 => "1.2",
            TlsVersion::Tls13 => "1.3",
        })
    }
}

/// TLS termination settings.
#[derive(Debug, Clone)]
pub struct TlsTermination {
    /// Protocol version.
    pub version: TlsVersion,
    /// Server certificate chain (PEM).
    pub cert_pem: std::path::PathBuf,
    /// Server private key (PEM).
    pub key_pem: std::path::PathBuf,
    /// Offer session resumption (default off: full handshakes).
    pub resumption: bool,
}

impl TlsTermination {
    /// Builds the rustls server config (ALPN h2 and http/1.1: Solr's plain port speaks
    /// both, h2 with prior knowledge).
    pub fn server_config(&self) -> Result<Arc<rustls::ServerConfig>> {
        let certs = load_certs(&self.cert_pem)?;
        let key = PrivateKeyDer::from_pem_file(&self.key_pem)
            .with_context(|| format!("reading key {}", self.key_pem.display()))?;
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let versions: &[&'static rustls::SupportedProtocolVersion] = match self.version {
            TlsVersion::Tls12 => &[&rustls::version::TLS12],
            TlsVersion::Tls13 => &[&rustls::version::TLS13],
        };
        let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(versions)
            .context("TLS versions")?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .context("server certificate and key")?;
        if !self.resumption {
            cfg.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
            cfg.send_tls13_tickets = 0;
        }
        cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Arc::new(cfg))
    }
}

fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let certs: Vec<_> = CertificateDer::pem_file_iter(path)
        .with_context(|| format!("reading certificate {}", path.display()))?
        .collect::<std::result::Result<_, _>>()
        .with_context(|| format!("parsing certificate {}", path.display()))?;
    if certs.is_empty() {
        bail!("no certificate in {}", path.display());
    }
    Ok(certs)
}

/// Counters of the proxy.
#[derive(Debug, Default)]
pub struct ProxyCounters {
    /// Client connections accepted.
    pub accepted: AtomicU64,
    /// TLS handshakes completed.
    pub handshakes: AtomicU64,
    /// Upstream connections opened to Solr.
    pub upstream: AtomicU64,
    /// Connections that ended in an error (handshake or relay).
    pub failed: AtomicU64,
}

/// Starts the accept loop on `listener` (already bound in the `solr` namespace) on the
/// current tokio runtime, relaying to `upstream`. Returns the task; abort it to stop.
pub fn spawn(
    listener: std::net::TcpListener,
    upstream: SocketAddr,
    tls: Option<Arc<rustls::ServerConfig>>,
    counters: Arc<ProxyCounters>,
) -> Result<tokio::task::JoinHandle<()>> {
    let listener = TcpListener::from_std(listener).context("proxy listener")?;
    let acceptor = tls.map(TlsAcceptor::from);
    Ok(tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                continue;
            };
            counters.accepted.fetch_add(1, Ordering::Relaxed);
            let (acceptor, counters) = (acceptor.clone(), counters.clone());
            tokio::spawn(async move {
                if serve(sock, upstream, acceptor, &counters).await.is_err() {
                    counters.failed.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    }))
}

async fn serve(
    sock: TcpStream,
    upstream: SocketAddr,
    acceptor: Option<TlsAcceptor>,
    counters: &ProxyCounters,
) -> Result<()> {
    sock.set_nodelay(true)?;
    match acceptor {
        Some(a) => {
            let tls = a.accept(sock).await.context("TLS handshake")?;
            counters.handshakes.fetch_add(1, Ordering::Relaxed);
            relay(tls, upstream, counters).await
        }
        None => {
            let mut probe = [0u8; 1];
            if sock.peek(&mut probe).await? == 0 {
                return Ok(()); // closed without a byte: a bare connect
            }
            relay(sock, upstream, counters).await
        }
    }
}

async fn relay<S>(mut client: S, upstream: SocketAddr, counters: &ProxyCounters) -> Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut up = TcpStream::connect(upstream)
        .await
        .with_context(|| format!("connect upstream {upstream}"))?;
    up.set_nodelay(true)?;
    counters.upstream.fetch_add(1, Ordering::Relaxed);
    let r = tokio::io::copy_bidirectional(&mut client, &mut up).await;
    let _ = client.shutdown().await;
    r.map(|_| ()).context("relay")
}
