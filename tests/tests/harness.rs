//! solr-harness as another project uses it: a fresh home folder is extracted from the copy
//! built into the harness, the launcher is built there once, a real standalone Solr serves
//! exact counts, and a second start in the same home reuses the build (no second Maven run).

use std::path::Path;
use std::time::SystemTime;

use solr_client::{Commit, Select, TransportKind};
use solr_harness::{Harness, LocalSolr, Mode};

use crate::support;

/// Stops every instance of the temporary home and removes it, whatever the test did.
struct TempHome(Harness);

impl Drop for TempHome {
    fn drop(&mut self) {
        let _ = self.0.stop_all();
        let _ = std::fs::remove_dir_all(self.0.home());
    }
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

async fn num_found(solr: &LocalSolr, tag: &str) -> u64 {
    let client = support::client(solr.url(None).expect("url"), TransportKind::Pooled, false);
    let r = client
        .select(&Select::new("*:*").fq(format!("tag_s:{tag}")).rows(0))
        .await
        .expect("select");
    r.response.expect("a result list").num_found
}

#[tokio::test]
async fn a_fresh_home_is_extracted_built_once_and_serves_exact_counts() {
    let _g = support::shared().await;
    let tag = support::tag("harness");
    let home = std::env::temp_dir().join(format!("solr-harness-e2e-{tag}"));
    let guard = TempHome(Harness::with_home(&home));
    let h = &guard.0;

    let written = h.prepare().expect("tools present, files extracted");
    assert!(
        written > 0 && home.join("solr.sh").is_file() && home.join(solr_harness::MARKER).is_file()
    );
    assert_eq!(
        h.prepare().expect("again"),
        0,
        "an up-to-date home is not rewritten"
    );

    let solr = h
        .start(Mode::Standalone, "harness-e2e", &[])
        .expect("starts from the fresh home");
    assert!(solr.dir().starts_with(&home), "{}", solr.dir().display());
    assert!(solr.pid("node1").is_some(), "nodes.tsv of the home's run/");
    let client = support::client(solr.url(None).expect("url"), TransportKind::Pooled, false);
    let sent = client.add(&support::docs(&tag, 25, 0)).await.expect("add");
    client.commit(Commit::default()).await.expect("commit");
    assert_eq!(sent.docs_sent, 25);
    assert_eq!(num_found(&solr, &tag).await, 25);
    solr.stop().expect("stops");

    // The second start reuses the extracted files and the launcher Maven built.
    let stamp = home.join("launcher/target/.solrbench-build-stamp");
    let classpath = home.join("launcher/target/classpath.txt");
    let before = [
        mtime(&stamp),
        mtime(&classpath),
        mtime(&home.join("solr.sh")),
    ];
    let again = Harness::with_home(&home)
        .start(Mode::Standalone, "harness-e2e", &[])
        .expect("starts again");
    let after = [
        mtime(&stamp),
        mtime(&classpath),
        mtime(&home.join("solr.sh")),
    ];
    assert_eq!(before, after, "no second launcher build, no file rewritten");
    // A stopped instance starts fresh: an empty core.
    assert_eq!(num_found(&again, &tag).await, 0);
    drop(guard);
    assert!(!home.exists());
}

/// In this repository, the default home is its own `local-solr/` (`.cargo/config.toml`), so
/// `bash local-solr/solr.sh`, the bench and these tests share one run folder.
#[test]
fn in_this_repository_the_default_home_is_local_solr() {
    let h = Harness::new().expect("a home");
    let want = solr_harness::project_root().join("local-solr");
    let canon = |p: &Path| std::fs::canonicalize(p).expect("exists");
    assert_eq!(canon(h.home()), canon(&want));
    assert_eq!(canon(&h.run_dir()), canon(&want.join("run")));
}
