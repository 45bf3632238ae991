//! What a client is made of, kept so that the same client can be made again in a forked
//! child (see [`crate::client`]): the nodes, collection, transport, gzip, timeouts, auth,
//! TLS, client certificate and proxy.

use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use solr_client::auth::Bearer;
use solr_client::{
    Credentials, Identity, Proxy, SolrClient, SolrClientBuilder, Timeouts, TlsOptions,
    TransportKind,
};

/// The options of one client, as the Python constructor received them.
#[derive(Debug)]
pub struct Config {
    /// Node base URLs (`http://host:8983/solr`); more than one only for SolrCloud.
    pub nodes: Vec<String>,
    /// The collection or core.
    pub collection: String,
    /// SolrCloud: route by the cluster state read from the nodes (no ZooKeeper).
    pub cloud: bool,
    /// `pooled`, `http2`, `fresh` or `reqwest`.
    pub transport: String,
    /// Ask for gzip responses.
    pub gzip: bool,
    /// Whole-call timeout, seconds.
    pub timeout: f64,
    /// Connect timeout, seconds (None: the crate's default).
    pub connect_timeout: Option<f64>,
    /// Basic auth user and password.
    pub basic: Option<(String, String)>,
    /// A fixed bearer token.
    pub bearer: Option<String>,
    /// A callable returning a bearer token, or `(token, seconds_valid)`.
    pub token_fn: Option<Py<PyAny>>,
    /// Client certificate and key, PEM files.
    pub client_cert: Option<(String, String)>,
    /// Extra CA certificate (PEM file) for https nodes.
    pub ca_file: Option<String>,
    /// An HTTP proxy URL (`http://user:pass@host:port`).
    pub proxy: Option<String>,
}

impl Config {
    /// Builds the client. Must run inside the shared runtime's context (SolrCloud starts
    /// its background refresh there).
    pub fn build(&self, py: Python<'_>) -> PyResult<SolrClient> {
        let kind: TransportKind = self
            .transport
            .parse()
            .map_err(|e| crate::errors::to_py(py, e))?;
        // One builder for both: a cloud client takes every option a standalone one does.
        let b = if self.cloud {
            SolrClient::cloud(self.nodes.clone())
        } else {
            SolrClient::builder(self.nodes.first().cloned().unwrap_or_default())
        };
        self.common(py, b.collection(&self.collection).transport(kind))
            .and_then(|b| b.build())
            .map_err(|e| crate::errors::to_py(py, e))
    }

    /// Gzip, timeouts, auth, TLS and proxy on a builder (standalone or cloud).
    fn common(
        &self,
        py: Python<'_>,
        b: SolrClientBuilder,
    ) -> solr_client::Result<SolrClientBuilder> {
        let mut b = b.gzip(self.gzip).timeouts(self.timeouts()).tls(self.tls()?);
        if let Some((u, p)) = &self.basic {
            b = b.credentials(Credentials::basic(u, p));
        }
        if let Some(provider) = self.provider(py)? {
            b = b.auth_shared(provider);
        }
        if let Some(p) = &self.proxy {
            b = b.proxy(Proxy::new(p)?);
        }
        Ok(b)
    }

    fn timeouts(&self) -> Timeouts {
        let mut t = Timeouts::DEFAULT;
        t.request = Duration::from_secs_f64(self.timeout.max(0.001));
        t.read_idle = t.read_idle.min(t.request);
        if let Some(c) = self.connect_timeout {
            t.connect = Duration::from_secs_f64(c.max(0.001));
        }
        t
    }

    fn tls(&self) -> solr_client::Result<TlsOptions> {
        let mut tls = TlsOptions::new();
        if let Some(ca) = &self.ca_file {
            tls = tls.add_ca_pem_file(ca)?;
        }
        if let Some((cert, key)) = &self.client_cert {
            tls = tls.client_identity(Identity::from_pem_files(cert, key)?);
        }
        Ok(tls)
    }

    /// The bearer provider: a fixed token or the Python callable.
    fn provider(
        &self,
        py: Python<'_>,
    ) -> solr_client::Result<Option<Arc<dyn solr_client::auth::AuthProvider>>> {
        if let Some(token) = &self.bearer {
            return Ok(Some(Arc::new(Bearer::new(token)?)));
        }
        Ok(self
            .token_fn
            .as_ref()
            .map(|f| crate::token::provider(f.clone_ref(py))))
    }
}
