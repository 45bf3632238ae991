//! The same fault gives the same typed error on every transport (fresh, pooled, http2,
//! reqwest), every time, against real servers:
//! - a client certificate refused by a real TLS terminator (HAProxy, `verify required`),
//!   under TLS 1.3 (the alert comes after the client's side of the handshake, a race with
//!   the request's write) and TLS 1.2 (it ends the handshake): 30 tries each, 30 typed;
//! - a real proxy (squid, basic auth) that wants credentials, to `CONNECT` and to a
//!   forwarded request, and one that refuses `CONNECT`: 30 tries each, 30 typed;
//! - a real Solr 503 that stays 503 (a shard without a replica): Solr's message is kept;
//! - a plain HTTP/1.1 server behind an `http2` client: the hint says it does not speak h2c.
//!
//! The certificate and proxy tests run on a multi-threaded runtime, as applications do:
//! there a connection's task runs beside the request and may meet the server's alert
//! before the request is dispatched (on one thread the request is always queued first).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use solr_client::transport::{Retry, RetryPolicy, Timeouts, TlsVersion};
use solr_client::{
    ClientCertProblem, Credentials, Error, Identity, Proxy, Select, SolrClient, TlsOptions,
    TransportKind,
};

use crate::support;
use crate::support::haproxy::Haproxy;
use crate::support::squid::Squid;

/// Tries per transport and fault.
const TRIES: usize = 30;

/// The folder of the TLS material `local-solr/solr.sh setup` made.
fn tls_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../local-solr/run/tls")
}

fn identity(name: &str) -> Identity {
    let dir = tls_dir();
    Identity::from_pem_files(
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    )
    .expect("client certificate loads")
}

/// A client of `url` on `kind` trusting the local CA, with `id` when given.
fn client(url: &str, kind: TransportKind, id: Option<&str>, proxy: Option<Proxy>) -> SolrClient {
    let tls = TlsOptions::new()
        .version(TlsVersion::Any)
        .add_ca_pem_file(tls_dir().join("ca.pem"))
        .expect("CA readable");
    // A short read-idle limit: an HTTP/2 stream was seen waiting on a connection the
    // alert had closed until this limit (then typed by the noted alert).
    let mut b = SolrClient::builder(url)
        .collection("bench")
        .transport(kind)
        .timeouts(Timeouts::default().read_idle(Duration::from_secs(5)))
        .tls(tls);
    if let Some(id) = id {
        b = b.client_identity(identity(id));
    }
    if let Some(p) = proxy {
        b = b.proxy(p);
    }
    b.build().expect("client builds")
}

/// Pings `c` `TRIES` times, expecting each to fail; returns how many errors `typed`
/// accepts, and the others.
async fn tries(c: &SolrClient, typed: impl Fn(&Error) -> bool) -> (usize, Vec<String>) {
    let (mut ok, mut other) = (0, Vec::new());
    for _ in 0..TRIES {
        match c.ping().await {
            Err(e) if typed(&e) => ok += 1,
            Err(e) => other.push(format!("{e:?}")),
            Ok(p) => other.push(format!("answered: {}", p.status)),
        }
    }
    (ok, other)
}

fn refused(e: &Error) -> bool {
    matches!(
        e,
        Error::ClientCertificate { problem: ClientCertProblem::Refused { alert }, .. }
            if ["UnknownCA", "BadCertificate", "CertificateUnknown", "DecryptError"]
                .contains(&alert.as_str())
    )
}

fn not_configured(e: &Error) -> bool {
    matches!(
        e,
        Error::ClientCertificate {
            problem: ClientCertProblem::NotConfigured { .. },
            ..
        }
    ) && e.is_not_sent()
}

/// Through HAProxy with `verify required`: a certificate of a CA it does not trust and no
/// certificate are typed refusals on every transport, 30 of 30, under TLS 1.3 and 1.2; a
/// certificate of the local CA is let in (the path works). The plain HTTP/1.1 frontend
/// serves HTTP/1.1 transports and tells the `http2` client that it does not speak h2c.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_certificate_refusals_are_typed_alike_on_every_transport() {
    let _g = support::shared().await;
    let s = support::standalone();
    let name = "fault_parity::client_certificate_refusals";
    let Some(hx) = Haproxy::start(s.url(None).expect("url"), &tls_dir(), name) else {
        return;
    };
    for (port, version) in [(hx.tls13, "TLS 1.3"), (hx.tls12, "TLS 1.2")] {
        let url = hx.url(port);
        for kind in TransportKind::ALL {
            let p = client(&url, kind, Some("client-rsa"), None).ping().await;
            let p = p.unwrap_or_else(|e| panic!("{kind} {version} with the local CA's: {e}"));
            assert_eq!(p.status, "OK", "{kind} {version}");
            let c = client(&url, kind, Some("wrong-ca-client"), None);
            let (typed, other) = tries(&c, refused).await;
            assert_eq!(typed, TRIES, "{kind} {version} wrong CA: {other:?}");
            let c = client(&url, kind, None, None);
            let (typed, other) = tries(&c, not_configured).await;
            assert_eq!(typed, TRIES, "{kind} {version} no certificate: {other:?}");
        }
    }
    h2c_refused_with_a_right_hint(&hx).await;
}

/// The same against Solr's own Jetty requiring a client certificate (TLS 1.3, the
/// default): a certificate of another CA and none are typed refusals, 30 of 30 per
/// transport.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_certificate_refusals_by_jetty_are_typed_alike_on_every_transport() {
    let _g = support::shared().await;
    let s = support::standalone_mtls();
    let url = s.url(None).expect("url");
    for kind in TransportKind::ALL {
        let c = client(url, kind, Some("wrong-ca-client"), None);
        let (typed, other) = tries(&c, refused).await;
        assert_eq!(typed, TRIES, "{kind} wrong CA: {other:?}");
        let c = client(url, kind, None, None);
        let (typed, other) = tries(&c, not_configured).await;
        assert_eq!(typed, TRIES, "{kind} no certificate: {other:?}");
    }
}

/// An HTTP/1.1-only server (HAProxy's plain frontend, h2c off) answers the HTTP/2 preface
/// with an HTTP/1.1 400: the `http2` client says the server does not speak h2c (not that
/// it answered with TLS); the HTTP/1.1 transports get Solr's answer through it.
async fn h2c_refused_with_a_right_hint(hx: &Haproxy) {
    let url = hx.url(hx.plain);
    for kind in [
        TransportKind::Fresh,
        TransportKind::Pooled,
        TransportKind::Reqwest,
    ] {
        let p = client(&url, kind, None, None).ping().await;
        assert_eq!(p.unwrap_or_else(|e| panic!("{kind}: {e}")).status, "OK");
    }
    let c = client(&url, TransportKind::Http2, None, None);
    let (typed, other) = tries(&c, |e| {
        let m = e.to_string();
        e.kind() == "Io" && m.contains("does not speak h2c") && !m.contains("with TLS")
    })
    .await;
    assert_eq!(typed, TRIES, "http2 against HTTP/1.1: {other:?}");
}

fn port_of(url: &str) -> u16 {
    url::Url::parse(url)
        .expect("url")
        .port()
        .expect("explicit port")
}

fn proxy_auth(sent: bool) -> impl Fn(&Error) -> bool {
    move |e| {
        let shown = format!("{e} {e:?}");
        matches!(e, Error::ProxyAuth { credentials_sent, .. } if *credentials_sent == sent)
            && !shown.contains(WRONG)
            && !shown.contains(PASSWORD)
    }
}

const PASSWORD: &str = "pr0xy-s3cret";
const WRONG: &str = "not-1t";

/// Through squid with basic auth: no credentials and wrong ones are [`Error::ProxyAuth`]
/// (saying whether any were sent) on every transport, to `CONNECT` (an https node, and
/// the h2c tunnel of `http2`) and to a forwarded request (an http node on the HTTP/1.1
/// transports), 30 of 30, never showing a password; the right ones pass. A `CONNECT` to a
/// port squid does not allow is [`Error::ProxyRefused`] with its 403 on every transport.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_refusals_are_typed_alike_on_every_transport() {
    let _g = support::shared().await;
    let (plain, tls) = (support::standalone(), support::standalone_tls());
    let (plain, tls) = (plain.url(None).expect("url"), tls.url(None).expect("url"));
    let allowed = [port_of(plain), port_of(tls)];
    let name = "fault_parity::proxy_refusals";
    let Some(sq) = Squid::start(&allowed, "bench", PASSWORD, name) else {
        return;
    };
    let with = |password: Option<&str>| {
        let p = Proxy::new(&sq.url).expect("proxy");
        match password {
            Some(pw) => p.credentials(Credentials::basic("bench", pw)),
            None => p,
        }
    };
    for url in [tls, plain] {
        for kind in TransportKind::ALL {
            for (password, sent) in [(None, false), (Some(WRONG), true)] {
                let c = client(url, kind, None, Some(with(password)));
                let (typed, other) = tries(&c, proxy_auth(sent)).await;
                assert_eq!(typed, TRIES, "{kind} {url} sent {sent}: {other:?}");
            }
            let c = client(url, kind, None, Some(with(Some(PASSWORD))));
            let p = c
                .ping()
                .await
                .unwrap_or_else(|e| panic!("{kind} {url}: {e}"));
            assert_eq!(p.status, "OK", "{kind} {url}");
        }
    }
    let (_closed, port) = support::refused_port();
    let elsewhere = format!("https://127.0.0.1:{port}/solr");
    for kind in TransportKind::ALL {
        let c = client(&elsewhere, kind, None, Some(with(Some(PASSWORD))));
        let (typed, other) = tries(&c, |e| {
            matches!(e, Error::ProxyRefused { status: 403, .. }) && e.is_not_sent()
        })
        .await;
        assert_eq!(typed, TRIES, "{kind} CONNECT refused: {other:?}");
    }
}

/// Runs `curl` on a Collections API call of the cloud at `base`; asserts HTTP 200.
fn collections_api(base: &str, query: &str) {
    let out = Command::new("curl")
        .args(["-sS", "-o", "/dev/null", "-w", "%{http_code}"])
        .arg(format!("{base}/admin/collections?{query}"))
        .output()
        .expect("curl runs");
    let code = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        code,
        "200",
        "{query}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A real Solr 503 that stays 503: a collection whose `shard2` has no replica (made with
/// `createNodeSet=EMPTY`, then one replica added to `shard1`). Retried until the budget
/// runs out, on every transport, the error keeps Solr's message and code.
#[tokio::test]
async fn a_503_that_stays_503_keeps_solrs_message_on_every_transport() {
    let _g = support::shared().await;
    let s = support::cloud();
    let base = s.url(None).expect("url");
    let name = support::tag("no_replica");
    let create = format!("action=CREATE&name={name}&numShards=2&createNodeSet=EMPTY");
    collections_api(base, &create);
    collections_api(
        base,
        &format!("action=ADDREPLICA&collection={name}&shard=shard1"),
    );
    // The node learns of the new collection from ZooKeeper: wait until it answers 503.
    let plain = SolrClient::builder(base)
        .collection(&name)
        .build()
        .expect("client");
    let until = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let status = plain.select(&Select::new("*:*").rows(0)).await.err();
        if status.as_ref().and_then(Error::status) == Some(503) {
            break;
        }
        assert!(std::time::Instant::now() < until, "never 503: {status:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let policy = RetryPolicy::default()
        .max_attempts(3)
        .base_backoff(Duration::from_millis(10));
    for kind in TransportKind::ALL {
        let inner = kind
            .build(&TlsOptions::default(), false)
            .expect("transport");
        let c = SolrClient::builder(base)
            .collection(&name)
            .custom_transport(std::sync::Arc::new(Retry::new(inner, policy)))
            .build()
            .expect("client builds");
        let err = c
            .select(&Select::new("*:*").rows(0))
            .await
            .expect_err("503");
        let Error::RetriesExhausted {
            status: 503,
            attempts: 3,
            solr: Some(body),
            ..
        } = &err
        else {
            panic!("{kind}: {err:?}");
        };
        assert!(body.msg.contains("hosting shard: shard2"), "{kind}: {err}");
        assert_eq!(body.code, 503, "{kind}");
        assert!(
            err.to_string().contains("hosting shard: shard2"),
            "{kind}: {err}"
        );
    }
    collections_api(base, &format!("action=DELETE&name={name}"));
}
