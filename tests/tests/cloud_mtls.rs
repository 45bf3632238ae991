//! A client certificate on a SolrCloud client: `SolrClient::cloud(seeds).client_identity(...)`
//! against a real 2-shard x 2-replica cloud over https whose Jetty requires a certificate of
//! the local CA (`support::cloud2x2_mtls`: `solr.sh start cloud --tls --client-auth`, Solr's
//! CertAuthPlugin in ZooKeeper, the nodes presenting their own certificate to each other).
//! On every transport:
//! - with a certificate of the local CA: the router's own `CLUSTERSTATUS` is let in (it
//!   presents the certificate too), N documents indexed through it are read back, exactly
//!   those N ids, from both shards;
//! - without one, under TLS 1.3 (the refusal comes after the client's side of the handshake)
//!   and TLS 1.2: the typed [`Error::ClientCertificate`] of a standalone client
//!   (`mtls::`), nothing sent, and each seed asked once for the cluster state, never retried;
//! - with a certificate of another CA: the typed refusal naming the server's alert.
//!
//! The certificate and the refusals run on a multi-threaded runtime, as applications do (a
//! connection's task may meet the server's alert before the request is dispatched).

use solr_client::transport::TlsVersion;
use solr_client::{ClientCertProblem, Error, Identity, Select, SolrClient, TlsOptions};
use solr_client::{Commit, TransportKind};
use solr_harness::local_solr::LocalSolr;

use crate::mtls::{assert_no_certificate_refusal, identity, tls_dir};
use crate::support;
use crate::support::cloud_nodes::seeds;

/// Documents each transport indexes.
const DOCS: usize = 40;

fn s() -> &'static LocalSolr {
    support::cloud2x2_mtls()
}

/// A cloud client of `bench` on `kind` trusting the local CA, under `version`, with `id`.
fn client(kind: TransportKind, version: TlsVersion, id: Option<Identity>) -> SolrClient {
    let ca = s().ca.as_ref().expect("a TLS instance has a CA");
    let tls = TlsOptions::new()
        .version(version)
        .add_ca_pem_file(ca)
        .expect("CA readable");
    let mut b = SolrClient::cloud(seeds(s()))
        .collection("bench")
        .transport(kind)
        .tls(tls);
    if let Some(id) = id {
        b = b.client_identity(id);
    }
    b.build().expect("client builds")
}

/// The ids Solr returns for `tag` (one distributed search), sorted.
async fn ids_of(c: &SolrClient, tag: &str, shard: Option<&str>) -> Vec<String> {
    let mut q = Select::new(format!("tag_s:{tag}"))
        .rows(DOCS as u64 * 2)
        .fl("id");
    if let Some(shard) = shard {
        q = q.param("shards", shard);
    }
    let r = c.select(&q).await.expect("search");
    assert_eq!(r.num_found() as usize, r.docs().len(), "{tag} {shard:?}");
    support::sorted_ids(&r)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloud_client_with_a_certificate_indexes_and_reads_back_on_every_transport() {
    let _g = support::shared().await;
    for kind in TransportKind::ALL {
        let c = client(
            kind,
            TlsVersion::Any,
            Some(identity(&tls_dir(), "client-rsa")),
        );
        // The router's view, loaded with its own CLUSTERSTATUS over the certificate.
        let router = c.cloud_router().expect("a cloud client");
        router
            .refresh()
            .await
            .unwrap_or_else(|e| panic!("{kind}: CLUSTERSTATUS: {e}"));
        assert_eq!(router.view().shards.len(), 2, "{kind}: {:?}", router.view());
        let status = c.collections().cluster_status(Some("bench")).await;
        let status = status.unwrap_or_else(|e| panic!("{kind}: cluster status: {e}"));
        assert_eq!(
            status.cluster.collections["bench"].shards.len(),
            2,
            "{kind}"
        );

        let tag = support::tag(&format!("cloud_mtls_{kind}"));
        c.add(&support::docs(&tag, DOCS, 0))
            .await
            .unwrap_or_else(|e| panic!("{kind}: index: {e}"));
        c.commit(Commit::default())
            .await
            .unwrap_or_else(|e| panic!("{kind}: commit: {e}"));
        let mut want: Vec<String> = (0..DOCS).map(|i| format!("{tag}-{i}")).collect();
        want.sort();
        assert_eq!(ids_of(&c, &tag, None).await, want, "{kind}: every id once");
        // Both shards hold some of them (the leaders forwarded to their replicas, the
        // distributed search asked both shards: node to node over the nodes' certificates).
        let (one, two) = (
            ids_of(&c, &tag, Some("shard1")).await,
            ids_of(&c, &tag, Some("shard2")).await,
        );
        assert!(
            !one.is_empty() && !two.is_empty(),
            "{kind}: {one:?} {two:?}"
        );
        let mut both = [one, two].concat();
        both.sort();
        assert_eq!(both, want, "{kind}: the shards split the ids");

        let stats = router.node_stats();
        assert!(stats.iter().all(|n| n.failed == 0), "{kind}: {stats:?}");
        let admin: u64 = stats.iter().map(|n| n.admin).sum();
        assert!(admin >= 2, "{kind}: the router's and the call's: {stats:?}");
    }
}

/// The error of a first call on a client without a certificate (or with one of another CA):
/// asserts that each seed was asked once for the cluster state, refused, and nothing else.
async fn refused_first_call(c: &SolrClient, what: &str) -> Error {
    let err = c
        .select(&Select::new("*:*").rows(0))
        .await
        .expect_err("refused");
    let router = c.cloud_router().expect("a cloud client");
    for seed in seeds(s()) {
        let n = router.stats_of(&seed).expect("the seed is known");
        assert_eq!(
            (n.admin, n.failed, n.answered, n.reads, n.writes),
            (1, 1, 0, 0, 0),
            "{what}: one CLUSTERSTATUS attempt per seed, refused: {n:?}"
        );
    }
    err
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_certificate_is_the_standalone_typed_error_on_every_transport() {
    let _g = support::shared().await;
    for kind in TransportKind::ALL {
        for version in [TlsVersion::Tls13, TlsVersion::Tls12] {
            let what = format!("{kind} {version:?}");
            let err = refused_first_call(&client(kind, version, None), &what).await;
            assert_no_certificate_refusal(&err, &what);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_of_another_ca_is_a_typed_refusal_on_every_transport() {
    let _g = support::shared().await;
    for kind in TransportKind::ALL {
        let id = identity(&tls_dir(), "wrong-ca-client");
        let c = client(kind, TlsVersion::Any, Some(id));
        let err = refused_first_call(&c, &kind.to_string()).await;
        let Error::ClientCertificate {
            problem: ClientCertProblem::Refused { alert },
            ..
        } = &err
        else {
            panic!("{kind}: {err:?}");
        };
        assert!(
            ["UnknownCA", "BadCertificate", "CertificateUnknown"].contains(&alert.as_str()),
            "{kind}: {alert}"
        );
        assert!(err.is_not_sent(), "{kind}: refused before Solr saw it");
    }
}
