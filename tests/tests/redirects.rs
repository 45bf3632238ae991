//! Redirects. No transport follows a 3xx itself; the client's redirect
//! decorator decides, the same way over every transport: a write is never redirected (an
//! error naming status and Location, nothing reaches the other host, the batch is reported
//! lost), a read follows only on opt-in (`follow_redirects(max_hops)`): within max hops,
//! same scheme only, `Authorization` dropped across origins, the hops in the timing.
//!
//! The redirecting server is the fault server (real Solr does not redirect); the target is
//! a second fault server (which records every request and header it saw) or real Solr. The
//! HTTP/2 transport is covered in `h2_faults`.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use solr_client::transport::Routing;
use solr_client::{
    Commit, Credentials, Error, Select, SolrClient, SolrClientBuilder, TransportKind,
};

use crate::support::fault_server::{Fault, FaultServer, SELECT_OK, UPDATE_OK};
use crate::support::{self, docs, tag};

/// The HTTP/1.1 transports the fault server speaks.
const H1: [TransportKind; 3] = [
    TransportKind::Fresh,
    TransportKind::Pooled,
    TransportKind::Reqwest,
];

const PASSWORD: &str = "pw-never-shown";

async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(20), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within 20 s"),
    }
}

fn builder(url: &str, kind: TransportKind) -> SolrClientBuilder {
    SolrClient::builder(url)
        .collection("bench")
        .transport(kind)
        .credentials(Credentials::basic("alice", PASSWORD))
}

fn has_authorization(headers: &[String]) -> bool {
    headers
        .iter()
        .any(|h| h.to_ascii_lowercase().starts_with("authorization:"))
}

/// A `POST /update` answered by 302 or 307: an `Error::Redirect` naming status and Location
/// (with the credentials of the Location removed), even with following on; the other host
/// sees nothing; `add_batched` reports 0 acknowledged and every document failed.
#[tokio::test]
async fn a_redirected_write_is_an_error_and_reaches_no_other_host() {
    let _g = support::shared().await;
    for kind in H1 {
        for code in [302u16, 307] {
            let target = FaultServer::start(vec![Fault::Ok(UPDATE_OK)]).await;
            let shown = format!("http://{}/solr/bench/update?wt=json", target.authority());
            let location = format!(
                "http://bob:loc-secret@{}/solr/bench/update?wt=json",
                target.authority()
            );
            let src = FaultServer::start(vec![Fault::Redirect(code, location)]).await;
            for follow in [0, 5] {
                let c = builder(&src.url(), kind)
                    .follow_redirects(follow)
                    .build()
                    .expect("client");
                let what = format!("{kind} {code} follow={follow}");
                let batch = docs(&tag("redir"), 100, 0);
                let report = bounded(&what, c.add_batched(&batch, 100))
                    .await
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(report.acknowledged, 0, "{what}");
                assert_eq!(report.failed.len(), 100, "{what}");
                assert_eq!(report.requests, 1, "{what}");
                assert!(
                    report.failed[0].message.contains(&code.to_string())
                        && report.failed[0].message.contains(&shown),
                    "{what}: {}",
                    report.failed[0].message
                );
                match bounded(&what, c.add(&batch[..2])).await {
                    Err(Error::Update {
                        report,
                        cause: Some(cause),
                        ..
                    }) => {
                        assert_eq!(report.sent, 2, "{what}");
                        assert_eq!(report.failed.len(), 2, "{what}: a redirect indexes nothing");
                        assert!(report.is_balanced(), "{what}");
                        match &*cause {
                            Error::Redirect {
                                status, location, ..
                            } => {
                                assert_eq!(*status, code, "{what}");
                                assert_eq!(location.as_deref(), Some(shown.as_str()), "{what}");
                            }
                            other => panic!("{what}: expected Error::Redirect, got {other:?}"),
                        }
                        assert_eq!(cause.status(), Some(code), "{what}");
                        assert_eq!(cause.node(), Some(src.url().as_str()), "{what}");
                        assert!(!cause.is_not_sent(), "{what}: the first host received it");
                        let text = format!("{cause} {cause:?}");
                        assert!(
                            !text.contains("loc-secret") && !text.contains(PASSWORD),
                            "{what}: {text}"
                        );
                    }
                    other => panic!("{what}: expected Update caused by a redirect, got {other:?}"),
                }
            }
            assert_eq!(
                target.accepted(),
                0,
                "{kind} {code}: the other host saw nothing"
            );
            assert!(target.seen().is_empty(), "{kind} {code}");
            let seen = src.seen();
            assert_eq!(
                seen.len(),
                4,
                "{kind} {code}: each write sent once, not re-sent"
            );
            assert!(
                seen.iter()
                    .all(|s| s.line.starts_with("POST /solr/bench/update")),
                "{kind} {code}"
            );
        }
    }
}

/// The issue's scenario against real Solr: the redirect points at Solr's own update handler.
/// Before the fix, reqwest followed it as a `GET` with no body, Solr answered 200 and the
/// batch was "acknowledged" with nothing indexed. Now every document is reported failed and
/// Solr indexed none of them; with opt-in, a read redirected to Solr gets Solr's answer.
#[tokio::test]
async fn a_write_redirected_to_real_solr_is_reported_lost_and_indexes_nothing() {
    let _g = support::shared().await;
    let s = support::standalone();
    let solr = s.url(None).expect("url").trim_end_matches('/').to_string();
    let direct = support::client(&solr, TransportKind::Pooled, false);
    for kind in H1 {
        let t = tag("redir_solr");
        let src = FaultServer::start(vec![Fault::Redirect(
            302,
            format!("{solr}/bench/update?wt=json"),
        )])
        .await;
        let c = SolrClient::builder(src.url())
            .collection("bench")
            .transport(kind)
            .build()
            .expect("client");
        let report = bounded(kind.as_str(), c.add_batched(&docs(&t, 100, 0), 100))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(report.acknowledged, 0, "{kind}");
        assert_eq!(report.failed.len(), 100, "{kind}");
        direct.commit(Commit::default()).await.expect("commit");
        let n = direct
            .select(&Select::new(format!("tag_s:{t}")).rows(0))
            .await
            .expect("count")
            .num_found();
        assert_eq!(n, 0, "{kind}: nothing indexed");
        assert_eq!(src.seen().len(), 1, "{kind}");

        // The same documents sent to Solr itself are indexed: the count above is meaningful.
        direct.add(&docs(&t, 3, 0)).await.expect("direct add");
        direct.commit(Commit::default()).await.expect("commit");

        // A read redirected to Solr, followed on opt-in, gets Solr's answer.
        let src = FaultServer::start(vec![Fault::Redirect(
            307,
            format!("{solr}/bench/select?q=tag_s:{t}&rows=0&wt=json"),
        )])
        .await;
        let c = SolrClient::builder(src.url())
            .collection("bench")
            .transport(kind)
            .follow_redirects(1)
            .build()
            .expect("client");
        let r = bounded(kind.as_str(), c.select(&Select::new("*:*").rows(0)))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(r.num_found(), 3, "{kind}: Solr's answer");
        assert_eq!(r.timing.redirects, 1, "{kind}");
        assert!(
            r.timing
                .final_url
                .as_deref()
                .is_some_and(|u| u.starts_with(&format!("{solr}/bench/select"))),
            "{kind}: {:?}",
            r.timing.final_url
        );
    }
}

/// A redirected read: an error without opt-in (the target sees nothing); with opt-in it is
/// followed, the hop is in the timing, and `Authorization` goes to the first host only.
#[tokio::test]
async fn reads_follow_only_on_opt_in_and_drop_authorization_across_hosts() {
    let _g = support::shared().await;
    for kind in H1 {
        let target = FaultServer::start(vec![Fault::Ok(SELECT_OK)]).await;
        let to = format!(
            "http://{}/solr/bench/select?q=moved&rows=0",
            target.authority()
        );
        let src = FaultServer::start(vec![Fault::Redirect(302, to.clone())]).await;

        let off = builder(&src.url(), kind).build().expect("client");
        match bounded(kind.as_str(), off.select(&Select::new("*:*").rows(0))).await {
            Err(Error::Redirect {
                status: 302,
                location,
                ..
            }) => assert_eq!(location.as_deref(), Some(to.as_str()), "{kind}"),
            other => panic!("{kind}: expected Error::Redirect, got {other:?}"),
        }
        assert_eq!(target.accepted(), 0, "{kind}: not followed without opt-in");

        let on = builder(&src.url(), kind)
            .follow_redirects(3)
            .build()
            .expect("client");
        let r = bounded(kind.as_str(), on.select(&Select::new("*:*").rows(0)))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(r.timing.redirects, 1, "{kind}");
        assert_eq!(r.timing.final_url.as_deref(), Some(to.as_str()), "{kind}");
        let first = src.seen();
        let second = target.seen();
        assert_eq!(first.len(), 2, "{kind}");
        assert_eq!(second.len(), 1, "{kind}");
        assert!(has_authorization(&first[1].headers), "{kind}: first host");
        assert!(
            !has_authorization(&second[0].headers),
            "{kind}: Authorization went to the other host: {:?}",
            second[0].headers
        );
        assert!(
            second[0]
                .line
                .starts_with("GET /solr/bench/select?q=moved&rows=0 "),
            "{kind}: {}",
            second[0].line
        );

        // A POSTed search keeps method and body across a 307 (a read is idempotent).
        let target = FaultServer::start(vec![Fault::Ok(SELECT_OK)]).await;
        let to = format!("http://{}/solr/bench/select", target.authority());
        let src = FaultServer::start(vec![Fault::Redirect(307, to)]).await;
        let on = builder(&src.url(), kind)
            .follow_redirects(1)
            .build()
            .expect("client");
        bounded(kind.as_str(), on.select(&Select::new("posted").post(true)))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let seen = target.seen();
        assert!(
            seen[0].line.starts_with("POST /solr/bench/select "),
            "{kind}"
        );
        assert!(
            String::from_utf8_lossy(&seen[0].body).contains("q=posted"),
            "{kind}"
        );
    }
}

/// Same-origin hops keep `Authorization`; the hop limit holds; a redirect to another scheme
/// is refused before anything is sent there.
#[tokio::test]
async fn hops_are_bounded_same_origin_keeps_authorization_and_scheme_never_changes() {
    let _g = support::shared().await;
    for kind in H1 {
        // Relative Location: the same origin. Two hops, then an answer.
        let srv = FaultServer::start(vec![
            Fault::Redirect(301, "/solr/bench/select?hop=1".into()),
            Fault::Redirect(308, "/solr/bench/select?hop=2".into()),
            Fault::Ok(SELECT_OK),
        ])
        .await;
        let c = builder(&srv.url(), kind)
            .follow_redirects(2)
            .build()
            .expect("client");
        let r = bounded(kind.as_str(), c.select(&Select::new("*:*")))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(r.timing.redirects, 2, "{kind}");
        let seen = srv.seen();
        assert_eq!(seen.len(), 3, "{kind}");
        assert!(
            seen.iter().all(|s| has_authorization(&s.headers)),
            "{kind}: same origin keeps Authorization"
        );
        assert!(
            seen[2].line.starts_with("GET /solr/bench/select?hop=2 "),
            "{kind}"
        );

        // Always redirecting: max_hops + 1 requests, then the error.
        let srv = FaultServer::start(vec![Fault::Redirect(
            302,
            "/solr/bench/select?again".into(),
        )])
        .await;
        let c = builder(&srv.url(), kind)
            .follow_redirects(2)
            .build()
            .expect("client");
        match bounded(kind.as_str(), c.select(&Select::new("*:*"))).await {
            Err(e @ Error::Redirect { status: 302, .. }) => {
                assert!(e.to_string().contains("too many redirects"), "{kind}: {e}")
            }
            other => panic!("{kind}: expected Error::Redirect, got {other:?}"),
        }
        assert_eq!(srv.seen().len(), 3, "{kind}: the first request and 2 hops");

        // http -> https: refused, nothing reaches the target.
        let target = FaultServer::start(vec![Fault::Ok(SELECT_OK)]).await;
        let srv = FaultServer::start(vec![Fault::Redirect(
            302,
            format!("https://{}/solr/bench/select", target.authority()),
        )])
        .await;
        let c = builder(&srv.url(), kind)
            .follow_redirects(5)
            .build()
            .expect("client");
        match bounded(kind.as_str(), c.select(&Select::new("*:*"))).await {
            Err(e @ Error::Redirect { .. }) => {
                assert!(e.to_string().contains("scheme"), "{kind}: {e}")
            }
            other => panic!("{kind}: expected Error::Redirect, got {other:?}"),
        }
        assert_eq!(
            target.accepted(),
            0,
            "{kind}: no connection to the https target"
        );
    }
}

/// A router picks the node of every request, so it decides redirects per node on its inner
/// transport: a redirected write to the leader is refused (the other host sees nothing), and
/// with the router's opt-in a read redirected by the replica reaches the Location's host
/// (not a node of the router's choosing), without `Authorization`.
#[tokio::test]
async fn the_router_decides_redirects_per_node() {
    let _g = support::shared().await;
    for kind in H1 {
        let target = FaultServer::start(vec![Fault::Ok(SELECT_OK)]).await;
        let to = |path: &str| format!("http://{}/solr/bench/{path}", target.authority());
        let leader = FaultServer::start(vec![Fault::Redirect(307, to("update"))]).await;
        let replica = FaultServer::start(vec![Fault::Redirect(302, to("select?q=r"))]).await;
        for follow in [0, 2] {
            let inner = kind
                .build(&solr_client::TlsOptions::default(), false)
                .expect("transport");
            let router = Routing::builder(inner)
                .collection("bench")
                .leader(leader.url())
                .replica(replica.url())
                .follow_redirects(follow)
                .build()
                .expect("router");
            let router = Arc::new(router);
            let c = SolrClient::builder("http://127.0.0.1:9/solr")
                .collection("bench")
                .custom_transport(router.clone())
                .credentials(Credentials::basic("alice", PASSWORD))
                .follow_redirects(follow)
                .build()
                .expect("client");
            let what = format!("{kind} follow={follow}");
            match bounded(&what, c.add(&docs(&tag("rr"), 2, 0))).await {
                Err(Error::Update {
                    cause: Some(cause), ..
                }) => assert!(
                    matches!(&*cause, Error::Redirect { status: 307, location: Some(l), .. } if *l == to("update")),
                    "{what}: {cause:?}"
                ),
                other => panic!("{what}: expected Update caused by a redirect, got {other:?}"),
            }
            let read = bounded(&what, c.select(&Select::new("*:*"))).await;
            if follow == 0 {
                assert!(
                    matches!(read, Err(Error::Redirect { status: 302, .. })),
                    "{what}: {read:?}"
                );
            } else {
                let r = read.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(r.timing.redirects, 1, "{what}");
            }
            // A redirect is an answer, not a node failure: both nodes stay up.
            for n in router.node_stats() {
                assert!(n.up && n.failed == 0 && n.answered == 1, "{what}: {n:?}");
            }
        }
        let seen = target.seen();
        assert_eq!(
            seen.len(),
            1,
            "{kind}: only the followed read reached the target"
        );
        assert!(
            seen[0].line.starts_with("GET /solr/bench/select?q=r "),
            "{kind}"
        );
        assert!(!has_authorization(&seen[0].headers), "{kind}");
        assert_eq!(leader.seen().len(), 2, "{kind}: each write sent once");
        assert!(has_authorization(&replica.seen()[0].headers), "{kind}");
    }
}
