//! An HTTP proxy for the built-in transports: `http://` nodes are asked for through it in
//! absolute form, `https://` nodes through a `CONNECT` tunnel with TLS inside.
//!
//! Its credentials come from [`Proxy::credentials`], never from the URL (a URL with user
//! info is refused), so they reach neither a log nor an error message.

use http::HeaderValue;
use url::Url;

use super::no_proxy::NoProxy;
use crate::auth::Credentials;
use crate::error::{Error, Result};

/// Where requests go when a proxy is configured: an HTTP proxy per node scheme, its
/// credentials and the hosts reached directly. Debug output never shows the password.
#[derive(Debug, Clone)]
pub struct Proxy {
    http: Option<Url>,
    https: Option<Url>,
    credentials: Option<Credentials>,
    no_proxy: NoProxy,
}

impl Proxy {
    /// One HTTP proxy (`http://host:port`) for `http://` and `https://` nodes alike. A
    /// URL without a scheme is taken as `http://`. An `https://` proxy URL, or one with
    /// user info, is an [`Error::Config`] (credentials: [`Self::credentials`]).
    pub fn new(url: &str) -> Result<Self> {
        let url = proxy_url(url)?;
        Ok(Proxy {
            http: Some(url.clone()),
            https: Some(url),
            credentials: None,
            no_proxy: NoProxy::default(),
        })
    }

    /// The proxy the environment names, opt-in: `http_proxy` / `HTTP_PROXY` for `http://`
    /// nodes, `https_proxy` / `HTTPS_PROXY` for `https://` nodes, `no_proxy` / `NO_PROXY`
    /// for the hosts reached directly (lower case first, as curl reads them). `HTTP_PROXY`
    /// is ignored when `REQUEST_METHOD` is set (a CGI request can set that header). `None`
    /// when neither proxy variable is set.
    pub fn from_env() -> Result<Option<Self>> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`Self::from_env`] over any variable source.
    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>> {
        let pick = |lower: &str, upper: &str, upper_ok: bool| {
            var(lower)
                .or_else(|| var(upper).filter(|_| upper_ok))
                .filter(|v| !v.trim().is_empty())
        };
        let cgi = var("REQUEST_METHOD").is_some();
        let http = pick("http_proxy", "HTTP_PROXY", !cgi);
        let https = pick("https_proxy", "HTTPS_PROXY", true);
        if http.is_none() && https.is_none() {
            return Ok(None);
        }
        let no_proxy = pick("no_proxy", "NO_PROXY", true).unwrap_or_default();
        Ok(Some(Proxy {
            http: http.as_deref().map(proxy_url).transpose()?,
            https: https.as_deref().map(proxy_url).transpose()?,
            credentials: None,
            no_proxy: NoProxy::parse(&no_proxy),
        }))
    }

    /// Basic credentials for the proxy (`Proxy-Authorization`), sent on every `CONNECT` and
    /// every request forwarded in absolute form. Default none.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Hosts reached directly ([`NoProxy`]); replaces the list `from_env` read. Default
    /// empty.
    pub fn no_proxy(mut self, list: NoProxy) -> Self {
        self.no_proxy = list;
        self
    }

    /// The proxy URL for `node`, or `None` when the node is reached directly (its scheme
    /// has no proxy, or its host is in the [`NoProxy`] list).
    pub fn for_node(&self, node: &Url) -> Option<&Url> {
        let proxy = match node.scheme() {
            "https" => self.https.as_ref(),
            _ => self.http.as_ref(),
        }?;
        let host = node.host_str()?;
        (!self.no_proxy.matches(host)).then_some(proxy)
    }

    /// The `Proxy-Authorization` value, when credentials are configured.
    pub(crate) fn authorization(&self) -> Option<HeaderValue> {
        self.credentials.as_ref().map(Credentials::header)
    }
}

/// Rewrites an origin-form HTTP/1.1 request into the absolute form a forwarding proxy
/// takes (`GET http://node:8983/solr/... HTTP/1.1`), with the proxy's credentials.
pub(crate) fn absolute_form<B>(
    http_req: &mut http::Request<B>,
    wire: &super::WireRequest,
    proxy: &Proxy,
) -> Result<()> {
    *http_req.uri_mut() =
        wire.url().as_str().parse().map_err(|e| {
            Error::InvalidInput(format!("cannot build the proxy request target: {e}"))
        })?;
    if let Some(auth) = proxy.authorization() {
        http_req
            .headers_mut()
            .insert(http::header::PROXY_AUTHORIZATION, auth);
    }
    Ok(())
}

/// [`Error::ProxyAuth`] when the forwarding proxy answered 407 itself.
pub(crate) fn forwarded_status(
    status: http::StatusCode,
    node: &str,
    wire: &super::WireRequest,
    proxy: &Proxy,
) -> Result<()> {
    if status != http::StatusCode::PROXY_AUTHENTICATION_REQUIRED {
        return Ok(());
    }
    Err(Error::ProxyAuth {
        node: node.to_string(),
        proxy: proxy.for_node(&wire.node).map(label).unwrap_or_default(),
        credentials_sent: proxy.credentials.is_some(),
    })
}

/// The same proxy for reqwest: reqwest asks [`Proxy::for_node`] per URL, so the
/// [`NoProxy`] rules are this crate's, and the credentials are the same header.
#[cfg(feature = "reqwest")]
pub(crate) fn for_reqwest(proxy: &Proxy) -> reqwest::Proxy {
    let ours = proxy.clone();
    let mut p = reqwest::Proxy::custom(move |url| ours.for_node(url).cloned());
    if let Some(auth) = proxy.authorization() {
        p = p.custom_http_auth(auth);
    }
    p
}

/// A proxy URL checked: scheme http (added when missing), a host, no user info.
fn proxy_url(raw: &str) -> Result<Url> {
    let raw = raw.trim();
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("http://{raw}")
    };
    let url = Url::parse(&with_scheme).map_err(|e| {
        Error::Config(format!(
            "bad proxy URL {:?}: {e}",
            crate::redact::redact(&with_scheme)
        ))
    })?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::Config(
            "the proxy URL carries credentials: give them with Proxy::credentials instead".into(),
        ));
    }
    if url.scheme() != "http" {
        return Err(Error::Config(format!(
            "proxy URL {url}: only http:// proxies are supported (https nodes are reached \
             through them with CONNECT)"
        )));
    }
    if url.host_str().is_none() {
        return Err(Error::Config(format!("proxy URL {url} names no host")));
    }
    Ok(url)
}

/// `scheme://host:port` of a proxy, for messages.
pub(crate) fn label(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(80)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            set.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn env_picks_lower_case_first_and_honours_no_proxy() {
        let env = [
            ("HTTP_PROXY", "http://upper:1"),
            ("http_proxy", "lower:3128"),
            ("HTTPS_PROXY", "http://tunnel:8080"),
            ("NO_PROXY", "solr.internal"),
        ];
        let p = Proxy::from_vars(vars(&env)).unwrap().expect("configured");
        let http_node = Url::parse("http://solr.example:8983/solr").unwrap();
        let https_node = Url::parse("https://solr.example:8984/solr").unwrap();
        let direct = Url::parse("http://solr.internal:8983/solr").unwrap();
        assert_eq!(
            p.for_node(&http_node).unwrap().as_str(),
            "http://lower:3128/"
        );
        assert_eq!(
            p.for_node(&https_node).unwrap().as_str(),
            "http://tunnel:8080/"
        );
        assert_eq!(p.for_node(&direct), None);
    }

    #[test]
    fn cgi_ignores_upper_case_http_proxy_and_nothing_set_is_none() {
        let env = [("HTTP_PROXY", "http://evil:1"), ("REQUEST_METHOD", "GET")];
        assert!(Proxy::from_vars(vars(&env)).unwrap().is_none());
        assert!(Proxy::from_vars(vars(&[])).unwrap().is_none());
    }

    #[test]
    fn credentials_in_the_url_or_an_https_proxy_are_refused_without_echoing_them() {
        let err = Proxy::new("http://user:s3cret@proxy:3128").unwrap_err();
        assert_eq!(err.kind(), "Config");
        assert!(!err.to_string().contains("s3cret"), "{err}");
        assert!(!format!("{err:?}").contains("s3cret"));
        let err = Proxy::new("https://proxy:3128").unwrap_err();
        assert!(err.to_string().contains("only http://"), "{err}");
    }

    #[test]
    fn proxy_credentials_make_a_basic_header_and_stay_out_of_debug() {
        let p = Proxy::new("proxy:3128")
            .unwrap()
            .credentials(Credentials::basic("u", "p4ss"));
        let h = p.authorization().expect("header");
        assert_eq!(h.to_str().unwrap(), "Basic dTpwNHNz");
        assert!(h.is_sensitive());
        assert!(!format!("{p:?}").contains("p4ss"));
    }
}
