//! The SolrCloud side of the one builder: [`SolrClient::cloud`] gives a
//! [`SolrClientBuilder`] that knows its seed nodes, and the setters here are the options of
//! the [`Routing`] decorator it puts under the client, so that
//! `SolrClient::cloud([url]).collection("c").build()?` is a working client: discovery with
//! `CLUSTERSTATUS`, leader-aware writes, replica reads with a preference, aliases, liveness
//! checks of down nodes and a cluster view refreshed on a timer and at once on a stale
//! answer (the [`routing`](crate::transport::Routing) module docs give every rule). Every
//! other setter of the builder (transport kind, pool, gzip, TLS, client identity, proxy,
//! timeouts, retry, auth, headers, formats) applies to a cloud client as to a standalone one.

use std::sync::Arc;
use std::time::Duration;

use super::{SolrClient, SolrClientBuilder};
use crate::auth::AuthProvider;
use crate::error::{Error, Result};
use crate::transport::{Policy, ReplicaPreference, RetryPolicy, Routing, Timeouts, Transport};
use crate::url_input::UrlText;

/// What [`SolrClient::cloud`] adds to a builder: the seed nodes and the router's options
/// (None: not set, the default applies).
#[derive(Debug, Default)]
pub(super) struct CloudOptions {
    /// The seed nodes; None for a builder of one node ([`SolrClient::builder`]).
    seeds: Option<Vec<UrlText>>,
    preference: Option<ReplicaPreference>,
    policy: Option<Policy>,
    liveness: Option<Duration>,
    refresh: Option<Duration>,
}

impl SolrClient {
    /// A SolrCloud client over these seed nodes (base URLs such as
    /// `http://127.0.0.1:8983/solr`; any live nodes of the cluster, several in case one is
    /// down): `SolrClient::cloud(["http://127.0.0.1:8983/solr"]).collection("c").build()?`.
    /// The cluster is discovered from the seeds on the first request. The builder is the
    /// one [`SolrClient::builder`] gives, with the cloud setters
    /// ([`SolrClientBuilder::replica_preference`], [`SolrClientBuilder::policy`],
    /// [`SolrClientBuilder::liveness_interval`], [`SolrClientBuilder::refresh_interval`])
    /// meaningful too.
    pub fn cloud<I, S>(seeds: I) -> SolrClientBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let seeds: Vec<UrlText> = seeds.into_iter().map(|s| UrlText(s.into())).collect();
        let first = seeds.first().map(|s| s.0.clone()).unwrap_or_default();
        let mut b = SolrClient::builder(first);
        b.cloud.seeds = Some(seeds);
        b
    }

    /// The SolrCloud router under a client built by [`SolrClient::cloud`] (node counters,
    /// the cluster view, [`Routing::refresh`]); None for other clients.
    pub fn cloud_router(&self) -> Option<&Arc<Routing>> {
        self.cloud.as_ref()
    }
}

/// The SolrCloud options; on a builder of one node ([`SolrClient::builder`]) each of them
/// makes [`SolrClientBuilder::build`] fail with [`Error::Config`].
impl SolrClientBuilder {
    /// Which replicas reads prefer (leadership or node, replica types) and the
    /// `shards.preference` passed to Solr. Default [`ReplicaPreference::default`]:
    /// non-leader replicas first, `shards.preference=replica.location:local`.
    pub fn replica_preference(mut self, p: ReplicaPreference) -> Self {
        self.cloud.preference = Some(p);
        self
    }

    /// How a node is chosen among equally preferred ones. Default [`Policy::RoundRobin`].
    pub fn policy(mut self, p: Policy) -> Self {
        self.cloud.policy = Some(p);
        self
    }

    /// How often a node marked down is checked (`admin/info/health`) in the background; it
    /// returns to rotation when the check succeeds. Default 5 s.
    pub fn liveness_interval(mut self, every: Duration) -> Self {
        self.cloud.liveness = Some(every);
        self
    }

    /// How old the cluster view may get before it is reloaded (in the background and before
    /// a request); a stale answer from Solr reloads it at once. Default 30 s.
    pub fn refresh_interval(mut self, every: Duration) -> Self {
        self.cloud.refresh = Some(every);
        self
    }
}

impl CloudOptions {
    /// True for a builder from [`SolrClient::cloud`].
    pub(super) fn is_cloud(&self) -> bool {
        self.seeds.is_some()
    }

    /// A cloud builder without a seed, or a builder of one node given a cloud option, is
    /// [`Error::Config`].
    pub(super) fn check(&self) -> Result<()> {
        match &self.seeds {
            Some(seeds) if seeds.is_empty() => Err(Error::config(
                "SolrClient::cloud: give at least one seed node URL",
            )),
            Some(_) => Ok(()),
            None => match self.first_set() {
                Some(name) => Err(Error::config(format!(
                    "{name} is a SolrCloud option: build the client with \
                     SolrClient::cloud(seeds) to use it"
                ))),
                None => Ok(()),
            },
        }
    }

    /// The name of the first cloud option set, if any.
    fn first_set(&self) -> Option<&'static str> {
        [
            (self.preference.is_some(), "replica_preference"),
            (self.policy.is_some(), "policy"),
            (self.liveness.is_some(), "liveness_interval"),
            (self.refresh.is_some(), "refresh_interval"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name))
    }

    /// The router over `inner` for `collection` (None: admin-only): the retry policy of the
    /// client or [`RetryPolicy::default`] (one retry layer, never two), the client's
    /// timeouts, and its auth provider signing the router's own requests too.
    pub(super) fn router(
        &self,
        inner: Arc<dyn Transport>,
        collection: Option<&str>,
        retry: Option<RetryPolicy>,
        timeouts: Timeouts,
        auth: Option<&Arc<dyn AuthProvider>>,
    ) -> Result<Arc<Routing>> {
        let mut router = Routing::builder(inner)
            .replica_preference(self.preference.clone().unwrap_or_default())
            .policy(self.policy.unwrap_or_default())
            .retry(retry.unwrap_or_default())
            .timeouts(timeouts)
            .liveness_interval(self.liveness.unwrap_or(Duration::from_secs(5)))
            .view_max_age(self.refresh.unwrap_or(Duration::from_secs(30)));
        for s in self.seeds.iter().flatten() {
            router = router.cloud_seed(s.0.as_str());
        }
        if let Some(c) = collection {
            router = router.collection(c);
        }
        if let Some(p) = auth {
            router = router.auth(p.clone());
        }
        router.build_shared()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No hidden default collection: outside tests and doc comments, no source file of
    /// the crate names the project's `"bench"` collection.
    #[test]
    fn no_source_file_defaults_to_the_bench_collection() {
        fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("src readable").flatten() {
                let p = e.path();
                if p.is_dir() {
                    files(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut all = Vec::new();
        files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut all,
        );
        assert!(all.len() > 50, "{} files", all.len());
        let mut found = Vec::new();
        for f in &all {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with("_tests.rs") || name == "tests.rs" {
                continue;
            }
            let text = std::fs::read_to_string(f).expect("readable");
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (i, line) in code.lines().enumerate() {
                let l = line.trim_start();
                if l.contains("\"bench\"") && !l.starts_with("//") {
                    found.push(format!("{}:{}: {l}", f.display(), i + 1));
                }
            }
        }
        assert!(found.is_empty(), "{found:#?}");
    }

    #[test]
    fn no_seed_or_a_bad_seed_is_a_config_error() {
        let none: [&str; 0] = [];
        let e = SolrClient::cloud(none)
            .collection("c")
            .build()
            .expect_err("no seed");
        assert!(matches!(&e, Error::Config(m) if m.contains("seed")), "{e}");
        let bad = SolrClient::cloud(["ftp://x"]).collection("c").build();
        assert!(matches!(bad, Err(Error::Config(_))));
    }

    #[test]
    fn one_line_builds_without_sending_and_shows_its_state() {
        let client = SolrClient::cloud(["http://127.0.0.1:1/solr"])
            .collection("books")
            .build()
            .expect("builds");
        assert_eq!(client.collection(), "books");
        let state = client.cloud_state().expect("a cloud client has a state");
        assert_eq!(state.collection.as_deref(), Some("books"));
        assert_eq!((state.refreshes, state.age), (0, None));
        assert_eq!(state.nodes.len(), 1);
        assert!(state.nodes[0].up && !state.nodes[0].live);
        let admin = SolrClient::cloud(["http://127.0.0.1:1/solr"])
            .build()
            .expect("builds");
        assert_eq!(admin.collection(), "");
        assert_eq!(admin.cloud_state().expect("state").collection, None);
        let plain = SolrClient::builder("http://127.0.0.1:1/solr")
            .collection("books")
            .build()
            .expect("builds");
        assert!(plain.cloud_state().is_none());
    }

    #[test]
    fn a_cloud_option_on_a_builder_of_one_node_is_a_config_error_naming_it() {
        let one = || SolrClient::builder("http://127.0.0.1:1/solr").collection("c");
        let cases = [
            (
                "replica_preference",
                one().replica_preference(Default::default()),
            ),
            ("policy", one().policy(Policy::LeastOutstanding)),
            (
                "liveness_interval",
                one().liveness_interval(Duration::from_secs(1)),
            ),
            (
                "refresh_interval",
                one().refresh_interval(Duration::from_secs(1)),
            ),
        ];
        for (name, b) in cases {
            let e = b.build().expect_err("a cloud option on one node");
            assert!(
                matches!(&e, Error::Config(m)
                    if m.starts_with(name) && m.contains("SolrClient::cloud")),
                "{name}: {e}"
            );
        }
    }

    #[test]
    fn a_cloud_builder_takes_every_setter_and_never_shows_a_seeds_password() {
        use crate::transport::{PooledConfig, Proxy, TlsOptions, TransportKind};
        let client = SolrClient::cloud(["http://127.0.0.1:1/solr", "http://127.0.0.1:2/solr"])
            .collection("books")
            .transport(TransportKind::Fresh)
            .pooled(PooledConfig::default())
            .gzip(true)
            .tls(TlsOptions::default())
            .proxy(Proxy::new("http://127.0.0.1:3").expect("proxy"))
            .timeouts(Timeouts::default())
            .retry(RetryPolicy::default().max_attempts(2))
            .auth(crate::Credentials::basic("u", "p"))
            .header("X-Tenant", "t1")
            .follow_redirects(1)
            .replica_preference(ReplicaPreference::default())
            .policy(Policy::RoundRobin)
            .build()
            .expect("builds");
        let state = client.cloud_state().expect("a cloud client");
        assert_eq!(state.nodes.len(), 2);
        let b = SolrClient::cloud(["http://solr:s3cret-P4ss@127.0.0.1:1/solr"]);
        assert!(!format!("{b:?}").contains("s3cret"), "{b:?}");
        let e = b.collection("c").build().expect_err("user info refused");
        assert!(!format!("{e} {e:?}").contains("s3cret"), "{e}");
    }
}
