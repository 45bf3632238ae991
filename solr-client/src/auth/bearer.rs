//! [`Bearer`]: a static bearer token (`Authorization: Bearer <token>`).

use http::HeaderValue;

use super::AuthProvider;
use crate::error::{Error, Result};
use crate::wire::BoxFuture;

/// A static bearer token, sent as `Authorization: Bearer <token>` with every attempt. A 401
/// answer is final for it (it cannot change): [`Error::Unauthorized`]. For a token that
/// expires, use [`super::Refreshing`]. Debug output never shows the token.
#[derive(Clone)]
pub struct Bearer {
    value: HeaderValue,
}

impl Bearer {
    /// A bearer token. [`Error::Config`] (without the token) when it is empty or holds
    /// characters an HTTP header cannot carry.
    pub fn new(token: impl AsRef<str>) -> Result<Self> {
        Ok(Bearer {
            value: bearer_value(token.as_ref())?,
        })
    }
}

/// `Bearer <token>` as a header value marked sensitive; [`Error::Config`] (never showing the
/// token) when it is empty or not a valid header value.
pub(crate) fn bearer_value(token: &str) -> Result<HeaderValue> {
    if token.trim().is_empty() {
        return Err(Error::config("the bearer token is empty"));
    }
    let mut v = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
        Error::config(
            "the bearer token holds characters an HTTP header cannot carry (token not shown)",
        )
    })?;
    v.set_sensitive(true);
    Ok(v)
}

impl AuthProvider for Bearer {
    fn authorization(&self) -> BoxFuture<'_, Result<Option<HeaderValue>>> {
        let v = self.value.clone();
        Box::pin(async move { Ok(Some(v)) })
    }

    fn cached(&self) -> Option<HeaderValue> {
        Some(self.value.clone())
    }

    fn scheme(&self) -> &'static str {
        "Bearer"
    }
}

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bearer").field("token", &"***").finish()
    }
}
