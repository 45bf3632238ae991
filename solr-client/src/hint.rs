//! Hints: the advice an error carries when its cause looks like a common mistake (a wrong
//! scheme, a base URL or collection that does not exist).

use crate::error::Error;

/// `e` with a "wrong scheme?" hint when it looks like https spoken to a plain-http port (the
/// TLS handshake read an HTTP answer) or http spoken to a TLS port (the answer was a TLS
/// record). `https` is the scheme of the node the request went to. Other errors as they are.
pub(crate) fn scheme_hint(https: bool, e: Error) -> Error {
    match e {
        Error::Tls { node, source } if https && plain_http_seen(&source.to_string()) => {
            let source = hinted_http(&node, source);
            Error::Tls { node, source }
        }
        // reqwest reports its TLS handshake as part of connecting.
        Error::Connect { node, source } if https && plain_http_seen(&source.to_string()) => {
            let source = hinted_http(&node, source);
            Error::Connect { node, source }
        }
        Error::Io {
            node,
            message,
            not_sent,
        } if !https && tls_seen(&message) && !message.contains(HINTED) => {
            let message =
                format!("{message} {HINTED} the node answered with TLS: use https:// for {node})");
            Error::Io {
                node,
                message: message.into(),
                not_sent,
            }
        }
        e => e,
    }
}

/// What a server that is not an HTTP/2 server answers to the HTTP/2 connection preface.
#[cfg(feature = "http2")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotH2 {
    /// A TLS record (`0x14..=0x17 0x03`: a handshake or an alert): the node speaks https.
    Tls,
    /// `HTTP/1.`: an HTTP/1.x server that does not speak h2c (prior knowledge).
    Http1,
}

/// What the first bytes a server sent to an HTTP/2 client say it is, when they are not
/// HTTP/2 (an HTTP/2 server's first bytes are a SETTINGS frame: `00 00 xx 04`).
#[cfg(feature = "http2")]
pub(crate) fn not_h2(first: &[u8]) -> Option<NotH2> {
    match first {
        [0x14..=0x17, 0x03, ..] => Some(NotH2::Tls),
        _ if first.starts_with(b"HTTP/1.") => Some(NotH2::Http1),
        _ => None,
    }
}

/// What the hints this module writes start with; a message that has one gets no other.
const HINTED: &str = "(wrong scheme?";

/// `e`, an HTTP/2 exchange that broke, with a hint when the node's first bytes (`first`)
/// were not HTTP/2: the node speaks TLS (use https://), or HTTP/1.x without h2c (use a
/// transport that speaks HTTP/1.1, or enable h2c on the server). Both fail alike in the
/// HTTP/2 layer (the bytes read as a frame header announce a frame far over the size
/// limit), so only the bytes tell them apart.
#[cfg(feature = "http2")]
pub(crate) fn h2_answer(e: Error, first: &[u8]) -> Error {
    let Error::Io {
        node,
        message,
        not_sent,
    } = e
    else {
        return e;
    };
    let hint = match not_h2(first) {
        _ if message.contains(HINTED) => None,
        Some(NotH2::Tls) => Some(format!(
            "{HINTED} the node answered with TLS: use https:// for {node})"
        )),
        Some(NotH2::Http1) => Some(format!(
            "{HINTED} the node answered HTTP/1.x to the HTTP/2 preface: it does not speak \
             h2c, HTTP/2 over http:// with prior knowledge: use the pooled or fresh \
             transport for {node}, or enable h2c on the server)"
        )),
        None => None,
    };
    let message = match hint {
        Some(h) => format!("{message} {h}").into(),
        None => message,
    };
    Error::Io {
        node,
        message,
        not_sent,
    }
}

/// `source`, with the hint that the node at `node` speaks plain HTTP.
fn hinted_http(node: &str, source: std::io::Error) -> std::io::Error {
    let hint = format!(
        "wrong scheme? the node answered plain HTTP to a TLS handshake: use http:// for {node}"
    );
    std::io::Error::new(source.kind(), Hinted { hint, source })
}

/// A TLS error message that says the peer sent something other than TLS: rustls reports an
/// HTTP answer as a record of an invalid content type.
fn plain_http_seen(msg: &str) -> bool {
    msg.contains("InvalidContentType") || msg.contains("corrupt message")
}

/// An HTTP parse error that says the answer was not HTTP: a TLS alert record (bytes
/// `15 03 03 ...`) fails HTTP/1.1's status line ("invalid HTTP version parsed") and, read
/// as an HTTP/2 frame header, announces a frame far over the size limit. (With HTTP/2 the
/// connection may also be found closed before the alert is read: then there is no hint.)
fn tls_seen(msg: &str) -> bool {
    msg.contains("invalid HTTP version") || msg.contains("frame with invalid size")
}

/// An error with a hint in front of its source, which stays reachable through `source()`.
#[derive(Debug)]
struct Hinted {
    hint: String,
    source: std::io::Error,
}

impl std::fmt::Display for Hinted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.source, self.hint)
    }
}

impl std::error::Error for Hinted {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// `e`, turned into [`Error::NotFound`] when it is a 404 answer without a Solr error body
/// to a request for `path` below the node at `base`; any other error as it is.
pub(crate) fn not_found(e: Error, base: &url::Url, path: &str) -> Error {
    let Error::UnexpectedResponse {
        status: 404,
        node,
        snippet,
        ..
    } = &e
    else {
        return e;
    };
    let base_path = base.path().trim_end_matches('/');
    let tried = format!("{base_path}/{}", path.trim_start_matches('/'));
    let collection = path.trim_start_matches('/').split('/').next().unwrap_or("");
    let after_solr = base_path
        .rsplit_once("/solr")
        .map(|(_, rest)| rest.trim_matches('/'))
        .filter(|rest| !rest.is_empty());
    let hint = if let Some(extra) = after_solr {
        format!(
            "the base URL goes past /solr (\"{extra}\"): give the base URL ending in /solr and the \
             collection with .collection(\"{extra}\")"
        )
    } else if snippet.contains("Can not find") {
        // Solr's own dispatcher answered: the base URL reaches Solr, the core does not.
        format!(
            "Solr answered but has no core or collection named \"{collection}\" (or no such \
             request handler in it): check .collection(...) against the node's cores \
             (admin/cores) or collections (admin/collections?action=LIST)"
        )
    } else if !base_path.ends_with("/solr") {
        "the server has no Solr at this base URL: Solr's base URL ends in /solr (e.g. \
         http://127.0.0.1:8983/solr), with the collection given by .collection(...)"
            .to_string()
    } else {
        "the server has nothing at this path: check the base URL (e.g. \
         http://127.0.0.1:8983/solr) and .collection(...)"
            .to_string()
    };
    Error::NotFound {
        node: node.clone(),
        path: tried.into(),
        hint: hint.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An HTTP/2 client's first read tells an HTTP/1.x server from a TLS one (and from an
    /// HTTP/2 one: a SETTINGS frame), and the hint says what to do for each; the scheme
    /// hint adds nothing to a message that has one.
    #[cfg(feature = "http2")]
    #[test]
    fn an_h2c_answer_tells_http1_from_tls() {
        assert_eq!(not_h2(b"HTTP/1.1 400 Bad Request"), Some(NotH2::Http1));
        assert_eq!(not_h2(b"HTTP/1.0 505"), Some(NotH2::Http1));
        assert_eq!(not_h2(&[0x15, 0x03, 0x03, 0x00, 0x02]), Some(NotH2::Tls));
        assert_eq!(not_h2(&[0x16, 0x03, 0x01, 0x00]), Some(NotH2::Tls));
        assert_eq!(not_h2(&[0x00, 0x00, 0x12, 0x04, 0x00]), None, "SETTINGS");
        assert_eq!(not_h2(b""), None);
        assert_eq!(not_h2(b"HTTP/2"), None);
        let io = |m: &str| Error::Io {
            node: "http://n:1/solr".into(),
            message: m.into(),
            not_sent: false,
        };
        let broken = "http2 error: connection error detected: frame with invalid size";
        let h1 = h2_answer(io(broken), b"HTTP/1.1 400 Bad Request").to_string();
        assert!(h1.contains("does not speak h2c"), "{h1}");
        assert!(!h1.contains("answered with TLS"), "{h1}");
        let h1 = scheme_hint(false, h2_answer(io(broken), b"HTTP/1.1 400")).to_string();
        assert!(!h1.contains("answered with TLS"), "{h1}");
        let tls = h2_answer(io("connection closed"), &[0x15, 0x03, 0x03]).to_string();
        assert!(tls.contains("answered with TLS: use https://"), "{tls}");
        let once = scheme_hint(false, h2_answer(io(broken), &[0x15, 0x03, 0x03])).to_string();
        assert_eq!(once.matches("wrong scheme?").count(), 1, "{once}");
        let plain = h2_answer(io(broken), &[0, 0, 0, 4]).to_string();
        assert!(!plain.contains("wrong scheme?"), "{plain}");
    }

    fn html_404(body: &str) -> Error {
        Error::UnexpectedResponse {
            node: "http://h:1/solr".into(),
            status: 404,
            content_type: Some("text/html".into()),
            snippet: body.into(),
        }
    }

    #[test]
    fn a_404_without_solr_body_becomes_not_found_with_a_hint() {
        let solr = url::Url::parse("http://h:1/solr").expect("url");
        let e = not_found(
            html_404("Error 404 Can not find: /solr/nope/select"),
            &solr,
            "nope/select",
        );
        let Error::NotFound { path, hint, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(path, "/solr/nope/select");
        assert!(
            hint.contains("\"nope\"") && hint.contains(".collection("),
            "{hint}"
        );
        assert_eq!((e.status(), e.node()), (Some(404), Some("http://h:1/solr")));

        let root = url::Url::parse("http://h:1/").expect("url");
        let e = not_found(html_404("HTTP ERROR 404 Not Found"), &root, "bench/select");
        let Error::NotFound { path, hint, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(path, "/bench/select");
        assert!(hint.contains("ends in /solr"), "{hint}");

        let deep = url::Url::parse("http://h:1/solr/bench").expect("url");
        let e = not_found(html_404("Can not find"), &deep, "bench/select");
        assert!(e.to_string().contains(".collection(\"bench\")"), "{e}");

        // Anything else stays as it is: a Solr error body, another status.
        let other = not_found(
            Error::UnexpectedResponse {
                node: "n".into(),
                status: 502,
                content_type: None,
                snippet: "bad gateway".into(),
            },
            &solr,
            "bench/select",
        );
        assert!(matches!(
            other,
            Error::UnexpectedResponse { status: 502, .. }
        ));
    }
}
