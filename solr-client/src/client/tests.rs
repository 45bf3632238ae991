//! Unit tests of the client: the builder's checks, update parameters, secrets.

use super::*;
use crate::auth::Credentials;
use crate::error::Error;

const PASSWORD: &str = "s3cret-P4ss";
const TOKEN: &str = "c29scjpzM2NyZXQtUDRzcw==";
const URL: &str = "http://solr:s3cret-P4ss@solr.example:8983/solr";

#[test]
fn no_default_collection_build_fails_with_a_hint() {
    // A node URL without .collection(): refused, saying what to call.
    let err = SolrClient::builder("http://127.0.0.1:8983/solr")
        .build()
        .expect_err("no collection");
    let msg = err.to_string();
    assert!(matches!(err, Error::Config(_)), "{err:?}");
    assert!(msg.contains(".collection(\"name\")"), "{msg}");
    // A URL ending in the core is not split: refused too, naming the core it saw.
    let err = SolrClient::builder("http://127.0.0.1:8983/solr/mycore")
        .build()
        .expect_err("core in the URL, no collection");
    let msg = err.to_string();
    assert!(matches!(err, Error::Config(_)), "{err:?}");
    assert!(msg.contains(".collection(\"mycore\")"), "{msg}");
    for bad in ["", "a/b"] {
        let err = SolrClient::builder("http://127.0.0.1:8983/solr")
            .collection(bad)
            .build()
            .expect_err("bad name");
        assert!(matches!(err, Error::Config(_)), "{bad:?}: {err:?}");
    }
    // Named explicitly: every request goes under it.
    let c = SolrClient::builder("http://127.0.0.1:8983/solr")
        .collection("mycore")
        .build()
        .expect("client");
    assert_eq!(c.collection(), "mycore");
    let req = c.wire(http::Method::GET, "select", Vec::new(), RequestKind::Read);
    assert_eq!(req.path, "mycore/select");
}

#[test]
fn update_params_go_on_every_update_and_the_clients_own_are_refused() {
    let b = || SolrClient::builder("http://127.0.0.1:8983/solr").collection("c");
    let c = b().build().expect("client");
    assert_eq!(
        c.update_query(Some(500)),
        [("wt", "json"), ("commitWithin", "500")].map(|(k, v)| (k.into(), v.into()))
    );
    let c = b()
        .update_chain("dedupe")
        .update_param("my.param", "1")
        .update_chain("strict")
        .build()
        .expect("client");
    // Set twice: replaced, not repeated (Solr would read the first).
    assert_eq!(
        c.update_query(None),
        [
            ("wt", "json"),
            ("update.chain", "strict"),
            ("my.param", "1")
        ]
        .map(|(k, v)| (k.into(), v.into()))
    );
    // Per call: a copy with another chain; the original is unchanged.
    let other = c.with_update_chain("tolerant");
    assert_eq!(
        other.update_params()[0],
        ("update.chain".into(), "tolerant".into())
    );
    assert_eq!(c.update_params()[0].1, "strict");
    for (k, v) in [
        ("wt", "xml"),
        ("commitWithin", "1"),
        ("", "x"),
        ("update.chain", ""),
    ] {
        let err = b().update_param(k, v).build().expect_err("refused");
        assert!(matches!(err, Error::Config(_)), "{k}={v}: {err:?}");
    }
}

#[test]
fn builders_credentials_and_wire_requests_never_show_secrets() {
    use crate::transport::{RequestKind, Routing, TransportKind};

    let b = SolrClient::builder(URL);
    let shown = format!("{b:?}");
    assert!(!shown.contains(PASSWORD), "{shown}");
    assert!(matches!(b.build(), Err(Error::Config(_))));

    let inner = TransportKind::Fresh
        .build(&Default::default(), false)
        .expect("transport");
    for rb in [
        Routing::builder(inner.clone())
            .collection("bench")
            .leader(URL),
        Routing::builder(inner.clone())
            .collection("bench")
            .replica(URL),
        Routing::builder(inner.clone())
            .collection("bench")
            .cloud_seed(URL),
    ] {
        let shown = format!("{rb:?}");
        assert!(!shown.contains(PASSWORD), "{shown}");
        let err = rb.build().expect_err("userinfo refused by Routing too");
        assert!(!format!("{err} {err:?}").contains(PASSWORD), "{err}");
    }

    let creds = Credentials::basic("solr", PASSWORD);
    assert_eq!(
        format!("{creds:?}"),
        r#"Credentials { user: "solr", password: "***" }"#
    );
    let c = SolrClient::builder("http://solr.example:8983/solr")
        .collection("bench")
        .credentials(creds)
        .build()
        .expect("client");
    let mut req = c.wire(http::Method::GET, "select", Vec::new(), RequestKind::Read);
    assert_eq!(
        req.headers[http::header::AUTHORIZATION]
            .to_str()
            .expect("ascii"),
        format!("Basic {TOKEN}")
    );
    // A hand-built request: user info in its node, a non-sensitive Authorization value.
    req.node = url::Url::parse(URL).expect("url");
    req.headers.insert(
        http::header::PROXY_AUTHORIZATION,
        http::HeaderValue::from_static("Basic c29scjpzM2NyZXQtUDRzcw=="),
    );
    for shown in [format!("{req:?}"), format!("{c:?}")] {
        assert!(
            !shown.contains(PASSWORD) && !shown.contains(TOKEN),
            "{shown}"
        );
    }
    assert!(format!("{req:?}").contains("\"authorization\": \"***\""));
}
