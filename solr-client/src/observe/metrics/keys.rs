//! The metric keys of a client's responses, built once per label set: a response then
//! costs a lookup and the recorder's registrations, not the building and hashing of ten
//! keys.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use metrics::{Key, Label, SharedString};

use super::{path_labels, status_label, ENCODINGS};

/// At most this many distinct label prefixes keep their keys; the keys of any other are
/// built for each response (the labels are bounded anyway: see [`super::label_prefix`]).
const MAX_PREFIXES: usize = 1024;

/// The keys of one (`collection`, `handler`, `status`) on one client.
#[derive(Debug)]
pub(crate) struct CallKeys {
    pub(crate) requests: Key,
    pub(crate) wall: Key,
    pub(crate) qtime: Key,
    pub(crate) outside: Key,
}

/// A client's keys: those labelled by its transport alone, built with it, and those of
/// each label prefix and status, built at their first response.
#[derive(Debug)]
pub(crate) struct Keys {
    pub(crate) transport: Arc<str>,
    pub(crate) opened: Key,
    pub(crate) reused: Key,
    /// `solr_client_response_bytes_total` by [`ENCODINGS`] index.
    pub(crate) bytes: [Key; ENCODINGS.len()],
    calls: Mutex<ByPrefix>,
}

/// The keys of each label prefix, by status.
type ByPrefix = HashMap<Box<str>, Vec<(u16, Arc<CallKeys>)>>;

impl Keys {
    /// The keys of a client whose transport is named `transport`.
    pub(crate) fn new(transport: Arc<str>) -> Self {
        let t = || Label::new("transport", SharedString::from_shared(transport.clone()));
        Keys {
            opened: Key::from_parts("solr_client_connections_opened_total", vec![t()]),
            reused: Key::from_parts("solr_client_connections_reused_requests_total", vec![t()]),
            bytes: ENCODINGS.map(|e| {
                let labels = vec![Label::new("encoding", e), t()];
                Key::from_parts("solr_client_response_bytes_total", labels)
            }),
            calls: Mutex::new(HashMap::new()),
            transport,
        }
    }

    /// The keys of a response to a path whose label prefix is `prefix`, with `status`.
    pub(crate) fn call(&self, prefix: &str, status: u16) -> Arc<CallKeys> {
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, k)) = calls
            .get(prefix)
            .and_then(|v| v.iter().find(|(s, _)| *s == status))
        {
            return k.clone();
        }
        let keys = Arc::new(self.build(prefix, status));
        if calls.len() < MAX_PREFIXES || calls.contains_key(prefix) {
            calls
                .entry(prefix.into())
                .or_default()
                .push((status, keys.clone()));
        }
        keys
    }

    fn build(&self, prefix: &str, status: u16) -> CallKeys {
        let (collection, handler) = path_labels(prefix);
        let labels = vec![
            Label::new("collection", collection.to_owned()),
            Label::new("handler", handler.to_owned()),
            Label::new("status", status_label(status)),
            Label::new(
                "transport",
                SharedString::from_shared(self.transport.clone()),
            ),
        ];
        let key = |name: &'static str| Key::from_parts(name, labels.clone());
        CallKeys {
            requests: key("solr_client_requests_total"),
            wall: key("solr_client_request_wall_seconds"),
            qtime: key("solr_client_qtime_seconds"),
            outside: key("solr_client_outside_solr_seconds"),
        }
    }
}
