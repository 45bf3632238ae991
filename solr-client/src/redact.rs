//! Redaction: URLs as errors, logs and reports show them, without user info (`user:password@`).

use std::borrow::Cow;

/// `text` with the user info (`user:password@`) of every URL in it removed:
/// `http://u:p@host/solr` becomes `http://host/solr`. Text without such a URL is returned as
/// it is.
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    if !text.contains("://") || !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => out.push_str(&authority[at + 1..]),
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// A node URL as errors, timings and statistics show it: without user info.
pub(crate) fn node_label(url: &url::Url) -> String {
    if url.username().is_empty() && url.password().is_none() {
        // The serialization as it is (what `Display` writes), without the formatter.
        return url.as_str().to_owned();
    }
    let mut u = url.clone();
    let _ = u.set_password(None);
    let _ = u.set_username("");
    u.to_string()
}

/// `e`, safe to keep in an error: as it is (its kind, OS code and source chain, so callers
/// still downcast to it) when nothing in its chain shows user info in `Display` or `Debug`;
/// otherwise an error of the same kind whose message is `e`'s, redacted (the chain that
/// showed the secret is dropped). What the `source` of [`Error::Dns`](crate::Error::Dns),
/// [`Error::Connect`](crate::Error::Connect) and [`Error::Tls`](crate::Error::Tls) is made
/// with.
pub(crate) fn redact_io(e: std::io::Error) -> std::io::Error {
    if chain_is_clean(&e) {
        e
    } else {
        std::io::Error::new(e.kind(), redact(&e.to_string()).into_owned())
    }
}

/// True when no error of `e`'s chain shows user info in its `Display` or `Debug` output.
fn chain_is_clean(e: &(dyn std::error::Error + 'static)) -> bool {
    let clean = |shown: String| matches!(redact(&shown), Cow::Borrowed(_));
    let mut next = Some(e);
    while let Some(err) = next {
        if !clean(err.to_string()) || !clean(format!("{err:?}")) {
            return false;
        }
        next = err.source();
    }
    true
}

/// A value's Debug output (`{:?}`, or `{:#?}` when asked for), rendered then redacted: for
/// values that must stay exact (a URL as the caller typed it, document ids) yet be shown
/// without user info.
///
/// Rendering first is safe: escaping only turns characters that end a URL's authority
/// (whitespace) into ones that do not, so the redacted span can only grow.
pub(crate) struct RedactedDebug<'a>(pub(crate) &'a dyn std::fmt::Debug);

impl std::fmt::Debug for RedactedDebug<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = if f.alternate() {
            format!("{:#?}", self.0)
        } else {
            format!("{:?}", self.0)
        };
        f.write_str(&redact(&shown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_removes_user_info_of_every_url() {
        assert_eq!(redact("http://h:1/solr"), "http://h:1/solr");
        assert_eq!(
            redact("a http://u:p@h:1/solr and https://x@y/z?q=a@b, end"),
            "a http://h:1/solr and https://y/z?q=a@b, end"
        );
        assert_eq!(redact("\"http://u:p@h\""), "\"http://h\"");
        assert_eq!(redact("mail me@x"), "mail me@x");
    }

    #[test]
    fn an_io_error_without_secret_is_kept_and_one_with_a_secret_is_replaced() {
        use std::io;
        let clean = redact_io(io::Error::from_raw_os_error(111));
        assert_eq!(clean.raw_os_error(), Some(111), "kept as it is");
        let dirty = redact_io(io::Error::new(
            io::ErrorKind::TimedOut,
            "proxy http://u:s3cret@h:1/solr: CONNECT failed",
        ));
        assert_eq!(dirty.kind(), io::ErrorKind::TimedOut);
        assert_eq!(dirty.to_string(), "proxy http://h:1/solr: CONNECT failed");
        assert!(!format!("{dirty:?}").contains("s3cret"));
    }

    #[test]
    fn redacted_debug_output_keeps_the_shape_and_drops_user_info() {
        let text = "at http://u:p@h:1/solr\nnext";
        assert_eq!(
            format!("{:?}", RedactedDebug(&text)),
            "\"at http://h:1/solr\\nnext\""
        );
        let some = Some(text.to_string());
        assert_eq!(
            format!("{:#?}", RedactedDebug(&some)),
            "Some(\n    \"at http://h:1/solr\\nnext\",\n)"
        );
    }
}
