//! A proxy for the built-in transports: an HTTP proxy (`http://` nodes asked for through it
//! in absolute form, `https://` nodes through a `CONNECT` tunnel with TLS inside) or a
//! SOCKS5 proxy (`socks5://`, `socks5h://`: every node through a SOCKS5 tunnel).
//!
//! Which node goes through which proxy is hyper-util's [`Matcher`]: curl's rules for
//! `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY`. Credentials come from the
//! proxy URL's user info (percent-decoded) or from [`Proxy::credentials`]; they reach
//! neither a log, an error message nor Debug output (the URL shows as `user:***@`).

use std::sync::Arc;

use http::HeaderValue;
use hyper_util::client::proxy::matcher::{Intercept, Matcher};
use url::Url;

use crate::auth::Credentials;
use crate::error::{Error, Result};
use crate::transport::connect::no_proxy::NoProxy;

/// Where requests go when a proxy is configured: a proxy per node scheme, its credentials
/// and the hosts reached directly. Debug output never shows the password.
#[derive(Clone)]
pub struct Proxy {
    /// The proxy URL for `http://` nodes as given (user info included), or empty.
    http: String,
    /// The proxy URL for `https://` nodes as given, or empty.
    https: String,
    no_proxy: NoProxy,
    credentials: Option<Credentials>,
    matcher: Arc<Matcher>,
}

/// The kind of a proxy, from its URL's scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HopKind {
    /// `http://`: absolute form for `http://` nodes, `CONNECT` for the others.
    Http,
    /// `socks5://` (`remote_dns` false: the node's name is resolved here) or `socks5h://`
    /// (the proxy resolves it).
    Socks5 {
        /// Whether the proxy resolves the node's name.
        remote_dns: bool,
    },
}

/// The proxy one node is reached through, with the credentials to give it.
#[derive(Clone)]
pub(crate) struct Hop {
    /// `scheme://host:port/`, without user info.
    pub url: Url,
    pub kind: HopKind,
    /// The proxy's host as the resolver takes it (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    /// `Proxy-Authorization` for an HTTP proxy.
    pub authorization: Option<HeaderValue>,
    /// User and password (RFC 1929) for a SOCKS5 proxy.
    pub socks_auth: Option<(String, String)>,
}

impl Hop {
    /// `scheme://host:port` of the proxy, for messages.
    pub fn label(&self) -> String {
        label(&self.url)
    }

    /// Whether credentials are given to this proxy.
    pub fn credentials_sent(&self) -> bool {
        self.authorization.is_some() || self.socks_auth.is_some()
    }
}

impl Proxy {
    /// One proxy for `http://` and `https://` nodes alike: `http://host:port` (an HTTP
    /// proxy; a URL without a scheme is taken as one), `socks5://host:port` (SOCKS5, node
    /// names resolved here) or `socks5h://host:port` (SOCKS5, names resolved by the proxy).
    /// User info in the URL (`http://user:pass@host:3128`, percent-encoded) is the proxy's
    /// credentials. An `https://` or other proxy URL is an [`Error::Config`] that never
    /// shows the password.
    pub fn new(url: &str) -> Result<Self> {
        let url = proxy_url(url)?;
        Ok(Self::build(url.clone(), url, NoProxy::default()))
    }

    /// The proxy the environment names, opt-in: read as hyper-util's `Matcher::from_env`
    /// reads it (curl's variables): `HTTP_PROXY` / `http_proxy` for `http://` nodes,
    /// `HTTPS_PROXY` / `https_proxy` for `https://` nodes, `ALL_PROXY` / `all_proxy` for
    /// either when its own is unset, `NO_PROXY` / `no_proxy` for the hosts reached directly
    /// (the first set name of each pair counts). None when `REQUEST_METHOD` is set (a CGI
    /// request can set the `Proxy` header) or no proxy variable is set. A value the matcher
    /// cannot use is an [`Error::Config`], not skipped.
    pub fn from_env() -> Result<Option<Self>> {
        Self::from_env_vars(|name| std::env::var(name).ok())
    }

    /// [`Self::from_env`] over any variable source (a map, a closure): the process
    /// environment is global, this is not.
    pub fn from_env_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>> {
        if var("REQUEST_METHOD").is_some() {
            return Ok(None);
        }
        let first = |names: [&str; 2]| {
            names
                .iter()
                .find_map(|n| var(n))
                .map(|v| v.trim().to_string())
                .unwrap_or_default()
        };
        let checked = |v: String| if v.is_empty() { Ok(v) } else { proxy_url(&v) };
        let all = checked(first(["ALL_PROXY", "all_proxy"]))?;
        let http = checked(first(["HTTP_PROXY", "http_proxy"]))?;
        let https = checked(first(["HTTPS_PROXY", "https_proxy"]))?;
        let or_all = |v: String| if v.is_empty() { all.clone() } else { v };
        let (http, https) = (or_all(http), or_all(https));
        if http.is_empty() && https.is_empty() {
            return Ok(None);
        }
        let no_proxy = NoProxy::parse(&first(["NO_PROXY", "no_proxy"]));
        Ok(Some(Self::build(http, https, no_proxy)))
    }

    fn build(http: String, https: String, no_proxy: NoProxy) -> Self {
        let matcher = Matcher::builder()
            .http(http.as_str())
            .https(https.as_str())
            .no(no_proxy.as_str())
            .build();
        Proxy {
            http,
            https,
            no_proxy,
            credentials: None,
            matcher: Arc::new(matcher),
        }
    }

    /// Credentials for the proxy, in place of the URL's user info: `Proxy-Authorization:
    /// Basic` on every `CONNECT` and every request forwarded in absolute form to an HTTP
    /// proxy, the username/password method (RFC 1929) with a SOCKS5 proxy. Default: the
    /// URL's user info, else none.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Hosts reached directly ([`NoProxy`]); replaces the list `from_env` read. Default
    /// empty.
    pub fn no_proxy(self, list: NoProxy) -> Self {
        let credentials = self.credentials;
        Proxy {
            credentials,
            ..Self::build(self.http, self.https, list)
        }
    }

    /// The proxy URL for `node` (`scheme://host:port/`, without user info), or `None` when
    /// the node is reached directly (its scheme has no proxy, or its host is in the
    /// [`NoProxy`] list).
    pub fn for_node(&self, node: &Url) -> Option<Url> {
        self.hop(node).map(|h| h.url)
    }

    /// The proxy for `node` with its credentials, or `None` when it is reached directly.
    pub(crate) fn hop(&self, node: &Url) -> Option<Hop> {
        let intercept = self.intercept(node)?;
        let url = Url::parse(&intercept.uri().to_string()).ok()?;
        let kind = match url.scheme() {
            "socks5" => HopKind::Socks5 { remote_dns: false },
            "socks5h" => HopKind::Socks5 { remote_dns: true },
            _ => HopKind::Http,
        };
        let host = url.host_str()?;
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let port = url.port_or_known_default().unwrap_or(match kind {
            HopKind::Http => 80,
            HopKind::Socks5 { .. } => 1080,
        });
        let (authorization, socks_auth) = match (&self.credentials, kind) {
            (Some(c), HopKind::Http) => (Some(c.header()), None),
            (Some(c), HopKind::Socks5 { .. }) => (None, Some(c.parts())),
            (None, HopKind::Http) => (intercept.basic_auth().cloned(), None),
            (None, HopKind::Socks5 { .. }) => (
                None,
                intercept
                    .raw_auth()
                    .map(|(u, p)| (u.to_string(), p.to_string())),
            ),
        };
        Some(Hop {
            url,
            kind,
            host,
            port,
            authorization,
            socks_auth,
        })
    }

    /// What the matcher says for `node`.
    fn intercept(&self, node: &Url) -> Option<Intercept> {
        let uri: http::Uri = format!("{}://{}/", node.scheme(), node.host_str()?)
            .parse()
            .ok()?;
        self.matcher.intercept(&uri)
    }
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("http", &masked(&self.http))
            .field("https", &masked(&self.https))
            .field("no_proxy", &self.no_proxy)
            .field("credentials", &self.credentials)
            .finish()
    }
}

/// Rewrites an origin-form HTTP/1.1 request into the absolute form a forwarding proxy
/// takes (`GET http://node:8983/solr/... HTTP/1.1`), with the proxy's credentials.
pub(crate) fn absolute_form<B>(
    http_req: &mut http::Request<B>,
    wire: &crate::transport::WireRequest,
    proxy: &Proxy,
) -> Result<()> {
    *http_req.uri_mut() =
        wire.url().as_str().parse().map_err(|e| {
            Error::invalid_input(format!("cannot build the proxy request target: {e}"))
        })?;
    if let Some(auth) = proxy.hop(&wire.node).and_then(|h| h.authorization) {
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
    wire: &crate::transport::WireRequest,
    proxy: &Proxy,
) -> Result<()> {
    if status != http::StatusCode::PROXY_AUTHENTICATION_REQUIRED {
        return Ok(());
    }
    let hop = proxy.hop(&wire.node);
    Err(Error::ProxyAuth {
        node: node.into(),
        proxy: hop.as_ref().map(Hop::label).unwrap_or_default().into(),
        credentials_sent: hop.is_some_and(|h| h.credentials_sent()),
    })
}

/// The same proxy for reqwest: reqwest asks this crate's matcher per URL (so the
/// `NO_PROXY` rules are the same) and gets the proxy URL with its credentials as user info,
/// which reqwest turns into `Proxy-Authorization` (HTTP) or RFC 1929 (SOCKS5).
#[cfg(feature = "reqwest")]
pub(crate) fn for_reqwest(proxy: &Proxy) -> reqwest::Proxy {
    let ours = proxy.clone();
    reqwest::Proxy::custom(move |node| {
        let mut url = ours.hop(node)?.url;
        match &ours.credentials {
            Some(c) => {
                let (user, password) = c.parts();
                url.set_username(&user).ok()?;
                url.set_password(Some(&password)).ok()?;
                Some(url)
            }
            None if node.scheme() == "https" => Url::parse(&ours.https).ok(),
            None => Url::parse(&ours.http).ok(),
        }
    })
}

/// A proxy URL checked (`http`, added when missing, `socks5` or `socks5h`; a host; a URL
/// the matcher understands), returned as given with its scheme. Errors never show the
/// password.
fn proxy_url(raw: &str) -> Result<String> {
    let raw = raw.trim();
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("http://{raw}")
    };
    let shown = masked(&with_scheme);
    let url = Url::parse(&with_scheme)
        .map_err(|e| Error::config(format!("bad proxy URL {shown:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "socks5" | "socks5h") {
        return Err(Error::config(format!(
            "proxy URL {shown}: only http://, socks5:// and socks5h:// proxies are supported \
             (https nodes are reached through them with a tunnel)"
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(Error::config(format!("proxy URL {shown} names no host")));
    }
    let probe = Matcher::builder().all(with_scheme.as_str()).build();
    if probe
        .intercept(&http::Uri::from_static("http://solr.invalid/"))
        .is_none()
    {
        return Err(Error::config(format!(
            "proxy URL {shown}: not understood as a proxy URL"
        )));
    }
    Ok(with_scheme)
}

/// A proxy URL as messages and Debug show it: the password replaced by `***`
/// (`http://user:***@host:3128`); text that is no URL loses everything up to its last `@`.
pub(crate) fn masked(raw: &str) -> String {
    match Url::parse(raw) {
        Ok(mut url) => {
            if url.password().is_some() {
                let _ = url.set_password(Some("***"));
            }
            url.as_str().trim_end_matches('/').to_string()
        }
        Err(_) => crate::redact::redact(raw).into_owned(),
    }
}

/// `scheme://host:port` of a proxy, for messages.
pub(crate) fn label(url: &Url) -> String {
    let default = if url.scheme() == "http" { 80 } else { 1080 };
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(default)
    )
}

#[cfg(test)]
#[path = "proxy_tests.rs"]
mod tests;
