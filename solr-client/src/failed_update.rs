//! What a failed update request proves about its documents: the [`BatchReport`] of a request
//! that got an error instead of a readable answer, or of a document refused before sending.
//! It reads the error ([`Error`]); the report's own accounting lives in [`crate::batch`].

use crate::batch::BatchReport;
use crate::error::Error;
use crate::types::FailedDoc;

impl BatchReport {
    /// The account of one update request that failed with `cause` instead of a readable
    /// answer. Solr's default chain stopped the batch at a document it names (400 or 409,
    /// `[doc=ID]`): see [`BatchReport::stopped_at`]. A 400 that names no document (a
    /// document without a uniqueKey, a body Solr could not parse part way) stopped the
    /// batch somewhere: the documents before that point may be indexed, so every document
    /// of a batch of two or more is unknown (a batch of one is failed: it is the document
    /// Solr refused). Otherwise every document failed when the cause proves nothing was
    /// indexed (the request was not sent, or Solr refused it with another 4xx status), else
    /// every document's outcome is unknown.
    pub(crate) fn lost(sent_ids: Vec<String>, cause: &Error) -> BatchReport {
        let mut unnamed_400 = false;
        if let Error::Solr {
            status: status @ (400 | 409),
            body,
            ..
        } = cause
        {
            if let Some(r) = BatchReport::stopped_at(&sent_ids, &body.msg) {
                return r;
            }
            unnamed_400 = *status == 400 && sent_ids.len() > 1;
        }
        if nothing_indexed(cause) && !unnamed_400 {
            BatchReport::all_failed(sent_ids, &cause.to_string())
        } else {
            BatchReport {
                sent: sent_ids.len(),
                unknown: sent_ids,
                requests: 1,
                ..BatchReport::default()
            }
        }
    }

    /// The account of a document the client refused before sending it (`cause`, an
    /// [`Error::InvalidDocument`]), number `index` of the call's input.
    pub(crate) fn refused(index: usize, cause: &Error) -> BatchReport {
        let id = match cause {
            Error::InvalidDocument { id: Some(id), .. } => id.to_string(),
            _ => String::new(),
        };
        let mut doc = FailedDoc::new(id, cause.to_string());
        doc.index = Some(index);
        BatchReport {
            sent: 1,
            failed: vec![doc],
            requests: 0,
            ..BatchReport::default()
        }
    }
}

/// True when `cause` proves an update request indexed nothing: it was certainly not sent, or
/// the server refused it as a whole with a 3xx (a redirect is never followed by a write, and
/// Solr itself never redirects an update: whoever answered did not index), a 4xx or a 503
/// status (with the tolerant chain, per-document problems come back in a 200 answer; 503 is
/// refused before processing, the same reading that lets
/// [`crate::transport::retries_status`] re-send writes after it). Another 5xx, a broken
/// connection after sending, a timeout or an unreadable 2xx answer leave the outcome unknown.
fn nothing_indexed(cause: &Error) -> bool {
    cause.is_not_sent() || matches!(cause.status(), Some(300..=499 | 503))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::TolerantError;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("d{i}")).collect()
    }

    fn add_err(id: &str) -> TolerantError {
        TolerantError {
            kind: "ADD".into(),
            id: id.into(),
            message: format!("bad {id}"),
        }
    }

    #[test]
    fn lost_requests_fail_or_stay_unknown_by_cause_and_merge_keeps_the_sum() {
        let io = Error::Io {
            node: "http://h/solr".into(),
            message: "closed".into(),
            not_sent: false,
        };
        let unsent = Error::Io {
            node: "http://h/solr".into(),
            message: "closed".into(),
            not_sent: true,
        };
        let solr = |status| Error::Solr {
            node: "http://h/solr".into(),
            status,
            body: Default::default(),
        };
        let r = BatchReport::lost(ids(4), &io);
        assert_eq!((r.failed.len(), r.unknown.len()), (0, 4));
        assert_eq!(BatchReport::lost(ids(4), &unsent).failed.len(), 4);
        // A 400 that names no document: the batch stopped somewhere, the ones before may be
        // indexed. A batch of one is the refused document itself.
        assert_eq!(BatchReport::lost(ids(4), &solr(400)).unknown.len(), 4);
        assert_eq!(BatchReport::lost(ids(1), &solr(400)).failed.len(), 1);
        assert_eq!(BatchReport::lost(ids(4), &solr(403)).failed.len(), 4);
        assert_eq!(BatchReport::lost(ids(4), &solr(500)).unknown.len(), 4);
        assert_eq!(BatchReport::lost(ids(4), &solr(503)).failed.len(), 4);
        // Solr's default chain stopped the batch at d1 (its own message, as Solr 9 sends it).
        let stopped = |status, msg: &str| Error::Solr {
            node: "http://h/solr".into(),
            status,
            body: crate::types::SolrErrorBody {
                msg: msg.into(),
                code: i32::from(status),
                metadata: None,
                qtime_ms: None,
            }
            .into(),
        };
        let msg =
            "ERROR: [doc=d1] Error adding field 'popularity'='abc' msg=For input string: \"abc\"";
        let st = BatchReport::lost(ids(4), &stopped(400, msg));
        assert_eq!(st.acknowledged, 1);
        assert_eq!(st.failed.len(), 1);
        assert_eq!(
            (st.failed[0].id.as_str(), st.failed[0].message.as_str()),
            ("d1", msg)
        );
        assert_eq!(st.not_attempted, ["d2", "d3"]);
        assert!(st.unknown.is_empty() && st.is_balanced());
        let st = BatchReport::lost(
            ids(3),
            &stopped(409, "version conflict for d2 expected=5 actual=6"),
        );
        assert_eq!((st.acknowledged, st.failed[0].id.as_str()), (2, "d2"));
        assert!(st.not_attempted.is_empty() && st.is_balanced());
        // A 400 naming no document of the batch, or a 500 naming one: no per-document account.
        let st = BatchReport::lost(ids(3), &stopped(400, "ERROR: [doc=zz] unknown field 'x'"));
        assert_eq!((st.failed.len(), st.unknown.len()), (0, 3));
        let uk = "Document is missing mandatory uniqueKey field: id";
        assert_eq!(
            BatchReport::lost(ids(3), &stopped(400, uk)).unknown.len(),
            3
        );
        assert_eq!(
            BatchReport::lost(ids(3), &stopped(500, msg)).unknown.len(),
            3
        );
        let redirect = Error::Redirect {
            node: "http://h:1/solr".into(),
            status: 302,
            location: None,
            reason: "a write is never redirected",
        };
        assert_eq!(BatchReport::lost(ids(4), &redirect).failed.len(), 4);
        let mut total = BatchReport::default();
        total.merge(r);
        total.merge(BatchReport::account(&ids(5), &[add_err("d2")]));
        total.merge(BatchReport::lost(ids(2), &unsent));
        assert_eq!(
            (
                total.sent,
                total.acknowledged,
                total.failed.len(),
                total.unknown.len()
            ),
            (11, 4, 3, 4)
        );
        assert_eq!(total.requests, 3);
        assert!(total.is_balanced());
    }
}
