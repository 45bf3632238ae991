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

/// A value's Debug output (`{:?}`, or `{:#?}` when asked for), rendered then redacted.
///
/// Rendering first is safe: escaping only turns characters that end a URL's authority
/// (whitespace) into ones that do not, so the redacted span can only grow.
pub(crate) struct Redacted<'a>(pub(crate) &'a dyn std::fmt::Debug);

impl std::fmt::Debug for Redacted<'_> {
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
    fn redacted_debug_output_keeps_the_shape_and_drops_user_info() {
        let text = "at http://u:p@h:1/solr\nnext";
        assert_eq!(
            format!("{:?}", Redacted(&text)),
            "\"at http://h:1/solr\\nnext\""
        );
        let some = Some(text.to_string());
        assert_eq!(
            format!("{:#?}", Redacted(&some)),
            "Some(\n    \"at http://h:1/solr\\nnext\",\n)"
        );
    }
}
