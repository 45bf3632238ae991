//! The admin APIs against the real local Solr: Collections, Configsets and Schema on the
//! SolrCloud, CoreAdmin, system info and metrics on the standalone node. Every object a
//! test creates has a unique name (`support::tag`) and is removed at the end, also when
//! the test fails.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use solr_client::admin::{
    CopyField, CreateCollection, CreateCore, FieldType, MetricsFormat, MetricsQuery, ReplicaSpec,
    SchemaCommand, SchemaField,
};
use solr_client::{Commit, Error, Select, SolrClient, TransportKind};

use crate::support::{self, tag};

fn on(url: &str, collection: &str) -> SolrClient {
    SolrClient::builder(url)
        .collection(collection)
        .transport(TransportKind::Pooled)
        .build()
        .expect("client builds")
}

/// Runs `body`, then `cleanup` whatever happened, then re-raises a panic of `body`.
async fn with_cleanup<B, C>(body: B, cleanup: C)
where
    B: Future<Output = ()> + Send + 'static,
    C: Future<Output = ()>,
{
    let outcome = tokio::spawn(body).await;
    cleanup.await;
    if let Err(e) = outcome {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// The project's `bench` configset turned mutable (managed schema), in a fresh directory.
fn mutable_configset(name: &str) -> PathBuf {
    let src = solr_harness::local_solr::project_root().join("local-solr/configsets/bench/conf");
    let dir = std::env::temp_dir().join(format!("admin-e2e-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let schema = std::fs::read_to_string(src.join("schema.xml")).expect("schema.xml");
    std::fs::write(dir.join("managed-schema.xml"), schema).expect("write schema");
    let config = std::fs::read_to_string(src.join("solrconfig.xml")).expect("solrconfig.xml");
    let classic = r#"<schemaFactory class="ClassicIndexSchemaFactory"/>"#;
    assert!(
        config.contains(classic),
        "the bench configset changed its schema factory"
    );
    let managed = r#"<schemaFactory class="ManagedIndexSchemaFactory"><bool name="mutable">true</bool><str name="managedSchemaResourceName">managed-schema.xml</str></schemaFactory>"#;
    std::fs::write(dir.join("solrconfig.xml"), config.replace(classic, managed))
        .expect("write solrconfig");
    dir
}

/// The metrics query of every core's `/select` request counter (Solr 9 and 10).
pub(crate) fn select_counter() -> MetricsQuery {
    MetricsQuery::handler_requests("QUERY", "/select")
}

/// The `/select` request count of `core` in an answer to [`select_counter`]: Solr 9's JSON
/// tree or Solr 10's Prometheus samples, read by the same typed accessor.
pub(crate) fn select_requests(m: &solr_client::admin::Metrics, core: &str) -> u64 {
    m.handler_requests(core, "/select")
        .expect("select counter of the core")
}

fn solr_message(e: &Error) -> String {
    match e {
        Error::Solr { body, .. } => body.msg.clone(),
        other => panic!("expected Solr's own error, got {other}"),
    }
}

#[tokio::test]
async fn cloud_collection_lifecycle_with_uploaded_configset_schema_alias_and_replicas() {
    let _g = support::shared().await;
    let url = support::cloud().url(None).expect("url").to_string();
    let t = tag("adm");
    let coll = format!("{t}_c");
    let cs = format!("{t}_cs");
    let alias = format!("{t}_a");
    let dir = mutable_configset(&t);

    let body = {
        let (url, coll, cs, alias, dir, t) = (
            url.clone(),
            coll.clone(),
            cs.clone(),
            alias.clone(),
            dir.clone(),
            t.clone(),
        );
        async move { cloud_scenario(&url, &coll, &cs, &alias, &dir, &t).await }
    };
    let cleanup = async {
        let admin = on(&url, &coll);
        let _ = admin.collections().delete_alias(&alias).await;
        let _ = admin.collections().delete(&coll).await;
        let _ = admin.configsets().delete(&cs).await;
        let _ = std::fs::remove_dir_all(&dir);
    };
    with_cleanup(body, cleanup).await;

    // Everything is gone again.
    let admin = on(&url, &coll);
    let list = admin.collections().list().await.expect("list");
    assert!(!list.collections.contains(&coll));
    let sets = admin.configsets().list().await.expect("configsets");
    assert!(!sets.configsets.contains(&cs));
}

async fn cloud_scenario(url: &str, coll: &str, cs: &str, alias: &str, dir: &Path, t: &str) {
    let c = on(url, coll);

    // System info: a SolrCloud node of the release under test.
    let info = c.system().info().await.expect("system info");
    assert!(info.is_cloud(), "{}", info.mode);
    support::solr_version::assert_runs(&info.lucene.solr_spec_version);
    assert!(info.zk_host.is_some());

    // Configsets: a directory upload is listed; a second upload without overwrite is
    // Solr's error; a zip upload with overwrite replaces it.
    c.configsets()
        .upload_dir(cs, dir, false)
        .await
        .expect("upload directory");
    let sets = c.configsets().list().await.expect("list configsets");
    assert!(
        sets.configsets.iter().any(|s| s == cs),
        "{:?}",
        sets.configsets
    );
    let e = c
        .configsets()
        .upload_dir(cs, dir, false)
        .await
        .expect_err("exists");
    assert_eq!(e.status(), Some(400), "{e}");
    assert!(solr_message(&e).contains("already exists"), "{e}");
    let zip = solr_client::admin::zip_directory(dir).expect("zip");
    c.configsets()
        .upload_zip(cs, zip, true)
        .await
        .expect("upload zip with overwrite");

    // Collections: create (2 shards, routed by `category`), then LIST and CLUSTERSTATUS.
    c.collections()
        .create(
            &CreateCollection::new(coll)
                .configset(cs)
                .shards(2)
                .replicas(1)
                .router_field("category")
                .wait_for_final_state(true),
        )
        .await
        .expect("create collection");
    let list = c.collections().list().await.expect("list");
    assert!(list.collections.iter().any(|n| n == coll));
    let status = c
        .collections()
        .cluster_status(Some(coll))
        .await
        .expect("status");
    assert_eq!(status.cluster.live_nodes.len(), 2);
    let state = &status.cluster.collections[coll];
    assert_eq!(state.config_name.as_deref(), Some(cs));
    let router = state.router.as_ref().expect("router");
    assert_eq!(
        (router.name.as_str(), router.field.as_deref()),
        ("compositeId", Some("category"))
    );
    assert_eq!(state.shards.len(), 2);
    for (name, shard) in &state.shards {
        assert_eq!(shard.state, "active", "{name}");
        assert_eq!(shard.replicas.len(), 1, "{name}");
        let (_, leader) = shard.leader().expect("every shard led");
        assert_eq!(leader.state, "active");
        assert!(status.cluster.live_nodes.contains(&leader.node_name));
    }

    // Schema: read, then change with every bulk command kind.
    let schema = c.schema().wait_for_replicas(30);
    assert_eq!(
        schema.unique_key().await.expect("unique key").unique_key,
        "id"
    );
    let ty = "adm_int";
    schema
        .update(&[
            SchemaCommand::AddFieldType(FieldType::new(ty, "solr.IntPointField")),
            SchemaCommand::AddField(SchemaField::new("adm_n", "pint").stored(true)),
            SchemaCommand::AddField(SchemaField::new("adm_copy", ty).stored(true)),
            SchemaCommand::AddDynamicField(SchemaField::new("*_adm", "string").stored(true)),
            SchemaCommand::AddCopyField(CopyField::new("adm_n", "adm_copy")),
        ])
        .await
        .expect("schema update");
    let fields = schema.fields().await.expect("fields");
    let n = fields.get("adm_n").expect("added field is read back");
    assert_eq!((n.field_type.as_str(), n.stored), ("pint", Some(true)));
    assert_eq!(
        fields.get("adm_copy").map(|f| f.field_type.as_str()),
        Some(ty)
    );
    let types = schema.field_types().await.expect("types");
    assert_eq!(
        types.get(ty).map(|t| t.class.as_str()),
        Some("solr.IntPointField")
    );
    let dynamic = schema.dynamic_fields().await.expect("dynamic fields");
    assert_eq!(
        dynamic.get("*_adm").map(|f| f.field_type.as_str()),
        Some("string")
    );
    let copies = schema.copy_fields().await.expect("copy fields");
    assert!(copies
        .copy_fields
        .iter()
        .any(|r| r.source == "adm_n" && r.dest == "adm_copy"));
    // Adding it again is Solr's error, with Solr's message.
    let e = schema
        .update(&[SchemaCommand::AddField(SchemaField::new("adm_n", "pint"))])
        .await
        .expect_err("duplicate field");
    assert_eq!(e.status(), Some(400));
    assert!(solr_message(&e).contains("already exists"), "{e}");

    // The new field takes a typed value (and refuses a non-number), the copy field and
    // the dynamic field are filled.
    let ok = json!({"id": format!("{t}-1"), "category": "a", "adm_n": 42, "x_adm": t});
    c.add(&[ok]).await.expect("typed document indexed");
    let bad = json!({"id": format!("{t}-2"), "category": "a", "adm_n": "not a number"});
    let e = c
        .add(&[bad])
        .await
        .expect_err("a string in an int field fails");
    assert!(e.to_string().contains(&format!("{t}-2")), "{e}");
    c.commit(Commit::default()).await.expect("commit");
    let r = c
        .select(&Select::new("adm_copy:42").fq(format!("x_adm:{t}")))
        .await
        .expect("select");
    assert_eq!(r.num_found(), 1);
    assert_eq!(r.docs()[0]["adm_n"], json!(42));

    // Replace and delete, in reverse order of the dependencies.
    schema
        .update(&[
            SchemaCommand::ReplaceField(
                SchemaField::new("adm_n", "pint")
                    .stored(true)
                    .doc_values(true),
            ),
            SchemaCommand::ReplaceDynamicField(SchemaField::new("*_adm", "string").stored(false)),
            SchemaCommand::ReplaceFieldType(
                FieldType::new(ty, "solr.IntPointField").property("docValues", true),
            ),
        ])
        .await
        .expect("replace");
    let fields = schema.fields().await.expect("fields");
    assert_eq!(fields.get("adm_n").and_then(|f| f.doc_values), Some(true));
    let dynamic = schema.dynamic_fields().await.expect("dynamic fields");
    assert_eq!(dynamic.get("*_adm").and_then(|f| f.stored), Some(false));
    let types = schema.field_types().await.expect("types");
    assert_eq!(
        types.get(ty).and_then(|t| t.extra.get("docValues")),
        Some(&json!(true))
    );
    schema
        .update(&[
            SchemaCommand::DeleteCopyField(CopyField::new("adm_n", "adm_copy")),
            SchemaCommand::DeleteField("adm_copy".into()),
            SchemaCommand::DeleteFieldType(ty.into()),
            SchemaCommand::DeleteDynamicField("*_adm".into()),
        ])
        .await
        .expect("delete");
    assert!(schema
        .fields()
        .await
        .expect("fields")
        .get("adm_copy")
        .is_none());
    assert!(schema.field_types().await.expect("types").get(ty).is_none());
    assert!(schema
        .dynamic_fields()
        .await
        .expect("dyn")
        .get("*_adm")
        .is_none());
    assert!(schema
        .copy_fields()
        .await
        .expect("copies")
        .copy_fields
        .is_empty());

    // Aliases: created, listed, resolved by a search, deleted.
    c.collections()
        .create_alias(alias, &[coll])
        .await
        .expect("create alias");
    let aliases = c.collections().list_aliases().await.expect("aliases");
    assert_eq!(aliases.aliases.get(alias), Some(&vec![coll.to_string()]));
    let via_alias = on(url, alias)
        .select(&Select::new(format!("id:\"{t}-1\"")))
        .await
        .expect("select through the alias");
    assert_eq!(via_alias.num_found(), 1);
    let status = c
        .collections()
        .cluster_status(Some(coll))
        .await
        .expect("status");
    assert_eq!(
        status.cluster.collections[coll].aliases,
        vec![alias.to_string()]
    );
    c.collections()
        .delete_alias(alias)
        .await
        .expect("delete alias");
    let aliases = c.collections().list_aliases().await.expect("aliases");
    assert!(!aliases.aliases.contains_key(alias));

    // Reload: every replica's core starts anew.
    let (core, node_url) = {
        let status = c
            .collections()
            .cluster_status(Some(coll))
            .await
            .expect("status");
        let (_, r) = status.cluster.collections[coll].shards["shard1"]
            .leader()
            .expect("leader");
        (r.core.clone(), r.base_url.clone().expect("base_url"))
    };
    let node = on(&node_url, coll);
    let start = |s: solr_client::admin::CoreStatusResponse| {
        s.core(&core).expect("core status").start_time.clone()
    };
    let before = start(node.cores().status(Some(&core)).await.expect("core status"));
    c.collections().reload(coll).await.expect("reload");
    let after = start(node.cores().status(Some(&core)).await.expect("core status"));
    assert_ne!(before, after, "a reload starts a new core");

    // Async: a reload under a request id, polled to completion, its status then removed.
    let id = format!("{t}-reload");
    let r = c
        .collections()
        .with_async_id(id.clone())
        .reload(coll)
        .await
        .expect("async reload");
    assert_eq!(r.request_id.as_deref(), Some(id.as_str()));
    let started = Instant::now();
    let state = loop {
        let s = c.collections().request_status(&id).await.expect("status");
        if s.is_done() || started.elapsed() > Duration::from_secs(60) {
            break s.status.state;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(state, "completed");
    c.collections()
        .delete_status(&id)
        .await
        .expect("delete status");
    let s = c.collections().request_status(&id).await.expect("status");
    assert_eq!(s.status.state, "notfound");

    // Replicas: one added to shard1, then deleted.
    let spec = ReplicaSpec::new(coll, "shard1").wait_for_final_state(true);
    c.collections()
        .add_replica(&spec)
        .await
        .expect("add replica");
    let replicas = |s: &solr_client::admin::ClusterStatus| {
        s.cluster.collections[coll].shards["shard1"]
            .replicas
            .clone()
    };
    let status = c
        .collections()
        .cluster_status(Some(coll))
        .await
        .expect("status");
    let grown = replicas(&status);
    assert_eq!(grown.len(), 2);
    let (added, _) = grown
        .iter()
        .find(|(_, r)| !r.leader)
        .expect("the added replica does not lead");
    c.collections()
        .delete_replica(coll, "shard1", added)
        .await
        .expect("delete replica");
    let status = c
        .collections()
        .cluster_status(Some(coll))
        .await
        .expect("status");
    assert_eq!(replicas(&status).len(), 1);
    assert!(!replicas(&status).contains_key(added));

    // Delete: Solr's message for a missing collection is kept; the real one goes.
    let missing = format!("{t}_missing");
    let e = c.collections().delete(&missing).await.expect_err("missing");
    assert!(solr_message(&e).contains(&missing), "{e}");
    c.collections()
        .delete(coll)
        .await
        .expect("delete collection");
    let list = c.collections().list().await.expect("list");
    assert!(!list.collections.iter().any(|n| n == coll));
    c.configsets().delete(cs).await.expect("delete configset");
    let sets = c.configsets().list().await.expect("list configsets");
    assert!(!sets.configsets.iter().any(|s| s == cs));
}

#[tokio::test]
async fn standalone_core_admin_system_info_and_metrics() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url").to_string();
    let core = tag("admcore");
    let body = {
        let (url, core) = (url.clone(), core.clone());
        async move { standalone_scenario(&url, &core).await }
    };
    let cleanup = async {
        let _ = on(&url, &core).cores().unload(&core, true).await;
    };
    with_cleanup(body, cleanup).await;
}

async fn standalone_scenario(url: &str, core: &str) {
    let c = on(url, core);
    let info = c.system().info().await.expect("system info");
    assert_eq!(info.mode, "std");
    support::solr_version::assert_runs(&info.lucene.solr_spec_version);
    assert!(!info.jvm.version.is_empty());
    // The Collections API of a standalone node is Solr's error, its message kept.
    let e = c.collections().list().await.expect_err("not SolrCloud");
    assert!(
        solr_message(&e).contains("not running in SolrCloud mode"),
        "{e}"
    );

    // A core of our own (the project's `bench` configset), so reload and counters are ours.
    c.cores()
        .create(&CreateCore::new(core).configset("bench"))
        .await
        .expect("create core");
    let all = c.cores().status(None).await.expect("status of all");
    assert!(all.core("bench").is_some() && all.core(core).is_some());
    let before = c.cores().status(Some(core)).await.expect("status");
    let st = before.core(core).expect("our core");
    assert_eq!(st.index.as_ref().map(|i| i.num_docs), Some(0));
    c.cores().reload(core).await.expect("reload");
    let after = c.cores().status(Some(core)).await.expect("status");
    assert_ne!(
        st.start_time,
        after.core(core).expect("our core").start_time,
        "a reload starts a new core"
    );

    // Schema reads work on a classic schema; a change is refused with Solr's message.
    let fields = c.schema().fields().await.expect("fields");
    assert_eq!(
        fields.get("price").map(|f| f.field_type.as_str()),
        Some("pfloat")
    );
    let e = c
        .schema()
        .update(&[SchemaCommand::AddField(SchemaField::new("adm_x", "pint"))])
        .await
        .expect_err("classic schema is immutable");
    assert!(matches!(e, Error::Solr { .. }), "{e}");

    // The core's select counter counts exactly our searches.
    let q = select_counter();
    let count = |m: &solr_client::admin::Metrics| select_requests(m, core);
    let first = c.system().metrics(&q).await.expect("metrics");
    // Solr 9 answers its JSON tree, Solr 10 Prometheus text: one typed counter for both.
    let expected = if support::solr_version::current().0 >= 10 {
        MetricsFormat::Prometheus
    } else {
        MetricsFormat::Json
    };
    assert_eq!(first.format, expected);
    let before = count(&first);
    for _ in 0..3 {
        c.select(&Select::new("*:*")).await.expect("select");
    }
    let after = count(&c.system().metrics(&q).await.expect("metrics"));
    assert_eq!(after, before + 3);

    // Unload removes it; Solr's message for a missing core is kept.
    c.cores().unload(core, true).await.expect("unload");
    let gone = c.cores().status(Some(core)).await.expect("status");
    assert!(gone.core(core).is_none());
    let e = c.cores().reload(core).await.expect_err("missing core");
    assert!(e.to_string().contains(core), "{e}");
}
