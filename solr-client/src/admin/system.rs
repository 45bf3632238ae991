//! System information (`/admin/info/system`: Solr version, JVM, mode) and the metrics API
//! (`/admin/metrics`): Solr 9's JSON tree or Solr 10's Prometheus text, one [`Metrics`].

use std::collections::BTreeMap;

use http::header::CONTENT_TYPE;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::prometheus::{self, Sample};
use super::{decode_admin, timed, Call};
use crate::client::SolrClient;
use crate::error::{Error, Result};
use crate::snippet::snippet;
use crate::timing::Timing;
use crate::transport::WireResponse;
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

    /// `/admin/metrics`, filtered by `q`. It is sent without `wt`, so each release answers
    /// its default: Solr 9 its JSON tree ([`Metrics::metrics`]), Solr 10 Prometheus text
    /// ([`Metrics::samples`]; Solr 10 refuses `wt=json` with a 400). Both are read into the
    /// same [`Metrics`], whose accessors ([`Metrics::handler_requests`]) answer alike on
    /// either; a body that is neither is [`Error::Decode`].
    pub async fn metrics(&self, q: &MetricsQuery) -> Result<Metrics> {
        let mut call = Call::get("admin/metrics", "metrics");
        for (k, v) in q.params() {
            call = call.param(k, v);
        }
        call.send_decoded(self.client, decode_metrics).await
    }
}

/// A successful answer in Prometheus or OpenMetrics text is parsed as such; anything else
/// (Solr 9's JSON, and every error, which Solr 10 sends as JSON too) goes the JSON way.
fn decode_metrics(resp: WireResponse, what: &'static str) -> Result<(Metrics, Timing)> {
    let ct = resp
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let first = resp.body.iter().find(|b| !b.is_ascii_whitespace());
    let text_format = ct.contains("openmetrics")
        || (ct.starts_with("text/plain") && first.is_some_and(|b| *b != b'{'));
    if !resp.status.is_success() || !text_format {
        return decode_admin::<Metrics>(resp, what);
    }
    let decode_error = |message: String| Error::Decode {
        node: resp.timing.node.clone().into(),
        what,
        message: message.into(),
        snippet: snippet(&resp.body, 200).into(),
    };
    let text = std::str::from_utf8(&resp.body).map_err(|e| decode_error(e.to_string()))?;
    let samples = prometheus::parse(text)
        .map_err(|e| decode_error(format!("line {}: {}", e.line, e.message)))?;
    let metrics = Metrics {
        format: MetricsFormat::Prometheus,
        samples,
        ..Metrics::default()
    };
    Ok((metrics, resp.timing))
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
    /// `name`: Solr 10's filter by metric name (`solr_core_requests`); Solr 9 ignores it,
    /// as Solr 10 ignores `group`, `prefix`, `type` and `key`, so one query may carry both.
    pub names: Vec<String>,
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

    /// Adds a metric name (Solr 10).
    pub fn name(mut self, n: impl Into<String>) -> Self {
        self.names.push(n.into());
        self
    }

    /// The request counters of `handler` (`/select`, `/update`) in every core, on Solr 9 and
    /// 10 alike: group `core`, prefix `CATEGORY.handler.requests` (Solr 9: the handler's
    /// category, `QUERY` or `UPDATE`, begins the name) and names `solr_core_requests` and
    /// `solr_core_ref_count` (Solr 10: the second names every loaded core, so a core whose
    /// handler has served nothing yet reads 0, as on Solr 9). Read the answer with
    /// [`Metrics::handler_requests`].
    pub fn handler_requests(category: &str, handler: &str) -> Self {
        MetricsQuery::new()
            .group("core")
            .prefix(format!("{category}.{handler}.requests"))
            .name("solr_core_requests")
            .name("solr_core_ref_count")
    }

    fn params(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        for (name, list) in [
            ("group", &self.groups),
            ("prefix", &self.prefixes),
            ("type", &self.types),
            ("name", &self.names),
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

/// Which format a node answered metrics in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum MetricsFormat {
    /// Solr 9's JSON tree, in [`Metrics::metrics`].
    #[default]
    Json,
    /// Solr 10's Prometheus (or OpenMetrics) text, in [`Metrics::samples`].
    Prometheus,
}

/// The answer of `/admin/metrics`: Solr 9's JSON tree or Solr 10's Prometheus samples
/// ([`Metrics::format`] says which). Solr 10 renamed every metric (`QUERY./select.requests`
/// of registry `solr.core.bench` became `solr_core_requests_total{core="bench",
/// handler="/select",...}`); [`Metrics::handler_requests`] reads either.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Metrics {
    /// Solr's header (Solr 9; Prometheus text has none).
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Registry (`solr.jvm`, `solr.core.bench`, ...) -> metric name -> value (Solr 9).
    #[serde(default)]
    pub metrics: BTreeMap<String, BTreeMap<String, MetricValue>>,
    /// Every sample of a Prometheus answer, in order (Solr 10).
    #[serde(skip)]
    pub samples: Vec<Sample>,
    /// The format the node answered in.
    #[serde(skip)]
    pub format: MetricsFormat,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

impl Metrics {
    /// How many requests `handler` (`/select`) of core `core` has served, on Solr 9 and 10
    /// alike; `None` when the answer has no such counter (the core or handler is unknown,
    /// or the query filtered it out). `core` is the core's name: `bench`, or in SolrCloud
    /// `bench_shard1_replica_n1` (Solr 9's registry `solr.core.bench.shard1.replica_n1`).
    /// Solr 10 splits a handler's counter by labels (`internal`, `category`): their sum is
    /// returned, what Solr 9 counts in one. Solr 10 has no series for a handler that has
    /// served nothing yet (Solr 9 has a 0): then 0 if the answer names the core at all
    /// (any sample labelled with it, see [`MetricsQuery::handler_requests`]), else `None`.
    pub fn handler_requests(&self, core: &str, handler: &str) -> Option<u64> {
        match self.format {
            MetricsFormat::Prometheus => {
                let of_core = || {
                    self.samples
                        .iter()
                        .filter(|s| s.label("core") == Some(core))
                };
                let total: f64 = of_core()
                    .filter(|s| {
                        s.name == "solr_core_requests_total" && s.label("handler") == Some(handler)
                    })
                    .map(|s| s.value)
                    .sum();
                let known = of_core().next().is_some();
                (known && total.is_finite() && total >= 0.0).then_some(total as u64)
            }
            MetricsFormat::Json => {
                let suffix = format!(".{handler}.requests");
                let (_, registry) = self.metrics.iter().find(|(r, _)| {
                    r.strip_prefix("solr.core.")
                        .is_some_and(|c| c.replace('.', "_") == core)
                })?;
                registry
                    .iter()
                    .find(|(k, _)| {
                        k.ends_with(&suffix) && !k[..k.len() - suffix.len()].contains('.')
                    })
                    .and_then(|(_, v)| v.as_i64())
                    .and_then(|n| u64::try_from(n).ok())
            }
        }
    }

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

    fn answer(content_type: &str, status: u16, body: &'static [u8]) -> WireResponse {
        let mut headers = http::HeaderMap::new();
        headers.insert(CONTENT_TYPE, content_type.parse().expect("header"));
        WireResponse {
            status: http::StatusCode::from_u16(status).expect("status"),
            headers,
            body: bytes::Bytes::from_static(body),
            timing: Timing::default(),
        }
    }

    /// A recorded Solr 10.0.0 answer (standalone, core `bench`, the default format), taken
    /// after its `/select` had served 5 requests and its `/admin/ping` 1.
    const SOLR10: &[u8] = include_bytes!("testdata/metrics_solr10.prom");

    #[test]
    fn solr10_prometheus_answer_gives_the_same_typed_counters() {
        let (m, _) = decode_metrics(answer("text/plain; version=0.0.4", 200, SOLR10), "metrics")
            .expect("parses");
        assert_eq!(m.format, MetricsFormat::Prometheus);
        assert!(m.metrics.is_empty());
        assert_eq!(m.handler_requests("bench", "/select"), Some(5));
        assert_eq!(m.handler_requests("bench", "/admin/ping"), Some(1));
        // A handler that served nothing has no series on Solr 10: 0 for a core the answer
        // names (Solr 9 has a 0 counter), `None` for a core it does not.
        assert_eq!(m.handler_requests("bench", "/update"), Some(0));
        assert_eq!(m.handler_requests("other", "/select"), None);
        // Every line of the answer that is not a comment is one sample.
        let lines = std::str::from_utf8(SOLR10).expect("utf-8").lines();
        let expected = lines
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .count();
        assert_eq!(m.samples.len(), expected);
    }

    #[test]
    fn solr9_json_answer_gives_the_same_typed_counters() {
        let body = include_bytes!("testdata/metrics.json");
        let (m, _) = decode_metrics(
            answer("application/json;charset=utf-8", 200, body),
            "metrics",
        )
        .expect("parses");
        assert_eq!(m.format, MetricsFormat::Json);
        assert_eq!(m.handler_requests("bench", "/select"), Some(1));
        assert_eq!(m.handler_requests("bench", "/update"), None);
        // SolrCloud: the core's name maps to its registry.
        let cloud: Metrics = serde_json::from_str(
            r#"{"metrics":{"solr.core.bench.shard1.replica_n1":{"UPDATE./update.requests":7}}}"#,
        )
        .expect("parses");
        assert_eq!(
            cloud.handler_requests("bench_shard1_replica_n1", "/update"),
            Some(7)
        );
        assert_eq!(cloud.handler_requests("bench", "/update"), None);
    }

    #[test]
    fn solr10_refusal_of_json_and_garbage_are_typed_errors() {
        let refused = br#"{"responseHeader":{"status":400,"QTime":3},"error":{"msg":"Only Prometheus and OpenMetrics metric formats supported. Unsupported format requested: json","code":400}}"#;
        let e = decode_metrics(
            answer("application/json;charset=utf-8", 400, refused),
            "metrics",
        )
        .expect_err("400");
        assert!(
            matches!(&e, Error::Solr { status: 400, body, .. } if body.msg.contains("Unsupported format")),
            "{e:?}"
        );
        let e = decode_metrics(
            answer(
                "text/plain; version=0.0.4",
                200,
                b"ok 1
broken{x=1} 2
",
            ),
            "metrics",
        )
        .expect_err("malformed");
        assert!(
            matches!(&e, Error::Decode { message, .. } if message.starts_with("line 2:")),
            "{e:?}"
        );
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
        assert_eq!(
            MetricsQuery::handler_requests("QUERY", "/select").params(),
            vec![
                ("group", "core".to_string()),
                ("prefix", "QUERY./select.requests".to_string()),
                ("name", "solr_core_requests,solr_core_ref_count".to_string()),
            ]
        );
    }
}
