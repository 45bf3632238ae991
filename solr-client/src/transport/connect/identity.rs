//! A client certificate and its private key (mutual TLS), for servers that ask the client
//! to prove who it is during the handshake.
//!
//! The key may be PKCS#8 (`BEGIN PRIVATE KEY`), RSA (PKCS#1, `BEGIN RSA PRIVATE KEY`) or
//! EC (SEC1, `BEGIN EC PRIVATE KEY`). The PEM is checked when the [`Identity`] is made: no
//! certificate, no key, or a key that does not belong to the certificate is an
//! [`Error::Config`] that never shows the key.

#[cfg(feature = "rustls-base")]
use std::sync::Arc;

use crate::error::{Error, Result};

/// A client certificate chain (leaf first) and its private key. Debug output shows neither.
#[derive(Clone)]
pub struct Identity {
    /// The certificate chain and key, PEM, concatenated (what reqwest takes).
    #[cfg_attr(not(feature = "reqwest"), allow(dead_code))]
    pem: Vec<u8>,
    /// The parsed chain and the loaded signing key (what rustls takes).
    #[cfg(feature = "rustls-base")]
    certified: Arc<rustls::sign::CertifiedKey>,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity").finish_non_exhaustive()
    }
}

impl Identity {
    /// An identity from a PEM certificate chain (leaf first) and a PEM private key.
    pub fn from_pem(cert_pem: &[u8], key_pem: &[u8]) -> Result<Self> {
        if !contains(cert_pem, b"-----BEGIN CERTIFICATE-----") {
            return Err(Error::config(
                "client certificate: no PEM certificate found",
            ));
        }
        if !contains(key_pem, b"PRIVATE KEY-----") {
            return Err(Error::config(
                "client certificate: no PEM private key found (PKCS#8, RSA or EC)",
            ));
        }
        let mut pem = cert_pem.to_vec();
        pem.push(b'\n');
        pem.extend_from_slice(key_pem);
        Ok(Identity {
            pem,
            #[cfg(feature = "rustls-base")]
            certified: Arc::new(certified_key(cert_pem, key_pem)?),
        })
    }

    /// [`Self::from_pem`] with the certificate and key read from files.
    pub fn from_pem_files(
        cert: impl AsRef<std::path::Path>,
        key: impl AsRef<std::path::Path>,
    ) -> Result<Self> {
        let read = |p: &std::path::Path, what: &str| {
            std::fs::read(p).map_err(|e| {
                Error::config(format!("cannot read client {what} {}: {e}", p.display()))
            })
        };
        let cert_pem = read(cert.as_ref(), "certificate")?;
        let key_pem = read(key.as_ref(), "key")?;
        Self::from_pem(&cert_pem, &key_pem)
    }

    /// The chain and key as one PEM blob (reqwest's `Identity::from_pem`).
    #[cfg(feature = "reqwest")]
    pub(crate) fn pem(&self) -> &[u8] {
        &self.pem
    }

    /// The rustls certificate resolver that always offers this identity.
    #[cfg(feature = "rustls-base")]
    pub(crate) fn resolver(&self) -> Arc<dyn rustls::client::ResolvesClientCert> {
        Arc::new(rustls::sign::SingleCertAndKey::from(
            self.certified.as_ref().clone(),
        ))
    }
}

/// Whether the PEM text holds `marker` (a section's BEGIN line or its end).
fn contains(pem: &[u8], marker: &[u8]) -> bool {
    pem.windows(marker.len()).any(|w| w == marker)
}

/// Parses the chain and the key and checks that they belong together. Parse errors are
/// described, never quoted: the key text must not reach a message.
#[cfg(feature = "rustls-base")]
fn certified_key(cert_pem: &[u8], key_pem: &[u8]) -> Result<rustls::sign::CertifiedKey> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let chain = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| Error::config("client certificate: the certificate PEM is unreadable"))?;
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|_| {
        Error::config("client certificate: the key PEM is unreadable (expected PKCS#8, RSA or EC)")
    })?;
    let provider = crate::transport::connect::tls_provider::provider()?;
    rustls::sign::CertifiedKey::from_der(chain, key, &provider).map_err(|e| {
        Error::config(format!(
            "client certificate: the key does not fit the certificate ({})",
            key_problem(&e)
        ))
    })
}

/// A fixed description of why rustls refused a key (its own text is not shown).
#[cfg(feature = "rustls-base")]
fn key_problem(e: &rustls::Error) -> &'static str {
    match e {
        rustls::Error::InconsistentKeys(_) => "the key is not the certificate's key",
        _ => "the key could not be loaded",
    }
}
