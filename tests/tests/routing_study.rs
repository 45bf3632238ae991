//! `transport-bench routing` at a small scale on its own leader/follower pair, through the
//! CLI parser: every read preference sends its reads to exactly the nodes it names (the
//! client's tally, the router's per-node counters and Solr's own `QUERY./select.requests`
//! agree per node), the lag probe sees every probe document,
//! every acknowledged document is indexed, and `summary.json` validates against the
//! published schema; `report` re-renders the table, CSVs and chart from it byte for byte.
//! Counts only; no time is asserted.

use std::path::PathBuf;

use transport_bench::cli::registry::run_to_end;
use transport_bench::scenario::routing::cli::Routing;
use transport_bench::scenario::routing::RoutingReport;

use crate::support::{self, study::StudyRun};

const SCHEMA: &str = include_str!("../../transport-bench/schema/routing.schema.json");

/// Runs `transport-bench routing ARGS` at the small scale both tests share: write rates 0
/// and max, one 2 s repetition, 300 preloaded documents. The report and its folder.
async fn run_routing(name: &str, args: &[&str]) -> (RoutingReport, PathBuf) {
    let run = StudyRun::new(name);
    let mut argv = vec!["routing"];
    argv.extend_from_slice(args);
    argv.extend([
        "--write-rates",
        "0,max",
        "--duration",
        "2",
        "--reps",
        "1",
        "--preload",
        "300",
        "--warmup",
        "5",
    ]);
    let a = run.args::<Routing>(&argv);
    let r = run_to_end::<Routing>(a)
        .await
        .expect("routing runs")
        .expect("a report");
    (r, run.out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_study_sends_each_preference_to_its_nodes_exactly() {
    let _g = support::shared().await;
    // The command starts the pair `e2e-routing-study` and stops it when done (even on error).
    let (r, out) = run_routing(
        "routing-study",
        &[
            "--instance",
            "e2e-routing-study",
            "--prefs",
            "none,leader,follower",
        ],
    )
    .await;

    assert_eq!(r.cells.len(), 6, "2 levels x 3 preferences");
    for c in &r.cells {
        let at = format!("level {} pref {}", c.level, c.pref);
        let node = |n: &str| {
            c.nodes
                .iter()
                .find(|x| x.node == n)
                .unwrap_or_else(|| panic!("{at}: no {n}"))
        };
        assert_eq!(c.read_errors + c.write_errors, 0, "{at}: errors");
        let (lead, foll) = (node("leader"), node("follower"));
        for n in [lead, foll] {
            assert_eq!(
                n.client_reads, n.router_reads,
                "{at} {}: client vs router",
                n.node
            );
            assert_eq!(
                n.solr_select_requests,
                Some(n.router_reads),
                "{at} {}: Solr's /select count vs router",
                n.node
            );
        }
        let (named, other) = match c.pref.as_str() {
            "none" | "leader" => (lead, foll),
            "follower" => (foll, lead),
            p => panic!("unknown pref {p}"),
        };
        assert!(named.client_reads > 0, "{at}: {} read nothing", named.node);
        assert_eq!(other.client_reads, 0, "{at}: reads on {}", other.node);
        assert_eq!(
            other.solr_select_requests,
            Some(0),
            "{at}: Solr saw reads on {}",
            other.node
        );
        // Every read of the cell (measured searches and probe reads) is counted on a node.
        assert_eq!(
            named.client_reads,
            c.reads.n + c.lag.reads,
            "{at}: searches + probe reads"
        );
        assert!(c.lag.probes >= 1, "{at}: no probe");
        assert_eq!(c.lag.seen, c.lag.probes, "{at}: every probe seen");
        assert_eq!(c.lag.unseen, 0, "{at}");
        assert_eq!(c.lag.lag.n, c.lag.probes, "{at}: one lag per probe");
        if c.level == "0" {
            assert_eq!(c.docs_acked, 0, "{at}: no indexer at level 0");
        } else {
            assert!(c.docs_acked > 0, "{at}: the indexer wrote nothing");
        }
    }
    assert!(r.check.ok, "{:?}", r.check);
    let probes: u64 = r.cells.iter().map(|c| c.lag.probes).sum();
    let docs: u64 = r.cells.iter().map(|c| c.docs_acked).sum();
    assert_eq!(r.check.acknowledged, 300 + probes + docs);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.rows.len(), 6);
    assert_eq!(r.seed.len(), 3);
    assert!(r.verdict.starts_with("verdict: "), "{}", r.verdict);

    support::assert_schema_valid(SCHEMA, &support::read_json(&out.join("summary.json")));
    for f in [
        "report.txt",
        "rows.csv",
        "cells.csv",
        "p99-vs-write-rate.svg",
    ] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    let cells_csv = std::fs::read_to_string(out.join("cells.csv")).expect("cells.csv");
    assert_eq!(
        cells_csv.lines().count(),
        1 + 6 * 2,
        "one line per cell and node"
    );
    let txt = std::fs::read_to_string(out.join("report.txt")).expect("report.txt");
    assert_eq!(txt.lines().last(), Some(r.verdict.as_str()));
    support::assert_rerenders(
        &out,
        "routing",
        &[
            "report.txt",
            "rows.csv",
            "cells.csv",
            "p99-vs-write-rate.svg",
        ],
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The cloud topology (one shard: one NRT, one TLOG, one PULL replica over two nodes) at a
/// small scale: every read (searches and probe reads) is served by exactly one replica, and
/// the client's tally from `shards.info` equals Solr's `QUERY./select[shard].requests` of
/// that core; each `solr-<type>` preference is served only by the replica of that type; `none`
/// and the `solr-*` preferences send every read to node1 (client, router and Solr's top-level
/// `QUERY./select.requests` agree per node); the client's own routing sends reads only to
/// nodes hosting a non-leader replica, and each is served by a replica on the node it was
/// sent to. The lag probe sees every probe document; every acknowledged document is on the
/// leader. Counts only; no time is asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_study_cloud_serves_each_preference_from_its_replica_type_exactly() {
    let _g = support::shared().await;
    let (r, out) = run_routing(
        "routing-cloud",
        &["--topology", "cloud", "--instance", "e2e-routing-cloud"],
    )
    .await;

    assert_eq!(r.topology, "cloud");
    let mut kinds: Vec<&str> = r.replicas.iter().map(|x| x.kind.as_str()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["NRT", "PULL", "TLOG"], "{:?}", r.replicas);
    assert_eq!(r.replicas.iter().filter(|x| x.leader).count(), 1);
    assert_eq!(r.cells.len(), 10, "2 levels x 5 preferences");
    for c in &r.cells {
        let at = format!("level {} pref {}", c.level, c.pref);
        assert_eq!(c.read_errors + c.write_errors, 0, "{at}: errors");
        let reads = c.reads.n + c.lag.reads;
        // Per node: the client's tally, the router's counters and Solr's top-level count.
        for n in &c.nodes {
            assert_eq!(n.client_reads, n.router_reads, "{at} {}", n.node);
            assert_eq!(
                n.solr_select_requests,
                Some(n.router_reads),
                "{at} {}",
                n.node
            );
            let received: u64 = c
                .replicas
                .iter()
                .filter(|x| x.node == n.node)
                .map(|x| x.solr_received.expect("per-core metrics"))
                .sum();
            assert_eq!(
                received, n.client_reads,
                "{at} {}: top-level per core",
                n.node
            );
        }
        assert_eq!(
            c.nodes.iter().map(|n| n.client_reads).sum::<u64>(),
            reads,
            "{at}: searches + probe reads"
        );
        // Per replica: shards.info and Solr's sub-request count.
        for x in &c.replicas {
            assert_eq!(x.solr_served, Some(x.client_served), "{at} {}", x.core);
        }
        assert_eq!(
            c.replicas.iter().map(|x| x.client_served).sum::<u64>(),
            reads,
            "{at}: every read served by one replica"
        );
        let node = |n: &str| c.nodes.iter().find(|x| x.node == n).expect("node");
        match c.pref.as_str() {
            "none" | "solr-nrt" | "solr-tlog" | "solr-pull" => {
                assert_eq!(node("node1").client_reads, reads, "{at}: all to node1");
                if let Some(t) = c.pref.strip_prefix("solr-") {
                    for x in &c.replicas {
                        let want = if x.kind.eq_ignore_ascii_case(t) {
                            reads
                        } else {
                            0
                        };
                        assert_eq!(x.client_served, want, "{at}: served by {}", x.core);
                    }
                }
            }
            "client" => {
                for n in &c.nodes {
                    let hosts_follower = r.replicas.iter().any(|x| x.node == n.node && !x.leader);
                    if !hosts_follower {
                        assert_eq!(n.client_reads, 0, "{at}: reads to {} (leader only)", n.node);
                    }
                    let served: u64 = c
                        .replicas
                        .iter()
                        .filter(|x| x.node == n.node)
                        .map(|x| x.client_served)
                        .sum();
                    assert_eq!(served, n.client_reads, "{at}: served on {}", n.node);
                }
            }
            p => panic!("unknown pref {p}"),
        }
        assert!(c.lag.probes >= 1, "{at}: no probe");
        assert_eq!(c.lag.seen, c.lag.probes, "{at}: every probe seen");
        assert_eq!(c.lag.unseen, 0, "{at}");
        if c.level == "0" {
            assert_eq!(c.docs_acked, 0, "{at}: no indexer at level 0");
        } else {
            assert!(c.docs_acked > 0, "{at}: the indexer wrote nothing");
        }
    }
    assert!(r.check.ok, "{:?}", r.check);
    let probes: u64 = r.cells.iter().map(|c| c.lag.probes).sum();
    let docs: u64 = r.cells.iter().map(|c| c.docs_acked).sum();
    assert_eq!(r.check.acknowledged, 300 + probes + docs);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.rows.len(), 10);
    assert!(r.verdict.starts_with("verdict: "), "{}", r.verdict);

    support::assert_schema_valid(SCHEMA, &support::read_json(&out.join("summary.json")));
    let reps = std::fs::read_to_string(out.join("replicas.csv")).expect("replicas.csv");
    assert_eq!(
        reps.lines().count(),
        1 + 10 * 3,
        "one line per cell and replica"
    );
    let txt = std::fs::read_to_string(out.join("report.txt")).expect("report.txt");
    assert_eq!(txt.lines().last(), Some(r.verdict.as_str()));
    support::assert_rerenders(
        &out,
        "routing",
        &[
            "report.txt",
            "rows.csv",
            "cells.csv",
            "replicas.csv",
            "p99-vs-write-rate.svg",
        ],
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// Why the cloud topology sends its reads with `shortCircuit=false`: on a single-shard
/// collection, a node hosting any active replica of the shard answers a top-level search
/// from a local core and ignores `shards.preference` (no internal sub-request at all). Ten
/// searches preferring a replica type that node1 does not host are all answered on node1
/// (its cores' `QUERY./select.requests` count them, no core's `QUERY./select[shard].requests`
/// moves, `shards.info` names a node1 core); the same ten with `shortCircuit=false` are each
/// served by that type's replica (its `[shard]` count moves by exactly ten, `shards.info`
/// names it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_cloud_single_shard_short_circuit_ignores_shards_preference() {
    use solr_client::{RequestKind, SolrClient, TransportKind};
    use solr_harness::local_solr::{LocalSolr, Mode};
    use std::collections::HashMap;
    let _g = support::shared().await;
    struct Stop(LocalSolr);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = self.0.stop();
        }
    }
    let s = Stop(
        LocalSolr::start(
            Mode::Cloud,
            "e2e-routing-sc",
            &["--replica-types", "nrt,tlog,pull"],
        )
        .expect("cloud with replica types starts"),
    );
    let node1 =
        s.0.url(Some("node1"))
            .expect("node1")
            .trim_end_matches('/')
            .to_string();
    let node2 = s.0.url(Some("node2")).expect("node2").to_string();
    let c1 = support::client(&node1, TransportKind::Pooled, false);
    let c2 = support::client(&node2, TransportKind::Pooled, false);
    let get = |c: &SolrClient, path: &str, q: Vec<(&str, String)>| {
        let mut req = c.wire(
            http::Method::GET,
            "select",
            q.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            RequestKind::Read,
        );
        if path != "select" {
            req.path = path.to_string();
            req.kind = RequestKind::Admin;
        }
        let c = c.clone();
        async move {
            let resp = c.send_raw(req).await.expect("answer");
            assert!(resp.status.is_success(), "{}", resp.status);
            serde_json::from_slice::<serde_json::Value>(&resp.body).expect("JSON")
        }
    };
    let status = get(
        &c1,
        "admin/collections",
        vec![
            ("action", "CLUSTERSTATUS".into()),
            ("collection", "bench".into()),
            ("wt", "json".into()),
        ],
    )
    .await;
    let replicas: Vec<(String, String, String)> = status["cluster"]["collections"]["bench"]
        ["shards"]["shard1"]["replicas"]
        .as_object()
        .expect("replicas")
        .values()
        .map(|r| {
            (
                r["core"].as_str().expect("core").to_string(),
                r["type"].as_str().expect("type").to_string(),
                r["base_url"]
                    .as_str()
                    .expect("base_url")
                    .trim_end_matches('/')
                    .to_string(),
            )
        })
        .collect();
    // A type node1 does not host (node1 holds at most two of the three replicas).
    let (t_core, t_type, _) = replicas
        .iter()
        .find(|(_, _, url)| *url != node1)
        .cloned()
        .expect("a replica on node2");
    assert!(
        !replicas.iter().any(|(_, t, u)| *t == t_type && *u == node1),
        "one replica per type"
    );
    let counts = || async {
        let mut all: HashMap<String, (u64, u64)> = HashMap::new();
        for c in [&c1, &c2] {
            let v = get(
                c,
                "admin/metrics",
                vec![
                    ("group", "core".into()),
                    (
                        "prefix",
                        "QUERY./select.requests,QUERY./select[shard].requests".into(),
                    ),
                    ("wt", "json".into()),
                ],
            )
            .await;
            for (reg, m) in v["metrics"].as_object().expect("metrics") {
                let n = |k: &str| m[k].as_u64().or_else(|| m[k]["count"].as_u64()).expect(k);
                let core = reg.trim_start_matches("solr.core.").replace('.', "_");
                all.insert(
                    core,
                    (
                        n("QUERY./select.requests"),
                        n("QUERY./select[shard].requests"),
                    ),
                );
            }
        }
        all
    };
    let on_node1 = |m: &HashMap<String, (u64, u64)>| -> u64 {
        replicas
            .iter()
            .filter(|(_, _, u)| *u == node1)
            .map(|(c, _, _)| m[c].0)
            .sum()
    };
    let served = |m: &HashMap<String, (u64, u64)>| -> u64 { m.values().map(|x| x.1).sum() };
    for short_circuit in [true, false] {
        let before = counts().await;
        for _ in 0..10 {
            let mut q = vec![
                ("q", "*:*".to_string()),
                ("rows", "0".into()),
                ("wt", "json".into()),
                ("shards.info", "true".into()),
                ("distrib.singlePass", "true".into()),
                ("shards.preference", format!("replica.type:{t_type}")),
            ];
            if !short_circuit {
                q.push(("shortCircuit", "false".into()));
            }
            let v = get(&c1, "select", q).await;
            // shards.info names the core that answered, short-circuited or not.
            let addr = v
                .get("shards.info")
                .and_then(|i| i.as_object())
                .and_then(|i| i.values().next())
                .and_then(|x| x["shardAddress"].as_str())
                .expect("shards.info names the serving replica")
                .trim_end_matches('/')
                .to_string();
            if short_circuit {
                assert!(addr.starts_with(&node1), "answered on node1: {addr}");
                assert!(
                    !addr.ends_with(&t_core),
                    "not by the preferred type: {addr}"
                );
            } else {
                assert!(addr.ends_with(&t_core), "{addr}");
            }
        }
        let after = counts().await;
        let at = format!("shortCircuit {short_circuit}, prefer {t_type}");
        assert_eq!(
            on_node1(&after) - on_node1(&before),
            10,
            "{at}: top-level on node1"
        );
        let want = if short_circuit { 0 } else { 10 };
        assert_eq!(served(&after) - served(&before), want, "{at}: sub-requests");
        assert_eq!(
            after[&t_core].1 - before[&t_core].1,
            want,
            "{at}: served by {t_core}"
        );
    }
}
