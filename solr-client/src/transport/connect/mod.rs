//! Getting a connection: the connector, TLS and client identities, proxies (HTTP
//! CONNECT tunnels, SOCKS5) and the no-proxy list.

pub(crate) mod client_auth;
pub(crate) mod connector;
pub(crate) mod identity;
pub(crate) mod no_proxy;
pub(crate) mod proxy;
pub(crate) mod socks;
pub(crate) mod tls;
#[cfg(feature = "rustls-base")]
pub(crate) mod tls_provider;
pub(crate) mod tunnel;
