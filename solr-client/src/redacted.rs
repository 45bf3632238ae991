//! [`Redacted`]: a value of an [`Error`](crate::Error) (a message, Solr's error body) with the
//! user info of every URL in it removed when it was made.

use std::fmt;

use crate::redact::redact;
use crate::types::SolrErrorBody;

/// A value whose every URL lost its user info (`user:password@`) when the value was made:
/// `http://u:p@host/solr` inside it became `http://host/solr`.
///
/// The free-text fields of [`Error`](crate::Error) (messages, snippets, hints, reasons, ids,
/// Solr's error body) have this type, so no `Display` or `Debug` output of an error can show
/// a password: there is none left to show. The only ways to make one are the `From`
/// conversions, and each redacts:
///
/// | `Redacted<T>` | made from | reads as (`Deref`) |
/// |---|---|---|
/// | `Redacted<String>` | `String`, `&str` | `str` (also compares with `str`, `&str`, `String`) |
/// | `Redacted<SolrErrorBody>` | [`SolrErrorBody`] | [`SolrErrorBody`] (`msg`, `code`, `metadata`) |
///
/// `Display` and `Debug` are the inner value's own.
///
/// ```
/// use solr_client::Redacted;
/// let message = Redacted::from("no answer from http://solr:s3cret@solr1:8983/solr");
/// assert_eq!(message, "no answer from http://solr1:8983/solr");
/// assert!(message.contains("solr1"));
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Redacted<T>(T);

impl<T> Redacted<T> {
    /// The redacted value itself.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl Redacted<String> {
    /// The text, without user info.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Redacted<String> {
    fn from(text: &str) -> Self {
        Redacted(redact(text).into_owned())
    }
}

impl From<String> for Redacted<String> {
    fn from(text: String) -> Self {
        Redacted(redacted_string(text))
    }
}

impl From<Redacted<String>> for String {
    fn from(text: Redacted<String>) -> Self {
        text.0
    }
}

/// `text` with its URLs' user info removed, reusing it when it has none.
fn redacted_string(text: String) -> String {
    match redact(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(shown) => shown,
    }
}

impl From<SolrErrorBody> for Redacted<SolrErrorBody> {
    /// `msg` and every string inside `metadata` redacted.
    fn from(mut body: SolrErrorBody) -> Self {
        body.msg = redacted_string(std::mem::take(&mut body.msg));
        if let Some(m) = body.metadata.as_mut() {
            redact_json(m);
        }
        Redacted(body)
    }
}

/// Every string of `value` (keys too), redacted in place.
fn redact_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => *s = redacted_string(std::mem::take(s)),
        Value::Array(items) => items.iter_mut().for_each(redact_json),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (k, mut v) in entries {
                redact_json(&mut v);
                map.insert(redacted_string(k), v);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

impl std::ops::Deref for Redacted<String> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Redacted<SolrErrorBody> {
    type Target = SolrErrorBody;

    fn deref(&self) -> &SolrErrorBody {
        &self.0
    }
}

impl AsRef<str> for Redacted<String> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<T: fmt::Display> fmt::Display for Redacted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: fmt::Debug> fmt::Debug for Redacted<T> {
    /// The inner value's: `"text"` for a `Redacted<String>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq<str> for Redacted<String> {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Redacted<String> {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for Redacted<String> {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<Redacted<String>> for str {
    fn eq(&self, other: &Redacted<String>) -> bool {
        self == other.0
    }
}

impl PartialEq<Redacted<String>> for &str {
    fn eq(&self, other: &Redacted<String>) -> bool {
        *self == other.0
    }
}

impl PartialEq<Redacted<String>> for String {
    fn eq(&self, other: &Redacted<String>) -> bool {
        *self == other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "http://user:s3cret@host:8983/solr";

    #[test]
    fn text_is_redacted_when_made() {
        let t = Redacted::from(format!("at {URL}/x"));
        assert_eq!(t, "at http://host:8983/solr/x");
        assert_eq!(Redacted::from("plain"), "plain");
        assert_eq!(String::from(t), "at http://host:8983/solr/x");
    }

    #[test]
    fn a_solr_body_is_redacted_in_msg_and_metadata() {
        let body = Redacted::from(SolrErrorBody {
            msg: format!("Error from server at {URL}"),
            code: 500,
            metadata: Some(serde_json::json!([URL, {URL: [URL]}])),
            qtime_ms: Some(3),
        });
        assert_eq!(body.msg, "Error from server at http://host:8983/solr");
        assert_eq!(body.code, 500);
        let shown = format!("{body:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!(shown.matches("http://host:8983/solr").count(), 4, "{shown}");
    }
}
