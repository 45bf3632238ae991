//! Unit tests of [`Proxy`]: the environment through the matcher, user info, SOCKS5, and
//! that no password is ever shown.

use super::*;

fn vars<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        set.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

fn node(url: &str) -> Url {
    Url::parse(url).unwrap()
}

#[test]
fn env_is_read_as_the_matcher_reads_it_and_honours_no_proxy() {
    let env = [
        ("HTTP_PROXY", "http://upper:1"),
        ("http_proxy", "lower:3128"),
        ("https_proxy", "http://tunnel:8080"),
        ("no_proxy", "solr.internal, 10.0.0.0/8"),
    ];
    let p = Proxy::from_env_vars(vars(&env))
        .unwrap()
        .expect("configured");
    let for_node = |n: &str| p.for_node(&node(n)).map(|u| u.to_string());
    assert_eq!(
        for_node("http://solr.example:8983/solr").as_deref(),
        Some("http://upper:1/")
    );
    assert_eq!(
        for_node("https://solr.example:8984/solr").as_deref(),
        Some("http://tunnel:8080/")
    );
    assert_eq!(for_node("http://solr.internal:8983/solr"), None);
    assert_eq!(for_node("http://a.solr.internal:8983/solr"), None);
    assert_eq!(for_node("https://10.1.2.3:8984/solr"), None);
}

#[test]
fn all_proxy_fills_in_and_cgi_or_nothing_set_is_none() {
    let env = [("ALL_PROXY", "socks5h://gate:1080"), ("HTTPS_PROXY", "")];
    let p = Proxy::from_env_vars(vars(&env))
        .unwrap()
        .expect("configured");
    for n in ["http://solr:8983/solr", "https://solr:8984/solr"] {
        let hop = p.hop(&node(n)).expect("through ALL_PROXY");
        assert_eq!(hop.kind, HopKind::Socks5 { remote_dns: true });
        assert_eq!((hop.host.as_str(), hop.port), ("gate", 1080));
    }
    let env = [("HTTP_PROXY", "http://evil:1"), ("REQUEST_METHOD", "GET")];
    assert!(Proxy::from_env_vars(vars(&env)).unwrap().is_none());
    assert!(Proxy::from_env_vars(vars(&[])).unwrap().is_none());
}

#[test]
fn a_bad_env_value_is_a_config_error_not_skipped() {
    let env = [("HTTPS_PROXY", "ftp://u:s3cret@proxy:2121")];
    let err = Proxy::from_env_vars(vars(&env)).unwrap_err();
    assert_eq!(err.kind(), "Config");
    assert!(err.to_string().contains("ftp://proxy:2121"), "{err}");
    assert!(!err.to_string().contains("s3cret"), "{err}");
}

#[test]
fn user_info_is_percent_decoded_into_proxy_authorization() {
    let p = Proxy::new("http://us%40er:p%3Ass@proxy:3128").unwrap();
    let hop = p.hop(&node("https://solr:8984/solr")).expect("proxied");
    let auth = hop.authorization.clone().expect("header");
    // base64("us@er:p:ss")
    assert_eq!(auth.to_str().unwrap(), "Basic dXNAZXI6cDpzcw==");
    assert!(auth.is_sensitive());
    assert_eq!(
        hop.url.as_str(),
        "http://proxy:3128/",
        "no user info in the hop's URL"
    );
    assert_eq!(hop.label(), "http://proxy:3128");
    assert!(hop.socks_auth.is_none());
}

#[test]
fn socks5_user_info_is_the_rfc1929_pair_and_explicit_credentials_win() {
    let p = Proxy::new("socks5://alice:op%20en@127.0.0.1:9050").unwrap();
    let hop = p.hop(&node("http://solr:8983/solr")).expect("proxied");
    assert_eq!(hop.kind, HopKind::Socks5 { remote_dns: false });
    assert_eq!(hop.socks_auth, Some(("alice".into(), "op en".into())));
    assert!(hop.authorization.is_none());
    assert_eq!(hop.label(), "socks5://127.0.0.1:9050");
    let p = p.credentials(Credentials::basic("bob", "pw2"));
    let hop = p.hop(&node("http://solr:8983/solr")).expect("proxied");
    assert_eq!(hop.socks_auth, Some(("bob".into(), "pw2".into())));
}

#[test]
fn the_password_is_masked_in_debug_and_never_in_errors() {
    let p = Proxy::new("http://user:s3cret@proxy:3128")
        .unwrap()
        .no_proxy(NoProxy::parse("localhost"));
    let shown = format!("{p:?}");
    assert!(shown.contains("http://user:***@proxy:3128"), "{shown}");
    assert!(!shown.contains("s3cret"), "{shown}");
    assert_eq!(
        p.for_node(&node("http://localhost:8983/solr")),
        None,
        "NO_PROXY kept after user info"
    );
    let p = p.credentials(Credentials::basic("u", "p4ss"));
    assert!(!format!("{p:?}").contains("p4ss"));
    let err = Proxy::new("https://user:s3cret@proxy:3128").unwrap_err();
    assert!(err.to_string().contains("only http://"), "{err}");
    assert!(!err.to_string().contains("s3cret"), "{err}");
    assert!(!format!("{err:?}").contains("s3cret"), "{err:?}");
    let err = Proxy::new("http://user:s3cret@").unwrap_err();
    assert_eq!(err.kind(), "Config");
    assert!(!format!("{err} {err:?}").contains("s3cret"), "{err:?}");
}

#[test]
fn masked_replaces_only_the_password() {
    assert_eq!(masked("http://u:pw@h:3128"), "http://u:***@h:3128");
    assert_eq!(masked("socks5h://u:pw@h:1080"), "socks5h://u:***@h:1080");
    assert_eq!(masked("http://h:3128"), "http://h:3128");
    assert_eq!(masked("http://u@h:3128"), "http://u@h:3128");
    assert_eq!(masked("http://u:pw@[bad"), "http://[bad");
}

#[test]
fn proxy_credentials_make_a_basic_header_and_stay_out_of_debug() {
    let p = Proxy::new("proxy:3128")
        .unwrap()
        .credentials(Credentials::basic("u", "p4ss"));
    let hop = p.hop(&node("http://solr:8983/solr")).expect("proxied");
    assert_eq!(
        hop.authorization.unwrap().to_str().unwrap(),
        "Basic dTpwNHNz"
    );
    assert!(!format!("{p:?}").contains("p4ss"));
}
