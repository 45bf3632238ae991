//! The rustls crypto provider of this build: aws-lc-rs (feature `rustls`, the default), ring
//! (feature `rustls-ring`), or, with `rustls-base` alone, the process default provider.

use std::sync::Arc;

use rustls::crypto::CryptoProvider;

use crate::error::Result;

/// The crypto provider the built-in transports' TLS uses. aws-lc-rs wins when both
/// `rustls` and `rustls-ring` are on (cargo unifies features across a dependency graph).
#[cfg(feature = "rustls")]
pub(crate) fn provider() -> Result<Arc<CryptoProvider>> {
    Ok(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
}

/// The crypto provider the built-in transports' TLS uses: ring.
#[cfg(all(feature = "rustls-ring", not(feature = "rustls")))]
pub(crate) fn provider() -> Result<Arc<CryptoProvider>> {
    Ok(Arc::new(rustls::crypto::ring::default_provider()))
}

/// The crypto provider the built-in transports' TLS uses: the one the application installed
/// with `CryptoProvider::install_default`, or a named error when it installed none.
#[cfg(not(any(feature = "rustls", feature = "rustls-ring")))]
pub(crate) fn provider() -> Result<Arc<CryptoProvider>> {
    CryptoProvider::get_default().cloned().ok_or_else(|| {
        crate::error::Error::config(
            "solr-client was built with `rustls-base` and no crypto provider: enable the \
             `rustls` (aws-lc-rs) or `rustls-ring` feature, or call \
             rustls::crypto::CryptoProvider::install_default before building the client",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_feature_gives_a_provider_with_cipher_suites() {
        if cfg!(any(feature = "rustls", feature = "rustls-ring")) {
            let p = provider().expect("a provider feature is on");
            assert!(!p.cipher_suites.is_empty());
        } else {
            // rustls-base alone, and this test installs no default provider.
            let err = provider().expect_err("no provider feature, none installed");
            assert!(err.to_string().contains("rustls-ring"), "{err}");
        }
    }
}
