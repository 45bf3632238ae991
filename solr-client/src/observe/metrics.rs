//! The `metrics` feature: every response and every call that ended without one, recorded
//! into the `metrics` facade under the `solr_client_*` names (see the
//! [module docs](super#metrics-feature-metrics)). Without the feature every type here is empty
//! and every method a no-op, so the client's exchange calls them unconditionally.

#[cfg(feature = "metrics")]
use std::sync::Arc;

use crate::error::Error;
use crate::timing::Timing;
use crate::transport::WireRequest;

/// A client's recorder: its transport's name (`pooled+gzip`, `fresh`, ...), taken once
/// when the client is built, and the metric keys of its responses, built once per label
/// set and registered with whatever recorder is current at each response (so a recorder
/// installed after the client was built, or a thread-local one, gets every response).
#[derive(Clone, Debug)]
pub(crate) struct ClientMeter {
    #[cfg(feature = "metrics")]
    keys: Arc<keys::Keys>,
}

impl Default for ClientMeter {
    fn default() -> Self {
        ClientMeter::new(String::new())
    }
}

impl ClientMeter {
    /// The meter of a client whose transport is named `name`.
    pub(crate) fn new(name: String) -> Self {
        #[cfg(not(feature = "metrics"))]
        let _ = name;
        ClientMeter {
            #[cfg(feature = "metrics")]
            keys: Arc::new(keys::Keys::new(name.into())),
        }
    }

    /// What to record of `req` once it is answered: its update body's size and format.
    pub(crate) fn request(&self, req: &WireRequest) -> Pending {
        #[cfg(not(feature = "metrics"))]
        let _ = req;
        Pending {
            #[cfg(feature = "metrics")]
            keys: self.keys.clone(),
            #[cfg(feature = "metrics")]
            update: update_body(req),
        }
    }
}

/// One call in flight: what its response (or its failure without one) is recorded with.
#[derive(Debug)]
pub(crate) struct Pending {
    #[cfg(feature = "metrics")]
    keys: Arc<keys::Keys>,
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

/// Where the facade's registrations say they come from.
#[cfg(feature = "metrics")]
static META: metrics::Metadata<'static> =
    metrics::Metadata::new(module_path!(), metrics::Level::INFO, Some(module_path!()));

#[cfg(feature = "metrics")]
impl Pending {
    /// Records one response: the request counters and histograms, the connection it went
    /// on, its bytes, and the update body it carried.
    pub(crate) fn response(&self, path: &str, status: u16, timing: &Timing) {
        let k = &*self.keys;
        let prefix = label_prefix(path);
        let call = k.call(prefix, status);
        let wall = timing.total();
        let encoding = timing.content_encoding.as_deref().unwrap_or("identity");
        metrics::with_recorder(|r| {
            r.register_counter(&call.requests, &META).increment(1);
            r.register_histogram(&call.wall, &META)
                .record(wall.as_secs_f64());
            if let Some(q) = timing.qtime_ms {
                let q = std::time::Duration::from_millis(u64::from(q));
                r.register_histogram(&call.qtime, &META)
                    .record(q.as_secs_f64());
                r.register_histogram(&call.outside, &META)
                    .record(wall.saturating_sub(q).as_secs_f64());
            }
            let conn = if timing.reused { &k.reused } else { &k.opened };
            r.register_counter(conn, &META).increment(1);
            r.register_counter(&k.bytes[encoding_index(encoding)], &META)
                .increment(timing.bytes_in);
        });
        if let Some((n, format)) = self.update {
            let (collection, _) = path_labels(prefix);
            let labels = vec![
                metrics::Label::new("format", format),
                metrics::Label::new("collection", collection.to_owned()),
                metrics::Label::new("transport", k.transport.clone()),
            ];
            metrics::counter!("solr_client_update_bytes_total", labels).increment(n);
        }
    }

    /// Records a call that ended without a response: one count by error kind.
    pub(crate) fn no_response(&self, path: &str, error: &Error) {
        let (collection, handler) = path_labels(path);
        let labels = vec![
            metrics::Label::new("collection", collection.to_owned()),
            metrics::Label::new("handler", handler.to_owned()),
            metrics::Label::new("kind", error.kind()),
            metrics::Label::new("transport", self.keys.transport.clone()),
        ];
        metrics::counter!("solr_client_requests_without_response_total", labels).increment(1);
    }
}

/// Describes every `solr_client_*` metric (its help text, and seconds or bytes as its unit)
/// to the recorder installed now: call it once after installing one, so that an exporter
/// prints `# HELP` lines. Recording does not need it.
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub fn describe_metrics() {
    use metrics::{describe_counter, describe_histogram, Unit};
    describe_counter!(
        "solr_client_requests_total",
        "Responses the client received (success, Solr error or any other answer)"
    );
    describe_counter!(
        "solr_client_connections_opened_total",
        "Responses that came on a connection opened for them"
    );
    describe_counter!(
        "solr_client_connections_reused_requests_total",
        "Responses that came on a connection that had served before"
    );
    describe_histogram!(
        "solr_client_request_wall_seconds",
        Unit::Seconds,
        "Whole client-side time of a call's final attempt (Timing::total)"
    );
    describe_histogram!(
        "solr_client_qtime_seconds",
        Unit::Seconds,
        "Solr's QTime, for responses that carried one"
    );
    describe_histogram!(
        "solr_client_outside_solr_seconds",
        Unit::Seconds,
        "Wall time minus QTime, for responses that carried a QTime"
    );
    describe_counter!(
        "solr_client_response_bytes_total",
        Unit::Bytes,
        "Bytes read from the socket for responses, by Content-Encoding"
    );
    describe_counter!(
        "solr_client_update_bytes_total",
        Unit::Bytes,
        "Update request bodies as encoded by the client, by format"
    );
    describe_counter!(
        "solr_client_requests_without_response_total",
        "Calls that ended without a response (connect refused, timeout, reset), by error kind"
    );
}

/// The part of a path below the node that its labels are made of: the collection and at
/// most two segments below it (`bench/select`, `bench/schema/fields`), or for a node-level
/// admin path at most two segments (`admin/collections`, `admin/info`); nothing after a `?`
/// or `#`. A path that carries a name or an id beyond them (a hand-built
/// [`crate::SolrClient::send_raw`] request) cannot grow the label set.
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) fn label_prefix(path: &str) -> &str {
    let end = path
        .bytes()
        .position(|b| b == b'?' || b == b'#')
        .unwrap_or(path.len());
    let p = path[..end].trim_matches('/');
    let segments = if p.starts_with("admin/") { 2 } else { 3 };
    let cut = p
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'/')
        .nth(segments - 1)
        .map_or(p.len(), |(i, _)| i);
    &p[..cut]
}

/// The `collection` and `handler` labels of a path below the node ([`label_prefix`]):
/// `bench/select` is (`bench`, `select`); a node-level admin path (`admin/collections`)
/// has no collection.
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) fn path_labels(path: &str) -> (&str, &str) {
    let p = label_prefix(path);
    match p.split_once('/') {
        Some(("admin", _)) | None => ("", p),
        Some((collection, handler)) => (collection, handler),
    }
}

/// The `status` label: the code's digits (static for the codes Solr answers most).
#[cfg(feature = "metrics")]
pub(crate) fn status_label(status: u16) -> metrics::SharedString {
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

/// The `encoding` label values: the common codings, and `other` for anything else (a
/// server's header cannot grow the label set).
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) const ENCODINGS: [&str; 6] = ["identity", "gzip", "br", "deflate", "zstd", "other"];

/// The index in [`ENCODINGS`] of a response's Content-Encoding.
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) fn encoding_index(encoding: &str) -> usize {
    let e = encoding.trim();
    ENCODINGS[..5]
        .iter()
        .position(|k| k.eq_ignore_ascii_case(e))
        .unwrap_or(5)
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

#[cfg(feature = "metrics")]
mod keys;

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
        assert_eq!(ENCODINGS[encoding_index("GZIP")], "gzip");
        assert_eq!(ENCODINGS[encoding_index("identity")], "identity");
        assert_eq!(ENCODINGS[encoding_index("x-evil-1234")], "other");
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
            keys: Arc::new(keys::Keys::new("pooled+gzip".into())),
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
            pending.response("/bench/update?commit=true", 200, &timing);
            pending.no_response("bench/select", &Error::config("refused"));
        });
        let req = "collection=bench,handler=update,status=200,transport=pooled+gzip";
        let want: std::collections::BTreeMap<String, u64> = [
            (format!("solr_client_requests_total{{{req}}}"), 2),
            (format!("solr_client_request_wall_seconds{{{req}}}"), 2),
            (format!("solr_client_qtime_seconds{{{req}}}"), 2),
            (format!("solr_client_outside_solr_seconds{{{req}}}"), 2),
            (
                "solr_client_connections_reused_requests_total{transport=pooled+gzip}".into(),
                2,
            ),
            (
                "solr_client_response_bytes_total{encoding=gzip,transport=pooled+gzip}".into(),
                840,
            ),
            (
                "solr_client_update_bytes_total{collection=bench,format=json,transport=pooled+gzip}"
                    .into(),
                114,
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

    #[cfg(feature = "metrics")]
    #[test]
    fn keys_built_once_reach_whichever_recorder_is_current() {
        let meter = ClientMeter::new("fresh".into());
        let timing = Timing::default();
        let once = || {
            recorded(|| {
                let pending = Pending {
                    keys: meter.keys.clone(),
                    update: None,
                };
                pending.response("bench/select", 404, &timing)
            })
        };
        let want: std::collections::BTreeMap<String, u64> = [
            "solr_client_requests_total{collection=bench,handler=select,status=404,transport=fresh}",
            "solr_client_request_wall_seconds{collection=bench,handler=select,status=404,transport=fresh}",
            "solr_client_connections_opened_total{transport=fresh}",
        ]
        .into_iter()
        .map(|k| (k.to_string(), 1))
        .chain([(
            "solr_client_response_bytes_total{encoding=identity,transport=fresh}".to_string(),
            0,
        )])
        .collect();
        assert_eq!(once(), want, "the first recorder");
        assert_eq!(
            once(),
            want,
            "a second one, with the keys built for the first"
        );
    }
}
