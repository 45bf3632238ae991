//! Client certificates (mutual TLS) against a real Solr whose Jetty requires one
//! (`solr.sh start --tls --client-auth`): every transport is let in with a certificate of
//! the local CA (RSA, EC and PKCS#8 keys), refused with a typed error without one, and
//! refused with a typed error with one from a CA the node does not trust.

use std::path::{Path, PathBuf};

use solr_client::transport::TlsVersion;
use solr_client::{ClientCertProblem, Error, Identity, SolrClient, TlsOptions, TransportKind};

use crate::support;

/// The folder of the TLS material `scripts/setup.sh` made.
pub(crate) fn tls_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../local-solr/run/tls")
}

/// The client certificate `name` (`{name}.pem`, `{name}.key`) of `dir`.
pub(crate) fn identity(dir: &Path, name: &str) -> Identity {
    Identity::from_pem_files(
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    )
    .expect("client certificate loads")
}

/// `err` is the typed refusal of a client that has no certificate (`what` names the case):
/// the message says the server asked for one, and nothing was sent.
pub(crate) fn assert_no_certificate_refusal(err: &Error, what: &str) {
    let msg = err.to_string();
    assert!(
        msg.contains("the server asked for a client certificate"),
        "{what}: {msg}"
    );
    assert!(
        matches!(
            err,
            Error::ClientCertificate {
                problem: ClientCertProblem::NotConfigured { .. },
                ..
            }
        ),
        "{what}: {err:?}"
    );
    assert!(err.is_not_sent(), "{what}: refused before Solr saw it");
}

fn mtls_client(kind: TransportKind, tls: TlsOptions, id: Option<Identity>) -> SolrClient {
    let s = support::standalone_mtls();
    let ca = s.ca.as_ref().expect("CA");
    let tls = tls.add_ca_pem_file(ca).expect("CA readable");
    let mut b = SolrClient::builder(s.url(None).expect("url"))
        .collection("bench")
        .transport(kind)
        .tls(tls);
    if let Some(id) = id {
        b = b.client_identity(id);
    }
    b.build().expect("client builds")
}

/// With a certificate of the local CA, every key format, on every transport: 200, and the
/// handshake is timed on the connection that opened it.
#[tokio::test]
async fn a_certificate_of_the_trusted_ca_is_let_in_on_every_transport() {
    let _g = support::shared().await;
    let dir = tls_dir();
    for kind in TransportKind::ALL {
        for key in ["client-rsa", "client-ec", "client-pkcs8"] {
            let c = mtls_client(kind, TlsOptions::new(), Some(identity(&dir, key)));
            let ping = c.ping().await;
            let ping = ping.unwrap_or_else(|e| panic!("{kind} with {key}: {e}"));
            assert_eq!(ping.status, "OK", "{kind} with {key}");
            if kind != TransportKind::Reqwest {
                let tls = ping.timing.tls.expect("a new connection has a TLS phase");
                assert!(tls > std::time::Duration::ZERO, "{kind} with {key}");
                assert_eq!(ping.timing.tunnel, None, "no proxy, no tunnel");
            }
        }
    }
}

/// Without a certificate, under TLS 1.3 (the alert comes after the client's side of the
/// handshake) and TLS 1.2 (it ends the handshake): a typed error that says the server
/// asked for one, on every transport (reqwest's hidden alert is found by its probe).
#[tokio::test]
async fn no_certificate_is_a_typed_error_that_says_the_server_asked_for_one() {
    let _g = support::shared().await;
    for kind in TransportKind::ALL {
        for version in [TlsVersion::Tls13, TlsVersion::Tls12] {
            let c = mtls_client(kind, TlsOptions::new().version(version), None);
            let err = c.ping().await.expect_err("refused without a certificate");
            assert_no_certificate_refusal(&err, &format!("{kind} {version:?}"));
        }
    }
}

/// A certificate from a second CA the node does not trust: a typed refusal naming the
/// server's alert.
#[tokio::test]
async fn a_certificate_of_another_ca_is_a_typed_refusal() {
    let _g = support::shared().await;
    let dir = tls_dir();
    for kind in TransportKind::ALL {
        let c = mtls_client(
            kind,
            TlsOptions::new(),
            Some(identity(&dir, "wrong-ca-client")),
        );
        let err = c
            .ping()
            .await
            .expect_err("refused with a foreign certificate");
        let msg = err.to_string();
        assert!(
            msg.contains("refused the client certificate"),
            "{kind}: {msg}"
        );
        let Error::ClientCertificate {
            problem: ClientCertProblem::Refused { alert },
            ..
        } = &err
        else {
            panic!("{kind}: {err:?}");
        };
        assert!(
            ["UnknownCA", "BadCertificate", "CertificateUnknown"].contains(&alert.as_str()),
            "{kind}: {alert}"
        );
    }
}

/// Unreadable PEM is a typed configuration error that shows no key material.
#[test]
fn unreadable_pem_is_a_config_error_without_the_key() {
    let dir = tls_dir();
    let cert = std::fs::read(dir.join("client-rsa.pem")).expect("cert");
    let key = std::fs::read(dir.join("client-rsa.key")).expect("key");
    let other_key = std::fs::read(dir.join("client-ec.key")).expect("key");
    let mut broken = key.clone();
    let mid = broken.len() / 2;
    broken[mid..mid + 8].copy_from_slice(b"!!!!!!!!");
    let body = String::from_utf8_lossy(&key[40..80]).to_string();
    for (what, cert, key) in [
        ("no key", &cert[..], &b"not a key"[..]),
        ("no certificate", &key[..], &key[..]),
        ("corrupt key", &cert[..], &broken[..]),
        ("another certificate's key", &cert[..], &other_key[..]),
    ] {
        let err = Identity::from_pem(cert, key).expect_err(what);
        assert_eq!(err.kind(), "Config", "{what}: {err}");
        assert!(!err.to_string().contains(&body), "{what}: {err}");
        assert!(!format!("{err:?}").contains(&body), "{what}");
    }
}
