//! [`Credentials`]: HTTP Basic authentication (Solr's BasicAuthPlugin).

use http::HeaderValue;

use super::AuthProvider;
use crate::error::Result;
use crate::wire::BoxFuture;

/// HTTP basic credentials. Debug output never shows the password.
#[derive(Clone)]
pub struct Credentials {
    user: String,
    password: String,
}

/// The Basic provider under its scheme's name: the same type as [`Credentials`].
pub type Basic = Credentials;

impl Credentials {
    /// Basic auth credentials.
    pub fn basic(user: impl Into<String>, password: impl Into<String>) -> Self {
        Credentials {
            user: user.into(),
            password: password.into(),
        }
    }

    /// User and password, for a SOCKS5 proxy's username method (RFC 1929).
    pub(crate) fn parts(&self) -> (String, String) {
        (self.user.clone(), self.password.clone())
    }

    /// The `Authorization` value, marked sensitive.
    pub(crate) fn header(&self) -> HeaderValue {
        use std::fmt::Write;
        let raw = format!("{}:{}", self.user, self.password);
        let mut s = String::from("Basic ");
        // Minimal base64 (standard alphabet, padded).
        const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for chunk in raw.as_bytes().chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    let _ = s.write_char(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        let mut v = HeaderValue::from_str(&s).unwrap_or(HeaderValue::from_static(""));
        v.set_sensitive(true);
        v
    }
}

impl AuthProvider for Credentials {
    fn authorization(&self) -> BoxFuture<'_, Result<Option<HeaderValue>>> {
        let v = self.header();
        Box::pin(async move { Ok(Some(v)) })
    }

    fn cached(&self) -> Option<HeaderValue> {
        Some(self.header())
    }

    fn scheme(&self) -> &'static str {
        "Basic"
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("user", &self.user)
            .field("password", &"***")
            .finish()
    }
}
