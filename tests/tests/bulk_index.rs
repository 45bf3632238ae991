//! `transport-bench bulk-index` end to end against the real local Solr, small (2000
//! documents, one round): the SolrJ program (built by `solr.sh setup`) and solr-client index
//! the same documents; every run's numFound check passed exactly, and the JSON report
//! matches the published schema. Speeds are never asserted.

use crate::support;

/// The published schema of the `bulk-index` report.
const SCHEMA: &str = include_str!("../../transport-bench/schema/bulk-index.schema.json");

#[tokio::test]
async fn bulk_index_small_run_is_exact_for_every_row() {
    let s = support::standalone();
    let url = s.url(None).unwrap().to_string();
    let tag = support::tag("bulkidx");
    let out = std::env::temp_dir().join(&tag);
    support::run_shared(
        &[
            "bulk-index",
            "--url",
            &url,
            "--docs",
            "2000",
            "--rounds",
            "1",
            "--batch",
            "500",
            "--in-flight",
            "3",
            "--warmup-docs",
            "300",
            "--cusc-queue",
            "10,100",
            "--cusc-threads",
            "2",
            "--sweep-docs",
            "400",
            "--tag",
            &tag,
            "--quiet",
            "--out",
            &out.display().to_string(),
        ],
        "bulk-index runs",
    )
    .await;
    let json = support::read_json(&out.join("summary.json"));
    support::assert_schema_valid(SCHEMA, &json);
    let r: transport_bench::scenario::bulk_index::BulkIndexReport =
        serde_json::from_value(json).expect("report reads back");
    assert!(r.all_exact, "{}", r.verdict);
    // 4 warm-up runs (300 docs), 2 sweep runs (400 docs), 4 timed runs (2000 docs).
    assert_eq!(r.runs.len(), 10);
    assert_eq!(r.cusc_sweep.len(), 2);
    assert!(r.cusc_sweep.iter().all(|p| p.exact && p.threads == 2));
    for run in &r.runs {
        let want = match (run.round, run.prefix.contains("-sweep-")) {
            (Some(_), _) => 2000,
            (None, true) => 400,
            (None, false) => 300,
        };
        assert_eq!(run.docs, want, "{run:?}");
        assert_eq!(run.num_found, want, "{run:?}");
        assert!(run.exact && run.errors == 0, "{run:?}");
        assert!(run.prefix.starts_with(&tag));
    }
    let names: Vec<&str> = r.rows.iter().map(|x| x.row.as_str()).collect();
    assert_eq!(
        names,
        ["solrj-cusc", "solrj-http2", "sequential", "concurrent"]
    );
    for row in &r.rows {
        assert_eq!(row.runs, 1, "{row:?}");
        assert!(row.all_exact);
        assert!(row.docs_per_s_vs_cusc.is_some());
    }
    assert!(r.verdict.starts_with("every run exact"), "{}", r.verdict);
    // Nothing of the bench is left in the core.
    let client = support::client(&url, solr_client::TransportKind::Pooled, false);
    let q = format!("{{!prefix f=id}}{tag}");
    let left = client
        .select(&solr_client::Select::new(q).rows(0))
        .await
        .expect("count");
    assert_eq!(left.num_found(), 0);
    // `report RUN` re-renders the run from its JSON, byte for byte (a new kind: always
    // saved with run.json, so no manifest-less fallback).
    support::assert_rerenders_from_manifest(&out, "bulk-index", &["report.txt", "runs.csv"]);
    let _ = std::fs::remove_dir_all(&out);
}
