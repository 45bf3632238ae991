//! Why a server refused the TLS handshake over the client certificate: the problem
//! [`Error::ClientCertificate`](crate::Error::ClientCertificate) carries. Telling it apart
//! from other TLS failures is the transport's (`transport::client_auth`).

/// Why the server refused the handshake over the client certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCertProblem {
    /// The server asked for a client certificate and none is configured
    /// ([`crate::TlsOptions::client_identity`]).
    NotConfigured {
        /// The TLS alert the server sent (`CertificateRequired`, `HandshakeFailure`, ...).
        alert: String,
    },
    /// The server did not accept the certificate sent: another CA signed it, or it is
    /// expired or unfit for client authentication.
    Refused {
        /// The TLS alert the server sent (`UnknownCA`, `BadCertificate`, `CertificateUnknown`, ...).
        alert: String,
    },
}

impl std::fmt::Display for ClientCertProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientCertProblem::NotConfigured { alert } => write!(
                f,
                "the server asked for a client certificate and none is configured \
                 (server alert: {alert})"
            ),
            ClientCertProblem::Refused { alert } => write!(
                f,
                "the server refused the client certificate (server alert: {alert})"
            ),
        }
    }
}
