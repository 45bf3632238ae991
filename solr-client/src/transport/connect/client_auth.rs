//! Telling a refused client certificate apart from other TLS failures.
//!
//! A server that requires a client certificate answers a handshake without one, or with one
//! it does not trust, with a TLS alert. Under TLS 1.2 the alert ends the handshake; under
//! TLS 1.3 the client has finished its side of the handshake before the server checks the
//! certificate, so the alert arrives on the first read of the response. Both places pass
//! their error through [`refusal`], which turns such an alert into
//! [`Error::ClientCertificate`].

pub use crate::client_cert::ClientCertProblem;
use crate::error::Error;

/// [`Error::ClientCertificate`] when `err` (or an error it wraps) is a TLS alert from the
/// server about the client certificate. `has_identity` says whether one was sent, when the
/// caller knows; else the alert tells: TLS 1.3 servers send `certificate_required` exactly
/// when the client sent none (RFC 8446, 6.2), any other certificate alert means refused.
#[cfg(feature = "rustls-base")]
pub(crate) fn refusal(
    node: &str,
    err: &(dyn std::error::Error + 'static),
    has_identity: Option<bool>,
) -> Option<Error> {
    let alert = received_alert(err)?;
    if !CERTIFICATE_ALERTS.contains(&alert) {
        return None;
    }
    let sent = has_identity.unwrap_or(alert != rustls::AlertDescription::CertificateRequired);
    let alert = format!("{alert:?}");
    let problem = if sent {
        ClientCertProblem::Refused { alert }
    } else {
        ClientCertProblem::NotConfigured { alert }
    };
    Some(Error::ClientCertificate {
        node: node.into(),
        problem,
    })
}

/// The name of the client-certificate alert in `err` (or an error it wraps), if any.
#[cfg(feature = "rustls-base")]
pub(crate) fn certificate_alert(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let alert = received_alert(err)?;
    CERTIFICATE_ALERTS
        .contains(&alert)
        .then(|| format!("{alert:?}"))
}

/// [`Error::ClientCertificate`] for `alert`, a certificate alert's name: refused unless
/// the alert says none was sent (`settle` corrects it where the transport knows).
pub(crate) fn refusal_named(node: &str, alert: &str) -> Error {
    let problem = if alert == "CertificateRequired" {
        ClientCertProblem::NotConfigured {
            alert: alert.to_string(),
        }
    } else {
        ClientCertProblem::Refused {
            alert: alert.to_string(),
        }
    };
    Error::ClientCertificate {
        node: node.into(),
        problem,
    }
}

/// `e`, an HTTP/1.1 exchange that broke on a TLS connection (`tls`), as the certificate
/// alert the server closed the connection with explains it.
///
/// Under TLS 1.3 the server checks the client certificate after the client's side of the
/// handshake is over, so its alert comes while (or after) the request is written. Which
/// part of the client meets the alert first is a race: the request's read (the alert is
/// then in its error), a write that finds the socket reset (`alert_behind` reads the alert
/// still queued), or the connection's task, which reads the socket on its own and ends
/// with the alert before the request is dispatched: hyper then cancels the request with
/// "connection was not ready", which names no cause. Whichever reads the alert notes it
/// on the connection's meter (`connector::noted`) before the error reaches the request,
/// so the note is there when the caller reads it (`ConnMeter::cert_alert`) and passes it
/// here as `noted`.
pub(crate) fn h1_explained(node: &str, tls: bool, noted: Option<&str>, e: Error) -> Error {
    // A read-idle timeout too: a request was seen (rarely, on a multi-threaded runtime)
    // waiting for its answer on a connection the alert had ended.
    let broken = matches!(
        e,
        Error::Io { .. }
            | Error::Timeout {
                phase: crate::error::TimeoutPhase::ReadIdle,
                ..
            }
    );
    if !tls || !broken {
        return e;
    }
    match noted {
        Some(alert) => refusal_named(node, alert),
        None => e,
    }
}

/// `e`, a write on a TLS connection that failed because the server closed it, replaced by
/// the certificate alert the server sent before closing, when it is already in the socket.
/// A server that refuses a client certificate under TLS 1.3 sends its alert and closes
/// while the client may already be writing its request; the write then fails (broken
/// pipe, reset) before anything has read the alert. The kernel still holds it (queued data
/// is read before a reset is reported), but the runtime may not know yet that the socket is
/// readable, so the socket is read here directly, without waiting, and what it holds is
/// given to rustls. Application data read here is dropped: the connection is dead anyway.
#[cfg(feature = "rustls-base")]
pub(crate) fn alert_behind(
    socket: &tokio::net::TcpStream,
    tls: &mut rustls::ClientConnection,
    e: std::io::Error,
) -> std::io::Error {
    use std::io::{ErrorKind, Read};
    if !matches!(e.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset) {
        return e;
    }
    let sock = socket2::SockRef::from(socket);
    let mut scratch = [0u8; 4096];
    for _ in 0..16 {
        let n = match (&*sock).read(&mut scratch) {
            Ok(n) if n > 0 => n,
            _ => break,
        };
        let mut queued = &scratch[..n];
        while !queued.is_empty() {
            if tls.read_tls(&mut queued).is_err() {
                return e;
            }
            match tls.process_new_packets() {
                Err(err @ rustls::Error::AlertReceived(a)) if CERTIFICATE_ALERTS.contains(&a) => {
                    return std::io::Error::new(ErrorKind::InvalidData, err);
                }
                Err(_) => return e,
                Ok(_) => {}
            }
        }
    }
    e
}

/// The alerts a server sends about a client certificate.
#[cfg(feature = "rustls-base")]
const CERTIFICATE_ALERTS: [rustls::AlertDescription; 10] = {
    use rustls::AlertDescription as A;
    [
        A::CertificateRequired,
        A::BadCertificate,
        A::UnknownCA,
        A::CertificateUnknown,
        A::UnsupportedCertificate,
        A::CertificateExpired,
        A::CertificateRevoked,
        A::AccessDenied,
        A::DecryptError,
        A::HandshakeFailure,
    ]
};

/// `e` with its [`ClientCertProblem`] decided by whether a certificate was configured
/// (the HTTP layer, which maps a TLS 1.3 alert read after the handshake, does not know).
pub(crate) fn settle(e: Error, has_identity: bool) -> Error {
    match e {
        Error::ClientCertificate { node, problem } => {
            let alert = match problem {
                ClientCertProblem::NotConfigured { alert }
                | ClientCertProblem::Refused { alert } => alert,
            };
            let problem = if has_identity {
                ClientCertProblem::Refused { alert }
            } else {
                ClientCertProblem::NotConfigured { alert }
            };
            Error::ClientCertificate { node, problem }
        }
        e => e,
    }
}

/// The alert the server sent, found anywhere in the error's chain. `io::Error::source()`
/// skips the error it wraps, so a wrapped error is looked at through `get_ref()`.
#[cfg(feature = "rustls-base")]
fn received_alert(err: &(dyn std::error::Error + 'static)) -> Option<rustls::AlertDescription> {
    let mut next = Some(err);
    while let Some(e) = next {
        if let Some(rustls::Error::AlertReceived(a)) = e.downcast_ref::<rustls::Error>() {
            return Some(*a);
        }
        #[cfg(any(feature = "http2", feature = "reqwest"))]
        if let Some(io) = e.downcast_ref::<h2::Error>().and_then(h2::Error::get_io) {
            if let Some(a) = received_alert(io) {
                return Some(a);
            }
        }
        if let Some(inner) = e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            if let Some(a) = received_alert(inner) {
                return Some(a);
            }
        }
        next = e.source();
    }
    alert_in_text(&chain_text(err))
}

/// The error and its sources, as one line.
#[cfg(feature = "rustls-base")]
fn chain_text(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut next = err.source();
    while let Some(e) = next {
        text.push_str(": ");
        text.push_str(&e.to_string());
        next = e.source();
    }
    text
}

/// A certificate alert named in text: h2 keeps only the kind and message of an I/O error,
/// so behind HTTP/2 rustls' alert survives as its Display, `received fatal alert: Name`.
#[cfg(feature = "rustls-base")]
fn alert_in_text(text: &str) -> Option<rustls::AlertDescription> {
    let name = text.split("received fatal alert: ").nth(1)?;
    let name = name.split(|c: char| !c.is_ascii_alphanumeric()).next()?;
    CERTIFICATE_ALERTS
        .into_iter()
        .find(|a| format!("{a:?}") == name)
}

#[cfg(all(test, feature = "rustls-base"))]
mod tests {
    use super::*;

    fn alert_io(a: rustls::AlertDescription) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::AlertReceived(a),
        )
    }

    #[test]
    fn a_certificate_alert_names_the_missing_or_refused_certificate() {
        let none = refusal(
            "https://n",
            &alert_io(rustls::AlertDescription::CertificateRequired),
            None,
        )
        .expect("typed");
        assert_eq!(none.kind(), "ClientCertificate");
        assert!(
            none.to_string()
                .contains("the server asked for a client certificate and none is configured"),
            "{none}"
        );
        let refused = refusal(
            "https://n",
            &alert_io(rustls::AlertDescription::UnknownCA),
            None,
        )
        .expect("typed");
        assert!(
            refused
                .to_string()
                .contains("refused the client certificate (server alert: UnknownCA)"),
            "{refused}"
        );
    }

    #[test]
    fn an_alert_kept_only_as_text_is_found() {
        let text = std::io::Error::other("connection error: received fatal alert: BadCertificate");
        let e = refusal("https://n", &text, Some(false)).expect("typed");
        assert!(
            e.to_string().contains("(server alert: BadCertificate)"),
            "{e}"
        );
        let other = std::io::Error::other("received fatal alert: ProtocolVersion");
        assert!(refusal("https://n", &other, Some(false)).is_none());
    }

    #[test]
    fn a_noted_alert_is_named_and_typed_by_its_name() {
        let io = alert_io(rustls::AlertDescription::CertificateRequired);
        assert_eq!(
            certificate_alert(&io).as_deref(),
            Some("CertificateRequired")
        );
        let other = alert_io(rustls::AlertDescription::ProtocolVersion);
        assert_eq!(certificate_alert(&other), None);
        {
            let none = refusal_named("https://n", "CertificateRequired");
            assert!(none.to_string().contains("none is configured"), "{none}");
            let refused = refusal_named("https://n", "BadCertificate");
            assert!(
                refused
                    .to_string()
                    .contains("(server alert: BadCertificate)"),
                "{refused}"
            );
            // What the transport knows wins: no identity configured, so not configured.
            let settled = settle(refused, false);
            assert!(
                settled.to_string().contains("none is configured"),
                "{settled}"
            );
        }
    }

    #[test]
    fn other_alerts_and_errors_are_left_alone() {
        let other = alert_io(rustls::AlertDescription::ProtocolVersion);
        assert!(refusal("https://n", &other, Some(false)).is_none());
        let plain = std::io::Error::other("reset");
        assert!(refusal("https://n", &plain, Some(true)).is_none());
        // Known to have sent none: a handshake failure means the certificate was missing.
        let failure = alert_io(rustls::AlertDescription::HandshakeFailure);
        let e = refusal("https://n", &failure, Some(false)).expect("typed");
        assert!(e.to_string().contains("none is configured"), "{e}");
    }
}
