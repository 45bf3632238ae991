//! solr-client's `testing` feature: an application's calls recorded once against the real
//! local Solr ([`Recorder`]) answer the same, typed, from the recording alone ([`Replay`]),
//! with no Solr at the node URL; a call the recording does not hold is a typed error naming
//! it; nothing in the recording is a credential.

use std::sync::Arc;

use serde::Deserialize;
use solr_client::testing::{Recorder, Replay};
use solr_client::{Commit, Credentials, Error, Select, SolrClient, TransportKind};

use crate::support::{self, tag};

#[derive(Debug, Deserialize, PartialEq)]
struct Doc {
    id: String,
    seq_i: i64,
}

/// What the "application" does: an add, a search and a facet count; what it saw.
async fn app(client: &SolrClient, tag: &str) -> solr_client::Result<(u64, Vec<Doc>, u64)> {
    let added = client.add(&support::docs(tag, 7, 0)).await?;
    client.commit(Commit::default()).await?;
    let r = client
        .select_as::<Doc>(
            &Select::new("*:*")
                .fq(format!("tag_s:{tag}"))
                .sort("seq_i asc")
                .fl("id,seq_i")
                .rows(5),
        )
        .await?;
    let hits = r.response.as_ref().map_or(0, |d| d.num_found);
    let docs = r.response.map(|d| d.docs).unwrap_or_default();
    Ok((added.docs_sent as u64, docs, hits))
}

#[tokio::test]
async fn a_recorded_run_replays_typed_without_solr() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url").to_string();
    let t = tag("replay");
    let file = std::env::temp_dir().join(format!("{t}.jsonl"));
    let real = TransportKind::Pooled
        .build(&Default::default(), false)
        .expect("pooled");
    let recorder = Arc::new(Recorder::create(real, &file).expect("recording file"));
    let recorded = SolrClient::builder(&url)
        .collection("bench")
        .auth(Credentials::basic("app", "s3cret-pw"))
        .custom_transport(recorder)
        .build()
        .expect("client");
    let live = app(&recorded, &t).await.expect("against Solr");
    assert_eq!((live.0, live.1.len(), live.2), (7, 5, 7));

    let text = std::fs::read_to_string(&file).expect("recording");
    assert_eq!(text.lines().count(), 3, "add, commit, select: {text}");
    assert!(
        !text.contains("s3cret-pw") && !text.contains("Authorization"),
        "{text}"
    );

    // No Solr listens here: every answer comes from the recording.
    let (_closed, port) = support::refused_port();
    let replay = Arc::new(Replay::from_file(&file).expect("reads the recording"));
    let offline = SolrClient::builder(format!("http://127.0.0.1:{port}/solr"))
        .collection("bench")
        .custom_transport(replay.clone())
        .build()
        .expect("client");
    let replayed = app(&offline, &t).await.expect("from the recording");
    assert_eq!(replayed, live);
    assert_eq!(replay.requests().len(), 3);

    let err = offline.ping().await.expect_err("not recorded");
    assert!(
        matches!(&err, Error::NoNode(m) if m.contains("no answer for GET bench/admin/ping")),
        "{err:?}"
    );
    // Each answer replays once: the add again finds none, and its report says so per document.
    let again = app(&offline, &t)
        .await
        .expect_err("each answer replays once");
    match &again {
        Error::Update { report, cause, .. } => {
            let counts = (report.sent, report.acknowledged, report.failed.len());
            assert_eq!(counts, (7, 0, 7), "{again:?}");
            assert!(
                matches!(cause.as_deref(), Some(Error::NoNode(_))),
                "{again:?}"
            );
        }
        other => panic!("expected the add's report: {other:?}"),
    }
    let _ = std::fs::remove_file(&file);
}
