//! The key log's part of the report: the TLS note, the decryption findings and text lines
//! (the decryptor itself, [`crate::tls::decrypt`], knows nothing of reports).

use super::{Finding, Severity};
use crate::tls::decrypt::TlsDecryption;

/// The TLS summary's note when a key log was given.
pub fn note(d: &TlsDecryption) -> String {
    format!(
        "decrypted with the key log: {} connections; requests, gzip and QTime of HTTP/1.1 \
         inside them are counted with the cleartext ones",
        d.connections_decrypted
    )
}

/// Findings about decryption: what was decrypted, and "no key for N TLS connections".
pub fn findings(tls_connections: u64, d: &TlsDecryption) -> Vec<Finding> {
    let mut out = Vec::new();
    if d.connections_decrypted > 0 {
        out.push(info(
            "tls-decrypted",
            format!(
                "{} of {tls_connections} TLS connections decrypted with the key log ({} records, \
                 {} B to and {} B from the server)",
                d.connections_decrypted,
                d.records_decrypted,
                d.plaintext_bytes_to_server,
                d.plaintext_bytes_from_server
            ),
            "nothing to change",
        ));
    }
    out.extend(blind(d));
    if d.records_failed > 0 {
        out.push(info(
            "tls-auth-failed",
            format!(
                "{} TLS records failed authentication (a key that does not match, or damaged \
                 bytes)",
                d.records_failed
            ),
            "check that the key log belongs to this capture",
        ));
    }
    if !d.keylog_malformed.is_empty() {
        out.push(info(
            "keylog-malformed",
            format!(
                "{} key log lines could not be read: {}",
                d.keylog_malformed.len(),
                d.keylog_malformed
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            "the key log should hold lines `LABEL <64 hex client random> <hex secret>`",
        ));
    }
    out
}

fn info(kind: &str, what: String, fix: &str) -> Finding {
    Finding {
        severity: Severity::Info,
        kind: kind.into(),
        what,
        fix: fix.into(),
    }
}

/// TLS connections the key log could not open, and why.
fn blind(d: &TlsDecryption) -> Option<Finding> {
    let mut why = Vec::new();
    if d.no_key > 0 {
        why.push(format!("no key for {} TLS connections", d.no_key));
    }
    if d.no_handshake > 0 {
        why.push(format!(
            "{} opened before the capture (no handshake)",
            d.no_handshake
        ));
    }
    if d.unsupported_suite > 0 {
        why.push(format!(
            "{} with a cipher suite not decrypted here",
            d.unsupported_suite
        ));
    }
    (!why.is_empty()).then(|| {
        info(
            "tls-opaque",
            format!("{}: connection-level view only for those", why.join(", ")),
            "set SSLKEYLOGFILE for every client process before it connects, and start watch \
             before the clients (a connection's secrets are logged at its handshake)",
        )
    })
}

/// The decryption lines of the text report.
pub fn print_text<W: std::io::Write>(d: &TlsDecryption, w: &mut W) -> std::io::Result<()> {
    writeln!(
        w,
        "  key log: {} lines, secrets for {} connections, {} malformed; decrypted {} \
         connections {:?} {:?}, ALPN {:?}; no key for {} TLS connections, {} without \
         handshake, {} unsupported suite",
        d.keylog_lines,
        d.keylog_connections,
        d.keylog_malformed.len(),
        d.connections_decrypted,
        d.versions,
        d.suites,
        d.alpn,
        d.no_key,
        d.no_handshake,
        d.unsupported_suite
    )?;
    writeln!(
        w,
        "  records: {} decrypted, {} failed authentication, {} without key; {} key updates, \
         {} alerts; plaintext {} B to / {} B from the server",
        d.records_decrypted,
        d.records_failed,
        d.records_without_key,
        d.key_updates,
        d.alerts,
        d.plaintext_bytes_to_server,
        d.plaintext_bytes_from_server
    )
}
