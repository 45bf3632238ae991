//! Leaf types shared by the error, response, codec and transport modules: Solr's
//! `responseHeader`, its `error` body, the tolerant chain's per-document errors and the
//! untyped [`Document`]. This module imports nothing from the crate, so none of those
//! modules needs another one for these types (no import cycle).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Solr's `responseHeader`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResponseHeader {
    /// 0 on success.
    #[serde(default)]
    pub status: i32,
    /// Milliseconds Solr spent handling the request, measured before the response writer
    /// ran (so writing stored fields and gzip are outside it). `None` when the response
    /// carried no QTime (`omitHeader=true`, a proxy's error page): absent is not 0.
    #[serde(rename = "QTime", default, skip_serializing_if = "Option::is_none")]
    pub qtime: Option<u32>,
    /// SolrCloud's achieved replication factor of an update. `i32::MAX` is what Solr 9
    /// answers when the shard leader could not be reached and the tolerant chain swallowed
    /// the failure (status 0, no errors, nothing indexed): the client treats it as a failed
    /// update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rf: Option<i64>,
    /// Per-document errors reported by `TolerantUpdateProcessorFactory`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<TolerantError>>,
}

/// One document error as `TolerantUpdateProcessorFactory` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TolerantError {
    /// `ADD`, `DELID` or `DELQ`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The document id (or query).
    pub id: String,
    /// Solr's message.
    pub message: String,
}

/// Solr's `error` object, sent with non-2xx statuses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SolrErrorBody {
    /// The message.
    #[serde(default)]
    pub msg: String,
    /// Solr's error code (usually the HTTP status).
    #[serde(default)]
    pub code: i32,
    /// Extra metadata (`error-class`, `root-error-class`...), as Solr's flat list.
    #[serde(default)]
    pub metadata: Option<Value>,
    /// Solr's QTime for the failed request, in milliseconds: from the `responseHeader` that
    /// Solr sends beside the `error` object (not part of that object). `None` when the
    /// answer carried no header or no QTime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qtime_ms: Option<u32>,
}

/// `{"responseHeader": {..., "QTime": N}, "error": {...}}`, the body of a Solr error answer
/// (in any response format, once decoded to the `wt=json` shape).
#[derive(Deserialize)]
pub(crate) struct ErrorEnvelope {
    error: ErrorObject,
    /// Kept loose: a header of an unexpected shape must not hide Solr's error.
    #[serde(rename = "responseHeader", default)]
    header: Option<Value>,
}

/// The `error` object with its `details`: Solr 10 answers a failed Schema API command with
/// `msg` "error processing commands" and the reasons in `details[].errorMessages` (Solr 9
/// puts them in `msg`); they are appended to the message so it says why on both.
#[derive(Deserialize)]
struct ErrorObject {
    #[serde(flatten)]
    body: SolrErrorBody,
    #[serde(default)]
    details: Option<Value>,
}

/// The `errorMessages` of Solr's `details` list, trimmed, in order.
fn detail_messages(details: Option<&Value>) -> Vec<String> {
    let items = details
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    items
        .iter()
        .filter_map(|d| d.get("errorMessages").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

impl ErrorEnvelope {
    /// Solr's error body, with the QTime of the answer's header.
    pub(crate) fn into_body(self) -> SolrErrorBody {
        let qtime = self
            .header
            .as_ref()
            .and_then(|h| h.get("QTime"))
            .and_then(Value::as_u64)
            .and_then(|q| u32::try_from(q).ok());
        let mut body = self.error.body;
        let missing: Vec<String> = detail_messages(self.error.details.as_ref())
            .into_iter()
            .filter(|m| !body.msg.contains(m.as_str()))
            .collect();
        if !missing.is_empty() {
            body.msg = format!("{}: {}", body.msg, missing.join("; "));
        }
        SolrErrorBody {
            qtime_ms: qtime,
            ..body
        }
    }
}

/// A Solr document: field name -> JSON value.
pub type Document = Map<String, Value>;

/// A document of a batch update that Solr did not index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct FailedDoc {
    /// The document's `id` (uniqueKey) as sent.
    pub id: String,
    /// Why it was not indexed (Solr's message, the transport error for a lost batch, or
    /// the client's refusal).
    pub message: String,
    /// The document's position in the call's input (for the
    /// [`Indexer`](crate::Indexer), among its pushes), for a document the client refused
    /// before sending it ([`Error::InvalidDocument`](crate::Error::InvalidDocument), or a
    /// push the Indexer refused); `None` for a document Solr refused or a lost batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

impl FailedDoc {
    /// A document Solr did not index, for `message`.
    pub(crate) fn new(id: String, message: String) -> FailedDoc {
        FailedDoc {
            id,
            message,
            index: None,
        }
    }
}

/// What the client found wrong with a document it refused to send
/// ([`Error::InvalidDocument`](crate::Error::InvalidDocument)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DocumentProblem {
    /// The document has no value (or null) for the uniqueKey field. Solr would refuse it
    /// without naming it, so no report could say which document of a batch was lost.
    MissingUniqueKey,
    /// A float field (at any depth: a value, an item of a list, an atomic operation) is NaN
    /// or an infinity. JSON has no such numbers (they would be sent as `null` and Solr would
    /// drop the field), so the client refuses them in every update format alike.
    NotFinite,
}

impl DocumentProblem {
    /// One sentence about the problem with `field`.
    pub(crate) fn describe(&self, field: &str) -> String {
        match self {
            DocumentProblem::MissingUniqueKey => format!(
                "no value for the uniqueKey field `{field}` (Solr would refuse it without \
                 naming it; if the schema's uniqueKey is another field, set \
                 SolrClientBuilder::unique_key)"
            ),
            DocumentProblem::NotFinite => format!(
                "field `{field}` holds NaN or an infinity, which Solr's update formats cannot \
                 carry (JSON would send null and Solr would drop the field)"
            ),
        }
    }
}

/// A version conflict as Solr words it: `version conflict for ID expected=E actual=A`, or
/// `Document not found for update.  id=ID` (the document had to exist).
pub(crate) fn parse_conflict(msg: &str) -> Option<(String, Option<i64>, Option<i64>)> {
    if let Some(i) = msg.find("version conflict for ") {
        let rest = &msg[i + "version conflict for ".len()..];
        let e = rest.rfind(" expected=")?;
        let id = rest[..e].to_string();
        let tail = &rest[e + " expected=".len()..];
        let (exp, act) = tail.split_once(" actual=")?;
        let num = |t: &str| {
            t.trim()
                .trim_end_matches(|c: char| !c.is_ascii_digit())
                .parse::<i64>()
                .ok()
        };
        return Some((id, num(exp), num(act)));
    }
    if let Some(i) = msg.find("Document not found for update.") {
        let rest = &msg[i..];
        let id = rest.split_once("id=")?.1.trim().to_string();
        return Some((id, None, None));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: &str) -> SolrErrorBody {
        serde_json::from_str::<ErrorEnvelope>(json)
            .expect("an error envelope")
            .into_body()
    }

    #[test]
    fn solr10_schema_command_details_join_the_message() {
        // Solr 10.0.0's answer to adding a field that exists (recorded).
        let b = body(
            r#"{"responseHeader":{"status":400,"QTime":7},"error":{"metadata":{"error-class":"org.apache.solr.common.SolrErrorWrappingException","root-error-class":"org.apache.solr.common.SolrErrorWrappingException"},"errorClass":"org.apache.solr.common.SolrErrorWrappingException","msg":"error processing commands","details":[{"errorMessages":["Field 'adm_n' already exists.\n"],"add-field":{"name":"adm_n","type":"pint"}}],"code":400}}"#,
        );
        assert_eq!(
            b.msg,
            "error processing commands: Field 'adm_n' already exists."
        );
        assert_eq!((b.code, b.qtime_ms), (400, Some(7)));
        // A message that already says it is kept as it is (Solr 9).
        let b = body(
            r#"{"error":{"msg":"Field 'x' already exists.","details":[{"errorMessages":["Field 'x' already exists.\n"]}],"code":400}}"#,
        );
        assert_eq!(b.msg, "Field 'x' already exists.");
    }

    #[test]
    fn the_error_body_takes_the_qtime_of_its_header_and_survives_an_odd_header() {
        let e = r#""error":{"msg":"bad sort","code":400}"#;
        let with = body(&format!(
            r#"{{"responseHeader":{{"status":400,"QTime":7}},{e}}}"#
        ));
        assert_eq!(
            (with.msg.as_str(), with.code, with.qtime_ms),
            ("bad sort", 400, Some(7))
        );
        for header in [
            "",
            r#""responseHeader":{"status":400},"#,
            r#""responseHeader":{"QTime":-1},"#,
            r#""responseHeader":{"QTime":"7"},"#,
            r#""responseHeader":[1,2],"#,
        ] {
            let b = body(&format!("{{{header}{e}}}"));
            assert_eq!((b.msg.as_str(), b.qtime_ms), ("bad sort", None), "{header}");
        }
    }
}
