//! QTime truth with QTimes that are not all 0: pivot facets over 100,000 documents make Solr
//! spend measurable time on each search, and the QTime `watch` reads from each answer (JSON,
//! javabin and CBOR, captured on `lo`) must equal the one Solr itself logged for that request
//! (its request log line `... params={...qtruth=N...} ... QTime=Q`), request for request;
//! and so must the QTimes `watch --ebpf` reads from the same searches over https.

use std::collections::BTreeMap;

use serde::Serialize;
use solr_client::admin::CreateCore;
use solr_client::{Commit, SolrClient, TlsOptions};
use solr_watch::report::RequestRecord;

use crate::support;
use crate::watch::{curl, watched_capture};

/// Documents in the core.
const DOCS: usize = 100_000;
/// Searches per response format.
const PER_FORMAT: usize = 4;
const FORMATS: [&str; 3] = ["json", "javabin", "cbor"];

#[derive(Serialize)]
struct Doc {
    id: String,
    category: String,
    tag_s: String,
    popularity: i32,
}

/// A client on `base` (trusting `ca` when given) for `core`.
fn client_for(base: &str, core: &str, ca: Option<&std::path::Path>) -> SolrClient {
    let mut tls = TlsOptions::new();
    if let Some(ca) = ca {
        tls = tls.add_ca_pem_file(ca).expect("CA readable");
    }
    SolrClient::builder(base)
        .collection(core)
        .tls(tls)
        .build()
        .expect("client")
}

/// A core of its own, filled with `DOCS` documents over 1,000 categories x 200 tags.
async fn heavy_core(base: &str, core: &str, ca: Option<&std::path::Path>) {
    let c = client_for(base, core, ca);
    c.cores()
        .create(&CreateCore::new(core).configset("bench"))
        .await
        .expect("create core");
    let docs: Vec<Doc> = (0..DOCS)
        .map(|i| Doc {
            id: format!("q{i}"),
            category: format!("c{}", i % 1000),
            tag_s: format!("t{}", (i * 7) % 200),
            popularity: (i % 97) as i32,
        })
        .collect();
    let r = c.add_batched(&docs, 10_000).await.expect("index");
    assert_eq!(r.acknowledged, DOCS, "{r:?}");
    c.commit(Commit::default()).await.expect("commit");
}

/// Unloads `core` and deletes its files.
async fn unload(base: &str, core: &str, ca: Option<&std::path::Path>) {
    client_for(base, core, ca)
        .cores()
        .unload(core, true)
        .await
        .expect("unload the core");
}

/// `marker -> QTime` of every request line in the node's log that carries `qtruth=`.
fn logged_qtimes(log: &str) -> BTreeMap<u32, u64> {
    log.lines()
        .filter_map(|l| {
            let m = l.split("qtruth=").nth(1)?;
            let marker: u32 = m
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()?;
            let q = l.rsplit("QTime=").next()?;
            let qtime = q
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()?;
            Some((marker, qtime))
        })
        .collect()
}

/// The searches, `PER_FORMAT` per format, marked `qtruth=first...`.
fn searches(base: &str, core: &str, first: usize) -> Vec<String> {
    (0..FORMATS.len() * PER_FORMAT)
        .map(|i| {
            format!(
                "{base}/{core}/select?q=popularity:%5B0%20TO%20{}%5D&rows=0&facet=true\
                 &facet.pivot=category,tag_s&facet.limit=-1&wt={}&qtruth={}",
                50 + i,
                FORMATS[i / PER_FORMAT],
                first + i
            )
        })
        .collect()
}

/// The searches, one curl per format, `ca` trusted.
fn run_curls(urls: &[String], ca: &str) -> Vec<u32> {
    urls.chunks(PER_FORMAT)
        .map(|format| {
            let mut c = std::process::Command::new("curl");
            c.args(["-sS", "--fail", "--http1.1", "--cacert", ca]);
            for u in format {
                c.args(["-o", "/dev/null", u.as_str()]);
            }
            let child = c.spawn().expect("curl");
            let pid = child.id();
            let out = child.wait_with_output().expect("curl ends");
            assert!(out.status.success(), "{c:?}");
            pid
        })
        .collect()
}

/// The premise: non-zero QTimes that differ, so a decoder reading another field (or none)
/// would not match.
fn assert_varied(qtimes: &[u64]) {
    let distinct: std::collections::BTreeSet<_> = qtimes.iter().collect();
    assert!(
        qtimes.iter().all(|q| *q > 0) && distinct.len() > 1,
        "non-zero, varied QTimes: {qtimes:?}"
    );
}

#[tokio::test]
async fn watch_reads_the_qtime_solr_logged_for_each_request() {
    let s = support::standalone();
    let base = s.url(None).expect("url").to_string();
    let core = format!("qtruth{}", std::process::id());
    heavy_core(&base, &core, None).await;
    let port = url::Url::parse(&base)
        .ok()
        .and_then(|u| u.port())
        .expect("port");
    let urls = searches(&base, &core, 0);
    let _g = support::exclusive().await;
    let (_, c) = watched_capture(port, || {
        for format in urls.chunks(PER_FORMAT) {
            let mut args: Vec<&str> = Vec::new();
            for u in format {
                args.extend(["-o", "/dev/null", u.as_str()]);
            }
            curl(&args);
        }
    });
    let mut seen: Vec<RequestRecord> = solr_watch::report::requests(&c.tracker)
        .into_iter()
        .filter(|r| r.path == format!("/solr/{core}/select"))
        .collect();
    seen.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    assert_eq!(seen.len(), urls.len(), "searches watch saw");
    let log = std::fs::read_to_string(s.dir().join("node1/logs/solr.log")).expect("solr.log");
    let logged = logged_qtimes(&log);
    for (i, r) in seen.iter().enumerate() {
        assert_eq!(r.wt, FORMATS[i / PER_FORMAT], "{r:?}");
        let solr = logged.get(&(i as u32)).copied();
        assert_eq!(
            r.qtime_ms, solr,
            "request {i} ({}): watch vs Solr's log",
            r.wt
        );
    }
    let qtimes: Vec<u64> = seen.iter().filter_map(|r| r.qtime_ms).collect();
    assert_varied(&qtimes);
    eprintln!("pcap: QTimes (ms), JSON, javabin, CBOR: {qtimes:?}");
    drop(_g);
    ebpf_over_https(&core).await;
    unload(&base, &core, None).await;
}

/// The same searches over https, watched with `watch --ebpf` (plaintext read at OpenSSL):
/// each curl's QTimes, in order, are the ones Solr logged.
async fn ebpf_over_https(core: &str) {
    let s = support::standalone_tls();
    let base = s.url(None).expect("url").to_string();
    heavy_core(&base, core, s.ca.as_deref()).await;
    let ca = s.ca.as_ref().expect("CA").display().to_string();
    let port = url::Url::parse(&base)
        .ok()
        .and_then(|u| u.port())
        .expect("port");
    let urls = searches(&base, core, 100);
    let _g = support::exclusive().await;
    let w = crate::watch_ebpf::Watch::start(port);
    let pids = run_curls(&urls, &ca);
    let r = w.stop();
    let log = std::fs::read_to_string(s.dir().join("node1/logs/solr.log")).expect("solr.log");
    let logged = logged_qtimes(&log);
    let mut all = Vec::new();
    for (f, pid) in pids.iter().enumerate() {
        let p = crate::watch_ebpf::process(&r, *pid);
        let want: Vec<Option<u64>> = (0..PER_FORMAT)
            .map(|i| logged.get(&((100 + f * PER_FORMAT + i) as u32)).copied())
            .collect();
        assert_eq!(p.qtimes, want, "{}: watch --ebpf vs Solr's log", FORMATS[f]);
        all.extend(p.qtimes.iter().flatten());
    }
    assert_varied(&all);
    eprintln!("ebpf: QTimes (ms), JSON, javabin, CBOR: {all:?}");
    unload(&base, core, s.ca.as_deref()).await;
}
