//! Requests through a real HTTP proxy (Debian's tinyproxy, started by
//! `support::tinyproxy`): `https://` nodes through a `CONNECT` tunnel, `http://` nodes in
//! absolute form; the proxy's own log counts the connections it accepted, so keep-alive
//! reuse through the tunnel is proven by the proxy, not by the client. A proxy that
//! refuses `CONNECT`, or wants credentials, is a typed error on every transport (fresh, pooled,
//! http2, reqwest; credentials set apart or in the environment's proxy URL); `NO_PROXY` is
//! honoured.

use solr_client::{Credentials, Error, NoProxy, Proxy, SolrClient, TlsOptions, TransportKind};

use crate::support;
use crate::support::tinyproxy::{ProxyRules, TinyProxy};
use solr_harness::local_solr::LocalSolr;

const PINGS: usize = 5;

pub(crate) fn port_of(s: &LocalSolr) -> u16 {
    let uri: http::Uri = s.url(None).expect("url").parse().expect("uri");
    uri.port_u16().expect("port")
}

pub(crate) fn proxied_client(s: &LocalSolr, kind: TransportKind, proxy: Proxy) -> SolrClient {
    let mut tls = TlsOptions::new();
    if let Some(ca) = &s.ca {
        tls = tls.add_ca_pem_file(ca).expect("CA readable");
    }
    SolrClient::builder(s.url(None).expect("url"))
        .collection("bench")
        .transport(kind)
        .tls(tls)
        .proxy(proxy)
        .build()
        .expect("client builds")
}

/// `PINGS` pings through `proxy`; returns the connections the proxy accepted meanwhile.
async fn pings_through(tp: &TinyProxy, c: &SolrClient, kind: TransportKind) -> usize {
    let before = tp.accepted();
    for i in 0..PINGS {
        let p = c.ping().await;
        let p = p.unwrap_or_else(|e| panic!("{kind} ping {i} through the proxy: {e}"));
        assert_eq!(p.status, "OK");
    }
    tp.accepted() - before
}

/// https through the tunnel: fresh opens one tunnel per request, pooled and http2 reuse
/// one, and the proxy's count equals the transport's own. The first request shows the
/// tunnel phase, a reused connection none.
#[tokio::test]
async fn https_goes_through_a_connect_tunnel_and_the_pool_reuses_it() {
    let _g = support::shared().await;
    let s = support::standalone_tls();
    let rules = ProxyRules {
        connect_port: port_of(s),
        basic_auth: None,
    };
    let tp = TinyProxy::start(&rules);
    for kind in TransportKind::ALL {
        let c = proxied_client(s, kind, Proxy::new(&tp.url).expect("proxy"));
        let first = c.ping().await.unwrap_or_else(|e| panic!("{kind}: {e}"));
        let accepted = pings_through(&tp, &c, kind).await + 1;
        let opened = c.transport().stats().connections_opened as usize;
        assert_eq!(
            accepted, opened,
            "{kind}: the proxy's count and the transport's"
        );
        match kind {
            TransportKind::Fresh => assert_eq!(accepted, PINGS + 1, "fresh"),
            TransportKind::Pooled | TransportKind::Http2 => assert_eq!(accepted, 1, "{kind}"),
            _ => {}
        }
        if kind != TransportKind::Reqwest {
            assert!(first.timing.tunnel.is_some(), "{kind}: tunnel timed");
            assert!(first.timing.tls.is_some(), "{kind}: TLS inside the tunnel");
            let last = c.ping().await.expect("ping");
            assert_eq!(last.timing.tunnel.is_none(), kind != TransportKind::Fresh);
        }
    }
    let tunnels = tp.requests();
    let want = format!("CONNECT 127.0.0.1:{} HTTP/1.1", port_of(s));
    assert!(tunnels.iter().all(|r| *r == want), "{tunnels:?}");
}

/// http through the proxy: fresh and pooled send absolute-form requests (the proxy logs
/// `GET http://...`); tinyproxy closes each client connection after one request, so it
/// counts one connection per request for both. HTTP/2 without TLS goes through a tunnel.
#[tokio::test]
async fn http_is_forwarded_in_absolute_form() {
    let _g = support::shared().await;
    let s = support::standalone();
    let rules = ProxyRules {
        connect_port: port_of(s),
        basic_auth: None,
    };
    let tp = TinyProxy::start(&rules);
    let ping_url = format!("GET {}/bench/admin/ping", s.url(None).expect("url"));
    for kind in [TransportKind::Fresh, TransportKind::Pooled] {
        let c = proxied_client(s, kind, Proxy::new(&tp.url).expect("proxy"));
        let before = tp.requests().len();
        assert_eq!(pings_through(&tp, &c, kind).await, PINGS, "{kind}");
        let lines = &tp.requests()[before..];
        assert_eq!(lines.len(), PINGS, "{kind}: {lines:?}");
        assert!(
            lines.iter().all(|l| l.starts_with(&ping_url)),
            "{kind}: {lines:?}"
        );
    }
    let c = proxied_client(s, TransportKind::Http2, Proxy::new(&tp.url).expect("proxy"));
    assert_eq!(pings_through(&tp, &c, TransportKind::Http2).await, 1);
    let last = tp.requests().pop().expect("a request line");
    assert_eq!(last, format!("CONNECT 127.0.0.1:{} HTTP/1.1", port_of(s)));
}

/// A proxy that wants credentials: through a tunnel, without them or with wrong ones, a
/// typed error that never shows the password; with the right ones (given through the
/// credentials API), requests pass, tunnelled or forwarded. (tinyproxy 1.11 answers a
/// forwarded request without credentials with 407 or, at times, 401: a 401 the client
/// cannot tell from the node's own, so there a 401 is accepted as well.)
#[tokio::test]
async fn a_proxy_wanting_credentials_is_a_typed_error_until_given_them() {
    let _g = support::shared().await;
    const PASSWORD: &str = "pr0xy-s3cret";
    for s in [support::standalone_tls(), support::standalone()] {
        let rules = ProxyRules {
            connect_port: port_of(s),
            basic_auth: Some(("bench", PASSWORD)),
        };
        let tp = TinyProxy::start(&rules);
        let tunnelled = s.ca.is_some();
        for kind in TransportKind::ALL {
            for (password, sent) in [(None, false), (Some("not-it"), true)] {
                let mut proxy = Proxy::new(&tp.url).expect("proxy");
                if let Some(p) = password {
                    proxy = proxy.credentials(Credentials::basic("bench", p));
                }
                let err = proxied_client(s, kind, proxy)
                    .ping()
                    .await
                    .expect_err("refused");
                assert!(!format!("{err} {err:?}").contains("not-it"), "{err}");
                if tunnelled {
                    assert!(
                        matches!(&err, Error::ProxyAuth { credentials_sent, .. } if *credentials_sent == sent),
                        "{kind}: {err:?}"
                    );
                } else {
                    let proxy_auth = matches!(&err, Error::ProxyAuth { credentials_sent, .. } if *credentials_sent == sent);
                    assert!(proxy_auth || err.status() == Some(401), "{kind}: {err:?}");
                }
            }
            let right = Proxy::new(&tp.url)
                .expect("proxy")
                .credentials(Credentials::basic("bench", PASSWORD));
            let c = proxied_client(s, kind, right);
            assert_eq!(c.ping().await.expect("with credentials").status, "OK");
        }
    }
}

/// A proxy that refuses `CONNECT` to the node's port: a typed error with its status and
/// reason; nothing reached Solr.
#[tokio::test]
async fn a_proxy_refusing_connect_is_a_typed_error() {
    let _g = support::shared().await;
    let s = support::standalone_tls();
    let rules = ProxyRules {
        connect_port: port_of(s).wrapping_add(1),
        basic_auth: None,
    };
    let tp = TinyProxy::start(&rules);
    for kind in [
        TransportKind::Fresh,
        TransportKind::Pooled,
        TransportKind::Http2,
    ] {
        let c = proxied_client(s, kind, Proxy::new(&tp.url).expect("proxy"));
        let err = c.ping().await.expect_err("CONNECT refused");
        let Error::ProxyRefused { status, .. } = &err else {
            panic!("{kind}: {err:?}");
        };
        assert_eq!(*status, 403, "{kind}: {err}");
        assert!(err.is_not_sent(), "{kind}");
    }
}

/// NO_PROXY: a node the list names is reached directly, even when the proxy is down; the
/// list read from the environment's syntax.
#[tokio::test]
async fn no_proxy_hosts_are_reached_directly() {
    let _g = support::shared().await;
    let s = support::standalone();
    let (_dead, dead_port) = support::refused_port();
    let proxy = Proxy::new(&format!("http://127.0.0.1:{dead_port}"))
        .expect("proxy")
        .no_proxy(NoProxy::parse("localhost, 127.0.0.0/8"));
    for kind in TransportKind::ALL {
        let c = proxied_client(s, kind, proxy.clone());
        let p = c.ping().await.unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(p.status, "OK");
    }
    let through = Proxy::new(&format!("http://127.0.0.1:{dead_port}")).expect("proxy");
    let err = proxied_client(s, TransportKind::Pooled, through)
        .ping()
        .await
        .expect_err("the dead proxy is used without NO_PROXY");
    assert_eq!(err.kind(), "Connect", "{err}");
    assert!(err.to_string().contains("proxy http://127.0.0.1:"), "{err}");
}

/// The proxy from the environment with credentials in its URL (`HTTPS_PROXY` for the TLS
/// node, `HTTP_PROXY` for the plain one, read through `Proxy::from_env_vars`; the user name
/// percent-encoded, `b%65nch` for `bench`): sent as `Proxy-Authorization`, tunnelled or
/// forwarded, and the proxy read the request; without user info, or with a wrong password,
/// a typed error that never shows the password (a forwarded request's 401, as above).
#[tokio::test]
async fn env_proxy_user_info_is_sent_as_proxy_authorization() {
    let _g = support::shared().await;
    const PASSWORD: &str = "envPr0xyS3cret";
    for s in [support::standalone_tls(), support::standalone()] {
        let rules = ProxyRules {
            connect_port: port_of(s),
            basic_auth: Some(("bench", PASSWORD)),
        };
        let tp = TinyProxy::start(&rules);
        let host_port = tp.url.trim_start_matches("http://").to_string();
        let tunnelled = s.ca.is_some();
        let var = if tunnelled {
            "HTTPS_PROXY"
        } else {
            "HTTP_PROXY"
        };
        let from_env = |user_info: &str| {
            let value = format!("http://{user_info}{host_port}");
            Proxy::from_env_vars(|name| (name == var).then(|| value.clone()))
                .expect("a valid proxy URL")
                .expect("a proxy for this scheme")
        };
        for kind in TransportKind::ALL {
            let before = tp.requests().len();
            let c = proxied_client(s, kind, from_env(&format!("b%65nch:{PASSWORD}@")));
            assert_eq!(c.ping().await.expect("with env credentials").status, "OK");
            assert_eq!(tp.requests().len() - before, 1, "{kind}: through the proxy");
            for (user_info, sent) in [("bench:not-it@", true), ("", false)] {
                let err = proxied_client(s, kind, from_env(user_info))
                    .ping()
                    .await
                    .expect_err("refused");
                assert!(!format!("{err} {err:?}").contains("not-it"), "{err:?}");
                let proxy_auth = matches!(&err, Error::ProxyAuth { credentials_sent, .. } if *credentials_sent == sent);
                assert!(
                    proxy_auth || (!tunnelled && err.status() == Some(401)),
                    "{kind}: {err:?}"
                );
            }
        }
    }
}
