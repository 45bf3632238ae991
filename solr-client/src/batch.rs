//! The account of update requests: which documents Solr acknowledged, which it did not index,
//! which have an outcome the client cannot know, and which errors named no document.
//!
//! One function, [`BatchReport::account`], turns Solr's answer to one update request into a
//! report; [`BatchReport::merge`] adds reports of several requests together. Every update API
//! of the client ([`SolrClient::add`](crate::SolrClient::add),
//! [`add_with`](crate::SolrClient::add_with),
//! [`add_batched`](crate::SolrClient::add_batched), the [`Indexer`](crate::Indexer)) goes
//! through them, so for every report
//! `acknowledged + failed.len() + unknown.len() + not_attempted.len() == sent`, exactly.
//!
//! # The rule: what `sent` counts, and refused documents
//! `sent` is every document the caller offered to the call: all of `docs` for
//! [`add`](crate::SolrClient::add) and [`add_batched`](crate::SolrClient::add_batched),
//! every [`push`](crate::Indexer::push) for the [`Indexer`](crate::Indexer). Each of them is
//! in exactly one class:
//! - `acknowledged`: Solr indexed it (its request was answered, and Solr did not name it);
//! - `failed`: certainly not indexed, with the reason ([`FailedDoc::is_version_conflict`]
//!   for a `_version_` check that failed);
//! - `unknown`: Solr's answer cannot say whether it was indexed (never counted failed);
//! - `not_attempted`: certainly not indexed and not refused: never sent, or after the
//!   document that stopped its batch on the stock chain.
//!
//! A document the client refuses before sending
//! ([`Error::InvalidDocument`](crate::Error::InvalidDocument): no uniqueKey, NaN or an
//! infinity; for the Indexer also one its format cannot carry) is never sent. Where the call
//! makes a report (`add_batched`, the Indexer) it is `failed`, with its position among the
//! documents offered in [`FailedDoc::index`], and the others go without it; the Indexer's
//! `push` also returns the error at once. `add`, which returns a report only inside
//! [`Error::Update`](crate::Error::Update), refuses the whole call instead, before sending
//! anything: a whole-call error, and nothing was indexed.
//!
//! A whole-call error other than [`Error::Update`](crate::Error::Update) comes only when
//! nothing was indexed: a version conflict is
//! [`Error::VersionConflict`](crate::Error::VersionConflict) only for a call of one document.
//! In SolrCloud a call spanning shards goes as one request per shard leader (the router knows
//! the hash ranges); a shard whose request fails leaves the others' documents acknowledged, and
//! its own documents classed as above from Solr's answer for that shard.
//!
//! # The tolerant chain and Solr's default chain
//! With `TolerantUpdateProcessorFactory` (this project's configset), Solr indexes every good
//! document of a batch and lists the bad ones in `responseHeader.errors`
//! ([`BatchReport::account`]). Solr's default chain (and the `_default` configset) stops a
//! batch at the first bad document and answers 400 (409 for a version conflict) with a
//! message naming it, `ERROR: [doc=ID] ...`: the documents before it were indexed, the
//! named one was not, and the ones after it were never looked at. The report says exactly
//! that ([`BatchReport::not_attempted`] holds the last group, which can be sent again).

use std::collections::HashMap;

use crate::types::FailedDoc;
use crate::types::TolerantError;

/// The account of one or more update requests.
///
/// Invariant (checked by [`Self::is_balanced`]): `acknowledged + failed.len() +
/// unknown.len() + not_attempted.len() == sent`. Each entry of `failed`, `unknown` and
/// `not_attempted` is one document of a batch, so an id appears there at most as often as
/// it was sent.
///
/// Its `Debug` output shows every URL inside an id or a message without user info; the
/// fields themselves keep them exact.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BatchReport {
    /// Documents sent (in every request of this report).
    pub sent: usize,
    /// Documents Solr acknowledged.
    pub acknowledged: usize,
    /// Documents that were certainly not indexed, with the reason: the ones Solr's tolerant
    /// chain rejected by id, or every document of a request that was not sent or that Solr
    /// refused as a whole (a 4xx answer).
    pub failed: Vec<FailedDoc>,
    /// Ids of documents whose outcome the client cannot know: the request was sent, and then
    /// the connection broke, a timeout fired, Solr answered 5xx, or the 2xx answer could not
    /// be read. Solr may or may not have indexed them; re-sending them is safe (an add by id
    /// overwrites).
    pub unknown: Vec<String>,
    /// Ids of documents certainly not indexed and not refused either: on Solr's default
    /// (non-tolerant) chain, the documents after the one that stopped the batch; for the
    /// [`Indexer`](crate::Indexer), documents it never sent. Re-sending them is safe.
    pub not_attempted: Vec<String>,
    /// Errors Solr reported that name no document of the batch (an id that was not sent,
    /// a second report for a document already counted as failed, a delete error), as
    /// `TYPE id: message`. They do not change the counts.
    pub other_errors: Vec<String>,
    /// Update calls made, one per batch ([`SolrClient::add`](crate::SolrClient::add) call);
    /// through a shard-aware transport a batch spanning shards goes as one HTTP request per
    /// shard and still counts once.
    pub requests: usize,
}

impl std::fmt::Debug for BatchReport {
    /// The derived shape, each id and message shown without any URL's user info.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::redact::RedactedDebug;
        f.debug_struct("BatchReport")
            .field("sent", &self.sent)
            .field("acknowledged", &self.acknowledged)
            .field("failed", &RedactedDebug(&self.failed))
            .field("unknown", &RedactedDebug(&self.unknown))
            .field("not_attempted", &RedactedDebug(&self.not_attempted))
            .field("other_errors", &RedactedDebug(&self.other_errors))
            .field("requests", &self.requests)
            .finish()
    }
}

impl BatchReport {
    /// The account of one update request that Solr answered: `sent_ids` are the ids of the
    /// documents in the request, in order (repeats allowed), `errors` Solr's per-document
    /// errors (`responseHeader.errors` of the tolerant chain).
    ///
    /// An `ADD` error takes one not yet failed occurrence of its id in the batch. An `ADD`
    /// error that names no such occurrence (Solr's `(unknown)` id of a document without a
    /// uniqueKey, an id the client did not send, a second report for the same occurrence)
    /// says that some document of the batch was not indexed without saying which: then no
    /// document of the batch is counted as acknowledged, and every one not failed by name
    /// is `unknown`. Such errors, and errors of other kinds (deletes), are also listed in
    /// `other_errors`. However many errors Solr reports, the counts stay within the batch.
    ///
    /// ```
    /// use solr_client::response::TolerantError;
    /// use solr_client::BatchReport;
    /// let ids = vec!["a".to_string(), "b".to_string(), "c".to_string()];
    /// let err = |id: &str| TolerantError { kind: "ADD".into(), id: id.into(), message: "bad".into() };
    /// let r = BatchReport::account(&ids, &[err("b")]);
    /// assert_eq!((r.sent, r.acknowledged, r.failed.len(), r.unknown.len()), (3, 2, 1, 0));
    /// let r = BatchReport::account(&ids, &[err("b"), err("(unknown)")]);
    /// assert_eq!((r.acknowledged, r.failed.len(), r.unknown.len()), (0, 1, 2));
    /// assert_eq!(r.other_errors, ["ADD (unknown): bad"]);
    /// assert!(r.is_balanced());
    /// ```
    pub fn account(sent_ids: &[String], errors: &[TolerantError]) -> BatchReport {
        let mut open: HashMap<&str, usize> = HashMap::new();
        for id in sent_ids {
            *open.entry(id.as_str()).or_default() += 1;
        }
        let mut failed = Vec::new();
        let mut other_errors = Vec::new();
        let mut unnamed = false;
        for e in errors {
            let add = e.kind.eq_ignore_ascii_case("ADD");
            match open.get_mut(e.id.as_str()).filter(|n| add && **n > 0) {
                Some(n) => {
                    *n -= 1;
                    failed.push(FailedDoc::new(e.id.clone(), e.message.clone()));
                }
                None => {
                    unnamed |= add;
                    other_errors.push(format!("{} {}: {}", e.kind, e.id, e.message));
                }
            }
        }
        let unknown = if unnamed {
            less(sent_ids, failed.iter().map(|f| f.id.as_str()))
        } else {
            Vec::new()
        };
        BatchReport {
            sent: sent_ids.len(),
            acknowledged: sent_ids.len() - failed.len() - unknown.len(),
            failed,
            unknown,
            not_attempted: Vec::new(),
            other_errors,
            requests: 1,
        }
    }

    /// The account of one update request in which all `n` documents were acknowledged.
    pub(crate) fn all_acknowledged(n: usize) -> BatchReport {
        BatchReport {
            sent: n,
            acknowledged: n,
            requests: 1,
            ..BatchReport::default()
        }
    }

    /// The account of one update request in which every document failed for `message`.
    pub(crate) fn all_failed(sent_ids: Vec<String>, message: &str) -> BatchReport {
        BatchReport {
            sent: sent_ids.len(),
            failed: sent_ids
                .into_iter()
                .map(|id| FailedDoc::new(id, message.to_string()))
                .collect(),
            requests: 1,
            ..BatchReport::default()
        }
    }

    /// Adds `other` (the account of further requests) to this one.
    pub fn merge(&mut self, other: BatchReport) {
        self.sent += other.sent;
        self.acknowledged += other.acknowledged;
        self.failed.extend(other.failed);
        self.unknown.extend(other.unknown);
        self.not_attempted.extend(other.not_attempted);
        self.other_errors.extend(other.other_errors);
        self.requests += other.requests;
    }

    /// True when `acknowledged + failed.len() + unknown.len() + not_attempted.len() == sent`
    /// (always, for a report the client made).
    pub fn is_balanced(&self) -> bool {
        self.acknowledged + self.failed.len() + self.unknown.len() + self.not_attempted.len()
            == self.sent
    }

    /// The ids this report counts as acknowledged, given `sent_ids`, the ids of the documents
    /// the report accounts for, in the order they were given: `sent_ids` less one occurrence
    /// of each failed, unknown and not-attempted id. Its length is [`Self::acknowledged`]
    /// when `sent_ids` are the report's documents (a document refused for lacking an id is
    /// `failed` with an empty id and matches none).
    ///
    /// ```
    /// use solr_client::response::TolerantError;
    /// use solr_client::BatchReport;
    /// let ids: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    /// let bad = TolerantError { kind: "ADD".into(), id: "b".into(), message: "bad".into() };
    /// let r = BatchReport::account(&ids, &[bad]);
    /// assert_eq!(r.acknowledged_ids(&ids), ["a", "c"]);
    /// ```
    pub fn acknowledged_ids(&self, sent_ids: &[String]) -> Vec<String> {
        let failed = self.failed.iter().map(|f| f.id.as_str());
        let unknown = self.unknown.iter().map(String::as_str);
        let not_attempted = self.not_attempted.iter().map(String::as_str);
        less(sent_ids, failed.chain(unknown).chain(not_attempted))
    }

    /// True when every document was acknowledged and Solr reported no error at all.
    pub fn is_clean(&self) -> bool {
        self.acknowledged == self.sent && self.other_errors.is_empty()
    }

    /// The account of a batch that Solr's default chain stopped at a document: `message` is
    /// Solr's refusal (`ERROR: [doc=ID] ...`, or a version conflict naming the id). `None`
    /// when the message names no document of the batch (then nothing can be said per
    /// document). The documents before the named one are acknowledged, the named one failed
    /// with `message`, the ones after it not attempted. When the named id occurs more than
    /// once, Solr's message does not say which occurrence stopped the batch: the documents
    /// before its first occurrence are acknowledged, the first occurrence failed, the ones
    /// between it and the last occurrence unknown (indexed or not attempted), the rest not
    /// attempted.
    ///
    /// ```
    /// use solr_client::BatchReport;
    /// let ids: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    /// let msg = "ERROR: [doc=b] Error adding field 'n_i'='x' msg=For input string: \"x\"";
    /// let r = BatchReport::stopped_at(&ids, msg).expect("names b");
    /// assert_eq!((r.acknowledged, r.failed[0].id.as_str()), (1, "b"));
    /// assert_eq!(r.not_attempted, ["c"]);
    /// assert!(r.is_balanced());
    /// ```
    pub fn stopped_at(sent_ids: &[String], message: &str) -> Option<BatchReport> {
        let id = named_document(sent_ids, message)?;
        let first = sent_ids.iter().position(|s| s == id)?;
        let last = sent_ids.iter().rposition(|s| s == id)?;
        Some(BatchReport {
            sent: sent_ids.len(),
            acknowledged: first,
            failed: vec![FailedDoc::new(id.to_string(), message.to_string())],
            unknown: sent_ids[first + 1..=last].to_vec(),
            not_attempted: sent_ids[last + 1..].to_vec(),
            other_errors: Vec::new(),
            requests: 1,
        })
    }
}

/// The ids of `sent_ids` in order, less one occurrence of each id of `taken`.
fn less<'a>(sent_ids: &[String], taken: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for id in taken {
        *left.entry(id).or_default() += 1;
    }
    sent_ids
        .iter()
        .filter(|id| match left.get_mut(id.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// The id of the batch that Solr's message names: `[doc=ID]` (Solr's `DocumentBuilder` and
/// update handlers prefix a document's errors with it), else the id of a version conflict.
/// The longest id of the batch that matches wins (ids may contain `]`).
fn named_document<'a>(sent_ids: &'a [String], message: &str) -> Option<&'a str> {
    if let Some(i) = message.find("[doc=") {
        let rest = &message[i + "[doc=".len()..];
        return sent_ids
            .iter()
            .filter(|id| {
                rest.strip_prefix(id.as_str())
                    .is_some_and(|t| t.starts_with(']'))
            })
            .map(String::as_str)
            .max_by_key(|id| id.len());
    }
    let (id, _, _) = crate::types::parse_conflict(message)?;
    sent_ids.iter().map(String::as_str).find(|s| *s == id)
}

/// How many entries of each list [`BatchReport`]'s `Display` names before "and N more".
const SHOWN: usize = 5;

impl std::fmt::Display for BatchReport {
    /// One line of counts, then one line per non-empty class naming its first documents:
    ///
    /// ```text
    /// 10 sent in 1 request: 7 acknowledged, 1 failed, 1 unknown, 1 not attempted
    ///   failed: b-2 (position 2): missing required field: title
    ///   unknown: c-3
    ///   not attempted: d-4
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = if self.requests == 1 { "" } else { "s" };
        write!(
            f,
            "{} sent in {} request{plural}: {} acknowledged, {} failed, {} unknown, {} not attempted",
            self.sent,
            self.requests,
            self.acknowledged,
            self.failed.len(),
            self.unknown.len(),
            self.not_attempted.len()
        )?;
        let failed: Vec<String> = self.failed.iter().map(failed_line).collect();
        list(f, "failed", &failed, "; ")?;
        list(f, "unknown", &self.unknown, ", ")?;
        list(f, "not attempted", &self.not_attempted, ", ")?;
        list(f, "other errors", &self.other_errors, "; ")
    }
}

fn failed_line(d: &FailedDoc) -> String {
    match d.index {
        Some(i) => format!("{} (position {i}): {}", d.id, d.message),
        None => format!("{}: {}", d.id, d.message),
    }
}

/// `\n  NAME: a, b, c (and N more)`, nothing for an empty list.
fn list(
    f: &mut std::fmt::Formatter<'_>,
    name: &str,
    items: &[String],
    sep: &str,
) -> std::fmt::Result {
    if items.is_empty() {
        return Ok(());
    }
    write!(
        f,
        "\n  {name}: {}",
        items[..items.len().min(SHOWN)].join(sep)
    )?;
    match items.len().saturating_sub(SHOWN) {
        0 => Ok(()),
        more => write!(f, " (and {more} more)"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn display_counts_every_class_and_names_the_first_documents() {
        let ids: Vec<String> = (0..9).map(|i| format!("d{i}")).collect();
        let mut r = BatchReport::account(&ids, &[]);
        r.acknowledged = 1;
        r.failed = vec![FailedDoc::new("d1".into(), "bad".into())];
        r.failed[0].index = Some(1);
        r.unknown = ids[2..9].to_vec();
        assert!(r.is_balanced());
        let text = r.to_string();
        assert_eq!(
            text,
            "9 sent in 1 request: 1 acknowledged, 1 failed, 7 unknown, 0 not attempted\n  \
             failed: d1 (position 1): bad\n  unknown: d2, d3, d4, d5, d6 (and 2 more)"
        );
    }

    use super::*;

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
    fn more_errors_than_documents_never_underflow() {
        // The reported case: 50 errors for a batch of 3 (the sum wrapped to 2^64 - 50 + 3).
        let errors: Vec<TolerantError> = (0..50).map(|i| add_err(&format!("x{i}"))).collect();
        let r = BatchReport::account(&ids(3), &errors);
        assert_eq!((r.sent, r.acknowledged), (3, 0));
        assert!(r.failed.is_empty());
        assert_eq!(r.unknown, ids(3));
        assert_eq!(r.other_errors.len(), 50);
        assert!(r.is_balanced());
        // Every document named, and then some: each failed exactly once.
        let mut errors: Vec<TolerantError> = ids(3).iter().map(|i| add_err(i)).collect();
        errors.extend(errors.clone());
        errors.push(add_err("nope"));
        let r = BatchReport::account(&ids(3), &errors);
        assert_eq!(
            (r.acknowledged, r.failed.len(), r.other_errors.len()),
            (0, 3, 4)
        );
        assert!(r.is_balanced());
    }

    fn delete_err(id: &str) -> TolerantError {
        TolerantError {
            kind: "DELID".into(),
            id: id.into(),
            message: "no".into(),
        }
    }

    #[test]
    fn an_add_error_naming_no_sent_document_leaves_the_unnamed_ones_unknown() {
        let errs = [add_err("d1"), add_err("zz"), delete_err("d0")];
        let r = BatchReport::account(&ids(3), &errs);
        assert_eq!(r.acknowledged, 0);
        assert_eq!(r.failed, vec![FailedDoc::new("d1".into(), "bad d1".into())]);
        assert_eq!(r.unknown, ["d0", "d2"]);
        assert_eq!(r.other_errors, vec!["ADD zz: bad zz", "DELID d0: no"]);
        assert!(r.is_balanced() && !r.is_clean());
        // Solr's tolerant chain names a document without a uniqueKey "(unknown)".
        let r = BatchReport::account(&ids(2), &[add_err("(unknown)")]);
        assert_eq!((r.acknowledged, r.unknown.len()), (0, 2));
    }

    #[test]
    fn errors_of_other_kinds_do_not_change_the_counts() {
        let r = BatchReport::account(&ids(2), &[add_err("d1"), delete_err("d0")]);
        assert_eq!((r.acknowledged, r.failed.len(), r.unknown.len()), (1, 1, 0));
        assert_eq!(r.other_errors, vec!["DELID d0: no"]);
        assert!(r.is_balanced() && !r.is_clean());
    }

    #[test]
    fn duplicate_ids_in_the_batch_fail_once_per_occurrence() {
        let sent: Vec<String> = ["a", "a", "b"].iter().map(|s| s.to_string()).collect();
        let r = BatchReport::account(&sent, &[add_err("a")]);
        assert_eq!((r.acknowledged, r.failed.len()), (2, 1));
        // A third report for an id sent twice names no document left: `b` may be the one
        // Solr lost.
        let r = BatchReport::account(&sent, &[add_err("a"), add_err("a"), add_err("a")]);
        assert_eq!(
            (r.acknowledged, r.failed.len(), r.other_errors.len()),
            (0, 2, 1)
        );
        assert_eq!(r.unknown, ["b"]);
        assert!(r.is_balanced());
    }

    #[test]
    fn a_batch_stopped_at_a_named_document_splits_into_three() {
        let msg = |id: &str| format!("ERROR: [doc={id}] unknown field 'nope'");
        let r = BatchReport::stopped_at(&ids(5), &msg("d0")).expect("names d0");
        assert_eq!((r.acknowledged, r.failed.len()), (0, 1));
        assert_eq!(r.not_attempted, ["d1", "d2", "d3", "d4"]);
        let r = BatchReport::stopped_at(&ids(5), &msg("d4")).expect("names d4");
        assert_eq!((r.acknowledged, r.failed[0].id.as_str()), (4, "d4"));
        assert!(r.not_attempted.is_empty() && r.unknown.is_empty() && r.is_balanced());
        assert_eq!(r.failed[0].message, msg("d4"));
        // No document of the batch named, or no name at all.
        assert!(BatchReport::stopped_at(&ids(3), &msg("d9")).is_none());
        assert!(BatchReport::stopped_at(&ids(3), "Exception writing document").is_none());
        assert!(BatchReport::stopped_at(&ids(3), "ERROR: [doc=d1").is_none());
        assert!(BatchReport::stopped_at(&[], &msg("d0")).is_none());
    }

    #[test]
    fn the_longest_matching_id_is_the_named_one() {
        let sent: Vec<String> = ["a", "a]b", "c"].iter().map(|s| s.to_string()).collect();
        let r = BatchReport::stopped_at(&sent, "ERROR: [doc=a]b] bad").expect("named");
        assert_eq!((r.acknowledged, r.failed[0].id.as_str()), (1, "a]b"));
        assert_eq!(r.not_attempted, ["c"]);
        let r = BatchReport::stopped_at(&sent, "ERROR: [doc=a] bad").expect("named");
        assert_eq!((r.acknowledged, r.failed[0].id.as_str()), (0, "a"));
        assert_eq!(r.not_attempted, ["a]b", "c"]);
    }

    #[test]
    fn a_repeated_named_id_leaves_the_span_between_occurrences_unknown() {
        let sent: Vec<String> = ["x", "a", "y", "a", "z"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let r = BatchReport::stopped_at(&sent, "ERROR: [doc=a] bad").expect("named");
        assert_eq!(r.acknowledged, 1);
        assert_eq!(r.failed[0].id, "a");
        assert_eq!(r.unknown, ["y", "a"]);
        assert_eq!(r.not_attempted, ["z"]);
        assert!(r.is_balanced());
    }

    #[test]
    fn merge_keeps_not_attempted() {
        let mut total = BatchReport::all_acknowledged(2);
        total.merge(BatchReport::stopped_at(&ids(3), "ERROR: [doc=d0] bad").expect("named"));
        assert_eq!(
            (total.sent, total.acknowledged, total.not_attempted.len()),
            (5, 2, 2)
        );
        assert!(total.is_balanced() && !total.is_clean());
    }
}
