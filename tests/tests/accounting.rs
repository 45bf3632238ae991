//! Every update API accounts for every document it sent:
//! `acknowledged + failed + unknown + not_attempted == sent`, exactly, whatever Solr (or the
//! network) says.
//! Real Solr's tolerant chain gives the per-document errors; the fault server gives what
//! real Solr cannot be made to: more errors than documents, ids that were never sent, and a
//! connection closed after the request body was read.

use std::collections::HashSet;

use serde_json::{json, Value};
use solr_client::{Commit, Error, Select, TransportKind};

use crate::support::fault_server::{Fault, FaultServer, UPDATE_OK};
use crate::support::{self, client, docs, tag};

/// 3 errors for ids never sent, two for `a1` (sent once), one DELID: more errors (6) than
/// the batch (`a0`, `a1`, `a2`) holds.
const NOISY: &str = r#"{"responseHeader":{"status":0,"QTime":1,"errors":[
 {"type":"ADD","id":"zz1","message":"m"},{"type":"ADD","id":"zz2","message":"m"},
 {"type":"ADD","id":"zz3","message":"m"},{"type":"ADD","id":"a1","message":"bad a1"},
 {"type":"ADD","id":"a1","message":"bad a1 again"},{"type":"DELID","id":"a2","message":"m"}]}}"#;

fn batch(prefix: &str, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"id": format!("{prefix}{i}")}))
        .collect()
}

#[tokio::test]
async fn more_errors_than_documents_and_foreign_ids_keep_the_sum_exact() {
    let _g = support::shared().await;
    let srv = FaultServer::start(vec![Fault::Ok(NOISY)]).await;
    let c = client(&srv.url(), TransportKind::Pooled, false);
    match c.add(&batch("a", 3)).await {
        Err(Error::Update {
            report,
            cause: None,
            ..
        }) => {
            assert_eq!((report.sent, report.acknowledged), (3, 0));
            let failed: Vec<&str> = report.failed.iter().map(|f| f.id.as_str()).collect();
            assert_eq!(failed, ["a1"], "only ids of the batch, each once");
            // ADD errors for ids never sent (and a second one for a1): some document was
            // not indexed, the client cannot tell which, so none counts as acknowledged.
            assert_eq!(report.unknown, ["a0", "a2"]);
            assert_eq!(report.other_errors.len(), 5);
            assert!(report.is_balanced());
        }
        other => panic!("expected Error::Update, got {other:?}"),
    }
    // add_batched over 4 batches of 3 answered the same way: no wrap-around.
    let report = c
        .add_batched(&batch("a", 12), 3)
        .await
        .expect("batched add returns its report");
    assert_eq!(report.requests, 4);
    assert_eq!(report.sent, 12);
    assert_eq!(report.acknowledged, 0, "every batch had an unnamed error");
    assert_eq!(report.failed.len(), 1, "only the a1 of the first batch");
    assert_eq!(report.unknown.len(), 11);
    assert_eq!(
        report.other_errors.len(),
        4 * 5 + 3,
        "a1 is in no other batch"
    );
    assert!(report.is_balanced());
    assert_eq!(srv.seen().len(), 5);
}

#[tokio::test]
async fn a_batch_lost_after_sending_is_unknown_not_failed() {
    let _g = support::shared().await;
    for kind in [
        TransportKind::Fresh,
        TransportKind::Pooled,
        TransportKind::Reqwest,
    ] {
        let srv = FaultServer::start(vec![
            Fault::Ok(UPDATE_OK),
            Fault::CloseWithoutReply,
            Fault::Ok(UPDATE_OK),
        ])
        .await;
        let c = client(&srv.url(), kind, false);
        let report = c
            .add_batched(&batch("b", 10), 4)
            .await
            .expect("batched add returns its report");
        assert_eq!(report.requests, 3, "{kind}");
        assert_eq!(report.sent, 10, "{kind}");
        assert_eq!(report.acknowledged, 4 + 2, "{kind}: batches 1 and 3");
        assert!(report.failed.is_empty(), "{kind}: nothing is known failed");
        assert_eq!(report.unknown, ["b4", "b5", "b6", "b7"], "{kind}: batch 2");
        assert!(report.is_balanced(), "{kind}");
        // The server did read batch 2: it may well have been applied.
        let seen = srv.seen();
        assert_eq!(seen.len(), 3, "{kind}: no write was retried");
        let body = String::from_utf8_lossy(&seen[1].body);
        assert!(body.contains("\"b4\"") && body.contains("\"b7\""), "{kind}");
    }
}

#[tokio::test]
async fn real_solr_tolerant_chain_accounting_matches_num_found() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let t = tag("acct");
    let mut all = docs(&t, 40, 0);
    for i in [0, 13, 14, 39] {
        all[i]["popularity"] = Value::String("not-a-number".into());
    }
    let report = c.add_batched(&all, 7).await.expect("batched add");
    assert_eq!(report.requests, 6);
    assert_eq!(
        (report.sent, report.acknowledged, report.failed.len()),
        (40, 36, 4)
    );
    assert!(report.unknown.is_empty() && report.other_errors.is_empty());
    assert!(report.is_balanced());
    let failed: HashSet<String> = report.failed.iter().map(|f| f.id.clone()).collect();
    let want: HashSet<String> = [0, 13, 14, 39].iter().map(|i| format!("{t}-{i}")).collect();
    assert_eq!(failed, want);
    c.commit(Commit::default()).await.expect("commit");
    let r = c
        .select(&Select::new(format!("tag_s:{t}")).rows(0))
        .await
        .expect("select");
    assert_eq!(r.num_found(), 36, "exactly the acknowledged documents");
}
