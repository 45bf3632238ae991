//! Custom headers sent with every request of a client
//! ([`SolrClientBuilder::header`](crate::SolrClientBuilder::header)) or of a copy of it
//! ([`SolrClient::with_header`](crate::SolrClient::with_header)), some marked sensitive.

use http::header::{HeaderName, HeaderValue};
use http::HeaderMap;

use crate::error::{Error, Result};

/// Headers the client or the HTTP layer sets itself, refused as custom headers.
const RESERVED: [&str; 5] = [
    "authorization",
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
];

/// Headers whose values are always treated as secrets.
const ALWAYS_SENSITIVE: [&str; 3] = ["proxy-authorization", "cookie", "x-api-key"];

/// A custom header as given to the builder, checked by [`SolrClientBuilder::build`]. Its
/// `Debug` output shows a sensitive value as `***`.
///
/// [`SolrClientBuilder::build`]: crate::SolrClientBuilder::build
#[derive(Clone)]
pub(crate) struct CustomHeader {
    name: String,
    value: String,
    sensitive: bool,
}

impl CustomHeader {
    /// A header named `name` with `value`, a secret when `sensitive`.
    pub(crate) fn new(name: String, value: String, sensitive: bool) -> Self {
        CustomHeader {
            name,
            value,
            sensitive,
        }
    }

    /// True when the value is a secret: marked sensitive, or a header whose values always are.
    fn is_secret(&self) -> bool {
        self.sensitive || ALWAYS_SENSITIVE.contains(&self.name.to_ascii_lowercase().as_str())
    }

    /// Adds the header to `headers` (replacing one of the same name), or says why it cannot
    /// be sent ([`Error::Config`], naming the header, never showing its value).
    pub(crate) fn apply(&self, headers: &mut HeaderMap) -> Result<()> {
        let name = HeaderName::from_bytes(self.name.as_bytes()).map_err(|_| {
            Error::config(format!(
                "custom header name {:?} is not a valid HTTP header name",
                self.name
            ))
        })?;
        if RESERVED.contains(&name.as_str()) {
            return Err(Error::config(format!(
                "custom header {name} is set by the client itself: give credentials with \
                 .credentials(..) or .auth(..), not as a header"
            )));
        }
        let mut value = HeaderValue::from_str(&self.value).map_err(|_| {
            Error::config(format!(
                "the value of custom header {name} holds characters an HTTP header cannot \
                 carry (value not shown)"
            ))
        })?;
        value.set_sensitive(self.is_secret());
        headers.insert(name, value);
        Ok(())
    }
}

impl std::fmt::Debug for CustomHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: &dyn std::fmt::Debug = if self.is_secret() {
            &"***"
        } else {
            &self.value
        };
        f.debug_tuple("Header")
            .field(&self.name)
            .field(shown)
            .finish()
    }
}

/// The header map of `list`, in order (a later header replaces an earlier one of the same
/// name).
pub(crate) fn header_map(list: &[CustomHeader]) -> Result<HeaderMap> {
    let mut headers = HeaderMap::new();
    for h in list {
        h.apply(&mut headers)?;
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, value: &str, sensitive: bool) -> Result<HeaderMap> {
        header_map(&[CustomHeader::new(name.into(), value.into(), sensitive)])
    }

    #[test]
    fn reserved_and_invalid_headers_are_refused_without_their_value() {
        for name in ["Authorization", "host", "Content-Length"] {
            let err = one(name, "v4lue", false).expect_err("reserved");
            assert!(matches!(err, Error::Config(_)), "{err:?}");
        }
        let err = one("X-Key", "s3cret\n", true).expect_err("newline");
        assert!(!err.to_string().contains("s3cret"), "{err}");
        let err = one("bad name", "v", false).expect_err("space in name");
        assert!(err.to_string().contains("bad name"), "{err}");
    }

    #[test]
    fn secret_values_are_sensitive_and_hidden_in_debug() {
        let map = one("X-Api-Key", "k3y", false).expect("valid");
        assert!(
            map["x-api-key"].is_sensitive(),
            "X-Api-Key is always secret"
        );
        let map = one("X-Token", "t0k", true).expect("valid");
        assert!(map["x-token"].is_sensitive());
        assert!(!format!("{map:?}").contains("t0k"));
        let plain = CustomHeader::new("X-Tenant".into(), "acme".into(), false);
        let secret = CustomHeader::new("X-Token".into(), "t0k".into(), true);
        assert_eq!(format!("{plain:?}"), r#"Header("X-Tenant", "acme")"#);
        assert_eq!(format!("{secret:?}"), r#"Header("X-Token", "***")"#);
    }
}
