//! The seed workloads S3 (`nrt`) and S4 (`bulk-files`) at a small scale, through the CLI
//! parser, against real Solr: every probed document's visibility lag is measured, docs
//! indexed == docs acknowledged / sent exactly, every task group did work, and the table,
//! JSON (valid against the published schema), CSV and SVG are written.

use std::path::Path;

use solr_harness::local_solr::{LocalSolr, Mode};
use transport_bench::cli::registry::run_to_end;
use transport_bench::scenario::bulk_files::cli::BulkFiles;
use transport_bench::scenario::nrt::cli::Nrt;
use transport_bench::scenario::shape::Scenario;

use crate::support::{self, study::StudyRun};

/// Stops the dedicated node even when an assertion fails.
struct Node(LocalSolr);

impl Drop for Node {
    fn drop(&mut self) {
        if let Err(e) = self.0.stop() {
            eprintln!("could not stop {}: {e:#}", self.0.name);
        }
    }
}

/// The options of scenario `S` from the command line `transport-bench LIST...`.
fn args<S: Scenario>(list: &[&str]) -> S::Args {
    let argv = std::iter::once("transport-bench").chain(list.iter().copied());
    transport_bench::cli::scenario_args::<S>(argv).unwrap_or_else(|e| panic!("{e}"))
}

fn validate(schema: &str, dir: &Path) {
    support::assert_schema_valid(schema, &support::read_json(&dir.join("summary.json")));
}

fn last_line(path: &Path) -> String {
    std::fs::read_to_string(path)
        .expect("report.txt")
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

/// S3 on its own node (the refresh loop commits as fast as it can; the shared nodes'
/// other tests should not queue behind it): 2,000 preloaded docs, 8 s with hard and with
/// soft commits.
#[tokio::test]
async fn nrt_hard_and_soft_measure_every_probed_doc() {
    let _g = support::shared().await;
    let node =
        Node(LocalSolr::start(Mode::Standalone, "e2e-nrt", &[]).expect("dedicated Solr starts"));
    let url = node.0.url(None).expect("url").to_string();
    let run = StudyRun::new("nrt");
    let a = run.args::<Nrt>(&[
        "nrt",
        "--url",
        &url,
        "--preload",
        "2000",
        "--duration",
        "8",
        "--commit",
        "hard,soft",
        "--rate",
        "50",
        "--merge-wait",
        "20",
    ]);
    let out = run.out;
    let r = run_to_end::<Nrt>(a)
        .await
        .expect("nrt runs")
        .expect("a report");

    assert_eq!(r.runs.len(), 2);
    assert_eq!(r.runs[0].commit, "hard");
    assert_eq!(r.runs[1].commit, "soft");
    for run in &r.runs {
        let c = &run.commit;
        // Every group did work, without errors.
        for name in ["UpdateIndexView", "Indexing", "Searching", "Probing"] {
            let g = run
                .groups
                .iter()
                .find(|g| g.name == name)
                .unwrap_or_else(|| panic!("{c}: group {name}"));
            assert!(g.count > 0, "{c}: {name} did nothing");
            assert_eq!(g.errors, 0, "{c}: {name} errors");
            assert_eq!(g.time.n, g.count, "{c}: {name} timed every request");
        }
        // Every acknowledged add was probed and seen: a lag for each.
        let v = &run.visibility;
        assert_eq!(v.probed, run.indexing.acknowledged, "{c}: probe every add");
        assert_eq!(v.unseen, 0, "{c}: unseen probes");
        assert_eq!(v.seen, v.probed, "{c}: seen");
        assert_eq!(v.lag.n, v.probed, "{c}: one lag per probed doc");
        // Exact counts.
        assert_eq!(run.check.preload_acknowledged, 2000, "{c}");
        assert_eq!(run.check.preload_found, 2000, "{c}");
        assert_eq!(
            run.check.indexed_found, run.check.indexed_acknowledged,
            "{c}: indexed == acknowledged"
        );
        assert!(run.check.ok);
        // The timeline accounts for every add and search of the measured phase.
        let docs: u64 = run.timeline.iter().map(|s| s.docs).sum();
        let searches: u64 = run.timeline.iter().map(|s| s.searches).sum();
        let refreshes: u64 = run.timeline.iter().map(|s| s.refreshes).sum();
        let group = |n: &str| run.groups.iter().find(|g| g.name == n).expect("group");
        assert_eq!(docs, group("Indexing").count, "{c}: timeline docs");
        assert_eq!(searches, group("Searching").count, "{c}: timeline searches");
        assert_eq!(refreshes, group("UpdateIndexView").count, "{c}");
        assert_eq!(run.refreshes.len() as u64, refreshes, "{c}");
    }
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert!(r.verdict.starts_with("verdict: "), "{}", r.verdict);

    // Outputs.
    validate(
        include_str!("../../transport-bench/schema/nrt.schema.json"),
        &out,
    );
    assert_eq!(last_line(&out.join("report.txt")), r.verdict);
    for f in ["timeline-hard.svg", "timeline-soft.svg"] {
        let svg = std::fs::read_to_string(out.join(f)).expect(f);
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{f}"
        );
    }
    let groups = std::fs::read_to_string(out.join("groups.csv")).expect("groups.csv");
    assert_eq!(groups.lines().count(), 1 + 2 * 5, "header + 5 rows per run");
    let timeline = std::fs::read_to_string(out.join("timeline.csv")).expect("timeline.csv");
    let rows = r.runs.iter().map(|x| x.timeline.len()).sum::<usize>();
    assert_eq!(timeline.lines().count(), 1 + rows);
    support::assert_rerenders(
        &out,
        "nrt",
        &[
            "report.txt",
            "groups.csv",
            "timeline.csv",
            "timeline-hard.svg",
            "timeline-soft.svg",
        ],
    );
    let _ = std::fs::remove_dir_all(&out);
}

async fn bulk(format: &str, cold: &str) {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).expect("url").to_string();
    let tag = support::tag(&format!("bulk_{format}"));
    let out = std::env::temp_dir().join(&tag);
    let data = std::env::temp_dir().join(format!("{tag}-data"));
    let prefix = format!("{tag}-");
    let a = args::<BulkFiles>(&[
        "bulk-files",
        "--url",
        &url,
        "--files",
        "6",
        "--docs-per-file",
        "200",
        "--format",
        format,
        "--reps",
        "1",
        "--cold",
        cold,
        "--dir",
        data.to_str().expect("utf-8 path"),
        "--remove-files",
        "--id-prefix",
        &prefix,
        "--quiet",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let r = run_to_end::<BulkFiles>(a)
        .await
        .expect("bulk-files runs")
        .expect("a report");

    assert_eq!(r.files, 6);
    assert_eq!(r.docs, 1200);
    assert!(r.mb > 0.0);
    // The cold run needs root (drop_caches) or works anywhere (fadvise).
    if let Some(why) = &r.cold_skipped {
        assert_eq!(cold, "drop-caches", "fadvise evicts without root: {why}");
        support::skip::record(
            "bulk-files: the cold run after dropping the page cache",
            why,
            support::skip::Installable::NotHere,
        );
    }
    let expected_runs = if r.cold_skipped.is_some() { 1 } else { 2 };
    assert_eq!(r.runs.len(), expected_runs, "{:?}", r.cold_skipped);
    for run in &r.runs {
        assert_eq!(run.docs, 1200, "{format} {}: sent", run.cache);
        assert_eq!(run.indexed, 1200, "{format} {}: indexed == sent", run.cache);
        assert!(run.ok);
        assert_eq!(run.post_per_file.n, 6);
        assert_eq!(run.read_per_file.n, 6);
        assert!((run.mb - r.mb).abs() < 1e-9, "every run posts every byte");
    }
    if let [hot, cold] = r.runs.as_slice() {
        assert_eq!((hot.cache.as_str(), cold.cache.as_str()), ("hot", "cold"));
        if let (Some(h), Some(c)) = (hot.resident_mb, cold.resident_mb) {
            assert!(c < h, "cold run starts with fewer cached MB ({c} vs {h})");
        } else {
            support::skip::record(
                "bulk-files: fewer cached MB before the cold run than the hot one",
                "fincore gave no page-cache residency; scripts/setup.sh installs it, util-linux-extra",
                support::skip::Installable::BySetup,
            );
        }
        assert_eq!(r.cold_minus_hot_s.len(), 1);
    }
    assert!(r.verdict.starts_with("verdict: "), "{}", r.verdict);
    validate(
        include_str!("../../transport-bench/schema/bulk-files.schema.json"),
        &out,
    );
    assert_eq!(last_line(&out.join("report.txt")), r.verdict);
    let csv = std::fs::read_to_string(out.join("runs.csv")).expect("runs.csv");
    assert_eq!(csv.lines().count(), 1 + r.runs.len());
    let svg = std::fs::read_to_string(out.join("runs.svg")).expect("runs.svg");
    assert!(svg.starts_with("<svg"));
    assert!(!data.join("00000.xml").exists() && !data.join("00000.json").exists());
    support::assert_rerenders(&out, "bulk-files", &["report.txt", "runs.csv", "runs.svg"]);
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&data);
}

/// S4 in XML, the cold run after dropping the page cache as the seed did.
#[tokio::test]
async fn bulk_files_xml_indexes_every_doc_sent() {
    bulk("xml", "drop-caches").await;
}

/// S4 in JSON, the cold run evicting only the update files (posix_fadvise).
#[tokio::test]
async fn bulk_files_json_indexes_every_doc_sent() {
    bulk("json", "fadvise").await;
}
