//! A SolrCloud instance of a test file's own, whose nodes its tests stop and start again
//! (`node1`, `node2`): the instance started once per test process, its nodes' URLs, a node
//! stopped and started again off the runtime, and a bounded wait on what the
//! client sees meanwhile.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use solr_client::SolrClient;
use solr_harness::local_solr::{project_root, LocalSolr, Mode};

/// The cloud instance `name` started with `solr.sh start cloud` and `extra` (kept in `cell`:
/// once per test process).
pub fn instance(
    cell: &'static OnceLock<LocalSolr>,
    name: &str,
    extra: &[&str],
) -> &'static LocalSolr {
    super::instance(cell, Mode::Cloud, name, extra)
}

/// The base URL of `node`, without a trailing slash (as the client's state names nodes).
pub fn node_url(s: &LocalSolr, node: &str) -> String {
    s.url(Some(node))
        .expect("node")
        .trim_end_matches('/')
        .to_string()
}

/// The URLs of both nodes, the client's seeds.
pub fn seeds(s: &LocalSolr) -> Vec<String> {
    ["node1", "node2"].iter().map(|n| node_url(s, n)).collect()
}

/// Stops `node` (a clean shutdown; the harness has no method for it).
pub async fn stop_node(s: &LocalSolr, node: &str) {
    solr_sh(&["stop-node", &s.name, node]).await;
}

/// Starts `node` again on its port and waits until it answers.
pub async fn start_node(s: &LocalSolr, node: &str) {
    let (s, node) = (s.clone(), node.to_string());
    tokio::task::spawn_blocking(move || s.start_node(&node))
        .await
        .expect("joins")
        .unwrap_or_else(|e| panic!("node not started again: {e:#}"));
}

/// Runs `solr.sh ARGS` off the runtime; a failure panics with its stderr.
async fn solr_sh(args: &[&str]) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("bash")
            .arg(project_root().join("local-solr/solr.sh"))
            .args(&args)
            .output()
    })
    .await
    .expect("joins")
    .expect("solr.sh runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits (up to 120 s, sending nothing through the client) until `done` holds; the panic
/// names `what` and the client's cloud state.
pub async fn wait_for(client: &SolrClient, what: &str, done: impl Fn(&SolrClient) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done(client) {
        assert!(
            Instant::now() < deadline,
            "{what}: {:?}",
            client.cloud_state()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
