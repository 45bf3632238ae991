//! System information (`/admin/info/system`: Solr version, JVM, mode) and the metrics API
//! (`/admin/metrics`), read as a typed tree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{timed, Call};
use crate::client::SolrClient;
use crate::error::Result;
use crate::timing::Timing;
use crate::types::ResponseHeader;

/// System information and metrics of the client's node. Borrowed from
/// [`SolrClient::system`].
///
/// ```no_run
/// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
/// use solr_client::admin::MetricsQuery;
/// let info = client.system().info().await?;
/// println!("Solr {} ({}), Java {}", info.lucene.solr_spec_version, info.mode, info.jvm.version);
/// let m = client
///     .system()
///     .metrics(&MetricsQuery::new().group("core").prefix("QUERY./select.requests"))
///     .await?;
/// for (registry, metrics) in &m.metrics {
///     println!("{registry}: {:?}", metrics.get("QUERY./select.requests").and_then(|v| v.as_i64()));
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct System<'a> {
    client: &'a SolrClient,
}

impl<'a> System<'a> {
    pub(crate) fn new(client: &'a SolrClient) -> Self {
        System { client }
    }

    /// `/admin/info/system`: Solr and Lucene versions, JVM, mode (`std` or `solrcloud`).
    pub async fn info(&self) -> Result<SystemInfo> {
        Call::get("admin/info/system", "system info")
            .send(self.client)
            .await
    }

    /// `/admin/metrics`, filtered by `q`'s groups, prefixes and keys.
    pub async fn metrics(&self, q: &MetricsQuery) -> Result<Metrics> {
        let mut call = Call::get("admin/metrics", "metrics");
        for (k, v) in q.params() {
            call = call.param(k, v);
        }
        call.send(self.client).await
    }
}

/// The filters of a metrics read. Each list is sent comma-separated; empty lists are not
/// sent (Solr then returns every metric, which is large).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub struct MetricsQuery {
    /// `group`: `all`, `jvm`, `jetty`, `node`, `core`, ...
    pub groups: Vec<String>,
    /// `prefix`: metric name prefixes (`QUERY./select`).
    pub prefixes: Vec<String>,
    /// `type`: `all`, `counter`, `gauge`, `histogram`, `meter`, `timer`.
    pub types: Vec<String>,
    /// `key`: full metric keys (`solr.jvm:memory.heap.used`); Solr ignores the other
    /// filters when keys are given.
    pub keys: Vec<String>,
}

impl MetricsQuery {
    /// No filter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a group.
    pub fn group(mut self, g: impl Into<String>) -> Self {
        self.groups.push(g.into());
        self
    }

    /// Adds a name prefix.
    pub fn prefix(mut self, p: impl Into<String>) -> Self {
        self.prefixes.push(p.into());
        self
    }

    /// Adds a metric type.
    pub fn metric_type(mut self, t: impl Into<String>) -> Self {
        self.types.push(t.into());
        self
    }

    /// Adds a full key.
    pub fn key(mut self, k: impl Into<String>) -> Self {
        self.keys.push(k.into());
        self
    }

    fn params(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        for (name, list) in [
            ("group", &self.groups),
            ("prefix", &self.prefixes),
            ("type", &self.types),
        ] {
            if !list.is_empty() {
                out.push((name, list.join(",")));
            }
        }
        // `key` is repeated, not comma-separated (a key may hold a comma).
        out.extend(self.keys.iter().map(|k| ("key", k.clone())));
        out
    }
}

/// The answer of `/admin/metrics`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Metrics {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Registry (`solr.jvm`, `solr.core.bench`, ...) -> metric name -> value.
    #[serde(default)]
    pub metrics: BTreeMap<String, BTreeMap<String, MetricValue>>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

impl Metrics {
    /// The metric `name` of the first registry whose name starts with `registry_prefix`
    /// (e.g. `solr.core.bench` matches a SolrCloud core `solr.core.bench.shard1.replica_n1`).
    pub fn find(&self, registry_prefix: &str, name: &str) -> Option<&MetricValue> {
        self.metrics
            .iter()
            .filter(|(r, _)| r.starts_with(registry_prefix))
            .find_map(|(_, m)| m.get(name))
    }
}

/// One metric value: a number, or a map of them (a timer's or meter's count, rates and
/// percentiles), as Solr's JSON has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MetricValue {
    /// An integer (counters, gauges of counts, bytes).
    Int(i64),
    /// A floating-point number (rates, milliseconds).
    Float(f64),
    /// A boolean gauge.
    Bool(bool),
    /// A text gauge (paths, versions).
    Text(String),
    /// A list.
    List(Vec<MetricValue>),
    /// A compound metric: name -> value (`count`, `meanRate`, `p99_ms`, ...).
    Map(BTreeMap<String, MetricValue>),
    /// `null`.
    Null,
}

impl MetricValue {
    /// The value as an integer (an `Int`, or a whole `Float`).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            MetricValue::Int(i) => Some(*i),
            MetricValue::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(*f as i64),
            _ => None,
        }
    }

    /// The value as a float (an `Int` or a `Float`).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            MetricValue::Int(i) => Some(*i as f64),
            MetricValue::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// A member of a compound metric (`get("count")` of a timer).
    pub fn get(&self, key: &str) -> Option<&MetricValue> {
        match self {
            MetricValue::Map(m) => m.get(key),
            _ => None,
        }
    }
}

/// The answer of `/admin/info/system`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SystemInfo {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// `std` (standalone) or `solrcloud`.
    #[serde(default)]
    pub mode: String,
    /// The ZooKeeper connection string, in SolrCloud.
    #[serde(rename = "zkHost", default)]
    pub zk_host: Option<String>,
    /// The node name (`host:port_context`), in SolrCloud.
    #[serde(default)]
    pub node: Option<String>,
    /// Solr and Lucene versions.
    #[serde(default)]
    pub lucene: LuceneInfo,
    /// The JVM.
    #[serde(default)]
    pub jvm: JvmInfo,
    /// Everything else (`solr_home`, `system`, `security`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

impl SystemInfo {
    /// True when the node runs in SolrCloud mode.
    pub fn is_cloud(&self) -> bool {
        self.mode == "solrcloud"
    }
}

/// The `lucene` section of system info.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LuceneInfo {
    /// Solr's version (`9.10.1`).
    #[serde(rename = "solr-spec-version", default)]
    pub solr_spec_version: String,
    /// Solr's build (version, commit, builder, date).
    #[serde(rename = "solr-impl-version", default)]
    pub solr_impl_version: String,
    /// Lucene's version.
    #[serde(rename = "lucene-spec-version", default)]
    pub lucene_spec_version: String,
    /// Lucene's build.
    #[serde(rename = "lucene-impl-version", default)]
    pub lucene_impl_version: String,
}

/// The `jvm` section of system info.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JvmInfo {
    /// The Java version string.
    #[serde(default)]
    pub version: String,
    /// The VM's name.
    #[serde(default)]
    pub name: String,
    /// Processors the JVM sees.
    #[serde(default)]
    pub processors: Option<u32>,
    /// Everything else (`memory`, `jmx`, `spec`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

timed!(Metrics, SystemInfo);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_info_of_a_real_answer() {
        let s: SystemInfo =
            serde_json::from_str(include_str!("testdata/system_info.json")).expect("parses");
        assert_eq!(s.mode, "std");
        assert!(!s.is_cloud());
        assert_eq!(s.lucene.solr_spec_version, "9.10.1");
        assert_eq!(s.lucene.lucene_spec_version, "9.12.3");
        assert!(s.jvm.version.starts_with("17"), "{}", s.jvm.version);
        assert_eq!(s.jvm.processors, Some(2));
        assert!(s.jvm.extra.contains_key("memory"));
        assert!(s.extra.contains_key("system"));
    }

    #[test]
    fn metrics_of_a_real_answer_are_a_typed_tree() {
        let m: Metrics =
            serde_json::from_str(include_str!("testdata/metrics.json")).expect("parses");
        let requests = m
            .find("solr.core.bench", "QUERY./select.requests")
            .expect("counter");
        assert_eq!(requests.as_i64(), Some(1));
        let timer = m
            .find("solr.core", "QUERY./select.requestTimes")
            .expect("timer");
        assert_eq!(timer.get("count").and_then(MetricValue::as_i64), Some(1));
        assert!(timer.get("p99_ms").and_then(MetricValue::as_f64).is_some());
        assert!(m.find("solr.jvm", "QUERY./select.requests").is_none());
    }

    #[test]
    fn metrics_filters_become_solrs_parameters() {
        let q = MetricsQuery::new()
            .group("core")
            .group("jvm")
            .prefix("QUERY./select")
            .key("solr.jvm:os.name");
        assert_eq!(
            q.params(),
            vec![
                ("group", "core,jvm".to_string()),
                ("prefix", "QUERY./select".to_string()),
                ("key", "solr.jvm:os.name".to_string()),
            ]
        );
        assert!(MetricsQuery::new().params().is_empty());
    }
}
