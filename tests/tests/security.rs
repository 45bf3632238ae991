//! Security: TLS verification names the host, credentials never show in Debug
//! output or error messages, and escaped user text is a literal term.
//! (A server whose CA the client does not trust is refused: `foundation::tls_select_needs_the_generated_ca`.)

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use http::header::AUTHORIZATION;
use http::Method;
use serde_json::json;
use solr_client::{
    escape_query, Commit, Credentials, Error, RequestKind, Select, SolrClient, TlsOptions,
    TransportKind,
};

use crate::support::fault_server::{Fault, FaultServer, SELECT_OK};
use crate::support::tcp_relay::TcpRelay;
use crate::support::{self, client, tag};

/// The TLS node's certificate names 127.0.0.1, localhost, 198.18.0.2 and 198.19.0.2.
/// Solr listens on 127.0.0.1 only, so the test reaches the *same* server (same
/// certificate, same CA the client trusts) through a byte relay listening on 127.0.0.2,
/// an address the certificate does not name: the handshake must fail. A relay on
/// 127.0.0.1 is the control: it must succeed, so the failure is the name, not the relay.
#[tokio::test]
async fn tls_certificate_for_another_host_is_refused() {
    let _g = support::shared().await;
    let s = support::standalone_tls();
    let uri: http::Uri = s.url(None).unwrap().parse().expect("url");
    let target = SocketAddr::new(
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        uri.port_u16().expect("port"),
    );
    let ca = s.ca.as_ref().expect("CA");
    let good = TcpRelay::start(IpAddr::V4(Ipv4Addr::LOCALHOST), target).await;
    let wrong = TcpRelay::start(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), target).await;
    for kind in TransportKind::ALL {
        let build = |addr: SocketAddr| {
            SolrClient::builder(format!("https://{addr}/solr"))
                .collection("bench")
                .transport(kind)
                .tls(TlsOptions::new().add_ca_pem_file(ca).expect("CA"))
                .build()
                .expect("client")
        };
        build(good.addr())
            .select(&Select::new("*:*").rows(0))
            .await
            .unwrap_or_else(|e| panic!("{kind}: control through the relay: {e}"));
        let err = build(wrong.addr())
            .select(&Select::new("*:*").rows(0))
            .await
            .expect_err("127.0.0.2 is not in the certificate");
        assert!(err.is_connect(), "{kind}: {err}");
        if kind != TransportKind::Reqwest {
            // reqwest folds handshake failures into its connect error.
            assert!(matches!(err, Error::Tls { .. }), "{kind}: {err:?}");
        }
        let text = format!("{err}").to_lowercase();
        assert!(
            text.contains("not valid for") || text.contains("certificate"),
            "{kind}: the reason is the certificate: {text}"
        );
    }
}

const PASSWORD: &str = "s3cret-P4ss";
/// base64("solr-user:s3cret-P4ss")
const TOKEN: &str = "c29sci11c2VyOnMzY3JldC1QNHNz";

#[tokio::test]
async fn credentials_are_sent_but_never_shown() {
    let _g = support::shared().await;
    let srv = FaultServer::start(vec![Fault::Ok(SELECT_OK), Fault::Html502]).await;
    let c = SolrClient::builder(srv.url())
        .collection("bench")
        .transport(TransportKind::Pooled)
        .credentials(Credentials::basic("solr-user", PASSWORD))
        .build()
        .expect("client");

    let shown = [
        format!("{c:?}"),
        format!("{:?}", Credentials::basic("solr-user", PASSWORD)),
    ];
    for s in &shown {
        assert!(!s.contains(PASSWORD) && !s.contains(TOKEN), "{s}");
    }
    assert!(shown[0].contains("***"), "{}", shown[0]);

    let wire = c.wire(Method::GET, "select", Vec::new(), RequestKind::Read);
    let auth = wire.headers.get(AUTHORIZATION).expect("Authorization set");
    assert!(
        auth.is_sensitive(),
        "marked sensitive for HTTP/2 HPACK and Debug"
    );
    let dbg = format!("{wire:?}");
    assert!(!dbg.contains(TOKEN) && !dbg.contains(PASSWORD), "{dbg}");

    // Really sent...
    c.select(&Select::new("*:*")).await.expect("select");
    let seen = srv.seen();
    assert!(
        seen[0]
            .headers
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&format!("authorization: Basic {TOKEN}"))),
        "{:?}",
        seen[0].headers
    );
    // ...and absent from errors.
    let err = c.select(&Select::new("*:*")).await.expect_err("502");
    for s in [format!("{err}"), format!("{err:?}")] {
        assert!(!s.contains(PASSWORD) && !s.contains(TOKEN), "{s}");
    }

    // Credentials in the URL are refused, without echoing them.
    let err = SolrClient::builder(format!("http://solr-user:{PASSWORD}@127.0.0.1:1/solr"))
        .collection("bench")
        .build()
        .expect_err("userinfo in URL");
    assert!(matches!(err, Error::Config(_)));
    assert!(!format!("{err}").contains(PASSWORD), "{err}");
}

#[tokio::test]
async fn escaped_user_text_matches_only_itself() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let t = tag("esc");
    let hostile = [
        "{!func}sum(1,1) OR *:*",
        "*:* OR id:*",
        "a\" OR \"b",
        "x) OR (y",
        "{!term f=id}x",
        "\\",
    ];
    let docs: Vec<_> = hostile
        .iter()
        .enumerate()
        .map(|(i, h)| json!({"id": format!("{t}-{i}"), "tag_s": t, "kind_s": h}))
        .collect();
    c.add(&docs).await.expect("add");
    c.commit(Commit::default()).await.expect("commit");
    for (i, h) in hostile.iter().enumerate() {
        let r = c
            .select(
                &Select::new(format!("kind_s:{}", escape_query(h)))
                    .fq(format!("tag_s:{t}"))
                    .fl("id"),
            )
            .await
            .unwrap_or_else(|e| panic!("{h:?}: {e}"));
        assert_eq!(r.num_found(), 1, "{h:?} matches exactly its own doc");
        assert_eq!(r.docs()[0]["id"], json!(format!("{t}-{i}")));
    }
}

/// One policy for URLs with user info, everywhere a URL is accepted: the
/// client builder, every `Routing` node, and every `--url` of `transport-bench` refuse it,
/// and no message repeats the password.
#[tokio::test]
async fn user_info_urls_are_refused_everywhere_without_echo() {
    use clap::Parser;
    use solr_client::transport::Routing;

    let with_password = format!("http://solr-user:{PASSWORD}@127.0.0.1:1/solr");
    let not_http = format!("ftp://solr-user:{PASSWORD}@127.0.0.1:1/solr");
    let no_echo = |err: &Error| {
        for s in [format!("{err}"), format!("{err:?}")] {
            assert!(!s.contains(PASSWORD) && !s.contains("solr-user"), "{s}");
        }
    };
    for url in [&with_password, &not_http] {
        let b = SolrClient::builder(url.as_str());
        assert!(!format!("{b:?}").contains(PASSWORD));
        let err = b.build().expect_err("refused");
        assert!(matches!(err, Error::Config(_)), "{err:?}");
        no_echo(&err);
    }
    let err = SolrClient::builder(&with_password)
        .collection("bench")
        .build()
        .expect_err("refused");
    let msg = err.to_string();
    assert!(msg.contains("http://127.0.0.1:1/solr"), "{msg}");
    assert!(
        msg.contains(".credentials("),
        "says what to do instead: {msg}"
    );

    let inner = TransportKind::Pooled
        .build(&TlsOptions::default(), false)
        .expect("transport");
    let ok = "http://127.0.0.1:1/solr";
    for b in [
        Routing::builder(inner.clone())
            .collection("bench")
            .leader(&with_password),
        Routing::builder(inner.clone())
            .collection("bench")
            .leader(ok)
            .replica(&with_password),
        Routing::builder(inner.clone())
            .collection("bench")
            .cloud_seed(&with_password),
    ] {
        let err = b.build().expect_err("Routing refuses user info");
        assert!(matches!(err, Error::Config(_)), "{err:?}");
        no_echo(&err);
    }

    for sub in [
        "study",
        "audit",
        "knn",
        "nrt",
        "bulk-files",
        "sweep",
        "large-responses",
    ] {
        let err = transport_bench::cli::Cli::try_parse_from([
            "transport-bench",
            sub,
            "--url",
            &with_password,
        ])
        .err()
        .unwrap_or_else(|| panic!("{sub}: --url with user info refused"));
        let text = err.to_string();
        assert!(text.contains("user info"), "{sub}: {text}");
        assert!(!text.contains(PASSWORD), "{sub}: {text}");
    }
}

/// Standard base64 (RFC 4648, with padding), to know the `Authorization: Basic` value.
fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Every file under `dir`, recursively, as (path, bytes).
fn files_under(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).expect("read")));
        }
    }
    out
}

/// A relay to `target` that keeps every byte the client sent.
async fn recording_relay(
    target: SocketAddr,
) -> (SocketAddr, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let keep = sent.clone();
    tokio::spawn(async move {
        while let Ok((inbound, _)) = listener.accept().await {
            let keep = keep.clone();
            tokio::spawn(async move {
                let Ok(outbound) = tokio::net::TcpStream::connect(target).await else {
                    return;
                };
                let (mut ir, mut iw) = inbound.into_split();
                let (mut or, mut ow) = outbound.into_split();
                let up = async move {
                    let mut buf = vec![0u8; 64 * 1024];
                    while let Ok(n) = ir.read(&mut buf).await {
                        if n == 0 || ow.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                        keep.lock().unwrap().extend_from_slice(&buf[..n]);
                    }
                    let _ = ow.shutdown().await;
                };
                let down = async move {
                    let _ = tokio::io::copy(&mut or, &mut iw).await;
                    let _ = iw.shutdown().await;
                };
                tokio::join!(up, down);
            });
        }
    });
    (addr, sent)
}

/// A whole `transport-bench audit` run with basic auth (from
/// `SOLR_BASIC_AUTH`, the only way the bench takes credentials) against the real local Solr,
/// through a relay that records what the client sent: the `Authorization: Basic` value is on
/// the wire (so the run really used the credentials), and neither the password nor that value
/// is in any file of the run (report.txt, summary.json, CSV, records.jsonl, SVG) or in
/// anything it printed. The run happens in a child process (this test binary re-executed),
/// so the environment variable never touches the other tests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_with_basic_auth_writes_no_secret() {
    if let (Ok(url), Ok(out)) = (std::env::var("E2E_AUTH_URL"), std::env::var("E2E_AUTH_OUT")) {
        use clap::Parser;
        let args = [
            "transport-bench",
            "audit",
            "--url",
            &url,
            "--searches",
            "5",
            "--no-pcap",
            "--no-idle",
            "--quiet",
            "--out",
            &out,
        ];
        transport_bench::cli::run(transport_bench::cli::Cli::parse_from(args))
            .await
            .expect("audit with basic auth runs");
        return;
    }
    let _g = support::shared().await;
    let s = support::standalone();
    let solr: url::Url = s.url(None).unwrap().parse().expect("url");
    let target = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), solr.port().expect("port"));
    let (relay, sent) = recording_relay(target).await;
    let url = format!("http://{relay}{}", solr.path());
    let out = std::env::temp_dir().join(tag("auth_run"));
    let child = tokio::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "security::a_run_with_basic_auth_writes_no_secret",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("E2E_AUTH_URL", &url)
        .env("E2E_AUTH_OUT", &out)
        .env("SOLR_BASIC_AUTH", format!("auditor:{PASSWORD}"))
        .output()
        .await
        .expect("child runs");
    let printed = [child.stdout.clone(), child.stderr.clone()].concat();
    assert!(
        child.status.success(),
        "the audit failed: {}",
        String::from_utf8_lossy(&printed)
    );
    let secret_header = base64(format!("auditor:{PASSWORD}").as_bytes());
    let wire = sent.lock().unwrap().clone();
    assert!(
        wire.windows(secret_header.len())
            .any(|w| w == secret_header.as_bytes()),
        "the run did not send its credentials ({} bytes sent)",
        wire.len()
    );
    let files = files_under(&out);
    let names: Vec<String> = files
        .iter()
        .filter_map(|(p, _)| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    for want in [
        "summary.json",
        "report.txt",
        "records.jsonl",
        "transports.csv",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    let mut checked = vec![("(stdout + stderr)".to_string(), printed)];
    checked.extend(files.into_iter().map(|(p, b)| (p.display().to_string(), b)));
    for (what, bytes) in &checked {
        let text = String::from_utf8_lossy(bytes);
        for secret in [PASSWORD, secret_header.as_str()] {
            assert!(!text.contains(secret), "{what} contains a secret");
        }
    }
    println!(
        "basic-auth audit: {} files and the console checked, {} bytes on the wire carried the header",
        checked.len() - 1,
        wire.len()
    );
    let _ = std::fs::remove_dir_all(&out);
}
