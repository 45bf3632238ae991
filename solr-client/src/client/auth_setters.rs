//! The authentication and header setters of [`SolrClientBuilder`] and [`SolrClient`].

use std::sync::Arc;

use super::{SolrClient, SolrClientBuilder};
use crate::auth::headers::CustomHeader;
use crate::auth::AuthProvider;
use crate::error::Result;

impl SolrClientBuilder {
    /// Where the `Authorization` header of every request comes from: [`crate::auth::Credentials`]
    /// (Basic), [`crate::auth::Bearer`] (a static token), [`crate::auth::Refreshing`] (a token an async
    /// callback fetches and renews) or any [`AuthProvider`]. Each attempt is signed when it
    /// is sent; see [`crate::auth`] for the rules after a 401. Default none (no
    /// `Authorization` header).
    pub fn auth(self, provider: impl AuthProvider + 'static) -> Self {
        self.auth_shared(Arc::new(provider))
    }

    /// Like [`Self::auth`], with a provider shared with other clients (one token cache for
    /// all of them).
    pub fn auth_shared(mut self, provider: Arc<dyn AuthProvider>) -> Self {
        self.auth = Some(provider);
        self
    }

    /// A header sent with every request (an API gateway's tenant or routing header, a
    /// trace id...); set again, the same name is replaced. Its value is shown in `Debug`
    /// output; use [`Self::secret_header`] for a secret. [`Self::build`] refuses an invalid
    /// name or value and the headers the client sets itself (`Authorization`: use
    /// [`Self::auth`]; `Host`, `Content-Length`, `Transfer-Encoding`, `Connection`) with
    /// [`crate::Error::Config`]. Default none.
    pub fn header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.custom_header(CustomHeader::new(name.into(), value.into(), false))
    }

    /// Like [`Self::header`], for a secret (an API key): the value is marked sensitive, so
    /// it is never shown in `Debug` output, errors, tracing or reports, and never indexed by
    /// HTTP/2 header compression. (`Proxy-Authorization`, `Cookie` and `X-Api-Key` are
    /// always treated so.)
    pub fn secret_header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.custom_header(CustomHeader::new(name.into(), value.into(), true))
    }

    fn custom_header(mut self, h: CustomHeader) -> Self {
        self.headers.push(h);
        self
    }
}

impl SolrClient {
    /// A copy of this client that also sends the header `name: value` (per-request
    /// headers: the copy shares the transport and its connections). Checked as
    /// [`SolrClientBuilder::header`] checks it: [`crate::Error::Config`] for a name or value
    /// that cannot be sent.
    pub fn with_header(&self, name: impl Into<String>, value: impl Into<String>) -> Result<Self> {
        self.with_custom_header(CustomHeader::new(name.into(), value.into(), false))
    }

    /// Like [`Self::with_header`], for a secret (see [`SolrClientBuilder::secret_header`]).
    pub fn with_secret_header(
        &self,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Result<Self> {
        self.with_custom_header(CustomHeader::new(name.into(), value.into(), true))
    }

    /// A copy of this client whose requests are signed by `provider` instead (see
    /// [`SolrClientBuilder::auth`]).
    pub fn with_auth(&self, provider: Arc<dyn AuthProvider>) -> Self {
        let mut c = self.clone();
        c.auth = Some(provider);
        c
    }

    fn with_custom_header(&self, h: CustomHeader) -> Result<Self> {
        let mut headers = http::HeaderMap::clone(&self.headers);
        h.apply(&mut headers)?;
        let mut c = self.clone();
        c.headers = Arc::new(headers);
        Ok(c)
    }
}
