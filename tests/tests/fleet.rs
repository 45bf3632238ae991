//! The fleet view (docs/fleet.md) end to end: two application hosts (network namespaces,
//! `support::app_host`), each with a pcap `watch --serve --host-label` on its own veth and one
//! real client; a real Prometheus scraping both watchers every second; PromQL through its
//! HTTP API must give exactly what the clients did.
//!
//! host-a runs curl once per request (a new connection each time, no gzip asked); host-b
//! runs one curl with all its URLs (one connection reused, `--compressed`). curl's own
//! `%{num_connects}` write-out counts the connections each client opened: the witness the
//! exported counters are held to.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use solr_harness::local_solr::project_root;

use crate::support::prometheus::{unix_now, Prometheus};
use crate::support::{self, app_host, app_host::AppHost};

/// Requests of host-a (one curl run each).
const N_A: usize = 5;
/// Requests of host-b (one curl run with all of them).
const N_B: usize = 8;

/// What a client did, counted by the client itself.
#[derive(Debug, Default, PartialEq)]
struct Did {
    requests: u64,
    connections: u64,
    /// Response body bytes as received (compressed when the server compressed).
    body_bytes: u64,
}

/// Adds up curl's `-w '%{num_connects} %{size_download} %{http_code}\n'` lines: one per
/// transfer.
fn tally(out: &[u8], did: &mut Did) {
    for line in String::from_utf8_lossy(out).lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let [connects, bytes, code] = fields[..] else {
            panic!("write-out line {line:?}");
        };
        assert_eq!(code, "200", "every search answered");
        did.requests += 1;
        did.connections += connects.parse::<u64>().expect("num_connects");
        did.body_bytes += bytes.parse::<u64>().expect("size_download");
    }
}

/// curl arguments that send `urls` in one run, bodies dropped, one write-out line each.
fn curl_args(extra: &[&str], urls: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "-sS",
        "--fail",
        "-w",
        "%{num_connects} %{size_download} %{http_code}\\n",
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect();
    for u in urls {
        args.extend(["-o".to_string(), "/dev/null".to_string(), u.to_string()]);
    }
    args
}

/// The per-host figures of a counter of the contract, as Prometheus answers them; 0 for a
/// host that exports requests but no series of `metric` (a series appears with its first
/// increment).
fn per_host(prom: &Prometheus, metric: &str) -> BTreeMap<String, f64> {
    prom.by(
        "host",
        &format!("sum by (host) ({metric}) or sum by (host) (solr_watch_requests_total) * 0"),
    )
}

/// Runs host-a's and host-b's clients; what each did, by curl's own count.
fn run_clients(a: &AppHost, b: &AppHost, url: &str) -> (Did, Did) {
    let (mut did_a, mut did_b) = (Did::default(), Did::default());
    for _ in 0..N_A {
        tally(&a.run("curl", &curl_args(&[], &[url])).stdout, &mut did_a);
    }
    let urls: Vec<&str> = std::iter::repeat_n(url, N_B).collect();
    let out = b.run("curl", &curl_args(&["--compressed"], &urls));
    tally(&out.stdout, &mut did_b);
    (did_a, did_b)
}

/// `host-a -> a, host-b -> b`.
fn hosts(a: f64, b: f64) -> BTreeMap<String, f64> {
    [("host-a".to_string(), a), ("host-b".to_string(), b)]
        .into_iter()
        .collect()
}

/// Each host's counters and reuse ratio, and the fleet totals, as Prometheus answers them,
/// against what the clients did.
fn assert_exact(prom: &Prometheus, a: &Did, b: &Did, logs: &dyn Fn() -> String) {
    let n = |x: u64| x as f64;
    // Every request but each connection's first went on a used connection.
    let reused = |d: &Did| d.requests - d.connections;
    for (metric, want_a, want_b) in [
        ("solr_watch_requests_total", a.requests, b.requests),
        (
            "solr_watch_connections_opened_total",
            a.connections,
            b.connections,
        ),
        (
            "solr_watch_connections_reused_requests_total",
            reused(a),
            reused(b),
        ),
        // Every answer carried a QTime (gunzipped on host-b): one observation each.
        (
            "solr_watch_request_wall_seconds_count",
            a.requests,
            b.requests,
        ),
        ("solr_watch_qtime_seconds_count", a.requests, b.requests),
        (
            "solr_watch_outside_solr_seconds_count",
            a.requests,
            b.requests,
        ),
    ] {
        assert_eq!(
            per_host(prom, metric),
            hosts(n(want_a), n(want_b)),
            "{metric} per host\n{}",
            logs()
        );
        assert_eq!(
            prom.scalar(&format!("sum({metric})")),
            n(want_a + want_b),
            "{metric}: the fleet's total"
        );
    }
    // A series appears with its first increment: a host that never reused a connection has
    // no reused series, so it counts 0 (docs/fleet.md writes the ratio the same way).
    let ratio = prom.by(
        "host",
        "(sum by (host) (solr_watch_connections_reused_requests_total) \
         or sum by (host) (solr_watch_requests_total) * 0) \
         / sum by (host) (solr_watch_requests_total)",
    );
    let expect = |d: &Did| n(reused(d)) / n(d.requests);
    assert_eq!(ratio, hosts(expect(a), expect(b)), "reuse ratio per host");
    // host-a never asked for gzip, host-b did (--compressed): the bytes by encoding, and
    // who received no compressed byte at all.
    let bytes = prom.query("sum by (host, encoding) (solr_watch_response_bytes_total)");
    let mut bytes: Vec<(&str, &str, f64)> = bytes
        .iter()
        .map(|s| {
            (
                s.labels["host"].as_str(),
                s.labels["encoding"].as_str(),
                s.value,
            )
        })
        .collect();
    bytes.sort_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)));
    assert_eq!(
        bytes,
        [
            ("host-a", "identity", n(a.body_bytes)),
            ("host-b", "gzip", n(b.body_bytes))
        ],
        "response bytes by host and encoding (curl's size_download)"
    );
    let never_gzip = prom.by(
        "host",
        "sum by (host) (solr_watch_response_bytes_total{encoding=\"identity\"}) \
         unless sum by (host) (solr_watch_response_bytes_total{encoding!=\"identity\"})",
    );
    assert_eq!(never_gzip.keys().collect::<Vec<_>>(), ["host-a"]);
}

/// Every `solr_watch_` name docs/fleet.md and docs/fleet/ use, with where it is used.
fn names_in_fleet_docs() -> BTreeMap<String, String> {
    let root = project_root();
    let mut files = vec![root.join("docs/fleet.md")];
    let dir = root.join("docs/fleet");
    files.extend(
        std::fs::read_dir(&dir)
            .expect("docs/fleet")
            .map(|e| e.expect("entry").path()),
    );
    let mut names = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        for (i, _) in text.match_indices("solr_watch_") {
            let name: String = text[i..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.len() > "solr_watch_".len() {
                names.entry(name).or_insert_with(|| f.display().to_string());
            }
        }
    }
    names
}

/// The names a `/metrics` exposition can hold: each family of a `# TYPE` line and its
/// samples' names (`_total` of a counter; `_bucket`, `_sum`, `_count` of a histogram).
fn exported_names(exposition: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in exposition.lines() {
        let Some(rest) = line.strip_prefix("# TYPE ") else {
            continue;
        };
        let (family, kind) = rest.split_once(' ').expect("# TYPE name type");
        names.insert(family.to_string());
        let suffixes: &[&str] = match kind {
            "counter" => &["_total", "_created"],
            "histogram" => &["_bucket", "_sum", "_count", "_created"],
            "info" => &["_info"],
            _ => &[],
        };
        names.extend(suffixes.iter().map(|s| format!("{family}{s}")));
    }
    names
}

/// Every name the watch's metrics can take, from its own registry
/// (`solr_watch::serve::Metrics`) with each family fed once: an empty family is not in the
/// exposition.
fn names_from_code() -> BTreeSet<String> {
    use solr_watch::serve::{Metrics, RequestSample, Who};
    let mut m = Metrics::new("h");
    let who = Who::host();
    m.connection_opened(&who);
    m.request(
        &who,
        &RequestSample {
            wall_s: 0.01,
            qtime_s: Some(0.002),
            response_bytes: 100,
            encoding: "gzip",
            update: Some(("json", 50)),
            reused: true,
        },
    );
    m.unreadable_connection(&who, "openssl");
    m.set_findings(&who, &BTreeSet::from(["no-reuse".to_string()]));
    exported_names(&m.encode().expect("exposition"))
}

/// Every `solr_watch_` name docs/fleet.md, the dashboard and the alert rules (and their
/// tests) use is one the watch exports.
#[test]
fn the_fleet_docs_name_only_metrics_the_watch_exports() {
    let exported = names_from_code();
    assert!(
        exported.contains("solr_watch_requests_total"),
        "the registry's names: {exported:?}"
    );
    let used = names_in_fleet_docs();
    assert!(used.len() >= 10, "names used in the fleet docs: {used:?}");
    let unknown: Vec<_> = used
        .iter()
        .filter(|(n, _)| !exported.contains(*n))
        .collect();
    assert!(
        unknown.is_empty(),
        "names the watch does not export: {unknown:?}\nexported: {exported:?}"
    );
}

/// What the watcher at `target` serves (its live `/metrics`) is named as its registry says.
fn assert_served_names_known(target: &str) {
    let url = format!("http://{target}/metrics");
    let served = exported_names(&String::from_utf8_lossy(&crate::watch::curl(&[&url])));
    assert!(served.contains("solr_watch_requests_total"), "{served:?}");
    let known = names_from_code();
    let unknown: Vec<_> = served.difference(&known).collect();
    assert!(unknown.is_empty(), "served but unknown: {unknown:?}");
}

/// docs/fleet/alerts.yml, loaded by the test's Prometheus, evaluates without error on the
/// watchers' real series (a division whose sides' labels do not match is an error only
/// there, never in `promtool check rules`).
fn assert_rules_evaluate(prom: &Prometheus) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let rules = prom.rules();
        assert!(rules.len() >= 4, "alert rules loaded: {rules:?}");
        let bad: Vec<_> = rules.iter().filter(|(_, h)| h != "ok").collect();
        if bad.is_empty() {
            return;
        }
        assert!(
            bad.iter().all(|(_, h)| h == "unknown") && std::time::Instant::now() < deadline,
            "alert rules that do not evaluate: {bad:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
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
    let alerts = project_root().join("docs/fleet/alerts.yml");
    let Some(prom) = Prometheus::start(&[a.target(), b.target()], Some(&alerts), TEST) else {
        return;
    };
    // Both watchers scraped once before any client runs.
    prom.wait_scraped_after(2, 0.0, Duration::from_secs(30));
    let (did_a, did_b) = run_clients(&a, &b, &url);
    let ended = unix_now();
    let count = |d: &Did| (d.requests, d.connections);
    assert_eq!(
        [count(&did_a), count(&did_b)],
        [(N_A as u64, N_A as u64), (N_B as u64, 1)],
        "curl's own count"
    );
    // A scrape that began 2 s after the clients ended: pcap delivers packets at once
    // (immediate mode), so the watchers had counted everything by then.
    prom.wait_scraped_after(2, ended + 2.0, Duration::from_secs(30));
    let logs = || format!("host-a:\n{}\nhost-b:\n{}", a.watch_log(), b.watch_log());
    assert_exact(&prom, &did_a, &did_b, &logs);
    assert_served_names_known(&b.target());
    assert_rules_evaluate(&prom);
}
