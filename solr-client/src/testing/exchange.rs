//! One recorded request and its answer, and the JSON-lines file [`super::Recorder`] writes
//! and [`super::Replay::from_file`] reads.

use std::io::{BufRead, BufReader};
use std::path::Path;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::Reply;
use crate::error::{Error, Result};
use crate::transport::WireRequest;

/// One request and the answer it got. No header is kept (so no credential reaches the
/// file); the body of the request is not kept either: an exchange is found by method, path
/// and query parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// HTTP method, e.g. `GET`.
    pub method: String,
    /// Path below the node, e.g. `books/select`.
    pub path: String,
    /// Query parameters, in the order sent.
    pub query: Vec<(String, String)>,
    /// The answer's status.
    pub status: u16,
    /// The answer's `Content-Type`.
    pub content_type: String,
    /// The answer's body, when it is UTF-8 text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The answer's body, when it is not UTF-8 (javabin, CBOR, gzip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_bytes: Option<Vec<u8>>,
}

impl Exchange {
    /// The exchange of `req` answered with `status`, `content_type` and `body`.
    pub fn of(req: &WireRequest, status: u16, content_type: &str, body: &[u8]) -> Exchange {
        let (text, bytes) = match std::str::from_utf8(body) {
            Ok(s) => (Some(s.to_string()), None),
            Err(_) => (None, Some(body.to_vec())),
        };
        Exchange {
            method: req.method.to_string(),
            path: req.path.clone(),
            query: req.query.clone(),
            status,
            content_type: content_type.to_string(),
            body: text,
            body_bytes: bytes,
        }
    }

    /// Whether `req` is this exchange's request: same method and path, same query
    /// parameters in any order.
    pub fn matches(&self, req: &WireRequest) -> bool {
        let sorted = |q: &[(String, String)]| {
            let mut q = q.to_vec();
            q.sort();
            q
        };
        self.method == req.method.as_str()
            && self.path == req.path
            && sorted(&self.query) == sorted(&req.query)
    }

    /// The answer, as [`super::Replay`] gives it.
    pub fn reply(&self) -> Reply {
        let body = match (&self.body, &self.body_bytes) {
            (Some(text), _) => Bytes::from(text.clone()),
            (None, Some(bytes)) => Bytes::from(bytes.clone()),
            (None, None) => Bytes::new(),
        };
        Reply::bytes(self.status, &self.content_type, body)
    }

    /// Every exchange of a JSON-lines file; a line that is no exchange is an error naming
    /// its number.
    pub fn read_file(path: &Path) -> Result<Vec<Exchange>> {
        let shown = path.display();
        let file = std::fs::File::open(path)
            .map_err(|e| Error::config(format!("cannot read recorded exchanges {shown}: {e}")))?;
        let mut out = Vec::new();
        for (i, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| Error::config(format!("reading {shown}: {e}")))?;
            if line.trim().is_empty() {
                continue;
            }
            let e = serde_json::from_str(&line).map_err(|e| {
                Error::config(format!(
                    "{shown} line {}: not a recorded exchange: {e}",
                    i + 1
                ))
            })?;
            out.push(e);
        }
        Ok(out)
    }
}

/// `path?query` of a request, for messages.
pub(super) fn target(req: &WireRequest) -> String {
    let query: Vec<String> = req.query.iter().map(|(k, v)| format!("{k}={v}")).collect();
    match query.is_empty() {
        true => req.path.clone(),
        false => format!("{}?{}", req.path, query.join("&")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str, query: &[(&str, &str)]) -> WireRequest {
        let mut r = WireRequest::test_get("http://h:1/solr", path);
        r.query = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        r
    }

    #[test]
    fn an_exchange_is_found_by_method_path_and_query_in_any_order() {
        let e = Exchange::of(
            &get("b/select", &[("q", "x"), ("rows", "1")]),
            200,
            "application/json",
            b"{}",
        );
        assert!(e.matches(&get("b/select", &[("rows", "1"), ("q", "x")])));
        assert!(!e.matches(&get("b/select", &[("q", "x")])));
        assert!(!e.matches(&get("c/select", &[("q", "x"), ("rows", "1")])));
        let binary = Exchange::of(
            &get("b/select", &[]),
            200,
            "application/octet-stream",
            &[0xff, 0],
        );
        assert_eq!(
            (binary.body.as_deref(), binary.reply().body.as_ref()),
            (None, &[0xff, 0][..])
        );
    }

    #[test]
    fn a_line_that_is_no_exchange_is_an_error_naming_it() {
        let path = std::env::temp_dir().join(format!("replay-bad-{}.jsonl", std::process::id()));
        std::fs::write(&path, "\n{\"method\":\"GET\"}\n").expect("write");
        let err = Exchange::read_file(&path).expect_err("refused");
        let _ = std::fs::remove_file(&path);
        assert!(
            err.to_string().contains("line 2: not a recorded exchange"),
            "{err}"
        );
    }
}
