//! Updates: add (split by shard), add in batches, delete, commit, and the account of every
//! document ([`crate::batch`]).

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::Method;
use serde::Serialize;

use super::send::with_qtime;
use super::shard_split;
use super::SolrClient;
use crate::batch::BatchReport;
use crate::codec::doc_ids;
use crate::error::{Error, Result};
use crate::response::{decode, Document, UpdateResponse};
use crate::timing::Timing;
use crate::transport::{RequestKind, RouteKey, WireRequest};

/// Options of a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Commit {
    /// Soft commit (visibility without fsync). Default false (hard commit).
    pub soft: bool,
    /// Wait until the new searcher is open. Default true.
    pub wait_searcher: bool,
}

impl Default for Commit {
    fn default() -> Self {
        Commit {
            soft: false,
            wait_searcher: true,
        }
    }
}

/// Setters, for code outside this crate (the struct is `#[non_exhaustive]`: build it
/// from [`Commit::default()`] and change what differs).
impl Commit {
    /// Sets [`Commit::soft`]; see there for the default.
    pub const fn soft(mut self, v: bool) -> Self {
        self.soft = v;
        self
    }
    /// Sets [`Commit::wait_searcher`]; see there for the default.
    pub const fn wait_searcher(mut self, v: bool) -> Self {
        self.wait_searcher = v;
        self
    }
}

impl SolrClient {
    /// Adds documents in one request, in the client's update format. Nothing is committed.
    /// When the transport knows the shards
    /// ([`Transport::shard_groups`](crate::Transport::shard_groups), e.g. the SolrCloud
    /// router), documents of different shards go in one request per shard, each to its
    /// shard leader, and the results are combined. An empty `docs` sends nothing and
    /// returns a response with `docs_sent` 0.
    ///
    /// On success every document was acknowledged. Otherwise the error is
    /// [`Error::Update`], whose [`BatchReport`] accounts for every document (the rule is in
    /// [`crate::batch`]): the ones Solr rejected (reported per document by the project's
    /// tolerant update chain, or named by the stock chain's refusal) are `failed`; when a
    /// request failed as a whole, its documents are `failed` if nothing can have been
    /// indexed (not sent, or a 4xx answer) and `unknown` otherwise (sent, then the
    /// connection broke, a timeout fired or Solr answered 5xx). A call of one document whose
    /// `_version_` check failed is [`Error::VersionConflict`]; in a larger call that document
    /// is a failed one ([`FailedDoc::is_version_conflict`](crate::FailedDoc::is_version_conflict)).
    ///
    /// A document without a value for the uniqueKey field
    /// ([`SolrClientBuilder::unique_key`](crate::SolrClientBuilder::unique_key)), or with NaN
    /// or an infinity in a field, fails the whole call before anything is sent, with [`Error::InvalidDocument`] naming its
    /// position and field.
    pub async fn add<T: Serialize>(&self, docs: &[T]) -> Result<UpdateResponse> {
        self.add_with(docs, None).await
    }

    /// Like [`Self::add`], with Solr's `commitWithin` in milliseconds.
    pub async fn add_with<T: Serialize>(
        &self,
        docs: &[T],
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        let ids = doc_ids(docs, &self.unique_key)?;
        let alone = ids.len() == 1;
        self.add_ids(docs, ids, commit_within_ms, alone).await
    }

    /// [`Self::add_with`] of `docs` whose ids are `ids`. `alone`: the call is one document
    /// (a version conflict is then [`Error::VersionConflict`]; in any other case it is a
    /// failed document of [`Error::Update`], whatever the size of its shard's part).
    async fn add_ids<T: Serialize>(
        &self,
        docs: &[T],
        ids: Vec<String>,
        commit_within_ms: Option<u64>,
        alone: bool,
    ) -> Result<UpdateResponse> {
        if ids.is_empty() {
            // Nothing to index: nothing is sent (Solr would answer an empty batch anyway).
            return Ok(UpdateResponse {
                header: Default::default(),
                docs_sent: 0,
                timing: Timing::default(),
            });
        }
        let query = self.update_query(commit_within_ms);
        let template = self.wire(Method::POST, "update", query.clone(), RequestKind::Write);
        let parts = shard_split::parts(self.transport.as_ref(), &template, &ids).await?;
        // Every part is encoded before any is sent: a document the format cannot carry
        // fails the whole call with nothing sent.
        let mut bodies = Vec::with_capacity(parts.len());
        for part in &parts {
            bodies.push(if parts.len() == 1 {
                self.update_format.encode_docs_with_ids(docs, &ids)?
            } else {
                let sub: Vec<&T> = part.members.iter().map(|&i| &docs[i]).collect();
                let sub_ids: Vec<&str> = part.members.iter().map(|&i| ids[i].as_str()).collect();
                self.update_format.encode_docs_with_ids(&sub, &sub_ids)?
            });
        }
        let alone = alone && parts.len() == 1;
        let sends = parts.into_iter().zip(bodies).map(|(part, body)| {
            let part_ids: Vec<String> = part.members.iter().map(|&i| ids[i].clone()).collect();
            let req = self.update_wire(body, self.update_format.content_type(), &query, part.route);
            async move {
                (
                    part_ids.clone(),
                    self.update_request(req, part_ids, alone).await,
                )
            }
        });
        shard_split::combine(futures::future::join_all(sends).await)
    }

    /// Adds documents in batches of `batch_size`, one request per batch, and accounts for
    /// every document (see [`Self::add`] and [`BatchReport`]): the result lists how many were
    /// acknowledged, every one that was not indexed (by id, with the reason), every one whose
    /// outcome is unknown, and Solr's errors that named no document of a batch. Nothing is
    /// committed. `acknowledged + failed.len() + unknown.len() + not_attempted.len() ==
    /// docs.len()` always holds; an empty `docs` sends nothing.
    ///
    /// A document the client refuses ([`Error::InvalidDocument`]: no uniqueKey, NaN or an
    /// infinity) is never sent: as everywhere ([`crate::batch`]), it is `failed`, with its
    /// position in `docs` in
    /// [`FailedDoc::index`](crate::FailedDoc::index), and the rest of its batch goes
    /// without it. A batch that cannot be sent at all (it cannot be encoded, no node for
    /// it) is `failed` as a whole with the reason, and the next batches still go.
    pub async fn add_batched<T: Serialize>(
        &self,
        docs: &[T],
        batch_size: usize,
    ) -> Result<BatchReport> {
        let size = batch_size.max(1);
        let mut report = BatchReport::default();
        for (n, chunk) in docs.chunks(size).enumerate() {
            let (ids, keep, refused) = self.screen(chunk, n * size);
            report.merge(refused);
            let kept: Vec<&T> = keep.iter().map(|&i| &chunk[i]).collect();
            if kept.is_empty() {
                continue;
            }
            match self.add_ids(&kept, ids.clone(), None, false).await {
                Ok(r) => report.merge(BatchReport::all_acknowledged(r.docs_sent)),
                Err(Error::Update { report: r, .. }) => report.merge(*r),
                Err(e) => report.merge(BatchReport::all_failed(ids, &e.to_string())),
            }
        }
        Ok(report)
    }

    /// Reads the ids of `chunk` (whose first document is number `offset` of the call):
    /// the ids and positions of the documents to send, and the account of the ones the
    /// client refuses.
    fn screen<T: Serialize>(
        &self,
        chunk: &[T],
        offset: usize,
    ) -> (Vec<String>, Vec<usize>, BatchReport) {
        let (mut ids, mut keep) = (Vec::with_capacity(chunk.len()), Vec::new());
        let mut refused = BatchReport::default();
        for (i, doc) in chunk.iter().enumerate() {
            match crate::codec::doc_id_at(doc, offset + i, &self.unique_key) {
                Ok(id) => {
                    ids.push(id);
                    keep.push(i);
                }
                Err(e) => refused.merge(BatchReport::refused(offset + i, &e)),
            }
        }
        refused.requests = 0;
        (ids, keep, refused)
    }

    /// Encodes documents in the client's update format without sending them (for size
    /// comparisons).
    pub fn encode_add<T: Serialize>(&self, docs: &[T]) -> Result<Bytes> {
        self.update_format.encode_docs(docs)
    }

    /// Deletes documents by id. Like [`Self::add`], ids of different shards go in one
    /// request per shard when the transport knows the shards; an error of any part is
    /// returned (the other parts may have been applied).
    pub async fn delete_by_ids(&self, ids: &[&str]) -> Result<UpdateResponse> {
        self.delete_by_ids_with(ids, None).await
    }

    /// Like [`Self::delete_by_ids`], with Solr's `commitWithin` in milliseconds (the
    /// deletes become visible within that time; nothing is committed by the client).
    pub async fn delete_by_ids_with(
        &self,
        ids: &[&str],
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        let query = self.update_query(commit_within_ms);
        let owned: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        let template = self.wire(Method::POST, "update", query.clone(), RequestKind::Write);
        let parts = shard_split::parts(self.transport.as_ref(), &template, &owned).await?;
        let mut bodies = Vec::with_capacity(parts.len());
        for part in &parts {
            let part_ids: Vec<&str> = part.members.iter().map(|&i| ids[i]).collect();
            let body = serde_json::to_vec(&serde_json::json!({ "delete": part_ids }))
                .map_err(|e| Error::invalid_input(e.to_string()))?;
            bodies.push(Bytes::from(body));
        }
        let sends = parts.into_iter().zip(bodies).map(|(part, body)| {
            let req = self.update_wire(body, "application/json", &query, part.route);
            async move {
                (
                    Vec::new(),
                    self.update_request(req, Vec::new(), false).await,
                )
            }
        });
        shard_split::combine(futures::future::join_all(sends).await)
    }

    /// Deletes every document matching `query` (JSON-encoded, never concatenated markup).
    pub async fn delete_by_query(&self, query: &str) -> Result<UpdateResponse> {
        self.delete_by_query_with(query, None).await
    }

    /// Like [`Self::delete_by_query`], with Solr's `commitWithin` in milliseconds.
    pub async fn delete_by_query_with(
        &self,
        query: &str,
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        let body = serde_json::to_vec(&serde_json::json!({ "delete": { "query": query } }))
            .map_err(|e| Error::invalid_input(e.to_string()))?;
        let params = self.update_query(commit_within_ms);
        let req = self.update_wire(Bytes::from(body), "application/json", &params, None);
        self.update_request(req, Vec::new(), false).await
    }

    /// Commits (hard or soft). Only ever sent when asked.
    pub async fn commit(&self, c: Commit) -> Result<UpdateResponse> {
        let body = serde_json::json!({ "commit": { "softCommit": c.soft, "waitSearcher": c.wait_searcher } });
        let mut req = self.wire(
            Method::POST,
            "update",
            self.update_query(None),
            RequestKind::Write,
        );
        req.headers
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        req.body = Bytes::from(body.to_string());
        let (mut r, timing): (UpdateResponse, Timing) = self
            .exchange(
                req,
                |w| decode(w, "commit response"),
                |r: &UpdateResponse| r.header.qtime,
            )
            .await?;
        r.timing = with_qtime(timing, r.header.qtime);
        Ok(r)
    }

    /// The update request carrying `body` to `route`.
    fn update_wire(
        &self,
        body: Bytes,
        content_type: &'static str,
        query: &[(String, String)],
        route: Option<RouteKey>,
    ) -> WireRequest {
        let mut req = self.wire(Method::POST, "update", query.to_vec(), RequestKind::Write);
        req.route = route;
        req.headers
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        req.body = body;
        req
    }

    /// Sends an update request whose body carries the documents `ids` (in order) and
    /// accounts for them (see [`crate::batch`]): any failure of a request with documents is
    /// [`Error::Update`], except a version conflict of a call that is one document in all
    /// (`alone`), which is [`Error::VersionConflict`]. A one-document request that is a
    /// part of a larger call (its shard's share, an [`Indexer`](crate::Indexer) batch) is
    /// never `alone`: the other documents of the call may have been indexed.
    pub(crate) async fn update_request(
        &self,
        req: WireRequest,
        ids: Vec<String>,
        alone: bool,
    ) -> Result<UpdateResponse> {
        let outcome = self
            .exchange(
                req,
                |w| decode::<UpdateResponse>(w, "update response"),
                |r| r.header.qtime,
            )
            .await;
        match outcome {
            Ok((mut r, timing)) => {
                r.timing = with_qtime(timing, r.header.qtime);
                r.docs_sent = ids.len();
                let report = if r.header.rf == Some(i64::from(i32::MAX)) && !ids.is_empty() {
                    // The leader was unreachable and the tolerant chain hid it: nothing of
                    // this batch is known to be indexed.
                    BatchReport::all_failed(
                        ids,
                        "SolrCloud could not forward the update to the shard leader (rf=2147483647)",
                    )
                } else {
                    BatchReport::account(&ids, r.header.errors.as_deref().unwrap_or_default())
                };
                let conflict = || crate::request::single_conflict(&report, &r.timing.node);
                if report.is_clean() {
                    Ok(r)
                } else if let Some(c) = conflict().filter(|_| alone) {
                    Err(c)
                } else {
                    Err(Error::Update {
                        report: Box::new(report),
                        cause: None,
                    })
                }
            }
            Err(e @ Error::Solr { status: 409, .. }) if alone && ids.len() == 1 => {
                Err(crate::request::conflict_error(e))
            }
            Err(e) if !ids.is_empty() => Err(Error::Update {
                report: Box::new(BatchReport::lost(ids, &e)),
                cause: Some(Box::new(e)),
            }),
            Err(e) => Err(e),
        }
    }
}

/// Serializes each doc into a JSON object (Solr document): the path before the direct
/// encoders, kept as their test oracle.
#[cfg_attr(
    not(all(test, feature = "cbor", feature = "javabin")),
    allow(dead_code)
)]
pub(crate) fn to_documents<T: Serialize>(docs: &[T]) -> Result<Vec<Document>> {
    docs.iter()
        .enumerate()
        .map(|(i, d)| match serde_json::to_value(d) {
            Ok(serde_json::Value::Object(m)) => Ok(m),
            Ok(other) => Err(Error::invalid_input(format!(
                "document #{i} is not an object: {other}"
            ))),
            Err(e) => Err(Error::invalid_input(format!(
                "document #{i} cannot be serialized: {e}"
            ))),
        })
        .collect()
}
