//! TLS settings shared by every transport (rustls). Verification is on unless the caller
//! opts out by calling [`TlsOptions::danger_accept_invalid_certs`] by name.
//!
//! Without the `rustls` feature the options are still accepted (and handed to reqwest,
//! which brings its own TLS), but the built-in transports refuse https URLs.

#[cfg(feature = "rustls-base")]
use std::sync::Arc;

#[cfg(feature = "rustls-base")]
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
#[cfg(feature = "rustls-base")]
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
#[cfg(feature = "rustls-base")]
use rustls::{DigitallySignedStruct, SignatureScheme};

use crate::error::{Error, Result};
use crate::transport::connect::identity::Identity;

/// Which TLS protocol versions to offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TlsVersion {
    /// TLS 1.2 and 1.3 (default; 1.3 is negotiated when the server has it).
    #[default]
    Any,
    /// TLS 1.2 only (two round trips of handshake).
    Tls12,
    /// TLS 1.3 only (one round trip of handshake).
    Tls13,
}

/// TLS options: extra trusted CAs, protocol versions, and the explicit opt-out of
/// certificate verification.
#[derive(Clone, Default)]
pub struct TlsOptions {
    #[cfg(feature = "rustls-base")]
    extra_roots: Vec<CertificateDer<'static>>,
    extra_roots_pem: Vec<Vec<u8>>,
    accept_invalid: bool,
    version: TlsVersion,
    no_builtin_roots: bool,
    identity: Option<Identity>,
}

impl std::fmt::Debug for TlsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsOptions")
            .field("extra_roots", &self.extra_roots_pem.len())
            .field("accept_invalid_certs", &self.accept_invalid)
            .field("version", &self.version)
            .field("client_identity", &self.identity.is_some())
            .finish()
    }
}

impl TlsOptions {
    /// Default options: the built-in web PKI roots, verification on, TLS 1.2 and 1.3.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts the CA certificates in a PEM file in addition to the built-in roots.
    pub fn add_ca_pem_file(self, path: impl AsRef<std::path::Path>) -> Result<Self> {
        let path = path.as_ref();
        let pem = std::fs::read(path)
            .map_err(|e| Error::config(format!("cannot read CA file {}: {e}", path.display())))?;
        self.add_ca_pem(&pem)
    }

    /// Trusts the CA certificates in PEM text in addition to the built-in roots.
    pub fn add_ca_pem(mut self, pem: &[u8]) -> Result<Self> {
        #[cfg(feature = "rustls-base")]
        let n = {
            use rustls_pki_types::pem::PemObject;
            let mut n = 0;
            for cert in CertificateDer::pem_slice_iter(pem) {
                let cert = cert.map_err(|e| Error::config(format!("bad PEM certificate: {e}")))?;
                self.extra_roots.push(cert);
                n += 1;
            }
            n
        };
        // Without rustls the PEM is only kept (for reqwest, which parses it itself).
        #[cfg(not(feature = "rustls-base"))]
        let n = pem
            .windows(b"-----BEGIN CERTIFICATE-----".len())
            .filter(|w| *w == b"-----BEGIN CERTIFICATE-----")
            .count();
        if n == 0 {
            return Err(Error::config("no certificate found in the CA PEM"));
        }
        self.extra_roots_pem.push(pem.to_vec());
        Ok(self)
    }

    /// Trusts only the added CAs, not the built-in web PKI roots.
    pub fn only_added_roots(mut self) -> Self {
        self.no_builtin_roots = true;
        self
    }

    /// Selects the TLS protocol versions offered. Default: [`TlsVersion::Any`].
    pub fn version(mut self, version: TlsVersion) -> Self {
        self.version = version;
        self
    }

    /// DANGER: accepts any server certificate (self-signed, expired, wrong host name).
    /// Only for measuring; never silent: the transport name then carries `insecure`.
    pub fn danger_accept_invalid_certs(mut self) -> Self {
        self.accept_invalid = true;
        self
    }

    /// Offers this client certificate when the server asks for one (mutual TLS). Default
    /// none: a server that requires one refuses the handshake
    /// ([`Error::ClientCertificate`]).
    pub fn client_identity(mut self, identity: Identity) -> Self {
        self.identity = Some(identity);
        self
    }

    /// The client certificate, if one is configured.
    pub fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }

    /// The TLS protocol versions offered.
    #[cfg(feature = "reqwest")]
    pub(crate) fn tls_version(&self) -> TlsVersion {
        self.version
    }

    /// Whether certificate verification is disabled.
    pub fn is_insecure(&self) -> bool {
        self.accept_invalid
    }

    /// PEM blobs of the added CAs (for transports that take PEM, such as reqwest).
    #[cfg(feature = "reqwest")]
    pub(crate) fn extra_roots_pem(&self) -> &[Vec<u8>] {
        &self.extra_roots_pem
    }

    /// Builds a rustls client config offering the given ALPN protocols.
    #[cfg(feature = "rustls-base")]
    pub(crate) fn client_config(&self, alpn: &[&[u8]]) -> Result<Arc<rustls::ClientConfig>> {
        let provider = crate::transport::connect::tls_provider::provider()?;
        let versions: &[&'static rustls::SupportedProtocolVersion] = match self.version {
            TlsVersion::Any => rustls::ALL_VERSIONS,
            TlsVersion::Tls12 => &[&rustls::version::TLS12],
            TlsVersion::Tls13 => &[&rustls::version::TLS13],
        };
        let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(versions)
            .map_err(|e| Error::config(format!("TLS versions: {e}")))?;
        let builder = if self.accept_invalid {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AcceptAnything(provider)))
        } else {
            builder.with_root_certificates(self.roots()?)
        };
        let mut config = match &self.identity {
            Some(id) => builder.with_client_cert_resolver(id.resolver()),
            None => builder.with_no_client_auth(),
        };
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Ok(Arc::new(config))
    }

    /// The trusted roots: the built-in web PKI roots (unless refused) and the added CAs.
    #[cfg(feature = "rustls-base")]
    fn roots(&self) -> Result<rustls::RootCertStore> {
        let mut roots = rustls::RootCertStore::empty();
        if !self.no_builtin_roots {
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        }
        for cert in &self.extra_roots {
            roots
                .add(cert.clone())
                .map_err(|e| Error::config(format!("bad CA certificate: {e}")))?;
        }
        Ok(roots)
    }
}

/// The verifier behind `danger_accept_invalid_certs`: checks signatures, trusts any chain.
#[cfg(feature = "rustls-base")]
#[derive(Debug)]
struct AcceptAnything(Arc<rustls::crypto::CryptoProvider>);

#[cfg(feature = "rustls-base")]
impl ServerCertVerifier for AcceptAnything {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
