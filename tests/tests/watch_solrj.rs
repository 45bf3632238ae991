//! `watch` on SolrJ, the most used Solr client, which asks for javabin by default: a real
//! SolrJ program (`dev.solrbench.SearchQtimes`, built by the launcher's Maven set-up) runs N
//! searches with `Http2SolrClient` (HTTP/2, prior knowledge) and with `HttpJdkSolrClient`
//! (HTTP/1.1) and prints the status and QTime it read from each response. watch, capturing
//! the same traffic on `lo`, must count exactly N searches and read the same QTimes and
//! statuses, in the same order. And Solr's own `wt=cbor` answers, fetched with curl with
//! and without gzip, must give watch the QTimes solr-client's CBOR decoder reads from the
//! bodies curl saved.

use std::process::Command;

use solr_client::codec::cbor;
use solr_watch::report::RequestRecord;

use crate::support;
use crate::watch::{curl, figures, run_ok, search_url, watched_capture};

const N: usize = 10;

/// The searches of a capture in the order they were sent: (Solr status, QTime) as watch
/// read them, with the HTTP status and `wt` checked on the way.
fn searches(recs: &[RequestRecord], wt: &str, what: &str) -> Vec<(Option<i64>, Option<u64>)> {
    let mut s: Vec<&RequestRecord> = recs
        .iter()
        .filter(|r| r.path == "/solr/bench/select")
        .collect();
    s.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    for r in &s {
        assert_eq!((r.status, r.wt.as_str()), (200, wt), "{what}: {r:?}");
    }
    s.iter().map(|r| (r.solr_status, r.qtime_ms)).collect()
}

/// Runs the SolrJ program and returns what SolrJ read: (status, QTime) per search.
fn solrj(kind: &str, base: &str) -> Vec<(Option<i64>, Option<u64>)> {
    let root = solr_harness::project_root();
    let args = root.join("local-solr/launcher/target/java-cp.args");
    assert!(
        args.is_file(),
        "{} missing: run `bash local-solr/solr.sh setup`",
        args.display()
    );
    let out = run_ok(
        Command::new("java")
            .arg(format!("@{}", args.display()))
            .arg("dev.solrbench.SearchQtimes")
            .args([kind, base, "bench", "*:*", &N.to_string()]),
    );
    String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| l.strip_prefix("QTIME "))
        .map(|l| {
            let (status, qtime) = l.split_once(' ').expect("QTIME status qtime");
            (status.parse().ok(), qtime.parse().ok())
        })
        .collect()
}

#[tokio::test]
async fn solrj_javabin_qtimes_are_the_ones_solrj_read() {
    let (base, _, port) = search_url().await;
    let _g = support::exclusive().await;
    for (kind, protocol) in [("http2", "h2c"), ("jdk", "http1")] {
        let what = format!("SolrJ {kind}");
        let mut said = Vec::new();
        let (r, c) = watched_capture(port, || said = solrj(kind, &base));
        assert_eq!(said.len(), N, "{what}: SolrJ's own lines");
        assert!(
            said.iter().all(|(s, q)| *s == Some(0) && q.is_some()),
            "{what}: {said:?}"
        );
        let seen = searches(&solr_watch::report::requests(&c.tracker), "javabin", &what);
        assert_eq!(seen, said, "{what}: watch's (status, QTime) vs SolrJ's");
        let q = figures(&r);
        assert_eq!(q.requests, N as u64, "{what}: requests");
        assert_eq!(q.qtime_decoded, N as u64, "{what}: QTimes decoded");
        assert_eq!(r.undecodable.qtime_missing, 0, "{what}");
        let protocols: Vec<&str> = r
            .connection_list
            .iter()
            .filter(|c| c.requests.unwrap_or(0) > 0)
            .map(|c| c.protocol.as_str())
            .collect();
        assert!(
            !protocols.is_empty() && protocols.iter().all(|p| *p == protocol),
            "{what}: {protocols:?}"
        );
        let kinds: Vec<&str> = r.findings.iter().map(|f| f.kind.as_str()).collect();
        eprintln!(
            "{what}: {N} searches on {} connections, findings {kinds:?}",
            protocols.len()
        );
    }
}

#[tokio::test]
async fn solr_cbor_answers_give_their_qtime_gzipped_or_not() {
    let (base, _, port) = search_url().await;
    let url = format!("{base}/bench/select?q=*:*&rows=10&wt=cbor");
    let dir = std::env::temp_dir().join(format!("watch-cbor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let _g = support::exclusive().await;
    for gzip in [false, true] {
        let what = format!("curl wt=cbor, gzip {gzip}");
        let mut read = Vec::new();
        let (_, c) = watched_capture(port, || {
            for i in 0..N {
                let file = dir.join(format!("{i}.cbor"));
                let mut args = vec!["-o", file.to_str().expect("utf-8 path"), &url];
                if gzip {
                    args.insert(0, "--compressed");
                }
                curl(&args);
                let body = std::fs::read(&file).expect("body");
                let v = cbor::decode(&body).expect("Solr's CBOR");
                let h = &v["responseHeader"];
                read.push((h["status"].as_i64(), h["QTime"].as_u64()));
            }
        });
        assert!(
            read.iter().all(|(s, q)| *s == Some(0) && q.is_some()),
            "{what}: {read:?}"
        );
        let recs = solr_watch::report::requests(&c.tracker);
        let encoded = recs.iter().filter(|r| r.content_encoding == "gzip").count();
        assert_eq!(encoded, if gzip { N } else { 0 }, "{what}: gzip responses");
        assert_eq!(searches(&recs, "cbor", &what), read, "{what}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
