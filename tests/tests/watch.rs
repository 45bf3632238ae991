//! `watch` against the real local Solr with real clients no one here wrote: curl (a loop of
//! invocations vs several URLs in one), curl with and without `--compressed`, curl posting an
//! XML and a JSON update, and Python `requests` with and without a `Session`. Each run is
//! captured live on `lo` (filtered to the node's port) and the connection and request counts
//! must be exact. Also the reference captures (20 connections vs 1) and the CLI with
//! `--duration`, its JSON checked against the published schema.

use std::process::Command;

use clap::Parser;
use solr_watch::{self as watch, LiveWatch, WatchReport};

use crate::support;

const N: usize = 8;

fn port(url: &str) -> u16 {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.port())
        .expect("node URL has a port")
}

/// Indexes a few documents with curl (so a search answers several KB; curl's connection is
/// closed when it exits, so nothing lingers into a capture) and returns the node's base URL,
/// the search URL and the port.
pub(crate) async fn search_url() -> (String, String, u16) {
    let s = support::standalone();
    let base = s.url(None).expect("url").to_string();
    let tag = support::tag("watch");
    let docs = serde_json::to_string(&support::docs(&tag, 20, 0)).expect("json");
    let update = format!("{base}/bench/update?commit=true");
    {
        let _g = support::shared().await;
        curl(&[
            "-H",
            "Content-Type: application/json",
            "--data-binary",
            &docs,
            &update,
        ]);
    }
    let url = format!("{base}/bench/select?q=tag_s:{tag}&rows=20&wt=json");
    (base.clone(), url, port(&base))
}

/// Runs `f` (the clients) while capturing the node's port on `lo`.
pub(crate) fn watched(port: u16, f: impl FnOnce()) -> WatchReport {
    watched_capture(port, f).0
}

/// [`watched`], with the capture itself (for per-request records).
pub(crate) fn watched_capture(port: u16, f: impl FnOnce()) -> (WatchReport, watch::Captured) {
    let live = LiveWatch::start("lo", port, None).expect("capture on lo (root or CAP_NET_RAW)");
    f();
    let c = live.stop().expect("capture");
    let r = watch::analyse(&c, "lo");
    let mut text = Vec::new();
    watch::print_text(&r, &mut text).expect("print");
    eprintln!("{}", String::from_utf8_lossy(&text));
    (r, c)
}

pub(crate) fn run_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

pub(crate) fn curl(args: &[&str]) -> Vec<u8> {
    run_ok(Command::new("curl").args(["-sS", "--fail"]).args(args))
}

fn has(r: &WatchReport, kind: &str) -> bool {
    r.findings.iter().any(|f| f.kind == kind)
}

/// The request figures (judged: these captures keep whole packets).
pub(crate) fn figures(r: &WatchReport) -> &watch::report::RequestSummary {
    r.requests.as_ref().expect("request figures")
}

pub(crate) fn assert_counts(r: &WatchReport, conns: u64, reqs: u64, what: &str) {
    let c = &r.connections;
    assert_eq!(c.opened, conns, "{what}: connections opened");
    // Not `seen`: a connection another test left open may close during the capture.
    assert_eq!(
        c.with_requests,
        Some(conns),
        "{what}: connections with requests"
    );
    assert_eq!(figures(r).requests, reqs, "{what}: requests");
    assert_eq!(figures(r).answered, reqs, "{what}: answered");
    assert_eq!(figures(r).qtime_decoded, reqs, "{what}: QTime decoded");
    assert_eq!(
        figures(r).statuses.get("200").copied(),
        Some(reqs),
        "{what}: statuses"
    );
    assert_eq!(
        r.undecodable.missing_bytes + r.undecodable.http_bytes + r.undecodable.incomplete_messages,
        0,
        "{what}: everything decoded"
    );
}

#[tokio::test]
async fn curl_loop_vs_one_invocation_and_gzip() {
    let (_, url, port) = search_url().await;
    let _g = support::exclusive().await;

    // One curl per request: N connections, and no Accept-Encoding.
    let r = watched(port, || {
        for _ in 0..N {
            curl(&[&url]);
        }
    });
    assert_counts(&r, N as u64, N as u64, "curl loop");
    assert_eq!(r.connections.max_requests_per_connection, Some(1));
    let client_closed = r
        .connection_list
        .iter()
        .filter(|c| c.opened_in_capture && c.closed_by == "client_fin")
        .count();
    assert_eq!(client_closed, N, "curl closes when it exits");
    assert_eq!(r.findings[0].kind, "no-reuse", "{:?}", r.findings);
    assert_eq!(figures(&r).accept_gzip, 0);
    assert_eq!(figures(&r).uncompressed_large_responses, N as u64);
    assert!(has(&r, "no-gzip"), "{:?}", r.findings);

    // Several URLs on one command line: curl reuses its connection.
    let urls: Vec<&str> = std::iter::repeat_n(url.as_str(), N).collect();
    let r = watched(port, || {
        curl(&urls);
    });
    assert_counts(&r, 1, N as u64, "curl, N URLs in one invocation");
    assert_eq!(r.connections.max_requests_per_connection, Some(N as u64));
    assert_eq!(r.connections.idle_gap.n, N as u64 - 1);
    assert!(!has(&r, "no-reuse") && has(&r, "reuse"), "{:?}", r.findings);
    assert!(has(&r, "no-gzip"));

    // With --compressed: gzip asked and received, QTime still decoded (gunzipped).
    let mut args = vec!["--compressed"];
    args.extend(&urls);
    let r = watched(port, || {
        curl(&args);
    });
    assert_counts(&r, 1, N as u64, "curl --compressed");
    assert_eq!(figures(&r).accept_gzip, N as u64);
    assert_eq!(figures(&r).compressed_responses, N as u64);
    assert!(!has(&r, "no-gzip") && has(&r, "gzip"), "{:?}", r.findings);
    assert!(r
        .verdict
        .starts_with(&format!("verdict: {N} requests on 1 connections")));
}

#[tokio::test]
async fn curl_xml_and_json_updates() {
    let (base, _, port) = search_url().await;
    let tag = support::tag("watchupd");
    let xml = format!(
        "<add><doc><field name=\"id\">{tag}-x</field><field name=\"title\">watch xml</field><field name=\"tag_s\">{tag}</field></doc></add>"
    );
    let json = format!(r#"[{{"id":"{tag}-j","title":"watch json","tag_s":"{tag}"}}]"#);
    let update = format!("{base}/bench/update");
    let _g = support::exclusive().await;
    let r = watched(port, || {
        curl(&[
            "-H",
            "Content-Type: text/xml",
            "--data-binary",
            &xml,
            &update,
        ]);
        curl(&[
            "-H",
            "Content-Type: application/json",
            "--data-binary",
            &json,
            &update,
        ]);
    });
    assert_counts(&r, 2, 2, "curl updates");
    let formats: Vec<(&str, u64, u64)> = figures(&r)
        .update_formats
        .iter()
        .map(|f| (f.format.as_str(), f.requests, f.body_bytes))
        .collect();
    assert_eq!(
        formats,
        vec![("json", 1, json.len() as u64), ("xml", 1, xml.len() as u64)]
    );
    let f = r
        .findings
        .iter()
        .find(|f| f.kind == "xml-updates")
        .unwrap_or_else(|| panic!("xml finding: {:?}", r.findings));
    assert!(f.what.contains("1 update requests sent XML"), "{}", f.what);
    assert!(
        f.what.contains("the same documents as JSON would be about"),
        "{}",
        f.what
    );
}

const PY: &str = r#"
import sys, requests
mode, urls = sys.argv[1], sys.argv[2:]
if mode == "session":
    s = requests.Session()
    for u in urls:
        s.get(u, timeout=30).raise_for_status()
else:
    for u in urls:
        requests.get(u, timeout=30).raise_for_status()
"#;

fn python_requests_available() {
    let ok = Command::new("python3")
        .args(["-c", "import requests"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "python3 with `requests` is needed: run `bash scripts/setup.sh` (it pip-installs requests)"
    );
}

#[tokio::test]
async fn python_requests_with_and_without_session() {
    python_requests_available();
    let (_, url, port) = search_url().await;
    let urls: Vec<&str> = std::iter::repeat_n(url.as_str(), N).collect();
    let _g = support::exclusive().await;
    let r = watched(port, || {
        run_ok(
            Command::new("python3")
                .args(["-c", PY, "plain"])
                .args(&urls),
        );
    });
    assert_counts(&r, N as u64, N as u64, "requests.get");
    assert_eq!(r.findings[0].kind, "no-reuse", "{:?}", r.findings);
    // The keep-alive trap: every request says `Connection: keep-alive`, none is reused.
    assert_eq!(figures(&r).keep_alive_header, N as u64);
    assert!(
        r.findings[0].what.contains("keep-alive"),
        "{}",
        r.findings[0].what
    );
    // requests asks for gzip by default and Solr compresses.
    assert_eq!(figures(&r).accept_gzip, N as u64);
    assert_eq!(figures(&r).compressed_responses, N as u64);
    let r = watched(port, || {
        run_ok(
            Command::new("python3")
                .args(["-c", PY, "session"])
                .args(&urls),
        );
    });
    assert_counts(&r, 1, N as u64, "requests.Session");
    assert_eq!(r.connections.max_requests_per_connection, Some(N as u64));
    assert!(!has(&r, "no-reuse"), "{:?}", r.findings);
}

#[test]
fn reference_captures_20_connections_vs_1() {
    let dir = solr_harness::local_solr::project_root().join("captures");
    let fresh = watch::watch_file(&dir.join("search-fresh.pcapng"), None).expect("fresh");
    let pooled = watch::watch_file(&dir.join("search-pooled.pcapng"), None).expect("pooled");
    assert_eq!(fresh.connections.opened, 20);
    assert_eq!(figures(&fresh).requests, 20);
    assert_eq!(fresh.connections.max_requests_per_connection, Some(1));
    assert_eq!(pooled.connections.opened, 1);
    assert_eq!(figures(&pooled).requests, 20);
    assert_eq!(pooled.connections.max_requests_per_connection, Some(20));
    assert_eq!(fresh.findings[0].kind, "no-reuse");
    assert!(!pooled.findings.iter().any(|f| f.kind == "no-reuse"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_watch_with_duration_writes_schema_valid_json() {
    let (_, url, port) = search_url().await;
    let out = std::env::temp_dir().join(format!("watch-cli-{}", std::process::id()));
    let args: Vec<String> = [
        "transport-bench",
        "watch",
        "--interface",
        "lo",
        "--port",
        &port.to_string(),
        "--duration",
        "8s",
        "--quiet",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let _g = support::exclusive().await;
    let cli = transport_bench::cli::Cli::parse_from(args);
    let task = tokio::spawn(transport_bench::cli::run(cli));
    // The capture opens in milliseconds; 2 s leaves room on a busy machine (it runs 8 s).
    tokio::time::sleep(std::time::Duration::from_millis(2000)).await;
    let url2 = url.clone();
    tokio::task::spawn_blocking(move || {
        curl(&[&url2, &url2, &url2]);
    })
    .await
    .expect("curl");
    task.await.expect("join").expect("watch runs");
    let json = support::read_json(&out.join("watch.json"));
    support::assert_schema_valid(&watch::watch_schema(), &json);
    assert_eq!(json["connections"]["opened"], 1);
    assert_eq!(json["requests"]["requests"], 3);
    for f in ["watch.svg", "connections.csv", "requests.csv"] {
        assert!(out.join(f).exists(), "{f}");
    }
    let csv = std::fs::read_to_string(out.join("requests.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 4, "header + 3 requests");
    let _ = std::fs::remove_dir_all(&out);
}

/// Python's own `ssl` module (OpenSSL) connecting three times, offering the previous
/// connection's session each time; it prints whether the server resumed it.
const PY_TLS: &str = r#"
import socket, ssl, sys
port, ca = int(sys.argv[1]), sys.argv[2]
ctx = ssl.create_default_context(cafile=ca)
sess = None
for i in range(3):
    t = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                        server_hostname="localhost", session=sess)
    t.sendall(b"GET /solr/bench/select?q=*:* HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    while t.recv(65536):
        pass
    print("resumed" if t.session_reused else "full")
    sess = t.session
    t.close()
"#;

#[tokio::test]
async fn tls_full_and_resumed_handshakes_match_the_clients_own_view() {
    let s = support::standalone_tls();
    let base = s.url(None).expect("url").to_string();
    let ca =
        s.ca.as_ref()
            .expect("TLS instance has a CA")
            .display()
            .to_string();
    let port = port(&base);
    let _g = support::exclusive().await;
    let mut said = Vec::new();
    let r = watched(port, || {
        said = run_ok(Command::new("python3").args(["-c", PY_TLS, &port.to_string(), &ca]));
    });
    let said = String::from_utf8_lossy(&said);
    let full = said.lines().filter(|l| *l == "full").count() as u64;
    let resumed = said.lines().filter(|l| *l == "resumed").count() as u64;
    assert_eq!(full + resumed, 3, "python printed {said:?}");
    let tls = r.tls.as_ref().expect("TLS summary");
    assert_eq!(r.connections.opened, 3);
    assert_eq!(tls.connections, 3);
    assert_eq!(tls.client_hellos, 3);
    assert_eq!(
        (tls.full, tls.resumed, tls.unknown),
        (full, resumed, 0),
        "watch vs Python's ssl.session_reused"
    );
    assert_eq!(figures(&r).requests, 0, "TLS hides requests");
    assert!(has(&r, "tls-opaque"), "{:?}", r.findings);
}
