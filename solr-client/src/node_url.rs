//! [`NodeUrl`]: the URL of a node (or proxy) as an [`Error`](crate::Error) names it, without
//! user info from the moment it is made.

use std::borrow::{Borrow, Cow};
use std::fmt;

use crate::redact::{node_label, redact};

/// The base URL of a Solr node (or the URL of a proxy) that an [`Error`](crate::Error)
/// names, for example `http://solr1:8983/solr`.
///
/// The user info of the URL (`user:password@`) is removed when the value is made, by every
/// constructor (`From<&str>`, `From<String>`, `From<&url::Url>`): a `NodeUrl` never holds a
/// password, so its `Display` and `Debug` output cannot show one.
///
/// It reads like a string: [`as_str`](Self::as_str), `Deref<Target = str>`, and comparisons
/// with `str`, `&str` and `String`.
///
/// ```
/// use solr_client::NodeUrl;
/// let node = NodeUrl::from("http://solr:s3cret@solr1:8983/solr");
/// assert_eq!(node, "http://solr1:8983/solr");
/// assert_eq!(format!("{node:?}"), "\"http://solr1:8983/solr\"");
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeUrl(String);

impl NodeUrl {
    /// The URL as text, without user info.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The URL as an owned `String`, without user info.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl From<&str> for NodeUrl {
    fn from(url: &str) -> Self {
        NodeUrl(redact(url).into_owned())
    }
}

impl From<String> for NodeUrl {
    fn from(url: String) -> Self {
        match redact(&url) {
            Cow::Borrowed(_) => NodeUrl(url),
            Cow::Owned(shown) => NodeUrl(shown),
        }
    }
}

impl From<&String> for NodeUrl {
    fn from(url: &String) -> Self {
        NodeUrl::from(url.as_str())
    }
}

impl From<&url::Url> for NodeUrl {
    fn from(url: &url::Url) -> Self {
        NodeUrl(node_label(url))
    }
}

impl From<url::Url> for NodeUrl {
    fn from(url: url::Url) -> Self {
        NodeUrl::from(&url)
    }
}

impl From<NodeUrl> for String {
    fn from(url: NodeUrl) -> Self {
        url.0
    }
}

impl std::ops::Deref for NodeUrl {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for NodeUrl {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for NodeUrl {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for NodeUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for NodeUrl {
    /// As a string's: `"http://solr1:8983/solr"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl PartialEq<str> for NodeUrl {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for NodeUrl {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for NodeUrl {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<NodeUrl> for str {
    fn eq(&self, other: &NodeUrl) -> bool {
        self == other.0
    }
}

impl PartialEq<NodeUrl> for &str {
    fn eq(&self, other: &NodeUrl) -> bool {
        *self == other.0
    }
}

impl PartialEq<NodeUrl> for String {
    fn eq(&self, other: &NodeUrl) -> bool {
        *self == other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cret";

    #[test]
    fn every_constructor_drops_the_user_info() {
        let raw = "http://user:s3cret@host:8983/solr";
        let url = url::Url::parse(raw).expect("url");
        let all = [
            NodeUrl::from(raw),
            NodeUrl::from(raw.to_string()),
            NodeUrl::from(&raw.to_string()),
            NodeUrl::from(&url),
            NodeUrl::from(url.clone()),
        ];
        for node in &all {
            assert_eq!(node, "http://host:8983/solr");
            assert!(!node.as_str().contains(SECRET));
            assert!(!format!("{node} {node:?} {node:#?}").contains(SECRET));
        }
    }

    #[test]
    fn a_url_without_user_info_is_kept_as_given() {
        let node = NodeUrl::from("http://h:1/solr");
        assert_eq!(node.as_str(), "http://h:1/solr");
        assert_eq!("http://h:1/solr", node);
        assert_eq!(String::from(node.clone()), "http://h:1/solr");
        assert_eq!(format!("{node:?}"), "\"http://h:1/solr\"");
        assert!(node.ends_with("/solr"), "reads as a str");
        assert_eq!(NodeUrl::from("n"), "n");
    }
}
