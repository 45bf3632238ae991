//! `transport-bench baseline` end to end against the real local Solr, small: the raw hyper
//! loop and solr-client's pooled rows run the same searches; every request answered, the
//! counts are exact, raw hyper is the reference of the ratios, and the JSON report matches
//! the published schema. Latencies and CPU are never asserted.

use transport_bench::scenario::baseline::{BaselineReport, BaselineRow};

use crate::support;

/// The published schema of the `baseline` report.
const SCHEMA: &str = include_str!("../../transport-bench/schema/baseline.schema.json");

#[tokio::test]
async fn baseline_runs_raw_hyper_and_every_row_on_the_same_searches() {
    let s = support::standalone();
    let url = s.url(None).unwrap().to_string();
    let out = std::env::temp_dir().join(support::tag("baseline"));
    support::run_shared(
        &[
            "baseline",
            "--url",
            &url,
            "--docs",
            "50",
            "--queries",
            "30",
            "--rounds",
            "2",
            "--warmup",
            "5",
            "--rows",
            "raw-hyper,raw-hyper-json,raw-hyper-typed,pooled,pooled-typed,http2",
            "--quiet",
            "--out",
            &out.display().to_string(),
        ],
        "baseline runs",
    )
    .await;
    let json = support::read_json(&out.join("summary.json"));
    support::assert_schema_valid(SCHEMA, &json);
    let r: BaselineReport = serde_json::from_value(json).expect("report reads back");
    assert_eq!(r.rows.len(), 6);
    for row in &r.rows {
        assert_eq!(row.latency.n, 60, "{row:?}");
        assert_eq!(row.errors, 0, "{row:?}");
        assert!(row.p50_vs_raw.is_some() && row.cpu_vs_raw.is_some());
    }
    assert_eq!(r.rows[0].row, BaselineRow::RawHyper);
    assert_eq!(r.rows[0].p50_vs_raw, Some(1.0));
    assert_eq!(r.per_round.len(), 12);
    assert!(r.per_round.iter().all(|x| x.latency.n == 30));
    // Both pooled rows are checked against the targets, each against the raw loop
    // doing the same decoding work.
    let checked: Vec<(BaselineRow, BaselineRow)> =
        r.targets.iter().map(|t| (t.row, t.reference)).collect();
    assert_eq!(
        checked,
        [
            (BaselineRow::Pooled, BaselineRow::RawHyperJson),
            (BaselineRow::PooledTyped, BaselineRow::RawHyperTyped)
        ]
    );
    // `report RUN` re-renders the run from its JSON, byte for byte (a new kind: always
    // saved with run.json, so no manifest-less fallback).
    support::assert_rerenders_from_manifest(&out, "baseline", &["report.txt", "rounds.csv"]);
    let _ = std::fs::remove_dir_all(&out);
}
