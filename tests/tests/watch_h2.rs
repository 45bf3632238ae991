//! `watch` decoding HTTP/2 against the real local Solr (its Jetty speaks h2c on the plain
//! port), with HTTP/2 stacks no one here wrote: curl with prior knowledge
//! (`--http2-prior-knowledge`), curl upgrading with `--http2` (`Upgrade: h2c`, then `101`;
//! the first request is stream 1, N URLs in one invocation: one connection, N streams), each
//! with and without `--compressed`; Java 17's `HttpClient` (HTTP/2 by default: it upgrades
//! too); and hyper's `h2` (this project's `Http2` transport, prior knowledge: one connection,
//! N streams). Requests, streams, answered, gzip and QTime counts must be exactly what the
//! clients did. Java with a 16 KB stream window makes the server's flow-control stalls
//! visible; with its default window there are none.
//!
//! curl 7.88 (Debian 12) cannot reuse a prior-knowledge connection (curl/curl#10634, fixed in
//! 8.0: the second transfer fails with "Error in the HTTP2 framing layer" before sending a
//! byte), so with prior knowledge curl makes one request per invocation here.

use std::process::Command;

use solr_client::{Select, TransportKind};
use solr_watch::WatchReport;

use crate::watch::{assert_counts, curl, run_ok, search_url, watched};

const N: u64 = 6;

/// The HTTP/2 facts every clean run shows: `conns` connections started as `start`, N streams
/// over them, no stream or connection error, nothing lost.
fn assert_h2(r: &WatchReport, conns: u64, start: &str, what: &str) {
    let h = r
        .http2
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no HTTP/2 summary: {:?}", r.connection_list));
    assert_eq!(h.connections, conns, "{what}: HTTP/2 connections");
    assert_eq!(
        (h.prior_knowledge, h.upgraded),
        if start == "h2c" {
            (conns, 0)
        } else {
            (0, conns)
        },
        "{what}: how HTTP/2 started"
    );
    assert_eq!(h.streams, N, "{what}: streams");
    assert_eq!(
        h.errors(),
        0,
        "{what}: RST_STREAM {:?}",
        h.control.rst_stream
    );
    assert_eq!(h.connections_lost, 0, "{what}: decoding lost");
    assert_eq!(r.connections.http2, conns, "{what}");
    let with_requests: Vec<_> = r
        .connection_list
        .iter()
        .filter(|c| c.requests.unwrap_or(0) > 0)
        .collect();
    assert!(
        with_requests.iter().all(|c| c.protocol == start),
        "{what}: protocols {:?}",
        with_requests
            .iter()
            .map(|c| &c.protocol)
            .collect::<Vec<_>>()
    );
    let streams: u64 = with_requests
        .iter()
        .filter_map(|c| c.h2.as_ref().map(|f| f.streams))
        .sum();
    assert_eq!(streams, N, "{what}: streams over the connections");
    // HTTP/2 requests carry no `Connection` header; nothing to misread as close or reuse.
    assert_eq!(
        r.requests
            .as_ref()
            .expect("request figures")
            .close_requested,
        0,
        "{what}"
    );
    assert!(
        r.undecodable.reasons.is_empty(),
        "{what}: {:?}",
        r.undecodable.reasons
    );
}

fn assert_gzip(r: &WatchReport, gzip: bool, what: &str) {
    let n = if gzip { N } else { 0 };
    assert_eq!(
        r.requests.as_ref().expect("request figures").accept_gzip,
        n,
        "{what}: Accept-Encoding gzip"
    );
    assert_eq!(
        r.requests
            .as_ref()
            .expect("request figures")
            .compressed_responses,
        n,
        "{what}: gzip responses"
    );
    assert_eq!(
        r.requests
            .as_ref()
            .expect("request figures")
            .uncompressed_large_responses,
        N - n,
        "{what}: uncompressed"
    );
    let e = &r.requests.as_ref().expect("request figures").endpoints;
    assert_eq!(e.len(), 1, "{what}: {e:?}");
    assert_eq!(
        (e[0].path.as_str(), e[0].requests),
        ("/solr/bench/select", N),
        "{what}"
    );
}

#[tokio::test]
async fn curl_http2_prior_knowledge_one_stream_per_invocation() {
    let (_, url, port) = search_url().await;
    let _g = crate::support::exclusive().await;
    for gzip in [false, true] {
        let what = format!("curl --http2-prior-knowledge, gzip {gzip}");
        let mut args = vec!["--http2-prior-knowledge"];
        if gzip {
            args.push("--compressed");
        }
        args.push(&url);
        let r = watched(port, || {
            for _ in 0..N {
                curl(&args);
            }
        });
        assert_counts(&r, N, N, &what);
        assert_h2(&r, N, "h2c", &what);
        assert_gzip(&r, gzip, &what);
        assert_eq!(
            r.requests.as_ref().expect("request figures").wt.get("json"),
            Some(&N),
            "{what}: wt"
        );
        assert_eq!(r.connections.max_requests_per_connection, Some(1), "{what}");
    }
}

#[tokio::test]
async fn hyper_h2_prior_knowledge_one_connection_n_streams() {
    let (base, _, port) = search_url().await;
    let _g = crate::support::exclusive().await;
    for gzip in [false, true] {
        let what = format!("hyper h2 (Http2 transport), gzip {gzip}");
        let base = base.clone();
        let r = watched(port, || {
            std::thread::spawn(move || {
                let rt = tokio::runtime::Runtime::new().expect("runtime");
                rt.block_on(async {
                    let c = crate::support::client(&base, TransportKind::Http2, gzip);
                    for i in 0..N {
                        c.select(&Select::new("*:*").rows(20))
                            .await
                            .unwrap_or_else(|e| panic!("select {i}: {e}"));
                    }
                });
                // The runtime drops here: the connection closes before the capture stops.
            })
            .join()
            .expect("client thread");
        });
        assert_counts(&r, 1, N, &what);
        assert_h2(&r, 1, "h2c", &what);
        assert_gzip(&r, gzip, &what);
        assert_eq!(r.connections.max_requests_per_connection, Some(N), "{what}");
    }
}

#[tokio::test]
async fn curl_http2_upgrade_h2c_first_request_is_stream_one() {
    let (_, url, port) = search_url().await;
    let urls: Vec<&str> = std::iter::repeat_n(url.as_str(), N as usize).collect();
    let _g = crate::support::exclusive().await;
    for gzip in [false, true] {
        let what = format!("curl --http2 (h2c upgrade), gzip {gzip}");
        let mut args = vec!["--http2"];
        if gzip {
            args.push("--compressed");
        }
        args.extend(&urls);
        let r = watched(port, || {
            curl(&args);
        });
        assert_counts(&r, 1, N, &what);
        assert_h2(&r, 1, "h2c-upgrade", &what);
        assert_gzip(&r, gzip, &what);
        assert_eq!(
            r.requests.as_ref().expect("request figures").wt.get("json"),
            Some(&N),
            "{what}: wt"
        );
    }
}

/// Java 17's `java.net.http.HttpClient` (HTTP/2 preferred by default), one client sending
/// `n` GETs in a row; prints each response's protocol version.
const JAVA: &str = r#"
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public class H2Client {
    public static void main(String[] a) throws Exception {
        HttpClient c = HttpClient.newHttpClient();
        int n = Integer.parseInt(a[1]);
        for (int i = 0; i < n; i++) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(a[0]));
            if (a.length > 2) b.header("Accept-Encoding", "gzip");
            HttpResponse<byte[]> r = c.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) throw new RuntimeException("status " + r.statusCode());
            System.out.println(r.version());
        }
    }
}
"#;

#[tokio::test]
async fn java_httpclient_upgrades_to_h2c() {
    let (_, url, port) = search_url().await;
    let dir = std::env::temp_dir().join(format!("watch-h2-java-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let src = dir.join("H2Client.java");
    std::fs::write(&src, JAVA).expect("java source");
    let _g = crate::support::exclusive().await;
    let mut said = Vec::new();
    let r = watched(port, || {
        // Single-file source launch: Java 11+ compiles it in memory.
        said = run_ok(
            Command::new("java")
                .arg(&src)
                .arg(&url)
                .arg(N.to_string())
                .arg("gzip"),
        );
    });
    let _ = std::fs::remove_dir_all(&dir);
    let said = String::from_utf8_lossy(&said);
    assert_eq!(
        said.lines().filter(|l| *l == "HTTP_2").count() as u64,
        N,
        "Java's own view of the protocol: {said:?}"
    );
    let what = "Java HttpClient";
    assert_counts(&r, 1, N, what);
    assert_h2(&r, 1, "h2c-upgrade", what);
    assert_gzip(&r, true, what);
}

/// Indexes `n` documents under a new tag with curl and returns the URL answering all of them.
async fn large_search(base: &str, n: usize) -> String {
    let tag = crate::support::tag("watchh2big");
    let docs = serde_json::to_string(&crate::support::docs(&tag, n, 0)).expect("json");
    let file = std::env::temp_dir().join(format!("{tag}.json"));
    std::fs::write(&file, docs).expect("docs file");
    let update = format!("{base}/bench/update?commit=true");
    let _g = crate::support::shared().await;
    curl(&[
        "-H",
        "Content-Type: application/json",
        "--data-binary",
        &format!("@{}", file.display()),
        &update,
    ]);
    let _ = std::fs::remove_file(&file);
    format!("{base}/bench/select?q=tag_s:{tag}&rows={n}&wt=json")
}

#[tokio::test]
async fn java_small_window_makes_flow_control_stalls_visible() {
    let (base, _, port) = search_url().await;
    let url = large_search(&base, 80).await;
    let dir = std::env::temp_dir().join(format!("watch-h2-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let src = dir.join("H2Client.java");
    std::fs::write(&src, JAVA).expect("java source");
    let _g = crate::support::exclusive().await;
    // Responses of about 50 KB: more than three 16 KB stream windows, so with
    // `jdk.httpclient.windowsize=16384` the server must wait for WINDOW_UPDATEs; less than the
    // 64 KB connection window the server starts with (an upgrade's first response may be sent
    // before the client's connection WINDOW_UPDATE), so with Java's default 16 MB stream
    // window nothing can stall.
    for window in [None, Some(16_384)] {
        let what = format!("Java HttpClient, stream window {window:?}");
        let mut cmd = Command::new("java");
        if let Some(w) = window {
            cmd.arg(format!("-Djdk.httpclient.windowsize={w}"));
        }
        cmd.arg(&src).arg(&url).arg(N.to_string());
        let r = watched(port, || {
            run_ok(&mut cmd);
        });
        assert_counts(&r, 1, N, &what);
        assert_h2(&r, 1, "h2c-upgrade", &what);
        let h = r.http2.as_ref().expect("HTTP/2");
        let median = r
            .requests
            .as_ref()
            .expect("request figures")
            .response_bytes_median;
        let stalled = r.findings.iter().any(|f| f.kind == "h2-flow-control");
        match window {
            None => {
                assert!(median < 65_535, "{what}: responses of {median} B");
                assert_eq!(h.control.server_stalls, 0, "{what}");
                assert!(!stalled, "{what}: {:?}", r.findings);
            }
            Some(w) => {
                assert!(median > 2 * w, "{what}: responses of {median} B");
                assert!(h.control.server_stalls >= 1, "{what}: {h:?}");
                assert!(h.control.server_stalled_ms > 0.0, "{what}: {h:?}");
                assert!(stalled, "{what}: {:?}", r.findings);
            }
        }
        assert_eq!(h.control.client_stalls, 0, "{what}: GETs send no body");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
