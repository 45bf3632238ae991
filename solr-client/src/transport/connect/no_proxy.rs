//! The hosts a [`crate::Proxy`] is not used for (`NO_PROXY`), matched by hyper-util's
//! proxy [`Matcher`](hyper_util::client::proxy::matcher::Matcher).

use hyper_util::client::proxy::matcher::Matcher;

/// A list of hosts reached directly, not through the proxy, in the `NO_PROXY` syntax of
/// curl as hyper-util's matcher reads it: entries separated by commas (spaces around them
/// ignored); `*` alone matches every host; `example.com` and `.example.com` each match
/// `example.com` and every name under it; an IP address matches itself and `10.0.0.0/8`
/// (or an IPv6 prefix) every address in it. Names compare case-insensitively. An entry
/// with a `:port` matches no host. Default: empty (every host goes through the proxy).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoProxy {
    list: String,
}

impl NoProxy {
    /// A `NO_PROXY` list. Nothing in it is an error (an entry that is neither an address
    /// nor a network is taken as a name).
    pub fn parse(list: &str) -> Self {
        NoProxy {
            list: list.trim().to_string(),
        }
    }

    /// Whether no entry was given.
    pub fn is_empty(&self) -> bool {
        self.list.split(',').all(|e| e.trim().is_empty())
    }

    /// Whether `host` (a URL's host: a name, an IPv4 address or a bracketed IPv6 address)
    /// is reached directly.
    pub fn matches(&self, host: &str) -> bool {
        let Ok(uri) = format!("http://{host}/").parse::<http::Uri>() else {
            return false;
        };
        let matcher = Matcher::builder()
            .http("http://proxy.invalid:1")
            .no(self.list.as_str())
            .build();
        matcher.intercept(&uri).is_none()
    }

    /// The list as given (for the matcher's builder).
    pub(crate) fn as_str(&self) -> &str {
        &self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_suffixes_addresses_and_networks() {
        let np = NoProxy::parse("localhost, .example.com,corp.test, 10.0.0.0/8,::1,192.168.1.5");
        for direct in [
            "localhost",
            "LOCALHOST",
            "example.com",
            "solr.example.com",
            "a.corp.test",
            "10.2.3.4",
            "[::1]",
            "192.168.1.5",
        ] {
            assert!(np.matches(direct), "{direct} is reached directly");
        }
        for proxied in [
            "badexample.com",
            "example.org",
            "11.0.0.1",
            "[::2]",
            "192.168.1.6",
        ] {
            assert!(!np.matches(proxied), "{proxied} goes through the proxy");
        }
    }

    #[test]
    fn star_matches_all_and_empty_matches_none() {
        assert!(NoProxy::parse("*").matches("anything.test"));
        let empty = NoProxy::parse(" , ");
        assert!(empty.is_empty());
        assert!(!empty.matches("localhost"));
    }
}
