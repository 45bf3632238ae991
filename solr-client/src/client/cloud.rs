//! The one-line SolrCloud client: [`SolrClient::cloud`] gives a [`CloudBuilder`] that wires
//! the pieces a cloud client needs (a transport, a [`Routing`] decorator over the seed
//! nodes, the client naming the same collection) so that
//! `SolrClient::cloud([url]).collection("c").build()?` is a working client: discovery with
//! `CLUSTERSTATUS`, leader-aware writes, replica reads with a preference, aliases, liveness
//! checks of down nodes and a cluster view refreshed on a timer and at once on a stale
//! answer (the [`routing`](crate::transport::Routing) module docs give every rule).

use std::sync::Arc;
use std::time::Duration;

use crate::auth::{AuthProvider, Credentials};
use super::{SolrClient, SolrClientBuilder};
use crate::error::{Error, Result};
use crate::transport::{
    Policy, PooledConfig, ReplicaPreference, RetryPolicy, Routing, Timeouts, TlsOptions,
    TransportKind,
};

/// Builder of a SolrCloud [`SolrClient`] (from [`SolrClient::cloud`]).
#[derive(Debug)]
#[must_use]
pub struct CloudBuilder {
    seeds: Vec<String>,
    collection: Option<String>,
    preference: ReplicaPreference,
    policy: Policy,
    liveness: Duration,
    refresh: Duration,
    retry: RetryPolicy,
    timeouts: Timeouts,
    client: SolrClientBuilder,
}

impl SolrClient {
    /// A SolrCloud client over these seed nodes (base URLs such as
    /// `http://127.0.0.1:8983/solr`; any live nodes of the cluster, several in case one is
    /// down): `SolrClient::cloud(["http://127.0.0.1:8983/solr"]).collection("c").build()?`.
    /// The cluster is discovered from the seeds on the first request.
    pub fn cloud<I, S>(seeds: I) -> CloudBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let seeds: Vec<String> = seeds.into_iter().map(Into::into).collect();
        let first = seeds.first().cloned().unwrap_or_default();
        CloudBuilder {
            seeds,
            collection: None,
            preference: ReplicaPreference::default(),
            policy: Policy::default(),
            liveness: Duration::from_secs(5),
            refresh: Duration::from_secs(30),
            retry: RetryPolicy::default(),
            timeouts: Timeouts::default(),
            client: SolrClient::builder(first),
        }
    }

    /// The SolrCloud router under a client built by [`SolrClient::cloud`] (node counters,
    /// the cluster view, [`Routing::refresh`]); None for other clients.
    pub fn cloud_router(&self) -> Option<&Arc<Routing>> {
        self.cloud.as_ref()
    }
}

impl CloudBuilder {
    /// The collection or alias every data call goes to. Default none: the client is then
    /// admin-only (Collections, Configsets, system APIs), and a data call (search, update,
    /// ping, schema) is [`Error::Config`], never sent.
    pub fn collection(mut self, name: impl Into<String>) -> Self {
        self.collection = Some(name.into());
        self
    }

    /// Which replicas reads prefer (leadership or node, replica types) and the
    /// `shards.preference` passed to Solr. Default [`ReplicaPreference::default`]:
    /// non-leader replicas first, `shards.preference=replica.location:local`.
    pub fn replica_preference(mut self, p: ReplicaPreference) -> Self {
        self.preference = p;
        self
    }

    /// How a node is chosen among equally preferred ones. Default [`Policy::RoundRobin`].
    pub fn policy(mut self, p: Policy) -> Self {
        self.policy = p;
        self
    }

    /// How often a node marked down is checked (`admin/info/health`) in the background; it
    /// returns to rotation when the check succeeds. Default 5 s.
    pub fn liveness_interval(mut self, every: Duration) -> Self {
        self.liveness = every;
        self
    }

    /// How old the cluster view may get before it is reloaded (in the background and before
    /// a request); a stale answer from Solr reloads it at once. Default 30 s.
    pub fn refresh_interval(mut self, every: Duration) -> Self {
        self.refresh = every;
        self
    }

    /// Retry budget of the router (429 and 503 answers, and failover to another node; the
    /// rule of [`SolrClientBuilder::retry`]). Default [`RetryPolicy::default`].
    pub fn retry(mut self, r: RetryPolicy) -> Self {
        self.retry = r;
        self
    }

    /// The transport under the router: as [`SolrClientBuilder::transport`].
    pub fn transport(self, kind: TransportKind) -> Self {
        self.client(|b| b.transport(kind))
    }

    /// As [`SolrClientBuilder::pooled`].
    pub fn pooled(self, config: PooledConfig) -> Self {
        self.client(|b| b.pooled(config))
    }

    /// As [`SolrClientBuilder::gzip`].
    pub fn gzip(self, yes: bool) -> Self {
        self.client(|b| b.gzip(yes))
    }

    /// As [`SolrClientBuilder::tls`].
    pub fn tls(self, tls: TlsOptions) -> Self {
        self.client(|b| b.tls(tls))
    }

    /// Timeouts of every request, the router's own included. Default [`Timeouts::default`].
    pub fn timeouts(mut self, t: Timeouts) -> Self {
        self.timeouts = t;
        self
    }

    /// HTTP basic credentials sent with every request (the router's background checks
    /// included). Default none.
    pub fn credentials(mut self, c: Credentials) -> Self {
        self.client = self.client.credentials(c);
        self
    }

    /// Where the `Authorization` header of every request comes from, as
    /// [`SolrClientBuilder::auth_shared`]: the client's calls and the router's own
    /// requests (liveness checks, cluster-state refreshes, in the background too) are
    /// signed by this provider. Default none.
    pub fn auth(mut self, provider: Arc<dyn AuthProvider>) -> Self {
        self.client = self.client.auth_shared(provider);
        self
    }

    /// Any other client setting (formats, uniqueKey, update chain, hooks):
    /// `.client(|b| b.update_format(UpdateFormat::Cbor))`. Its transport settings (kind,
    /// pool, gzip, TLS) build the transport under the router; `custom_transport` and
    /// `follow_redirects` are replaced by the router.
    pub fn client(mut self, f: impl FnOnce(SolrClientBuilder) -> SolrClientBuilder) -> Self {
        self.client = f(self.client);
        self
    }

    /// Builds the client. No seed, a bad seed URL or a bad collection name is
    /// [`Error::Config`]. Nothing is sent until the first request.
    pub fn build(mut self) -> Result<SolrClient> {
        if self.seeds.is_empty() {
            return Err(Error::Config(
                "SolrClient::cloud: give at least one seed node URL".into(),
            ));
        }
        let inner = self.client.build_transport()?;
        // A policy set on the client builder is the router's: one retry layer, never two.
        let retry = self.client.retry.take().unwrap_or(self.retry);
        let mut router = Routing::builder(inner)
            .replica_preference(self.preference)
            .policy(self.policy)
            .retry(retry)
            .timeouts(self.timeouts)
            .liveness_interval(self.liveness)
            .view_max_age(self.refresh);
        for s in &self.seeds {
            router = router.cloud_seed(s.as_str());
        }
        if let Some(c) = &self.collection {
            router = router.collection(c.as_str());
        }
        // The router's own requests are signed as the client's.
        if let Some(p) = &self.client.auth {
            router = router.auth(p.clone());
        }
        let router = router.build_shared()?;
        let client = self
            .client
            .timeouts(self.timeouts)
            .custom_transport(router.clone());
        let mut client = match self.collection {
            Some(c) => client.collection(c).build()?,
            None => client.build_admin_only()?,
        };
        client.cloud = Some(router);
        Ok(client)
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
            if name.ends_with("_tests.rs") {
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
}
