//! `transport-bench audit --proxy` and `study --proxy` through a real HTTP proxy (Debian's
//! tinyproxy, [`crate::support::tinyproxy`]) to the https node: every request passes
//! through the proxy's `CONNECT` tunnels, the three witnesses count connections to the
//! proxy's port and agree, the proxy's own log counts exactly as many, and the report says
//! a proxy was used.
//!
//! As root, the measured client runs in its own network namespace (`198.19.X.2`), so the
//! proxy's log tells the measured runs' connections from those of `audit`'s idle-penalty
//! probe, which runs in the root namespace (`127.0.0.1`).

use transport_bench::scenario::study::{load_summary, StudyReport};

use crate::support::tinyproxy::{ProxyRules, TinyProxy};
use crate::support::{self, tag};

/// The https node, its CA, and a proxy that tunnels to it.
fn https_behind_proxy() -> (String, String, TinyProxy) {
    let s = support::standalone_tls();
    let url = s.url(None).expect("url").to_string();
    let port = url::Url::parse(&url).expect("url").port().expect("port");
    let ca = s.ca.as_ref().expect("CA").display().to_string();
    let tp = TinyProxy::start(&ProxyRules {
        connect_port: port,
        basic_auth: None,
    });
    (url, ca, tp)
}

/// The proxy's `CONNECT` lines are all to the node, one per accepted connection.
fn assert_only_tunnels(tp: &TinyProxy, url: &str) {
    let authority = url::Url::parse(url).expect("url");
    let want = format!(
        "CONNECT {}:{} HTTP/1.1",
        authority.host_str().expect("host"),
        authority.port().expect("port")
    );
    let lines = tp.requests();
    assert_eq!(
        lines.len(),
        tp.accepted() - 1,
        "one request line per connection (the start-up probe sent none): {lines:?}"
    );
    assert!(lines.iter().all(|l| *l == want), "{lines:?}");
}

/// Every transport's witnesses counted and agree; returns the connections they counted.
fn agreed_connections(r: &StudyReport) -> u64 {
    let mut total = 0;
    for t in &r.transports {
        let w = &t.witnesses;
        assert_eq!(t.errors, 0, "{}: {:?}", t.transport, t);
        assert_eq!(
            w.counted,
            ["connector", "kernel", "pcap"],
            "{}",
            t.transport
        );
        assert_eq!(
            (w.kernel_active_opens, w.pcap_syns, w.agree),
            (w.connector, Some(w.connector), Some(true)),
            "{}: kernel and pcap count the connections to the proxy",
            t.transport
        );
        total += w.connector;
    }
    total
}

fn report_says_proxy(out: &std::path::Path, r: &StudyReport, proxy: &str) {
    assert_eq!(r.settings["proxy"], proxy);
    let text = std::fs::read_to_string(out.join("report.txt")).expect("report.txt");
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.ends_with(&format!("through the HTTP proxy {proxy}")),
        "{first}"
    );
}

#[tokio::test]
async fn study_through_a_proxy_counts_the_proxys_connections() {
    let (url, ca, tp) = https_behind_proxy();
    let out = std::env::temp_dir().join(tag("study-proxy"));
    let before = tp.accepted();
    {
        let _g = support::exclusive().await;
        let cli = support::searches_only_study(
            &url,
            &out,
            "6",
            &[
                "--reps",
                "1",
                "--transports",
                "pooled",
                "--ca",
                &ca,
                "--proxy",
                &tp.url,
            ],
        );
        transport_bench::cli::run(cli).await.expect("study runs");
    }
    let r = load_summary(&out).expect("summary.json");
    assert_eq!(r.transports.len(), 1);
    assert_eq!(r.transports[0].wall.n, 6);
    // One kept-alive tunnel for the pooled transport, as the proxy itself counted.
    assert_eq!(agreed_connections(&r), 1);
    assert_eq!(tp.accepted() - before, 1);
    assert_eq!(
        tp.accepted_from("198.19."),
        1,
        "from the client's namespace"
    );
    assert_only_tunnels(&tp, &url);
    report_says_proxy(&out, &r, &tp.url);
    let _ = std::fs::remove_dir_all(&out);
}

#[tokio::test]
async fn audit_through_a_proxy_counts_the_proxys_connections() {
    let (url, ca, tp) = https_behind_proxy();
    let out = std::env::temp_dir().join(tag("audit-proxy"));
    let before = tp.accepted_from("127.");
    {
        let _g = support::exclusive().await;
        let args = [
            "audit",
            "--url",
            &url,
            "--ca",
            &ca,
            "--proxy",
            &tp.url,
            "--searches",
            "3",
            "--idle-gaps",
            "0",
            "--idle-searches",
            "2",
            "--idle-warmer",
            "0",
            "--quiet",
            "--out",
            out.to_str().expect("utf-8"),
        ];
        use clap::Parser;
        let cli = transport_bench::cli::Cli::parse_from(
            std::iter::once("transport-bench").chain(args.iter().copied()),
        );
        transport_bench::cli::run(cli).await.expect("audit runs");
    }
    let r = load_summary(&out).expect("summary.json");
    // Every transport, with and without gzip: 3 searches each.
    assert_eq!(r.transports.len(), 8);
    assert!(
        r.transports.iter().all(|t| t.wall.n == 3),
        "{:?}",
        r.transports
    );
    let measured = agreed_connections(&r);
    assert_eq!(tp.accepted_from("198.19.") as u64, measured);
    // The idle-penalty probe went through the proxy too: one kept-alive tunnel.
    let idle = r.idle.as_ref().expect("the idle-penalty probe ran");
    assert!(idle.gaps.iter().all(|g| g.errors == 0), "{idle:?}");
    assert_eq!(tp.accepted_from("127.") - before, 1);
    assert_only_tunnels(&tp, &url);
    report_says_proxy(&out, &r, &tp.url);
    let _ = std::fs::remove_dir_all(&out);
}

/// `--proxy` with credentials in its URL (a proxy wanting them): the study goes through,
/// so they were sent, and no file of the run shows the password; the report names the
/// proxy as `user:***@host:port`.
#[tokio::test]
async fn study_through_a_proxy_with_credentials_never_shows_the_password() {
    const PASSWORD: &str = "cliPr0xyS3cret";
    let s = support::standalone_tls();
    let url = s.url(None).expect("url").to_string();
    let port = url::Url::parse(&url).expect("url").port().expect("port");
    let ca = s.ca.as_ref().expect("CA").display().to_string();
    let tp = TinyProxy::start(&ProxyRules {
        connect_port: port,
        basic_auth: Some(("bench", PASSWORD)),
    });
    let host_port = tp.url.trim_start_matches("http://").to_string();
    let proxy = format!("http://bench:{PASSWORD}@{host_port}");
    let out = std::env::temp_dir().join(tag("study-proxy-auth"));
    let before = tp.accepted();
    {
        let _g = support::exclusive().await;
        let extra = [
            "--reps",
            "1",
            "--transports",
            "pooled",
            "--ca",
            &ca,
            "--proxy",
            &proxy,
        ];
        let cli = support::searches_only_study(&url, &out, "4", &extra);
        transport_bench::cli::run(cli).await.expect("study runs");
    }
    let r = load_summary(&out).expect("summary.json");
    assert_eq!(r.transports[0].wall.n, 4);
    assert_eq!(agreed_connections(&r), 1);
    assert_eq!(tp.accepted() - before, 1);
    report_says_proxy(&out, &r, &format!("http://bench:***@{host_port}"));
    for file in std::fs::read_dir(&out).expect("the run's folder") {
        let path = file.expect("an entry").path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
        assert!(!text.contains(PASSWORD), "{path:?} shows the password");
    }
    let _ = std::fs::remove_dir_all(&out);
}
