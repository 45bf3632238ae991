//! Solr's admin APIs, typed: Collections, Configsets, Schema, core admin, system info and
//! metrics.
//!
//! Each API is a small handle borrowed from the client, so every call goes through the
//! client's transport, credentials, timeouts and timing like a search does:
//!
//! | handle | Solr API | paths |
//! |---|---|---|
//! | [`SolrClient::collections`] -> [`Collections`] | Collections API (SolrCloud) | `/admin/collections` |
//! | [`SolrClient::configsets`] -> [`Configsets`] | Configsets API (SolrCloud) | `/admin/configs` |
//! | [`SolrClient::schema`] -> [`Schema`] | Schema API of the client's collection | `/{collection}/schema` |
//! | [`SolrClient::cores`] -> [`Cores`] | CoreAdmin API (standalone) | `/admin/cores` |
//! | [`SolrClient::system`] -> [`System`] | system info and metrics | `/admin/info/system`, `/admin/metrics` |
//!
//! Every response type keeps Solr's `responseHeader`, the client-side [`Timing`] (with
//! QTime), and, where Solr adds fields this crate does not model, an `extra` map. A failed
//! call is the crate's [`Error`]: a Solr error status is [`Error::Solr`] with Solr's own
//! message; a Collections API answer that reports a `failure` with a success status is an
//! [`Error::Solr`] too (see [`AdminResponse`]).
//!
//! Requests are sent as [`RequestKind::Admin`] (any node; retried on a transport error like
//! a read). A mutating call (create, delete, upload) that is retried after its first attempt
//! was lost may then find its own effect ("collection already exists"): the error says so.
//!
//! [`SolrClient::collections`]: crate::SolrClient::collections
//! [`SolrClient::configsets`]: crate::SolrClient::configsets
//! [`SolrClient::schema`]: crate::SolrClient::schema
//! [`SolrClient::cores`]: crate::SolrClient::cores
//! [`SolrClient::system`]: crate::SolrClient::system

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::Method;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::client::SolrClient;
use crate::error::{Error, Result};
use crate::snippet::snippet;
use crate::timing::Timing;
use crate::transport::{RequestKind, WireResponse};
use crate::types::{ResponseHeader, SolrErrorBody};

mod collections;
mod configsets;
mod cores;
mod operations;
mod prometheus;
mod schema;
mod system;
mod zip;

pub use collections::{
    Aliases, ClusterState, ClusterStatus, CollectionList, CollectionState, Collections,
    CreateCollection, ReplicaSpec, ReplicaState, RequestStatus, RouterInfo, ShardState,
};
pub use configsets::{ConfigsetList, Configsets};
pub use cores::{CoreIndex, CoreStatus, CoreStatusResponse, Cores, CreateCore};
pub use operations::CollectionStatus;
pub use prometheus::Sample;
pub use schema::{
    CopyField, CopyFieldList, FieldList, FieldType, FieldTypeList, Schema, SchemaCommand,
    SchemaField, UniqueKey,
};
pub use system::{
    JvmInfo, LuceneInfo, MetricValue, Metrics, MetricsFormat, MetricsQuery, System, SystemInfo,
};
pub use zip::zip_directory;

/// The common answer of an admin call that returns no data of its own (create, delete,
/// reload, alias and replica commands, uploads).
///
/// The Collections API reports per-node results of a command in `success`, and, when some
/// node failed, `failure`: an answer with a `failure` (or an `exception`) is returned as
/// [`Error::Solr`] with the failure's text as the message, never as a success.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AdminResponse {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The async request id, when the call was sent with one (Solr then answers at once;
    /// poll [`Collections::request_status`]).
    #[serde(rename = "requestid", default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Per-node results (Collections API), as Solr sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<Value>,
    /// Everything else Solr sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Client-side timing (QTime included).
    #[serde(skip)]
    pub timing: Timing,
}

/// Response types that carry a header and a timing record.
pub(crate) trait Timed {
    /// Solr's QTime from the header.
    fn qtime(&self) -> Option<u32>;
    fn set_timing(&mut self, t: Timing);
}

macro_rules! timed {
    ($($t:ty),* $(,)?) => {
        $(impl crate::admin::Timed for $t {
            fn qtime(&self) -> Option<u32> {
                self.header.qtime
            }
            fn set_timing(&mut self, mut t: crate::timing::Timing) {
                t.qtime_ms = self.header.qtime;
                self.timing = t;
            }
        })*
    };
}
pub(crate) use timed;

timed!(AdminResponse);

/// One admin request: where, what, and how it is sent.
pub(crate) struct Call<'a> {
    pub(crate) method: Method,
    /// Path under the node (`admin/collections`), or under the client's collection when
    /// `in_collection` is set (`schema/fields`).
    pub(crate) path: &'a str,
    pub(crate) in_collection: bool,
    pub(crate) params: Vec<(String, String)>,
    pub(crate) body: Option<(&'static str, Bytes)>,
    pub(crate) what: &'static str,
}

impl<'a> Call<'a> {
    /// A GET of `path` under the node.
    pub(crate) fn get(path: &'a str, what: &'static str) -> Self {
        Call {
            method: Method::GET,
            path,
            in_collection: false,
            params: Vec::new(),
            body: None,
            what,
        }
    }

    /// Adds a query parameter.
    pub(crate) fn param(mut self, k: &str, v: impl Into<String>) -> Self {
        self.params.push((k.to_string(), v.into()));
        self
    }

    /// Adds a query parameter when `v` is set.
    pub(crate) fn opt(self, k: &str, v: Option<impl ToString>) -> Self {
        match v {
            Some(v) => self.param(k, v.to_string()),
            None => self,
        }
    }

    /// Sends it and decodes the answer into `T`, turning a reported `failure` into an error.
    /// It goes through the client's one exchange, as every data call does: the response
    /// hook, the call span and, for a failed call, the `solr.error` event
    /// ([`crate::observe`]).
    pub(crate) async fn send<T: DeserializeOwned + Timed>(self, client: &SolrClient) -> Result<T> {
        self.param("wt", "json")
            .send_decoded(client, decode_admin::<T>)
            .await
    }

    /// Sends it as it is (no `wt` added) and decodes the answer with `decode`.
    pub(crate) async fn send_decoded<T: Timed>(
        self,
        client: &SolrClient,
        decode: fn(WireResponse, &'static str) -> Result<(T, Timing)>,
    ) -> Result<T> {
        let mut req = client.wire(self.method, self.path, self.params, RequestKind::Admin);
        if !self.in_collection {
            req.path = self.path.trim_start_matches('/').to_string();
        }
        if let Some((ct, body)) = self.body {
            req.headers
                .insert(CONTENT_TYPE, HeaderValue::from_static(ct));
            req.body = body;
        }
        let what = self.what;
        let (mut out, timing) = client
            .exchange(req, |resp| decode(resp, what), T::qtime)
            .await?;
        out.set_timing(timing);
        Ok(out)
    }
}

/// Decodes an admin answer into `T`: Solr's error status and a reported `failure` are
/// errors.
pub(crate) fn decode_admin<T: DeserializeOwned>(
    resp: WireResponse,
    what: &'static str,
) -> Result<(T, Timing)> {
    let (value, timing): (Value, Timing) = crate::response::decode(resp, what)?;
    if let Some(e) = reported_failure(&value, &timing.node) {
        return Err(e);
    }
    let out: T = T::deserialize(&value).map_err(|e| Error::Decode {
        node: timing.node.clone().into(),
        what,
        message: e.to_string().into(),
        snippet: snippet(value.to_string().as_bytes(), 200).into(),
    })?;
    Ok((out, timing))
}

/// A Collections API answer with a success status that still reports a failure
/// (`failure` per node, or an `exception`), as an [`Error::Solr`] keeping Solr's text.
fn reported_failure(v: &Value, node: &str) -> Option<Error> {
    let failure = v.get("failure").filter(|f| !f.is_null());
    let exception = v.get("exception").filter(|f| !f.is_null());
    if failure.is_none() && exception.is_none() {
        return None;
    }
    let code = exception
        .and_then(|e| e.get("rspCode"))
        .and_then(Value::as_i64)
        .filter(|c| (400..600).contains(c))
        .unwrap_or(500);
    let msg = exception
        .and_then(|e| e.get("msg"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| failure.map(failure_text))
        .unwrap_or_default();
    Some(Error::Solr {
        node: node.into(),
        status: code as u16,
        body: (SolrErrorBody {
            msg,
            code: code as i32,
            metadata: failure.cloned(),
            qtime_ms: None,
        })
        .into(),
    })
}

/// The messages of a `failure` map (`node -> "org.apache...: message"` or an object).
fn failure_text(f: &Value) -> String {
    match f {
        Value::Object(m) => m
            .iter()
            .map(|(node, v)| match v {
                Value::String(s) => format!("{node}: {s}"),
                other => format!("{node}: {other}"),
            })
            .collect::<Vec<_>>()
            .join("; "),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Rejects an empty name or one with characters Solr never accepts in a collection, core,
/// alias, configset or field name (before anything is sent).
pub(crate) fn check_name(kind: &str, name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid_input(format!("empty {kind} name")));
    }
    if name
        .chars()
        .any(|c| c.is_control() || c == '/' || c == '\\' || c == ',' || c.is_whitespace())
    {
        return Err(Error::invalid_input(format!(
            "{kind} name {name:?} has a character Solr does not accept (/, \\, comma, space or control)"
        )));
    }
    Ok(())
}

/// The admin APIs, as small handles borrowed from the client.
impl SolrClient {
    /// The Collections API (SolrCloud) of this client's cluster.
    pub fn collections(&self) -> Collections<'_> {
        Collections::new(self)
    }

    /// The Configsets API (SolrCloud).
    pub fn configsets(&self) -> Configsets<'_> {
        Configsets::new(self)
    }

    /// The Schema API of this client's collection (or core).
    pub fn schema(&self) -> Schema<'_> {
        Schema::new(self)
    }

    /// The CoreAdmin API of this client's node (standalone).
    pub fn cores(&self) -> Cores<'_> {
        Cores::new(self)
    }

    /// System information and metrics of this client's node.
    pub fn system(&self) -> System<'_> {
        System::new(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_map_with_status_zero_is_an_error_with_solrs_text() {
        let v: Value = serde_json::json!({
            "responseHeader": {"status": 0, "QTime": 5},
            "failure": {"127.0.0.1:1_solr": "org.apache.solr.client.solrj.impl.BaseHttpSolrClient$RemoteSolrException: Error from server: no such core"}
        });
        let e = reported_failure(&v, "http://n/solr").expect("an error");
        assert_eq!(e.status(), Some(500));
        assert!(e.to_string().contains("no such core"), "{e}");
        let v: Value = serde_json::json!({
            "responseHeader": {"status": 400},
            "exception": {"msg": "bad shard", "rspCode": 400}
        });
        let e = reported_failure(&v, "n").expect("an error");
        assert_eq!(e.status(), Some(400));
        assert!(e.to_string().contains("bad shard"));
        let ok: Value = serde_json::json!({"responseHeader": {"status": 0}, "success": {}});
        assert!(reported_failure(&ok, "n").is_none());
    }

    #[test]
    fn names_are_checked_before_sending() {
        assert!(check_name("collection", "ok_name-1.x").is_ok());
        for bad in ["", "a/b", "a b", "a,b", "a\nb"] {
            let e = check_name("collection", bad).expect_err(bad);
            assert!(matches!(e, Error::InvalidInput(_)), "{e}");
        }
    }
}
