//! The fleet view (docs/fleet.md) end to end: two application hosts (network namespaces,
//! `support::app_host`), each with a pcap `watch --serve --host-label` on its own veth and one
//! real client; a real Prometheus scraping both watchers every second; PromQL through its
//! HTTP API must give exactly what the clients did.
//!
//! host-a runs curl once per request (a new connection each time, no gzip asked); host-b
//! runs one curl with all its URLs (one connection reused, `--compressed`). curl's own
//! `%{num_connects}` write-out counts the connections each client opened: the witness the
//! exported counters are held to.

use crate::support::{self, app_host, app_host::AppHost, prometheus::Prometheus};

/// Requests of host-a (one curl run each).
const N_A: usize = 5;
/// Requests of host-b (one curl run with all of them).
const N_B: usize = 8;

/// What a client did, counted by the client itself.
#[derive(Debug, Default, PartialEq)]
struct Did {
    requests: u64,
    connections: u64,
}

/// Adds up curl's `-w '%{num_connects} %{http_code}\n'` lines: one per transfer.
fn tally(out: &[u8], did: &mut Did) {
    for line in String::from_utf8_lossy(out).lines() {
        let (connects, code) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("write-out line {line:?}"));
        assert_eq!(code, "200", "every search answered");
        did.requests += 1;
        did.connections += connects.parse::<u64>().expect("num_connects");
    }
}

/// curl arguments that send `urls` in one run, bodies dropped, one write-out line each.
fn curl_args(extra: &[&str], urls: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["-sS", "--fail", "-w", "%{num_connects} %{http_code}\\n"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
    for u in urls {
        args.extend(["-o".to_string(), "/dev/null".to_string(), u.to_string()]);
    }
    args
}

/// The per-host figures of the contract's counters, as Prometheus answers them.
fn per_host(prom: &Prometheus, metric: &str) -> std::collections::BTreeMap<String, f64> {
    prom.by("host", &format!("sum by (host) ({metric})"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_counts_each_host_and_the_fleet_exactly() {
    app_host::run_watch_child_if_asked().await;
    const TEST: &str = "fleet::prometheus_counts_each_host_and_the_fleet_exactly";
    let (_, url, port) = crate::watch::search_url().await;
    let _g = support::shared().await;
    let (mut a, mut b) = (AppHost::create("host-a"), AppHost::create("host-b"));
    a.start_watch(port, TEST);
    b.start_watch(port, TEST);
    let Some(prom) = Prometheus::start(&[a.target(), b.target()], TEST) else {
        return;
    };
    // Both watchers scraped once before any client runs.
    prom.wait_scraped_after(2, 0.0, std::time::Duration::from_secs(30));

    let (mut did_a, mut did_b) = (Did::default(), Did::default());
    for _ in 0..N_A {
        tally(&a.run("curl", &curl_args(&[], &[&url])).stdout, &mut did_a);
    }
    let urls: Vec<&str> = std::iter::repeat_n(url.as_str(), N_B).collect();
    let out = b.run("curl", &curl_args(&["--compressed"], &urls));
    tally(&out.stdout, &mut did_b);
    let ended = support::prometheus::unix_now();
    assert_eq!(
        (&did_a, &did_b),
        (
            &Did {
                requests: N_A as u64,
                connections: N_A as u64
            },
            &Did {
                requests: N_B as u64,
                connections: 1
            }
        ),
        "curl's own count"
    );

    // A scrape that began 2 s after the clients ended: pcap delivers packets at once
    // (immediate mode), so the watchers had counted everything by then.
    prom.wait_scraped_after(2, ended + 2.0, std::time::Duration::from_secs(30));
    let want = |a: u64, b: u64| {
        [
            ("host-a".to_string(), a as f64),
            ("host-b".to_string(), b as f64),
        ]
        .into_iter()
        .collect::<std::collections::BTreeMap<_, _>>()
    };
    let logs = || format!("host-a:\n{}\nhost-b:\n{}", a.watch_log(), b.watch_log());
    assert_eq!(
        per_host(&prom, "solr_watch_requests_total"),
        want(did_a.requests, did_b.requests),
        "requests per host\n{}",
        logs()
    );
    assert_eq!(
        per_host(&prom, "solr_watch_connections_opened_total"),
        want(did_a.connections, did_b.connections),
        "connections opened per host"
    );
    // Every request but each connection's first went on a used connection.
    let reused = |d: &Did| d.requests - d.connections;
    assert_eq!(
        per_host(&prom, "solr_watch_connections_reused_requests_total"),
        want(reused(&did_a), reused(&did_b)),
        "reused requests per host"
    );
    let ratio = prom.by(
        "host",
        "sum by (host) (solr_watch_connections_reused_requests_total) \
         / sum by (host) (solr_watch_requests_total)",
    );
    let expect_ratio = |d: &Did| reused(d) as f64 / d.requests as f64;
    assert_eq!(
        ratio,
        [
            ("host-a".to_string(), expect_ratio(&did_a)),
            ("host-b".to_string(), expect_ratio(&did_b))
        ]
        .into_iter()
        .collect(),
        "reuse ratio per host"
    );
    assert_eq!(
        prom.scalar("sum(solr_watch_requests_total)"),
        (did_a.requests + did_b.requests) as f64,
        "fleet requests"
    );
    assert_eq!(
        prom.scalar("sum(solr_watch_connections_opened_total)"),
        (did_a.connections + did_b.connections) as f64,
        "fleet connections"
    );
    assert_eq!(
        prom.scalar("sum(solr_watch_connections_reused_requests_total)"),
        (reused(&did_a) + reused(&did_b)) as f64,
        "fleet reused requests"
    );
}
