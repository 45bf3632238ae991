//! Requests through a real SOCKS5 proxy (Debian's danted, started by `support::danted`):
//! every transport, `http://` and `https://` nodes (TLS inside the SOCKS tunnel), names
//! resolved by the proxy (`socks5h://`) or here (`socks5://`). danted's own log counts the
//! tunnels it opened, so pooling through the proxy is proven by the proxy. A proxy that
//! refuses the credentials (RFC 1929) or wants some is a typed error without the password.
//!
//! danted's username method checks the system's password database (PAM or `/etc/shadow`):
//! a test cannot add a system user, so the accepted-credentials case is not run here; the
//! refusal of wrong ones (and of none) is.

use solr_client::{Error, Proxy, Select, SolrClient, TransportKind};

use crate::proxy::{port_of, proxied_client};
use crate::support;
use crate::support::danted::{Danted, SocksMethod};
use solr_harness::local_solr::LocalSolr;

const QUERIES: usize = 5;
const DOCS: usize = 12;

fn socks_client(s: &LocalSolr, kind: TransportKind, proxy: &str) -> SolrClient {
    proxied_client(s, kind, Proxy::new(proxy).expect("proxy"))
}

/// danted's tunnel count once it reached `want` (it logs from its own processes), or what
/// it is after a second.
fn tunnels_settled(d: &Danted, port: u16, want: usize) -> usize {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        let n = d.tunnels_to(port);
        if n >= want || std::time::Instant::now() > deadline {
            return n;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `QUERIES` selects of the tagged documents through `c`: each finds exactly `DOCS` of them,
/// with their ids.
async fn select_through(c: &SolrClient, kind: TransportKind, tag: &str) {
    let want: std::collections::BTreeSet<String> =
        (0..DOCS).map(|i| format!("{tag}-{i}")).collect();
    for i in 0..QUERIES {
        let r = c
            .select(&Select::new(format!("tag_s:{tag}")).rows(100).fl("id"))
            .await
            .unwrap_or_else(|e| panic!("{kind} select {i} through SOCKS5: {e}"));
        assert_eq!(r.num_found(), DOCS as u64, "{kind}");
        let ids: std::collections::BTreeSet<String> = r
            .docs()
            .iter()
            .filter_map(|d| d["id"].as_str().map(str::to_string))
            .collect();
        assert_eq!(ids, want, "{kind}");
    }
}

/// Every transport through the proxy to each node: fresh opens one tunnel per request,
/// pooled, http2 and reqwest one for all; the proxy's count equals the transport's own.
/// The first request shows the tunnel phase (and, for https, TLS inside it).
async fn every_transport_through(s: &LocalSolr, d: &Danted, scheme: &str) {
    let tag = support::tag("socks");
    let indexer = socks_client(s, TransportKind::Pooled, &d.url(scheme, None));
    support::index_tagged(&indexer, &tag, DOCS).await;
    let port = port_of(s);
    for kind in TransportKind::ALL {
        let before = d.tunnels_to(port);
        let c = socks_client(s, kind, &d.url(scheme, None));
        let first = c.ping().await.unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(first.status, "OK");
        select_through(&c, kind, &tag).await;
        let want = match kind {
            TransportKind::Fresh => QUERIES + 1,
            _ => 1,
        };
        let tunnels = tunnels_settled(d, port, before + want) - before;
        assert_eq!(tunnels, want, "{scheme} {kind}: tunnels the proxy opened");
        let opened = c.transport().stats().connections_opened as usize;
        assert_eq!(
            opened, tunnels,
            "{kind}: the proxy's count and the transport's"
        );
        if kind != TransportKind::Reqwest {
            assert!(first.timing.tunnel.is_some(), "{kind}: tunnel timed");
            assert_eq!(first.timing.tls.is_some(), s.ca.is_some(), "{kind}: TLS");
        }
    }
}

#[tokio::test]
async fn http_nodes_through_socks5_every_transport_pooled_once() {
    let _g = support::shared().await;
    let Some(d) = Danted::start(SocksMethod::None) else {
        return;
    };
    let s = support::standalone();
    every_transport_through(s, &d, "socks5h").await;
    every_transport_through(s, &d, "socks5").await;
}

#[tokio::test]
async fn https_nodes_through_socks5_tls_inside_the_tunnel() {
    let _g = support::shared().await;
    let Some(d) = Danted::start(SocksMethod::None) else {
        return;
    };
    every_transport_through(support::standalone_tls(), &d, "socks5h").await;
}

/// The username method: wrong credentials and none are each a typed `ProxyAuth` (telling
/// whether credentials were sent) whose Display and Debug never show the password; danted
/// logs each refusal, and no tunnel was opened.
#[tokio::test]
async fn a_socks5_proxy_refusing_credentials_is_a_typed_error() {
    let _g = support::shared().await;
    let Some(d) = Danted::start(SocksMethod::Username) else {
        return;
    };
    const PASSWORD: &str = "s0cks-n0t-it";
    let s = support::standalone_tls();
    let refused_before = d.refusals().len();
    for kind in [
        TransportKind::Fresh,
        TransportKind::Pooled,
        TransportKind::Http2,
    ] {
        for (user, sent) in [(Some(("nobody", PASSWORD)), true), (None, false)] {
            let c = socks_client(s, kind, &d.url("socks5h", user));
            let err = c.ping().await.expect_err("refused");
            let shown = format!("{err} {err:?}");
            assert!(!shown.contains(PASSWORD), "{shown}");
            assert!(
                matches!(&err, Error::ProxyAuth { credentials_sent, .. } if *credentials_sent == sent),
                "{kind}: {err:?}"
            );
            assert!(err.is_not_sent(), "{kind}");
            assert!(
                err.to_string().contains(&format!("socks5h://{}", d.addr)),
                "{err}"
            );
        }
    }
    assert_eq!(d.tunnels(), 0, "no tunnel opened");
    let all = d.refusals_reaching(refused_before + 6);
    let refusals = &all[refused_before..];
    let wrong = refusals
        .iter()
        .filter(|r| r.contains("password authentication failed for user \"nobody\""))
        .count();
    let none = refusals
        .iter()
        .filter(|r| r.contains("no acceptable authentication method"))
        .count();
    assert_eq!((wrong, none), (3, 3), "{refusals:?}");
}
