//! The response-format axis of `audit` (and `study`, which shares its scenario):
//! `--response-format json,xml,javabin,cbor` runs the same searches in every format against
//! the real Solr. Asserted exactly, never a speed: every format found what JSON found for
//! every search, the per-format byte counts are the sums of the response bodies (and socket
//! bytes) the client recorded for each search, the table, CSV, schema and verdict carry the
//! axis, and `report` re-renders the same figures from the raw records.

use std::collections::{BTreeMap, HashMap};

use clap::Parser;
use serde_json::Value;
use solr_client::{Commit, TransportKind};
use transport_bench::cli::{run, Cli};
use transport_bench::scenario::study::load_summary;

use crate::support;

const SUMMARY_SCHEMA: &str = include_str!("../../transport-bench/schema/summary.schema.json");

/// Documents indexed under the test's tag (all fit in one page of 10 rows).
const N: u64 = 7;
const SEARCHES: u64 = 3;
const FORMATS: [&str; 4] = ["json", "xml", "javabin", "cbor"];

#[tokio::test]
async fn audit_runs_the_same_searches_in_every_response_format() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url").to_string();
    let tag = support::tag("respfmt");
    let c = support::client(&url, TransportKind::Pooled, false);
    c.add(&support::docs(&tag, N as usize, 0))
        .await
        .expect("add");
    c.commit(Commit::default()).await.expect("commit");
    let dir = std::env::temp_dir().join(support::tag("respfmt-audit"));
    run(Cli::parse_from([
        "transport-bench",
        "audit",
        "--url",
        &url,
        "--query",
        &format!("tag_s:{tag}"),
        "--searches",
        &SEARCHES.to_string(),
        "--response-format",
        "json,xml",
        "--response-format",
        "javabin,cbor",
        "--no-idle",
        "--no-pcap",
        "--quiet",
        "--out",
        dir.to_str().expect("utf-8 path"),
    ]))
    .await
    .expect("audit runs");

    let r = load_summary(&dir).expect("summary.json");
    // Every transport (4) with and without gzip, in each format.
    let combos = (TransportKind::ALL.len() * 2) as u64;
    assert_eq!(r.transports.len() as u64, combos * 4, "{:?}", r.transports);
    assert!(r
        .transports
        .iter()
        .any(|t| t.transport == "pooled+gzip+javabin"));
    let formats: Vec<&str> = r.formats.iter().map(|f| f.format.as_str()).collect();
    assert_eq!(formats, FORMATS);

    // The raw records: one per search, with its numFound and its byte counts.
    let text = std::fs::read_to_string(dir.join("records.jsonl")).expect("records.jsonl");
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(records.len() as u64, combos * 4 * SEARCHES);
    let mut json_found: HashMap<(String, u64), u64> = HashMap::new();
    let mut sums: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    let format_of = |transport: &str| -> (String, String) {
        let (base, f) = transport.rsplit_once('+').expect("a format suffix");
        (base.to_string(), f.to_string())
    };
    for rec in &records {
        assert_eq!(rec["error"], Value::Null, "{rec}");
        let (base, f) = format_of(rec["transport"].as_str().expect("transport"));
        let found = rec["num_found"].as_u64().expect("numFound recorded");
        // The query is filtered on this test's tag: exactly its documents, in every format.
        assert_eq!(found, N, "{rec}");
        let seq = rec["seq"].as_u64().expect("seq");
        if f == "json" {
            json_found.insert((base, seq), found);
        }
        let t = &rec["timing"];
        let s = sums.entry(f).or_default();
        s.0 += 1;
        s.1 += t["decoded_bytes"].as_u64().expect("decoded bytes");
        s.2 += t["bytes_in"].as_u64().expect("bytes in");
        // Without gzip, where the transport counts socket bytes, the socket carried the
        // whole body plus the HTTP head.
        if t["content_encoding"].is_null() && t["bytes_exact"] == Value::Bool(true) {
            assert!(
                t["bytes_in"].as_u64() > t["decoded_bytes"].as_u64(),
                "{rec}"
            );
        }
    }
    for rec in &records {
        let (base, _) = format_of(rec["transport"].as_str().expect("transport"));
        let seq = rec["seq"].as_u64().expect("seq");
        assert_eq!(
            json_found.get(&(base, seq)).copied(),
            rec["num_found"].as_u64(),
            "the same search in JSON: {rec}"
        );
    }
    for f in &r.formats {
        let (n, body, wire) = sums[&f.format];
        assert_eq!(
            (f.requests, f.errors, f.body_bytes, f.wire_bytes_in),
            (n, 0, body, wire),
            "{}: counts are the sums of the client's per-response records",
            f.format
        );
        assert_eq!(n, combos * SEARCHES);
        assert_eq!(
            (f.num_found_mismatches, f.num_found_compared),
            (0, combos * SEARCHES),
            "{}",
            f.format
        );
        assert_eq!(f.pcap_bytes_in, None, "no capture ran");
        assert_eq!(f.decode.n, n, "{}: a decode time per search", f.format);
        assert!(f.wire_bytes_vs_json.is_some() && f.decode_p50_vs_json.is_some());
    }
    assert_eq!(r.formats[0].wire_bytes_vs_json, Some(1.0));
    // The formats really differ on the wire: XML bodies are not JSON's.
    assert_ne!(r.formats[0].body_bytes, r.formats[1].body_bytes);
    assert!(
        r.verdict.contains("fewest response bytes: ") && r.verdict.contains("fastest decode: "),
        "{}",
        r.verdict
    );
    assert!(
        !r.warnings.iter().any(|w| w.contains("numFound")),
        "{:?}",
        r.warnings
    );

    let txt = std::fs::read_to_string(dir.join("report.txt")).expect("report.txt");
    assert!(txt.contains("Response formats (search workload"), "{txt}");
    let csv = std::fs::read_to_string(dir.join("formats.csv")).expect("formats.csv");
    assert_eq!(csv.lines().count(), 1 + FORMATS.len(), "{csv}");
    assert!(csv.starts_with("format,scenario,requests,errors,body_bytes,wire_bytes_in"));
    support::assert_schema_valid(
        SUMMARY_SCHEMA,
        &support::read_json(&dir.join("summary.json")),
    );
    support::assert_rerenders(&dir, "study", &["report.txt", "formats.csv"]);
    let again = load_summary(&dir).expect("summary.json after report");
    assert_eq!(
        serde_json::to_value(&again.formats).expect("json"),
        serde_json::to_value(&r.formats).expect("json"),
        "report rebuilds the per-format figures from records.jsonl"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
