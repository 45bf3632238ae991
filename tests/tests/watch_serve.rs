//! `watch --serve` against the real local Solr: the pcap watch's `/metrics` counting curl's
//! requests live under its `--host-label`; an address in use refused before any capture;
//! scrapes while the daemon shuts down (each a full answer or a refused connection); and,
//! with `--ebpf`, 500 short-lived curl processes as exactly 500 pid series, all gone after
//! the grace period.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use clap::Parser;

use crate::support;
use crate::watch::{curl, search_url};

/// A port free a moment ago on 127.0.0.1.
fn free_addr() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr")
}

/// What one scrape got: `None` when the connection was refused or reset before any byte.
fn scrape(addr: SocketAddr, path: &str) -> Option<String> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).ok()?;
    let mut out = Vec::new();
    match s.read_to_end(&mut out) {
        Ok(_) if !out.is_empty() => Some(String::from_utf8_lossy(&out).into_owned()),
        Ok(_) => None,
        Err(_) if out.is_empty() => None,
        Err(e) => panic!("a scrape cut short after {} bytes: {e}", out.len()),
    }
}

/// The body of a full answer (status 200, OpenMetrics, ending with `# EOF`).
fn exposition(addr: SocketAddr) -> String {
    let r = scrape(addr, "/metrics").expect("an answer");
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
    assert!(r.contains("application/openmetrics-text"), "{r}");
    let body = r.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    assert!(body.ends_with("# EOF\n"), "a whole exposition: {body}");
    body.to_string()
}

fn cli(args: &[&str]) -> transport_bench::cli::Cli {
    transport_bench::cli::Cli::parse_from(["transport-bench", "watch"].iter().chain(args).copied())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pcap_serve_counts_requests_live_under_its_host_label() {
    let (_, url, port) = search_url().await;
    let addr = free_addr();
    let (a, p) = (addr.to_string(), port.to_string());
    let args = ["--serve", &a, "--port", &p, "--interface", "lo"];
    let args: Vec<&str> = args
        .into_iter()
        .chain(["--duration", "10s", "--host-label", "ns-a"])
        .collect();
    let _g = support::exclusive().await;
    let task = tokio::spawn(transport_bench::cli::run(cli(&args)));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let body = tokio::task::spawn_blocking(move || {
        curl(&[&url, &url, &url]);
        std::thread::sleep(Duration::from_millis(500));
        let nf = scrape(addr, "/other").expect("an answer");
        assert!(nf.starts_with("HTTP/1.1 404"), "{nf}");
        exposition(addr)
    })
    .await
    .expect("scrape");
    for want in [
        "solr_watch_requests_total{host=\"ns-a\"} 3",
        "solr_watch_connections_opened_total{host=\"ns-a\"} 1",
        "solr_watch_connections_reused_requests_total{host=\"ns-a\"} 2",
        "solr_watch_qtime_seconds_count{host=\"ns-a\"} 3",
        "solr_watch_outside_solr_seconds_count{host=\"ns-a\"} 3",
        "solr_watch_response_bytes_total{host=\"ns-a\",encoding=\"identity\"}",
    ] {
        assert!(
            body.lines().any(|l| l.starts_with(want)),
            "{want} in\n{body}"
        );
    }
    task.await
        .expect("join")
        .expect("the watch ends after --duration");
}

#[tokio::test]
async fn an_address_in_use_is_refused_before_any_capture_starts() {
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let a = taken.local_addr().expect("addr").to_string();
    // A capture device that does not exist: refused for it would mean the capture came first.
    let args = [
        "--serve",
        &a,
        "--port",
        "8983",
        "--interface",
        "no-such-if0",
    ];
    let e = transport_bench::cli::run(cli(&args))
        .await
        .expect_err("address in use");
    let msg = format!("{e:#}");
    assert!(
        msg.starts_with(&format!("address already in use: {a}")),
        "{msg}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrapes_during_shutdown_get_a_full_answer_or_a_refusal() {
    let addr = free_addr();
    let a = addr.to_string();
    let args = ["--serve", &a, "--port", "1", "--interface", "lo"];
    let args: Vec<&str> = args.into_iter().chain(["--duration", "3s"]).collect();
    let task = tokio::spawn(transport_bench::cli::run(cli(&args)));
    let scraper = std::thread::spawn(move || {
        let (mut full, mut refused) = (0u32, 0u32);
        let end = std::time::Instant::now() + Duration::from_secs(6);
        while std::time::Instant::now() < end {
            match scrape(addr, "/metrics") {
                Some(r) => {
                    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
                    assert!(r.ends_with("# EOF\n"), "a whole exposition: {r}");
                    full += 1;
                }
                None => refused += 1,
            }
        }
        (full, refused)
    });
    task.await.expect("join").expect("no panic, no error");
    let (full, refused) = tokio::task::spawn_blocking(move || scraper.join().expect("scraper"))
        .await
        .expect("join");
    eprintln!("{full} full answers, {refused} refused");
    assert!(full > 0 && refused > 0, "{full} full, {refused} refused");
}

/// The pids of the series of `solr_watch_requests_total` whose `comm` is curl.
fn curl_pids(body: &str) -> BTreeSet<u32> {
    body.lines()
        .filter(|l| l.starts_with("solr_watch_requests_total{") && l.contains("comm=\"curl\""))
        .filter_map(|l| l.split("pid=\"").nth(1)?.split('"').next()?.parse().ok())
        .collect()
}

#[test]
fn ebpf_serve_holds_500_short_lived_curls_then_forgets_them() {
    use solr_watch::ebpf::{self, EbpfOptions};
    use solr_watch::serve::{self, Metrics, Server};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    let _g = support::exclusive_blocking();
    let s = support::standalone();
    let base = s.url(None).expect("url").to_string();
    let port = url::Url::parse(&base)
        .ok()
        .and_then(|u| u.port())
        .expect("port");
    let forget = Duration::from_secs(30);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let metrics = Arc::new(Mutex::new(Metrics::new("e2e")));
    let listener = rt.block_on(serve::bind("127.0.0.1:0")).expect("bind");
    let server = rt
        .block_on(async { Server::spawn(listener, metrics.clone()) })
        .expect("server");
    let addr = server.addr;
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let st = stop.clone();
    let watch = std::thread::spawn(move || {
        let opts = EbpfOptions {
            ports: vec![port],
            duration: None,
            tls_binaries: Vec::new(),
        };
        let ready = ebpf::Ready::check().unwrap_or_else(|e| panic!("{e:#}"));
        let probes = ready
            .attach(&opts)
            .unwrap_or_else(|e| panic!("attach: {e:#}"));
        tx.send(()).expect("send");
        serve::ebpf::serve(&probes, &opts, &st, metrics, forget).expect("serve");
    });
    rx.recv().expect("the probes attached");
    let url = format!("{base}/bench/select?q=*:*&rows=0&wt=json");
    // Each curl's pid and when it was seen to exit: on a loaded machine 500 curls may take
    // longer than the grace period, so which pids must still be held depends on those times.
    let mut exited = Vec::new();
    for _ in 0..500 {
        let mut c = std::process::Command::new("curl");
        c.args(["-sS", "--fail", "-o", "/dev/null", &url]);
        let mut child = c.spawn().expect("curl");
        let pid = child.id();
        assert!(child.wait().expect("curl").success());
        exited.push((pid, std::time::Instant::now()));
    }
    std::thread::sleep(Duration::from_millis(500));
    let held = curl_pids(&exposition(addr));
    let now = std::time::Instant::now();
    // A sweep runs each second: a pid is surely held within grace minus 2 s of its exit, and
    // surely gone 3 s after its grace; in between it may be either.
    let must_hold: BTreeSet<u32> = exited
        .iter()
        .filter(|(_, at)| now - *at + Duration::from_secs(2) < forget)
        .map(|(pid, _)| *pid)
        .collect();
    let must_be_gone: BTreeSet<u32> = exited
        .iter()
        .filter(|(_, at)| now - *at > forget + Duration::from_secs(3))
        .map(|(pid, _)| *pid)
        .collect();
    let spawned: BTreeSet<u32> = exited.iter().map(|(pid, _)| *pid).collect();
    assert!(
        !must_hold.is_empty(),
        "no curl exited within the grace period"
    );
    assert_eq!(
        held.intersection(&must_hold).count(),
        must_hold.len(),
        "every pid in its grace period has a series"
    );
    assert_eq!(held.intersection(&must_be_gone).count(), 0, "{held:?}");
    assert!(held.is_subset(&spawned), "a series for a pid no curl had");
    // Exit is seen within a second of a sweep, then the grace period.
    std::thread::sleep(forget + Duration::from_secs(3));
    let left = curl_pids(&exposition(addr));
    assert_eq!(left.intersection(&spawned).count(), 0, "{left:?}");
    stop.store(true, Ordering::Relaxed);
    watch.join().expect("watch thread");
    rt.block_on(server.shutdown());
}
