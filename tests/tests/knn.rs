//! The `knn` scenario (a vector-search load test of Solr's SIMD acceleration) at a small scale
//! through the CLI: 300 docs x 32 dims on a Solr node of its own (the vector dimension is a node
//! setting), concurrency {1, 2} x topK {10, 50}, on Java 17 and, when installed, Java 25 with
//! Lucene's Panama vectorization. Checked exactly: every query answered, hits == topK in every
//! answer, the queryResultCache never answered (each vector once per topK stream), the node stopped
//! afterwards; Little's ratio finite and positive; outputs written and the JSON valid against the
//! published schema.

use clap::Parser;
use transport_bench::cli::{run, Cli};
use transport_bench::scenario::knn::{self, KnnReport, TEMURIN25_HOME};

use crate::support;

const REQUESTS: u64 = 12;

#[tokio::test]
async fn knn_sweep_small_scale() {
    let _g = support::shared().await;
    let dir = std::env::temp_dir().join(support::tag("knn"));
    let prefix = "e2e-knn".to_string();
    let args = [
        "transport-bench",
        "knn",
        "--jvm",
        "java17,temurin25+vector",
        "--docs",
        "300",
        "--dim",
        "32",
        "--concurrency",
        "1,2",
        "--topk",
        "10,50",
        "--requests",
        "12",
        "--warmup",
        "5",
        "--heap",
        "512m",
        "--sample-ms",
        "100",
        "--instance-prefix",
        &prefix,
        "--quiet",
        "--out",
        dir.to_str().expect("utf-8 temp dir"),
    ];
    run(Cli::parse_from(args)).await.expect("knn runs");

    let text = std::fs::read_to_string(dir.join("knn.json")).expect("knn.json");
    let r: KnnReport = serde_json::from_str(&text).expect("knn.json parses");
    let java17 = &r.jvms[0];
    assert_eq!(java17.name, "java17");
    assert!(java17.skipped.is_none(), "{:?}", java17.skipped);
    let t25_installed = std::path::Path::new(TEMURIN25_HOME)
        .join("bin/java")
        .is_file();
    let t25 = &r.jvms[1];
    if t25_installed {
        assert!(t25.skipped.is_none(), "{:?}", t25.skipped);
        // The Lucene property makes Lucene 9.12 use the Vector API on Java 25.
        assert!(t25.vectorized, "{:?}", t25.vectorization_log);
        assert!(!java17.vectorized);
        assert_eq!(r.reductions.len(), 4);
    } else {
        assert!(t25
            .skipped
            .as_deref()
            .unwrap_or("")
            .contains("not installed"));
        support::skip::record(
            "knn: the Java 25 Vector-API check",
            &format!("no Java 25 at {TEMURIN25_HOME} (no registry reachable here serves one)"),
            support::skip::Installable::NotHere,
        );
    }
    for j in r.jvms.iter().filter(|j| j.skipped.is_none()) {
        let idx = j.indexing.as_ref().expect("indexing");
        assert_eq!(idx.docs, 300);
        assert_eq!(j.cells.len(), 4, "{}", j.name);
        for c in &j.cells {
            let at = format!("{} c={} topK={}", j.name, c.concurrency, c.top_k);
            assert_eq!(c.requests, REQUESTS, "{at}: every query sent");
            assert_eq!(
                c.errors, 0,
                "{at}: every query answered: {:?}",
                c.first_error
            );
            assert_eq!(c.hits_mismatches, 0, "{at}");
            assert_eq!(c.hits_min, Some(u64::from(c.top_k)), "{at}: hits == topK");
            assert_eq!(c.hits_max, Some(u64::from(c.top_k)), "{at}: hits == topK");
            assert_eq!(c.latency.n, REQUESTS, "{at}");
            assert_eq!(
                c.cache_hits,
                Some(0),
                "{at}: no answer from the query cache"
            );
            assert!(
                c.little_ratio.is_finite() && c.little_ratio > 0.0,
                "{at}: Little ratio {}",
                c.little_ratio
            );
            // The request carries the 32 floats; the response topK ids.
            assert!(c.bytes_out_per_query > 32.0 * 2.0, "{at}");
            assert!(c.bytes_in_per_query > f64::from(c.top_k) * 10.0, "{at}");
            assert!(
                c.samples > 0 && c.solr_rss_max_mib.unwrap_or(0.0) > 0.0,
                "{at}"
            );
        }
        // The node was stopped at the end of its sweep.
        let name = format!("{prefix}-{}", j.name.replace('+', "-"));
        if let Some(pid) = knn::node_pid(&name) {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            assert!(
                !String::from_utf8_lossy(&cmd).contains(&name),
                "{name} still running"
            );
        }
    }
    assert!(
        r.verdict.starts_with("verdict: hits == topK in all"),
        "{}",
        r.verdict
    );

    let report_txt = std::fs::read_to_string(dir.join("report.txt")).expect("report.txt");
    assert_eq!(report_txt.lines().last(), Some(r.verdict.as_str()));
    let csv = std::fs::read_to_string(dir.join("knn.csv")).expect("knn.csv");
    let ran = r.jvms.iter().filter(|j| j.skipped.is_none()).count();
    assert_eq!(csv.lines().count(), 1 + 4 * ran);
    let svg = std::fs::read_to_string(dir.join("knn.svg")).expect("knn.svg");
    assert!(svg.starts_with("<svg") && svg.contains("<polyline"));

    support::assert_schema_valid(
        include_str!("../../transport-bench/schema/knn.schema.json"),
        &serde_json::from_str(&text).expect("JSON"),
    );
    support::assert_rerenders(&dir, "knn", &["report.txt", "knn.csv", "knn.svg"]);
    let _ = std::fs::remove_dir_all(&dir);
}
