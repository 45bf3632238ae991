//! The WAN topology (needs root; CI runs as root): namespaces `stbt-app`/`stbt-solr`, the
//! delay line, the TLS 1.3 front proxy to the real standalone Solr; and the commands built on
//! it, in-process at a small scale: `sweep`, `large-responses`, `audit --rtt`.
//!
//! Each test builds and tears down its own topology under `support::exclusive()`: the
//! tests share the namespace prefix, and their ratios are timing-sensitive on a 2-core
//! machine, so nothing else runs beside them.

use std::net::SocketAddr;
use std::time::Duration;

use solr_client::{Select, SolrClient, TlsOptions, TransportKind};
use solr_harness::local_solr::project_root;
use transport_bench::scenario::study::StudyReport;
use wan_emu::{calibrate, LinkParams, TlsTermination, TlsVersion, Wan, WanConfig};

use crate::support;

fn rtt(ms: u64) -> LinkParams {
    LinkParams {
        rtt: Duration::from_millis(ms),
        ..Default::default()
    }
}

fn tls_dir() -> std::path::PathBuf {
    project_root().join("local-solr").join("run").join("tls")
}

/// A topology in front of the standalone Solr, TLS 1.3 at the proxy.
fn topology(link: LinkParams) -> Wan {
    let s = support::standalone();
    let u = url::Url::parse(s.url(None).expect("url")).expect("url parses");
    let upstream = SocketAddr::from(([127, 0, 0, 1], u.port().expect("port")));
    Wan::start(WanConfig {
        prefix: "stbt".into(),
        link,
        seed: 7,
        upstream,
        tls: Some(TlsTermination {
            version: TlsVersion::Tls13,
            cert_pem: tls_dir().join("server.pem"),
            key_pem: tls_dir().join("server.key"),
            resumption: false,
        }),
    })
    .unwrap_or_else(|e| panic!("WAN topology: {e:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_time_equals_rtt() {
    let _g = support::exclusive().await;
    let wan = topology(rtt(0));
    // The start's compensation connects, then this test's.
    let mut connects = (wan_emu::COMPENSATION_WARMUP + wan_emu::COMPENSATION_SAMPLES) as u64;
    let mut table = vec![format!(
        "forwarder's own round trip on held packets, measured at start and compensated: {:.3} ms",
        wan.compensation().as_secs_f64() * 1000.0
    )];
    let c0 = tokio::task::block_in_place(|| wan.calibrate(25)).expect("calibration");
    connects += 25;
    table.push(format!(
        "RTT  0 ms: connect p50 {:.3} ms (no hold, writers woken per packet)",
        c0.connect_p50_ms
    ));
    // The forwarder's own cost (0.1-0.4 ms) follows the machine's load and is 5-20 % of
    // RTT 2 ms: it is measured again before each point, and a point disturbed by a CPU
    // stall on this shared machine is measured again (up to 3 medians of 25); the
    // assertion holds the last of them.
    for ms in [2u64, 20, 80] {
        for attempt in 1..=3 {
            let comp = tokio::task::block_in_place(|| wan.compensate()).expect("compensation");
            connects += (wan_emu::COMPENSATION_WARMUP + wan_emu::COMPENSATION_SAMPLES) as u64;
            wan.set_link(rtt(ms));
            let c = tokio::task::block_in_place(|| wan.calibrate(25)).expect("calibration");
            connects += 25;
            let ratio = c.connect_ratio.expect("ratio at RTT > 0");
            table.push(format!(
                "RTT {ms:>2} ms (attempt {attempt}): compensation {:.3} ms, connect p50 {:.3} ms, ratio {ratio:.3}",
                comp.as_secs_f64() * 1000.0,
                c.connect_p50_ms,
            ));
            if (0.9..=1.1).contains(&ratio) {
                break;
            }
            assert!(
                attempt < 3,
                "RTT {ms} ms: median connect {:.3} ms, ratio {ratio:.3} not within 10% in 3 attempts\n{}",
                c.connect_p50_ms,
                table.join("\n")
            );
        }
    }
    eprintln!("{}", table.join("\n"));
    // The server side accepts RTT/2 after the client's connect returns (the final ACK is
    // still on the line): let the last ones land before counting.
    let expected = connects;
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while wan.proxy_stats().0 < expected && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (accepted, handshakes, upstream, _) = wan.proxy_stats();
    assert_eq!(
        accepted, expected,
        "every calibration connect reached the proxy"
    );
    assert_eq!(handshakes, 0, "bare connects send no ClientHello");
    assert_eq!(upstream, 0, "bare connects never reach Solr");
    wan.stop().expect("teardown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_transfer_runs_at_the_bandwidth_cap() {
    let _g = support::exclusive().await;
    let link = LinkParams {
        rtt: Duration::from_millis(20),
        bandwidth_bps: Some(wan_emu::parse_rate("100mbit").expect("rate")),
        ..Default::default()
    };
    let wan = topology(link);
    let c = tokio::task::block_in_place(|| wan.calibrate(5)).expect("calibration");
    let ratio = c.bandwidth_ratio.expect("bandwidth measured");
    let (_, down) = wan.link_stats();
    eprintln!(
        "{c}; solr->app {} packets, {} dropped",
        down.packets, down.dropped
    );
    assert!(
        (0.85..=1.02).contains(&ratio),
        "goodput {:.1} Mbit/s is {ratio:.3} of the 100 Mbit/s cap",
        c.goodput_bps.unwrap_or(0.0) / 1e6
    );
    wan.stop().expect("teardown");
}

/// What [`fresh_pooled_p50`] measured.
struct FreshPooled {
    /// Median total of the fresh selects, ms.
    fresh: f64,
    /// Median total of the pooled selects, ms.
    pooled: f64,
    /// Measured fresh selects that reused a connection.
    fresh_reused: usize,
    /// Measured pooled selects that reused a connection.
    pooled_reused: usize,
    /// The largest answer a pooled select read (bytes on the socket, TLS records included).
    answer_bytes: u64,
}

/// Medians of `n` selects through `fresh` and `pooled`, alternating one of each so both see
/// the same machine load (after `warm` unmeasured ones each), in the app namespace; how
/// many measured requests reused a connection, per transport; and the largest answer.
///
/// The selects ask for no rows: the answer (a few hundred bytes) must fit in a new
/// connection's initial congestion window (10 segments, ~14 KB), or fresh pays slow-start
/// round trips the theory does not count. `*:*` with 10 rows of the shared index's
/// documents grows with what other tests indexed (~100 KB once 768-dimension vectors are
/// stored): fresh then took 147 ms instead of 75 ms at RTT 20, the "after the rest of the
/// suite" slowdown (docs/findings/wan-after-suite.md).
fn fresh_pooled_p50(wan: &Wan, warm: usize, n: usize) -> FreshPooled {
    let url = wan.url("/solr");
    let ca = tls_dir().join("ca.pem");
    wan.app()
        .block_on(move || async move {
            let tls = TlsOptions::new().add_ca_pem_file(&ca)?;
            let client = |kind| {
                SolrClient::builder(url.clone())
                    .collection("bench")
                    .transport(kind)
                    .tls(tls.clone())
                    .build()
            };
            let (fresh, pooled) = (
                client(TransportKind::Fresh)?,
                client(TransportKind::Pooled)?,
            );
            let q = Select::new("*:*").rows(0);
            for _ in 0..warm {
                fresh.select(&q).await?;
                pooled.select(&q).await?;
            }
            let (mut tf, mut tp, mut rf, mut rp, mut answer) = (Vec::new(), Vec::new(), 0, 0, 0);
            for _ in 0..n {
                let t = fresh.select(&q).await?.timing;
                rf += usize::from(t.reused);
                tf.push(t.total());
                let t = pooled.select(&q).await?.timing;
                rp += usize::from(t.reused);
                answer = answer.max(t.bytes_in);
                tp.push(t.total());
            }
            let ms = |v| calibrate::median(v).as_secs_f64() * 1000.0;
            Ok(FreshPooled {
                fresh: ms(tf),
                pooled: ms(tp),
                fresh_reused: rf,
                pooled_reused: rp,
                answer_bytes: answer,
            })
        })
        .unwrap_or_else(|e| panic!("selects through the topology: {e:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls13_fresh_vs_pooled_follows_round_trips() {
    let _g = support::exclusive().await;
    let wan = topology(rtt(0));
    let n = 25;
    let base = tokio::task::block_in_place(|| fresh_pooled_p50(&wan, 3, n));
    let (fresh0, pooled0) = (base.fresh, base.pooled);
    let mut table = vec![format!(
        "RTT  0 ms: fresh {fresh0:.2} ms, pooled {pooled0:.2} ms (server + proxy + client time)"
    )];
    let before = wan.proxy_stats();
    // The machine has 2 shared cores and the delay line is userspace: a measurement that a
    // CPU stall disturbed is repeated (up to 3 medians of 25 per RTT); the assertion holds
    // for the last one, and every attempt is printed.
    let mut rounds = 0u64;
    for ms in [2u64, 20, 80] {
        wan.set_link(rtt(ms));
        for attempt in 1..=3 {
            rounds += 1;
            let m = tokio::task::block_in_place(|| fresh_pooled_p50(&wan, 1, n));
            let (fresh, pooled) = (m.fresh, m.pooled);
            assert_eq!(m.fresh_reused, 0, "fresh never reuses");
            assert_eq!(m.pooled_reused, n, "pooled reuses after the warm-up");
            assert_eq!(
                transport_bench::scenario::study::sweep::slow_start_rounds(m.answer_bytes as f64),
                0,
                "a {} B answer outgrows a new connection's initial window: fresh would pay \
                 slow-start round trips the theory does not count",
                m.answer_bytes
            );
            // TLS 1.3: fresh = TCP (1 RTT) + handshake (1 RTT) + request (1 RTT) + its RTT-0
            // time; pooled = request (1 RTT) + its RTT-0 time.
            let r = ms as f64;
            let theory = (fresh0 + 3.0 * r) / (pooled0 + r);
            let ratio = fresh / pooled;
            let off = (ratio / theory - 1.0).abs();
            table.push(format!(
                "RTT {ms:>2} ms (attempt {attempt}): fresh {fresh:.2} ms, pooled {pooled:.2} ms, ratio {ratio:.3}, theory {theory:.3} ({:+.1}%)",
                (ratio / theory - 1.0) * 100.0
            ));
            if ms < 20 || off <= 0.10 {
                break;
            }
            assert!(
                attempt < 3,
                "RTT {ms} ms: fresh/pooled {ratio:.3} vs theory {theory:.3} in 3 attempts\n{}",
                table.join("\n")
            );
        }
    }
    eprintln!("{}", table.join("\n"));
    let after = wan.proxy_stats();
    // Per measurement round: fresh 1 warm-up + n measured handshakes, pooled 1.
    assert_eq!(
        after.1 - before.1,
        rounds * (n as u64 + 2),
        "TLS handshakes at the proxy"
    );
    assert_eq!(
        after.2 - before.2,
        rounds * (n as u64 + 2),
        "upstream connections to Solr"
    );
    wan.stop().expect("teardown");
}

fn args(list: &[&str], out: &std::path::Path) -> Vec<String> {
    list.iter()
        .map(|s| s.to_string())
        .chain(["--out".to_string(), out.display().to_string()])
        .collect()
}

/// `sweep` at RTT 0 and 20 ms (TLS 1.3, fresh and pooled, 10 searches each): the three
/// witnesses count exactly one connection per fresh search and one per pooled run, the
/// fresh/pooled ratio at RTT 20 lands near the round-trip theory (a run disturbed by the
/// shared machine is repeated, up to 3 times; the counts must be exact in every run), and
/// the table, JSON, CSV and chart are written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sweep_follows_round_trips_with_exact_witnesses() {
    use clap::Parser;
    use transport_bench::scenario::study::sweep::SweepReport;
    let url = support::standalone().url(None).expect("url").to_string();
    let mut log = Vec::new();
    for attempt in 1..=3 {
        let dir = std::env::temp_dir().join(support::tag("wan-sweep"));
        {
            let _g = support::exclusive().await;
            let cli = transport_bench::cli::Cli::parse_from(args(
                &[
                    "transport-bench",
                    "sweep",
                    "--url",
                    &url,
                    "--rtt",
                    "20",
                    "--docs",
                    "0",
                    "--searches",
                    "10",
                    "--warmup",
                    "1",
                    "--transports",
                    "fresh,pooled",
                    "--gzip",
                    "off",
                    "--quiet",
                    "--wan-prefix",
                    "stbt",
                ],
                &dir,
            ));
            transport_bench::cli::run(cli).await.expect("sweep runs");
        }
        let r: SweepReport = serde_json::from_slice(
            &std::fs::read(dir.join("sweep.json")).expect("sweep.json written"),
        )
        .expect("sweep.json parses as the published type");
        let txt = std::fs::read_to_string(dir.join("sweep.txt")).expect("sweep.txt");
        eprintln!("attempt {attempt}:\n{txt}");
        assert_eq!(r.points.len(), 3, "RTT 0 (the baseline), 20, RTT 0 again");
        let row = |rtt: f64, t: &str| {
            r.rows
                .iter()
                .find(|x| x.rtt_ms == rtt && x.transport == t)
                .unwrap_or_else(|| panic!("row RTT {rtt} {t}"))
                .clone()
        };
        for rtt in [0.0, 20.0] {
            let (f, p) = (row(rtt, "fresh"), row(rtt, "pooled"));
            assert_eq!((f.n, f.errors, p.n, p.errors), (10, 0, 10, 0));
            // 1 warm-up + 10 measured searches: a connection each for fresh, one for pooled.
            assert_eq!(
                (f.conns_connector, f.conns_kernel, f.conns_pcap),
                (11, 11, Some(11)),
                "fresh at RTT {rtt}"
            );
            assert_eq!(
                (p.conns_connector, p.conns_kernel, p.conns_pcap),
                (1, 1, Some(1)),
                "pooled at RTT {rtt}"
            );
            for x in [&f, &p] {
                assert_eq!(
                    (x.witnesses_agree, x.witnesses_counted.as_str()),
                    (Some(true), "connector+kernel+pcap"),
                    "{} at RTT {rtt}",
                    x.transport
                );
            }
            assert_eq!(
                f.round_trips,
                3 + transport_bench::scenario::study::sweep::slow_start_rounds(p.bytes_in_mean),
                "TLS 1.3 fresh: TCP + handshake + request, + slow start for {} B answers",
                p.bytes_in_mean
            );
            assert_eq!(p.round_trips, 1, "pooled: the request");
        }
        for f in [
            "sweep.csv",
            "sweep.svg",
            "tls1.3-rtt20/summary.json",
            "tls1.3-rtt0-end/summary.json",
        ] {
            assert!(dir.join(f).is_file(), "{f} written");
        }
        let svg = std::fs::read_to_string(dir.join("sweep.svg")).expect("svg");
        assert!(svg.contains("<polyline") && svg.contains("pooled theory"));
        assert!(txt
            .trim_end()
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("verdict: "));
        let _ = std::fs::remove_dir_all(&dir);
        let f20 = row(20.0, "fresh");
        let ratio = f20.fresh_pooled_ratio.expect("ratio");
        let off = f20.ratio_off_pct.expect("theory");
        log.push(format!(
            "attempt {attempt}: fresh/pooled at RTT 20 {ratio:.2}, {off:+.1}% from theory"
        ));
        // 3 round trips against 1: generous bounds on 2 shared cores.
        if ratio > 1.5 && off.abs() < 35.0 {
            break;
        }
        assert!(attempt < 3, "{}", log.join("\n"));
    }
    eprintln!("{}", log.join("\n"));
}

/// `sweep --witness-self-test 1`: one extra connection to the proxy from the app namespace
/// beside each transport run. At both points (RTT 0 and RTT 0 again) every row says the
/// witnesses disagree, with the counts exactly (fresh 5 / 6 / 6, pooled 1 / 2 / 2), and the
/// verdict names each run first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sweep_names_witnesses_that_disagree() {
    use clap::Parser;
    use transport_bench::scenario::study::sweep::SweepReport;
    let url = support::standalone().url(None).expect("url").to_string();
    let dir = std::env::temp_dir().join(support::tag("wan-sweep-disagree"));
    {
        let _g = support::exclusive().await;
        let cli = transport_bench::cli::Cli::parse_from(args(
            &[
                "transport-bench",
                "sweep",
                "--url",
                &url,
                "--rtt",
                "0",
                "--docs",
                "0",
                "--searches",
                "5",
                "--warmup",
                "0",
                "--transports",
                "fresh,pooled",
                "--gzip",
                "off",
                "--witness-self-test",
                "1",
                "--quiet",
                "--wan-prefix",
                "stbd",
            ],
            &dir,
        ));
        transport_bench::cli::run(cli).await.expect("sweep runs");
    }
    let r: SweepReport =
        serde_json::from_slice(&std::fs::read(dir.join("sweep.json")).expect("sweep.json written"))
            .expect("sweep.json parses as the published type");
    assert_eq!(r.rows.len(), 2, "RTT 0: fresh and pooled");
    for x in &r.rows {
        let opened = if x.transport == "fresh" { 5 } else { 1 };
        assert_eq!(
            (
                x.conns_connector,
                x.conns_kernel,
                x.conns_pcap,
                x.conns_expected
            ),
            (opened, opened + 1, Some(opened + 1), opened),
            "{}",
            x.transport
        );
        assert_eq!(
            (
                x.witnesses_agree,
                x.witnesses_counted.as_str(),
                x.conns_within_expected
            ),
            (Some(false), "connector+kernel+pcap", Some(true)),
            "{}",
            x.transport
        );
    }
    assert!(
        r.verdict.starts_with(
            "verdict: WITNESSES DISAGREE for TLS 1.3 RTT 0 fresh (connector 5, kernel 6, pcap 6), \
             TLS 1.3 RTT 0 pooled (connector 1, kernel 2, pcap 2), \
             TLS 1.3 RTT 0 again fresh (connector 5, kernel 6, pcap 6), \
             TLS 1.3 RTT 0 again pooled (connector 1, kernel 2, pcap 2); \
             3 of 3 witnesses counted (connector, kernel, pcap); "
        ),
        "{}",
        r.verdict
    );
    let txt = std::fs::read_to_string(dir.join("sweep.txt")).expect("sweep.txt");
    assert_eq!(txt.lines().last(), Some(r.verdict.as_str()), "{txt}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `large-responses` at rows 10 and 1000 through RTT 20 ms and 100 Mbit/s: gzip puts fewer
/// bytes on the wire at both sizes, the decoded bodies are the same documents (up to the
/// digits of QTime), every page is full, the transport's byte count equals the TCP payload
/// the capture saw, two connections (one per gzip setting) as the SYNs show, and the files
/// are written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_responses_gzip_saves_wire_bytes_exactly_accounted() {
    use clap::Parser;
    use transport_bench::scenario::large_responses::LargeReport;
    let url = support::standalone().url(None).expect("url").to_string();
    let dir = std::env::temp_dir().join(support::tag("wan-large"));
    {
        let _g = support::exclusive().await;
        let cli = transport_bench::cli::Cli::parse_from(args(
            &[
                "transport-bench",
                "large-responses",
                "--url",
                &url,
                "--rows",
                "1000,10",
                "--docs",
                "1000",
                "--requests",
                "4",
                "--warmup",
                "1",
                "--quiet",
                "--wan-prefix",
                "stbt",
            ],
            &dir,
        ));
        transport_bench::cli::run(cli)
            .await
            .expect("large-responses runs");
    }
    let r: LargeReport = serde_json::from_slice(
        &std::fs::read(dir.join("large-responses.json")).expect("json written"),
    )
    .expect("large-responses.json parses as the published type");
    eprintln!(
        "{}",
        std::fs::read_to_string(dir.join("large-responses.txt")).expect("txt")
    );
    assert_eq!(r.cells.len(), 4);
    for c in &r.cells {
        assert_eq!((c.n, c.errors), (4, 0), "rows {} gzip {}", c.rows, c.gzip);
        assert!(c.docs_exact, "every page of {} rows is full", c.rows);
    }
    for rows in [10u64, 1000] {
        let cell = |g: bool| {
            r.cells
                .iter()
                .find(|c| c.rows == rows && c.gzip == g)
                .expect("cell")
        };
        assert!(
            cell(true).wire_bytes_mean < cell(false).wire_bytes_mean,
            "rows {rows}: gzip {} >= plain {} bytes",
            cell(true).wire_bytes_mean,
            cell(false).wire_bytes_mean
        );
        let cmp = r.comparisons.iter().find(|c| c.rows == rows).expect("cmp");
        assert!(cmp.decoded_identical, "rows {rows}: same decoded documents");
    }
    assert_eq!(
        r.bytes.connections, 2,
        "one pooled connection per gzip setting"
    );
    assert_eq!(
        r.bytes.pcap_syns,
        Some(2),
        "the capture saw the same two SYNs"
    );
    assert_eq!(r.bytes.pcap_dropped, Some(0), "the capture dropped nothing");
    assert_eq!(
        r.bytes.pcap_payload_in,
        Some(r.bytes.client_bytes_in),
        "bytes the transport read == TCP payload captured from the server"
    );
    for f in [
        "large-responses.csv",
        "large-responses-time.svg",
        "large-responses-bytes.svg",
        "records.jsonl",
    ] {
        assert!(dir.join(f).is_file(), "{f} written");
    }
    assert!(r.verdict.starts_with("verdict: ") && r.verdict.contains("rows=1000"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `audit` with the WAN options: a loopback Solr is audited through the emulated link
/// (every fresh search a connection, at the app-side device); a remote URL is refused with
/// a message saying emulation applies only to the local Solr.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_through_the_wan_and_refusal_for_remote_urls() {
    use clap::Parser;
    let out = std::env::temp_dir().join(support::tag("wan-audit"));
    let remote = transport_bench::cli::Cli::parse_from(args(
        &[
            "transport-bench",
            "audit",
            "--url",
            "https://solr.example.com/solr",
            "--rtt",
            "20",
            "--quiet",
        ],
        &out,
    ));
    let e = transport_bench::cli::run(remote)
        .await
        .expect_err("remote URL with --rtt is refused");
    let msg = format!("{e:#}");
    assert!(
        msg.contains("applies only to the project's local Solr"),
        "{msg}"
    );
    let url = support::standalone().url(None).expect("url").to_string();
    {
        let _g = support::exclusive().await;
        let cli = transport_bench::cli::Cli::parse_from(args(
            &[
                "transport-bench",
                "audit",
                "--url",
                &url,
                "--rtt",
                "5",
                "--tls",
                "--searches",
                "5",
                "--quiet",
                "--wan-prefix",
                "stbt",
            ],
            &out,
        ));
        transport_bench::cli::run(cli)
            .await
            .expect("audit through the WAN");
    }
    let r = transport_bench::scenario::study::load_summary(&out).expect("summary.json");
    assert_eq!(r.settings["wan"]["rtt_ms"], serde_json::json!(5.0));
    assert_eq!(r.settings["wan"]["tls_version"], serde_json::json!("1.3"));
    let fresh = r
        .transports
        .iter()
        .find(|t| t.transport == "fresh")
        .expect("fresh");
    assert_eq!(fresh.witnesses.connector, 5);
    assert_eq!(
        fresh.witnesses.pcap_syns,
        Some(5),
        "SYNs on the app-side device"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The pooled study of [`compare_measures_a_known_rtt_shift_between_two_runs`] at `rtt` ms
/// (2 repetitions of 20 searches, no rows, gzip on: one segment per answer, never paced),
/// written to `out`; its summary, with the witnesses checked (2 connections, one per
/// repetition, in the client's own namespace).
async fn pooled_study(url: &str, rtt: &str, out: &std::path::Path) -> StudyReport {
    use clap::Parser;
    let cli = transport_bench::cli::Cli::parse_from(args(
        &[
            "transport-bench",
            "study",
            "--url",
            url,
            "--rtt",
            rtt,
            "--docs",
            "0",
            "--mixed",
            "0",
            "--searches",
            "20",
            "--warmup",
            "2",
            "--reps",
            "2",
            "--rows",
            "0",
            "--transports",
            "pooled",
            "--gzip",
            "on",
            "--quiet",
            "--wan-prefix",
            "stbt",
        ],
        out,
    ));
    transport_bench::cli::run(cli).await.expect("study runs");
    let r = transport_bench::scenario::study::load_summary(out).expect("summary.json");
    let w = &r.transports[0].witnesses;
    assert!(
        w.kernel_isolated,
        "the WAN app namespace is the client's own"
    );
    assert_eq!(
        (w.connector, w.kernel_active_opens, w.pcap_syns),
        (2, 2, Some(2))
    );
    assert_eq!(r.transports[0].rep_p50_ms.len(), 2);
    r
}

/// `compare` of two different runs with a known shift: the same pooled study
/// ([`pooled_study`]) at RTT 10 and at RTT 80 ms. Each pooled search costs one round trip,
/// so the contender's p50 is the configured RTT difference (70 ms) higher, outside the
/// noise margin; each run compared with itself stays within it. The bound (0.8 to 1.3 of
/// 70 ms) leaves room for the shared machine's load, which moved single medians by up to
/// 10 ms here. The p50s include Solr's own time: both runs are measured under one
/// exclusive guard, so no test of this process writes to the shared core between them,
/// and a pair the machine disturbed is measured again (up to 3 pairs, each printed with
/// both runs' QTime p50; beside other tests one pair saw QTime p50 25 ms at RTT 10 and
/// 4 ms at RTT 80, a shift of 36 ms).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_measures_a_known_rtt_shift_between_two_runs() {
    use transport_bench::scenario::study::compare;
    let url = support::standalone().url(None).expect("url").to_string();
    let mut log = Vec::new();
    for attempt in 1..=3 {
        let dir = std::env::temp_dir().join(support::tag("wan-compare"));
        let (a, b) = {
            let _g = support::exclusive().await;
            let a = pooled_study(&url, "10", &dir.join("10")).await;
            (a, pooled_study(&url, "80", &dir.join("80")).await)
        };
        let _ = std::fs::remove_dir_all(&dir);
        for r in [&a, &b] {
            let same = compare::compare(r, r);
            let p = same.iter().find(|d| d.metric == "p50_ms").expect("p50 row");
            assert_eq!((p.diff, p.significant), (0.0, Some(false)));
        }
        let d = compare::compare(&a, &b);
        let p = d.iter().find(|d| d.metric == "p50_ms").expect("p50 row");
        let mut text = Vec::new();
        compare::print(&d, &mut text).expect("prints");
        log.push(format!(
            "attempt {attempt}: p50 shift {:.2} ms for a 70 ms RTT shift (Solr QTime p50 {:?} ms at RTT 10, {:?} ms at RTT 80)\n{}",
            p.diff,
            a.transports[0].qtime.p50_ms,
            b.transports[0].qtime.p50_ms,
            String::from_utf8(text).expect("utf-8")
        ));
        if (56.0..=91.0).contains(&p.diff) && p.significant == Some(true) {
            break;
        }
        assert!(attempt < 3, "{}", log.join("\n"));
    }
    eprintln!("{}", log.join("\n"));
}

/// `audit --rtt 40` names the paced responses. With this machine's default
/// congestion control, BBR (inherited by the WAN namespaces), the proxy's TCP paces each
/// 4-5 segment answer of `pooled` into pairs 1.4-2.8 ms apart: the finding names the stall,
/// its share of the round trip and the fixes. A gzipped answer is one segment and never
/// paced, whatever the congestion control.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_names_paced_responses() {
    use clap::Parser;
    let out = std::env::temp_dir().join(support::tag("wan-paced"));
    let url = support::standalone().url(None).expect("url").to_string();
    // Answers of several segments whatever else the shared core holds (the WAN tests run
    // first, on a core that may be empty): 20 seeded documents of this test's own, 10 a
    // page: ~5.5 KB plain (4-5 segments), ~1.2 KB gzipped (one segment).
    let tag = support::tag("paced");
    let query = format!("tag_s:{tag}");
    {
        let _g = support::shared().await;
        let client = SolrClient::builder(&url)
            .collection("bench")
            .build()
            .expect("client");
        support::index_tagged(&client, &tag, 20).await;
    }
    {
        let _g = support::exclusive().await;
        let cli = transport_bench::cli::Cli::parse_from(args(
            &[
                "transport-bench",
                "audit",
                "--url",
                &url,
                "--query",
                &query,
                "--rtt",
                "40",
                "--searches",
                "10",
                "--rows",
                "10",
                "--no-idle",
                "--quiet",
                "--wan-prefix",
                "stbt",
            ],
            &out,
        ));
        transport_bench::cli::run(cli)
            .await
            .expect("audit through the WAN");
    }
    let r = transport_bench::scenario::study::load_summary(&out).expect("summary.json");
    let paced: Vec<&String> = r
        .warnings
        .iter()
        .filter(|w| w.contains("paced responses"))
        .collect();
    eprintln!("{paced:#?}");
    assert!(
        paced.iter().all(|w| !w.contains("-gzip:")),
        "gzipped answers are single segments: {paced:#?}"
    );
    let cc =
        std::fs::read_to_string("/proc/sys/net/ipv4/tcp_congestion_control").unwrap_or_default();
    if cc.trim() == "bbr" {
        let pooled = paced
            .iter()
            .find(|w| w.starts_with("search-pooled: paced responses"))
            .unwrap_or_else(|| panic!("pooled answers paced under BBR: {paced:#?}"));
        assert!(pooled.contains("round trip"), "{pooled}");
        assert!(pooled.contains("gzip"), "{pooled}");
    } else {
        let avail = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
            .unwrap_or_default();
        support::skip::record(
            "wan: the paced-responses finding under BBR",
            &format!("default TCP congestion control {:?}, not bbr", cc.trim()),
            if avail.split_whitespace().any(|c| c == "bbr") {
                support::skip::Installable::BySetup
            } else {
                support::skip::Installable::NotHere
            },
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
