//! `watch --keylog` against the real local TLS Solr: curl (OpenSSL) writes its secrets to
//! `SSLKEYLOGFILE` while watch captures `lo` and reads that file as it grows. Each capture
//! holds two curl invocations of three requests each over HTTP/1.1 (one with
//! `--compressed`, one with another cipher suite), TLS 1.2 in one capture and TLS 1.3 in
//! the other. Requests, answers, gzip and QTime are counted exactly as curl made them; the
//! saved capture read again without the key log shows the connection-level view only, and
//! with a key log missing one connection says "no key for 1 TLS connections".

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use solr_watch::tls::keylog::KeyLogFile;
use solr_watch::{self as watch, capture, LiveWatch, WatchReport};

use crate::support;

/// Requests per curl invocation.
const R: u64 = 3;

fn curl(args: &[&str], keylog: Option<&Path>) -> Vec<u8> {
    curl_as("--http1.1", args, keylog)
}

/// curl speaking `http` (`--http1.1` or `--http2`: over https, h2 by ALPN).
fn curl_as(http: &str, args: &[&str], keylog: Option<&Path>) -> Vec<u8> {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "--fail", http]).args(args);
    if let Some(k) = keylog {
        cmd.env("SSLKEYLOGFILE", k);
    }
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

fn print(r: &WatchReport) {
    let mut text = Vec::new();
    watch::print_text(r, &mut text).expect("print");
    eprintln!("{}", String::from_utf8_lossy(&text));
}

struct Setup {
    url: String,
    ca: String,
    port: u16,
}

/// Indexes 20 documents (a search then answers several KB) into the TLS node.
async fn setup() -> Setup {
    let s = support::standalone_tls();
    let base = s.url(None).expect("url").to_string();
    let ca =
        s.ca.as_ref()
            .expect("TLS instance has a CA")
            .display()
            .to_string();
    let port = url::Url::parse(&base)
        .ok()
        .and_then(|u| u.port())
        .expect("port");
    let tag = support::tag("watchtls");
    let docs = serde_json::to_string(&support::docs(&tag, 20, 0)).expect("json");
    {
        let _g = support::shared().await;
        curl(
            &[
                "--cacert",
                &ca,
                "-H",
                "Content-Type: application/json",
                "--data-binary",
                &docs,
                &format!("{base}/bench/update?commit=true"),
            ],
            None,
        );
    }
    Setup {
        url: format!("{base}/bench/select?q=tag_s:{tag}&rows=20&wt=json"),
        ca,
        port,
    }
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tb-watch-tls-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    d
}

/// One capture: curl `version` (plain) then curl `version` + `--compressed` + `suite_args`,
/// R requests each, keys to `dir/keys.log`, packets saved to `dir/cap.pcapng`.
fn capture_two_invocations(
    s: &Setup,
    dir: &Path,
    version: &[&str],
    suite_args: &[&str],
) -> WatchReport {
    let keys = dir.join("keys.log");
    let log = Arc::new(KeyLogFile::open(&keys).expect("key log"));
    let live = LiveWatch::start_with_keys("lo", s.port, Some(dir.join("cap.pcapng")), Some(log))
        .expect("capture on lo (root or CAP_NET_RAW)");
    let urls = vec![s.url.as_str(); R as usize];
    let mut plain = vec!["--cacert", s.ca.as_str()];
    plain.extend(version);
    plain.extend(&urls);
    curl(&plain, Some(&keys));
    let mut gz = vec!["--cacert", s.ca.as_str(), "--compressed"];
    gz.extend(version);
    gz.extend(suite_args);
    gz.extend(&urls);
    curl(&gz, Some(&keys));
    let c = live.stop().expect("capture");
    let r = watch::analyse(&c, "lo");
    print(&r);
    r
}

fn assert_decrypted(r: &WatchReport, version: &str, what: &str) {
    let q = r.requests.as_ref().expect("request figures");
    assert_eq!(r.connections.opened, 2, "{what}: connections");
    assert_eq!(r.connections.tls, 2, "{what}: TLS connections");
    assert_eq!(r.connections.with_requests, Some(2), "{what}");
    assert_eq!(r.connections.max_requests_per_connection, Some(R), "{what}");
    assert_eq!(q.requests, 2 * R, "{what}: requests");
    assert_eq!(q.answered, 2 * R, "{what}: answered");
    assert_eq!(q.statuses.get("200").copied(), Some(2 * R), "{what}");
    assert_eq!(q.qtime_decoded, 2 * R, "{what}: QTime decoded");
    assert_eq!(q.accept_gzip, R, "{what}: --compressed asked");
    assert_eq!(q.compressed_responses, R, "{what}: gzip received");
    assert_eq!(
        q.uncompressed_large_responses, R,
        "{what}: plain invocation"
    );
    assert_eq!(
        r.undecodable.http_bytes + r.undecodable.incomplete_messages + r.undecodable.missing_bytes,
        0,
        "{what}: everything decoded"
    );
    let tls = r.tls.as_ref().expect("TLS summary");
    assert_eq!(tls.connections, 2);
    let d = tls.decryption.as_ref().expect("key log given");
    assert_eq!(d.connections_decrypted, 2, "{what}");
    assert_eq!(
        (d.no_key, d.no_handshake, d.unsupported_suite),
        (0, 0, 0),
        "{what}"
    );
    assert_eq!((d.records_failed, d.records_without_key), (0, 0), "{what}");
    assert_eq!(d.versions.get(version).copied(), Some(2), "{what}");
    assert_eq!(d.alpn.get("http/1.1").copied(), Some(2), "{what}");
    assert_eq!(d.suites.len(), 2, "{what}: two suites, {:?}", d.suites);
    assert!(d.keylog_malformed.is_empty(), "{what}");
    assert!(
        r.findings.iter().any(|f| f.kind == "tls-decrypted"),
        "{what}"
    );
    assert!(!r.findings.iter().any(|f| f.kind == "tls-opaque"), "{what}");
}

/// The saved capture read again: without keys (connection level only), with every key
/// (the same counts), with the first connection's keys left out (no key for 1).
fn reread(dir: &Path, port: u16, live: &WatchReport, what: &str) {
    let cap = dir.join("cap.pcapng");
    let keys = std::fs::read_to_string(dir.join("keys.log")).expect("keys");

    let blind = watch::analyse(&capture::read_file(&cap, Some(port)).expect("read"), "file");
    assert_eq!(
        blind.requests.as_ref().expect("request figures").requests,
        0,
        "{what}: TLS hides requests"
    );
    let tls = blind.tls.as_ref().expect("TLS");
    assert_eq!((tls.connections, tls.full), (2, 2), "{what}");
    assert!(tls.decryption.is_none());
    assert!(blind.findings.iter().any(|f| f.kind == "tls-opaque"));

    let all = Arc::new(KeyLogFile::from_text(&keys));
    let r = watch::analyse(
        &capture::read_file_with_keys(&cap, Some(port), Some(all)).expect("read"),
        "file",
    );
    assert_eq!(
        r.requests.as_ref().expect("request figures").requests,
        live.requests.as_ref().expect("request figures").requests,
        "{what}"
    );
    assert_eq!(
        r.requests.as_ref().expect("request figures").qtime_decoded,
        live.requests
            .as_ref()
            .expect("request figures")
            .qtime_decoded
    );
    assert_eq!(
        r.requests
            .as_ref()
            .expect("request figures")
            .compressed_responses,
        live.requests
            .as_ref()
            .expect("request figures")
            .compressed_responses
    );

    // The first connection's client random, from the first key line.
    let first = keys
        .lines()
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .and_then(|l| l.split_whitespace().nth(1))
        .expect("a key line")
        .to_string();
    let rest: String = keys
        .lines()
        .filter(|l| !l.contains(&first))
        .map(|l| format!("{l}\n"))
        .collect();
    let part = Arc::new(KeyLogFile::from_text(&rest));
    let r = watch::analyse(
        &capture::read_file_with_keys(&cap, Some(port), Some(part)).expect("read"),
        "file",
    );
    print(&r);
    let d = r
        .tls
        .as_ref()
        .and_then(|t| t.decryption.as_ref())
        .expect("decryption");
    assert_eq!((d.connections_decrypted, d.no_key), (1, 1), "{what}");
    assert_eq!(
        r.requests.as_ref().expect("request figures").requests,
        R,
        "{what}: the keyed connection's requests"
    );
    let opaque = r
        .findings
        .iter()
        .find(|f| f.kind == "tls-opaque")
        .expect("tls-opaque finding");
    assert!(
        opaque.what.contains("no key for 1 TLS connections"),
        "{}",
        opaque.what
    );
}

/// `transport-bench watch --read CAP --keylog KEYS`: the flag reaches the analysis, and
/// `watch.json` with `tls.decryption` is valid against the published schema.
async fn cli_reads_with_keylog(dir: &Path, port: u16) {
    let out = dir.join("out");
    let args: Vec<String> = [
        "transport-bench",
        "watch",
        "--read",
        &dir.join("cap.pcapng").display().to_string(),
        "--keylog",
        &dir.join("keys.log").display().to_string(),
        "--port",
        &port.to_string(),
        "--quiet",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let cli = <transport_bench::cli::Cli as clap::Parser>::parse_from(args);
    transport_bench::cli::run(cli)
        .await
        .expect("watch --read --keylog");
    let json = support::read_json(&out.join("watch.json"));
    support::assert_schema_valid(&watch::watch_schema(), &json);
    assert_eq!(json["requests"]["requests"], 2 * R);
    assert_eq!(json["requests"]["qtime_decoded"], 2 * R);
    assert_eq!(json["tls"]["decryption"]["connections_decrypted"], 2);
    assert_eq!(json["tls"]["decryption"]["no_key"], 0);
}

#[tokio::test]
async fn tls12_and_tls13_decrypted_with_curls_key_log() {
    let s = setup().await;
    let _g = support::exclusive().await;

    let d12 = dir("12");
    let r12 = capture_two_invocations(
        &s,
        &d12,
        &["--tlsv1.2", "--tls-max", "1.2"],
        &[
            "--ciphers",
            "ECDHE-RSA-CHACHA20-POLY1305:ECDHE-ECDSA-CHACHA20-POLY1305",
        ],
    );
    assert_decrypted(&r12, "1.2", "TLS 1.2");
    let suites12 = &r12
        .tls
        .as_ref()
        .and_then(|t| t.decryption.as_ref())
        .expect("d")
        .suites;
    assert!(
        suites12.keys().any(|k| k.contains("CHACHA20")),
        "{suites12:?}"
    );
    reread(&d12, s.port, &r12, "TLS 1.2");

    let d13 = dir("13");
    let r13 = capture_two_invocations(
        &s,
        &d13,
        &["--tlsv1.3"],
        &["--tls13-ciphers", "TLS_CHACHA20_POLY1305_SHA256"],
    );
    assert_decrypted(&r13, "1.3", "TLS 1.3");
    let suites13 = &r13
        .tls
        .as_ref()
        .and_then(|t| t.decryption.as_ref())
        .expect("d")
        .suites;
    assert_eq!(
        suites13.get("TLS_CHACHA20_POLY1305_SHA256").copied(),
        Some(1),
        "{suites13:?}"
    );
    reread(&d13, s.port, &r13, "TLS 1.3");
    cli_reads_with_keylog(&d13, s.port).await;

    let _ = std::fs::remove_dir_all(&d12);
    let _ = std::fs::remove_dir_all(&d13);
}

/// HTTPS with ALPN `h2` (curl `--http2`, TLS 1.3): the decrypted bytes go to the HTTP/2
/// decoder, so each stream is a request with its gzip and QTime, exactly as curl made them.
/// One invocation per URL (each its own connection), plain then `--compressed`.
#[tokio::test]
async fn tls13_alpn_h2_decrypted_with_curls_key_log() {
    let s = setup().await;
    let _g = support::exclusive().await;
    let d = dir("h2");
    let keys = d.join("keys.log");
    let log = Arc::new(KeyLogFile::open(&keys).expect("key log"));
    let live = LiveWatch::start_with_keys("lo", s.port, None, Some(log))
        .expect("capture on lo (root or CAP_NET_RAW)");
    for gzip in [false, true] {
        let mut args = vec!["--cacert", s.ca.as_str(), "--tlsv1.3"];
        if gzip {
            args.push("--compressed");
        }
        args.push(s.url.as_str());
        curl_as("--http2", &args, Some(&keys));
    }
    let r = watch::analyse(&live.stop().expect("capture"), "lo");
    print(&r);

    let dec = r
        .tls
        .as_ref()
        .and_then(|t| t.decryption.as_ref())
        .expect("decryption");
    assert_eq!(dec.connections_decrypted, 2, "one connection per curl run");
    assert_eq!(dec.alpn.get("h2").copied(), Some(2), "{:?}", dec.alpn);
    assert_eq!((dec.records_failed, dec.records_without_key), (0, 0));
    let h2 = r.http2.as_ref().expect("HTTP/2 summary");
    assert_eq!(h2.tls, 2, "both connections are h2 inside TLS");
    assert_eq!(h2.streams, 2, "one stream per request");
    let q = r.requests.as_ref().expect("request figures");
    assert_eq!(q.requests, 2, "requests");
    assert_eq!(q.answered, 2, "answered");
    assert_eq!(q.statuses.get("200").copied(), Some(2));
    assert_eq!(q.qtime_decoded, 2, "QTime decoded");
    assert_eq!(q.accept_gzip, 1, "--compressed asked");
    assert_eq!(q.compressed_responses, 1, "gzip received");
    let _ = std::fs::remove_dir_all(&d);
}
