//! `transport-bench routing` (issue #17, seed 003's routing headers) at a small scale on its
//! own leader/follower pair, through the CLI parser: every read preference sends its reads to
//! exactly the nodes it names (the client's tally, the router's per-node counters and Solr's
//! own `QUERY./select.requests` agree per node), the lag probe sees every probe document,
//! every acknowledged document is indexed, and `summary.json` validates against the
//! published schema; `report` re-renders the table, CSVs and chart from it byte for byte.
//! Counts only; no time is asserted.

use clap::Parser;
use transport_bench::{routing, Cli, Command};

use crate::support;

const SCHEMA: &str = include_str!("../../transport-bench/schema/routing.schema.json");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_study_sends_each_preference_to_its_nodes_exactly() {
    let _g = support::shared().await;
    let out = std::env::temp_dir().join(support::tag("routing-study"));
    let prefix = format!("{}-", support::tag("rs"));
    let cli = Cli::parse_from([
        "transport-bench",
        "routing",
        "--instance",
        "e2e-routing-study",
        "--prefs",
        "none,leader,follower",
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
        "--id-prefix",
        &prefix,
        "--quiet",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let Command::Routing(a) = cli.command else {
        panic!("parsed as routing")
    };
    // The command starts the pair `e2e-routing-study` and stops it when done (even on error).
    let r = routing::cmd(*a).await.expect("routing runs");

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
