//! The `metrics` feature: every response and every call that ended without one, recorded
//! into the [`metrics`] facade under the `solr_client_*` names (see the
//! [module docs](super#metrics-feature-metrics)). Without the feature every type here is empty
//! and every method a no-op, so the client's exchange calls them unconditionally.

#[cfg(feature = "metrics")]
use std::sync::Arc;

use crate::error::Error;
use crate::timing::Timing;
use crate::transport::WireRequest;

/// The client's part of the labels: its transport's name (`pooled+gzip`, `fresh`, ...),
/// taken once when the client is built.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClientMeter {
    #[cfg(feature = "metrics")]
    transport: Arc<str>,
}

impl ClientMeter {
    /// The meter of a client whose transport is named `name`.
    pub(crate) fn new(name: String) -> Self {
        #[cfg(not(feature = "metrics"))]
        let _ = name;
        ClientMeter {
            #[cfg(feature = "metrics")]
            transport: name.into(),
        }
    }

    /// What to record of `req` once it is answered: its update body's size and format.
    pub(crate) fn request(&self, req: &WireRequest) -> Pending {
        #[cfg(not(feature = "metrics"))]
        let _ = req;
        Pending {
            #[cfg(feature = "metrics")]
            transport: self.transport.clone(),
            #[cfg(feature = "metrics")]
            update: update_body(req),
        }
    }
}

/// One call in flight: what its response (or its failure without one) is recorded with.
#[derive(Debug)]
pub(crate) struct Pending {
    #[cfg(feature = "metrics")]
    transport: Arc<str>,
    /// The update body's size in bytes and its format label, for an update request.
    #[cfg(feature = "metrics")]
    update: Option<(u64, &'static str)>,
}

#[cfg(not(feature = "metrics"))]
impl Pending {
    /// Records a response (a no-op without the `metrics` feature).
    pub(crate) fn response(&self, _path: &str, _status: u16, _timing: &Timing) {}

    /// Records a call that ended without a response (a no-op without the feature).
    pub(crate) fn no_response(&self, _path: &str, _error: &Error) {}
}

#[cfg(feature = "metrics")]
impl Pending {
    /// Records one response: the request counters and histograms, the connection it went
    /// on, its bytes, and the update body it carried.
    pub(crate) fn response(&self, path: &str, status: u16, timing: &Timing) {
        use metrics::{counter, histogram, Label};
        let (collection, handler) = path_labels(path);
        let transport = Label::new("transport", self.transport.clone());
        let labels = vec![
            Label::new("collection", collection.to_owned()),
            Label::new("handler", handler.to_owned()),
            Label::new("status", status_label(status)),
            transport.clone(),
        ];
        let wall = timing.total();
        counter!("solr_client_requests_total", labels.clone()).increment(1);
        histogram!("solr_client_request_wall_seconds", labels.clone()).record(wall);
        if let Some(q) = timing.qtime_ms {
            let q = std::time::Duration::from_millis(u64::from(q));
            histogram!("solr_client_qtime_seconds", labels.clone()).record(q);
            let outside = wall.saturating_sub(q);
            histogram!("solr_client_outside_solr_seconds", labels).record(outside);
        }
        let conn = vec![transport.clone()];
        if timing.reused {
            counter!("solr_client_connections_reused_requests_total", conn).increment(1);
        } else {
            counter!("solr_client_connections_opened_total", conn).increment(1);
        }
        let encoding = timing.content_encoding.as_deref().unwrap_or("identity");
        let bytes = vec![
            Label::new("encoding", encoding_label(encoding)),
            transport.clone(),
        ];
        counter!("solr_client_response_bytes_total", bytes).increment(timing.bytes_in);
        if let Some((n, format)) = self.update {
            let labels = vec![
                Label::new("format", format),
                Label::new("collection", collection.to_owned()),
                transport,
            ];
            counter!("solr_client_update_bytes_total", labels).increment(n);
        }
    }

    /// Records a call that ended without a response: one count by error kind.
    pub(crate) fn no_response(&self, path: &str, error: &Error) {
        let (collection, handler) = path_labels(path);
        let labels = vec![
            metrics::Label::new("collection", collection.to_owned()),
            metrics::Label::new("handler", handler.to_owned()),
            metrics::Label::new("kind", error.kind()),
            metrics::Label::new("transport", self.transport.clone()),
        ];
        metrics::counter!("solr_client_requests_without_response_total", labels).increment(1);
    }
}

/// The `collection` and `handler` labels of a path below the node: `bench/select` is
/// (`bench`, `select`); a node-level admin path (`admin/collections`) has no collection.
/// The handler keeps at most two segments (`schema/fields`, `admin/ping`, `update/json`) and
/// nothing after a `?` or `#`, so a path that carries a name or an id beyond them (a
/// hand-built [`crate::SolrClient::send_raw`] request) cannot grow the label set.
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) fn path_labels(path: &str) -> (&str, &str) {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let path = path.trim_matches('/');
    let (collection, rest) = match path.split_once('/') {
        Some(("admin", _)) | None => ("", path),
        Some((c, rest)) => (c, rest),
    };
    let end = rest
        .match_indices('/')
        .nth(1)
        .map_or(rest.len(), |(i, _)| i);
    (collection, &rest[..end])
}

/// The `status` label: the code's digits (static for the codes Solr answers most).
#[cfg(feature = "metrics")]
fn status_label(status: u16) -> metrics::SharedString {
    let known = match status {
        200 => "200",
        400 => "400",
        401 => "401",
        403 => "403",
        404 => "404",
        409 => "409",
        429 => "429",
        500 => "500",
        502 => "502",
        503 => "503",
        504 => "504",
        _ => return status.to_string().into(),
    };
    known.into()
}

/// The `encoding` label, from the response's Content-Encoding: the common codings by their
/// name, anything else `other` (a server's header cannot grow the label set).
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) fn encoding_label(encoding: &str) -> &'static str {
    const KNOWN: [&str; 5] = ["identity", "gzip", "br", "deflate", "zstd"];
    let e = encoding.trim();
    KNOWN
        .into_iter()
        .find(|k| k.eq_ignore_ascii_case(e))
        .unwrap_or("other")
}

/// The update body of `req` (a request to an `update` handler with a body): its size and
/// its `format` label, from its Content-Type.
#[cfg(feature = "metrics")]
fn update_body(req: &WireRequest) -> Option<(u64, &'static str)> {
    let (_, handler) = path_labels(&req.path);
    if req.body.is_empty() || !handler.starts_with("update") {
        return None;
    }
    let ct = req
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    Some((req.body.len() as u64, format_label(ct)))
}

/// The `format` label of an update body's Content-Type: `json`, `xml`, `javabin`, `cbor`,
/// `csv` or `other`.
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) fn format_label(content_type: &str) -> &'static str {
    let mime = content_type.split(';').next().unwrap_or("").trim();
    let sub = mime.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    match sub.as_str() {
        "json" => "json",
        "xml" => "xml",
        "javabin" | "x-javabin" => "javabin",
        "cbor" => "cbor",
        "csv" => "csv",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_labels_are_collection_and_a_bounded_handler() {
        assert_eq!(path_labels("bench/select"), ("bench", "select"));
        assert_eq!(path_labels("bench/admin/ping"), ("bench", "admin/ping"));
        assert_eq!(path_labels("admin/collections"), ("", "admin/collections"));
        assert_eq!(path_labels("admin/info/system"), ("", "admin/info"));
        assert_eq!(
            path_labels("bench/schema/fields/title"),
            ("bench", "schema/fields")
        );
        assert_eq!(path_labels("/bench/get?id=42"), ("bench", "get"));
        assert_eq!(path_labels("bench"), ("", "bench"));
        assert_eq!(path_labels(""), ("", ""));
    }

    #[test]
    fn format_and_encoding_labels_are_a_closed_set() {
        assert_eq!(format_label("application/json; charset=UTF-8"), "json");
        assert_eq!(format_label("text/xml"), "xml");
        assert_eq!(format_label("application/javabin"), "javabin");
        assert_eq!(format_label("application/cbor"), "cbor");
        assert_eq!(format_label("text/csv"), "csv");
        assert_eq!(format_label("application/x-whatever"), "other");
        assert_eq!(format_label(""), "other");
        assert_eq!(encoding_label("GZIP"), "gzip");
        assert_eq!(encoding_label("identity"), "identity");
        assert_eq!(encoding_label("x-evil-1234"), "other");
    }

    /// `name{label=value,...}` (labels sorted) of every metric `f` recorded, with its
    /// counter value or its histogram's sample count.
    #[cfg(feature = "metrics")]
    fn recorded(f: impl FnOnce()) -> std::collections::BTreeMap<String, u64> {
        use metrics_util::debugging::{DebugValue, DebuggingRecorder};
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        metrics::with_local_recorder(&recorder, f);
        let mut out = std::collections::BTreeMap::new();
        for (key, _, _, value) in snapshotter.snapshot().into_vec() {
            let key = key.key();
            let mut labels: Vec<String> = key
                .labels()
                .map(|l| format!("{}={}", l.key(), l.value()))
                .collect();
            labels.sort();
            let n = match value {
                DebugValue::Counter(n) => n,
                DebugValue::Histogram(v) => v.len() as u64,
                DebugValue::Gauge(_) => u64::MAX,
            };
            out.insert(format!("{}{{{}}}", key.name(), labels.join(",")), n);
        }
        out
    }

    #[cfg(feature = "metrics")]
    #[test]
    fn a_response_and_a_failure_are_recorded_once_with_their_labels() {
        let pending = Pending {
            transport: "pooled+gzip".into(),
            update: Some((57, "json")),
        };
        let timing = Timing {
            qtime_ms: Some(3),
            reused: true,
            bytes_in: 420,
            content_encoding: Some("gzip".into()),
            ..Timing::default()
        };
        let got = recorded(|| {
            pending.response("bench/update", 200, &timing);
            pending.no_response("bench/select", &Error::Config("refused".into()));
        });
        let req = "collection=bench,handler=update,status=200,transport=pooled+gzip";
        let want: std::collections::BTreeMap<String, u64> = [
            (format!("solr_client_requests_total{{{req}}}"), 1),
            (format!("solr_client_request_wall_seconds{{{req}}}"), 1),
            (format!("solr_client_qtime_seconds{{{req}}}"), 1),
            (format!("solr_client_outside_solr_seconds{{{req}}}"), 1),
            (
                "solr_client_connections_reused_requests_total{transport=pooled+gzip}".into(),
                1,
            ),
            (
                "solr_client_response_bytes_total{encoding=gzip,transport=pooled+gzip}".into(),
                420,
            ),
            (
                "solr_client_update_bytes_total{collection=bench,format=json,transport=pooled+gzip}"
                    .into(),
                57,
            ),
            (
                "solr_client_requests_without_response_total{collection=bench,handler=select,\
                 kind=Config,transport=pooled+gzip}"
                    .into(),
                1,
            ),
        ]
        .into_iter()
        .collect();
        assert_eq!(got, want);
    }
}
