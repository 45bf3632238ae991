//! The one-line SolrCloud client against a cloud whose every request needs HTTP Basic
//! credentials: Solr's own BasicAuthPlugin with `blockUnknown` (its own 2-node instance
//! `e2e-cloud-basic`, `solr.sh start cloud --basic-auth`, security.json in ZooKeeper).
//!
//! The client's background work runs outside any client call: the liveness checks of down
//! nodes and the timed cluster-state refresh. Both must be signed by the client's own
//! provider, asked at each request. The test changes the user's password in Solr (and in
//! the provider) after the client's first call, so a credential kept from an earlier
//! request would be refused. With only the background at work (the test sends nothing
//! through the client meanwhile):
//! - a node stopped is marked down (the timed refresh saw it leave the live nodes);
//! - an alias created after the client was built shows in its view (the timed refresh);
//! - the node started again is back up (a liveness check succeeded).

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use http::header::CONTENT_TYPE;
use http::{HeaderMap, HeaderValue, Method};
use solr_client::auth::AuthProvider;
use solr_client::transport::BoxFuture;
use solr_client::{Credentials, Error, RequestKind, Select, SolrClient};
use solr_harness::local_solr::LocalSolr;

use crate::support::cloud_nodes::{self, node_url, wait_for};
use crate::support::{self, tag};

/// The instance's administrator (`solr.sh --basic-auth`: Solr's documented example user).
const ADMIN: (&str, &str) = ("solr", "SolrRocks");

fn cloud() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    cloud_nodes::instance(&S, "e2e-cloud-basic", &["--basic-auth"])
}

/// Basic credentials the test can change (a rotated password).
#[derive(Debug)]
struct Rotating {
    current: Mutex<Credentials>,
}

impl Rotating {
    fn set(&self, c: Credentials) {
        *self.current.lock().expect("lock") = c;
    }
}

impl AuthProvider for Rotating {
    fn authorization(&self) -> BoxFuture<'_, solr_client::Result<Option<HeaderValue>>> {
        let v = self.current.lock().expect("lock").cached();
        Box::pin(async move { Ok(v) })
    }

    fn cached(&self) -> Option<HeaderValue> {
        self.current.lock().expect("lock").cached()
    }

    fn scheme(&self) -> &'static str {
        "Basic"
    }
}

/// A plain client on one node, as `user`.
fn plain(url: &str, user: &str, password: &str) -> SolrClient {
    SolrClient::builder(url)
        .collection("bench")
        .credentials(Credentials::basic(user, password))
        .build()
        .expect("client")
}

/// Posts `body` to Solr's authentication API (`admin/authentication`) as the admin.
async fn edit_users(url: &str, body: serde_json::Value) {
    let admin = plain(url, ADMIN.0, ADMIN.1);
    let mut req = admin.wire(Method::POST, "", Vec::new(), RequestKind::Admin);
    req.path = "admin/authentication".into();
    req.headers = HeaderMap::new();
    req.headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    req.body = body.to_string().into();
    let resp = admin.send_raw(req).await.expect("authentication API");
    assert!(resp.status.is_success(), "{}", resp.status);
}

/// Waits (bounded) until every node accepts `password` for `user` (security.json changes
/// reach the nodes through ZooKeeper).
async fn wait_accepted(s: &LocalSolr, user: &str, password: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    for n in ["node1", "node2"] {
        let c = plain(&node_url(s, n), user, password);
        while let Err(e) = c.ping().await {
            assert!(matches!(e, Error::Unauthorized { .. }), "{n}: {e}");
            assert!(Instant::now() < deadline, "{n} never accepted {user}: {e}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_checks_and_refreshes_are_signed_by_the_clients_provider() {
    let _net = support::shared().await;
    let s = cloud();
    let (n1, n2) = (node_url(s, "node1"), node_url(s, "node2"));
    // Without credentials Solr refuses even the health check the liveness checks use.
    let anonymous = SolrClient::builder(n1.as_str())
        .collection("bench")
        .build()
        .expect("client");
    let e = anonymous.ping().await.expect_err("blockUnknown");
    assert!(matches!(e, Error::Unauthorized { .. }), "{e}");

    let user = tag("user");
    let (first, second) = ("first-Pa55", "second-Pa55");
    edit_users(&n1, serde_json::json!({"set-user": {&user: first}})).await;
    wait_accepted(s, &user, first).await;
    let provider = Arc::new(Rotating {
        current: Mutex::new(Credentials::basic(&user, first)),
    });
    let client = SolrClient::cloud([n1.clone(), n2.clone()])
        .collection("bench")
        .auth_shared(provider.clone())
        .liveness_interval(Duration::from_millis(300))
        .refresh_interval(Duration::from_millis(500))
        .build()
        .expect("cloud client builds");
    let router = client.cloud_router().expect("a cloud client").clone();
    // Before any client call, the router's own request is signed by the provider.
    router
        .refresh()
        .await
        .expect("CLUSTERSTATUS with credentials");
    // The first call starts the background task.
    client
        .select(&Select::new("*:*").rows(0))
        .await
        .expect("read");
    let health = |c: &SolrClient| c.cloud_state().and_then(|st| st.node(&n2).cloned());
    let before = health(&client).expect("node2 known");
    assert!(before.up && before.live, "{before:?}");

    // The password changes: what the first call sent is refused from now on.
    edit_users(&n1, serde_json::json!({"set-user": {&user: second}})).await;
    wait_accepted(s, &user, second).await;
    provider.set(Credentials::basic(&user, second));
    let old = plain(&n1, &user, first).ping().await;
    assert!(matches!(old, Err(Error::Unauthorized { .. })), "{old:?}");

    cloud_nodes::stop_node(s, "node2").await;
    wait_for(&client, "node2 marked down by the timed refresh", |c| {
        health(c).is_some_and(|h| !h.up && !h.live)
    })
    .await;
    assert_eq!(
        health(&client).expect("known").marked_down,
        before.marked_down + 1
    );

    let alias = tag("alias");
    let admin = plain(&n1, ADMIN.0, ADMIN.1);
    admin
        .collections()
        .create_alias(&alias, &["bench"])
        .await
        .expect("CREATEALIAS");
    wait_for(&client, "the new alias in the refreshed view", |_| {
        router.view().aliases.contains_key(&alias)
    })
    .await;

    cloud_nodes::start_node(s, "node2").await;
    wait_for(&client, "node2 back up after a liveness check", |c| {
        health(c).is_some_and(|h| h.up && h.live)
    })
    .await;
    client
        .select(&Select::new("*:*").rows(0))
        .await
        .expect("read after the node is back");

    admin
        .collections()
        .delete_alias(&alias)
        .await
        .expect("DELETEALIAS");
    edit_users(&n1, serde_json::json!({"delete-user": [&user]})).await;
}
