//! A concurrent bulk indexer with bounded memory and an exact report.
//!
//! [`Indexer`] takes documents one at a time ([`Indexer::push`], or a whole iterator or
//! `Stream`), cuts them into batches by document count and by size, and keeps up to
//! `in_flight` batches on the wire at once. Between the producer and the senders sits a
//! queue of at most `queue` batches: when it is full, `push` waits (backpressure), so the
//! indexer never holds more than `queue + in_flight` batches plus the one being filled.
//!
//! Each document is encoded once, when it is pushed, straight from `T: Serialize` into the
//! client's update format (JSON, XML, CBOR, javabin: the bytes
//! [`SolrClient::add`](crate::SolrClient::add) sends, with the same checks), appended to the
//! body of its batch; a batch's size is the real size of its body. Every batch is one
//! request through the client's transport. Optionally the request bodies are gzipped
//! ([`IndexerBuilder::gzip`]).
//!
//! Routing: when the transport knows the shards (SolrCloud routing,
//! [`Transport::shard_groups`](crate::transport::Transport::shard_groups)), the indexer keeps
//! one open batch per shard and puts each document into its shard's batch as it is pushed,
//! so every request carries a full batch of one shard, sent to that shard's leader. The
//! indexer then holds at most `queue + in_flight` full batches plus one open batch per
//! shard.
//!
//! [`Indexer::finish`] sends what is left, waits for every batch and returns one
//! [`BatchReport`] in which every pushed document is counted exactly once:
//! `acknowledged + failed.len() + unknown.len() + not_attempted.len() == sent`, where
//! `sent` is the number of documents pushed, the ones [`Indexer::push`] refused included
//! (they are `failed`): the rule of every update API, in [`crate::batch`].
//!
//! Retries: a batch is sent again only when its request certainly did not reach Solr
//! ([`Error::is_not_sent`]) or Solr refused it before processing it (429, 503), at most
//! [`IndexerBuilder::retries`] times with a doubling wait. A batch whose outcome is unknown
//! (sent, then the connection broke or a timeout fired) is never sent again: its ids are in
//! [`BatchReport::unknown`] for the application to decide.
//!
//! ```no_run
//! # async fn run() -> solr_client::Result<()> {
//! use solr_client::{Indexer, SolrClient};
//! let client = SolrClient::builder("http://127.0.0.1:8983/solr")
//!     .collection("books")
//!     .build()?;
//! let mut indexer = Indexer::builder(client)
//!     .batch_docs(500)
//!     .batch_bytes(4 << 20)
//!     .in_flight(4)
//!     .queue(8)
//!     .progress(|p| println!("{} of {} acknowledged", p.acknowledged, p.pushed))
//!     .build()?;
//! indexer
//!     .index_iter((0..100_000).map(|i| serde_json::json!({"id": i.to_string()})))
//!     .await?;
//! let report = indexer.finish().await;
//! assert!(report.is_balanced());
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use http::header::{HeaderValue, CONTENT_ENCODING, CONTENT_TYPE};
use http::Method;
use serde::Serialize;
use tokio::sync::{mpsc, Semaphore};
use tokio::task::{JoinHandle, JoinSet};

use crate::batch::BatchReport;
use crate::client::SolrClient;
use crate::codec::add_body::AddBody;
use crate::codec::{doc_id_at, UpdateFormat};
use crate::error::{Error, Result};
use crate::transport::{RequestKind, RouteKey, WireRequest};

/// How far an [`Indexer`] has got, passed to the progress callback after every batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Documents pushed so far.
    pub pushed: usize,
    /// Batches whose outcome is known (answered, failed or given up).
    pub batches: usize,
    /// Documents Solr acknowledged so far.
    pub acknowledged: usize,
    /// Documents certainly not indexed so far.
    pub failed: usize,
    /// Documents whose outcome is unknown so far.
    pub unknown: usize,
    /// Documents not attempted so far (after a bad document on Solr's default chain).
    pub not_attempted: usize,
}

type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Builds an [`Indexer`]. Every setter states its default.
#[must_use]
pub struct IndexerBuilder {
    client: SolrClient,
    batch_docs: usize,
    batch_bytes: usize,
    in_flight: usize,
    queue: usize,
    gzip: bool,
    retries: u32,
    backoff: Duration,
    commit_within_ms: Option<u64>,
    params: Vec<(String, String)>,
    progress: Option<ProgressFn>,
}

impl std::fmt::Debug for IndexerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexerBuilder")
            .field("client", &self.client)
            .field("batch_docs", &self.batch_docs)
            .field("batch_bytes", &self.batch_bytes)
            .field("in_flight", &self.in_flight)
            .field("queue", &self.queue)
            .field("gzip", &self.gzip)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .field("commit_within_ms", &self.commit_within_ms)
            .field("params", &self.params)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl IndexerBuilder {
    /// Most documents per batch. Default 500.
    pub fn batch_docs(mut self, n: usize) -> Self {
        self.batch_docs = n;
        self
    }

    /// Most bytes per batch: the size of its request body in the client's update format
    /// (before gzip), counted exactly as encoded. A document larger than this goes alone.
    /// Default 4 MiB.
    pub fn batch_bytes(mut self, n: usize) -> Self {
        self.batch_bytes = n;
        self
    }

    /// Batches on the wire at once. Default 4.
    pub fn in_flight(mut self, n: usize) -> Self {
        self.in_flight = n;
        self
    }

    /// Full batches waiting for a sender; when the queue is full, [`Indexer::push`] waits.
    /// Default 8.
    pub fn queue(mut self, n: usize) -> Self {
        self.queue = n;
        self
    }

    /// Gzips request bodies (`Content-Encoding: gzip`). Default false: Solr's Jetty inflates
    /// request bodies only when its GzipHandler has an inflate buffer (this project's
    /// launcher: `--gzip-inflate`).
    pub fn gzip(mut self, yes: bool) -> Self {
        self.gzip = yes;
        self
    }

    /// Most re-sends of one batch that certainly did not reach Solr, or that Solr refused
    /// with 429 or 503. Default 3.
    pub fn retries(mut self, n: u32) -> Self {
        self.retries = n;
        self
    }

    /// The wait before the first re-send; it doubles each time, up to 5 s. Default 100 ms.
    pub fn backoff(mut self, d: Duration) -> Self {
        self.backoff = d;
        self
    }

    /// Solr's `commitWithin` on every batch, in milliseconds. Default none (nothing is
    /// committed by the indexer).
    pub fn commit_within(mut self, ms: u64) -> Self {
        self.commit_within_ms = Some(ms);
        self
    }

    /// Adds a request parameter to every update, e.g. `update.chain`; it replaces a client
    /// update parameter of the same name ([`crate::SolrClientBuilder::update_param`]).
    /// Default none.
    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.params.push((name.into(), value.into()));
        self
    }

    /// Calls `f` after every batch with the totals so far (from the sending task: keep it
    /// short). Default none.
    pub fn progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// Starts the indexer's sending task. Fails when a size is 0 or when called outside a
    /// Tokio runtime.
    pub fn build(self) -> Result<Indexer> {
        for (name, v) in [
            ("batch_docs", self.batch_docs),
            ("batch_bytes", self.batch_bytes),
            ("in_flight", self.in_flight),
            ("queue", self.queue),
        ] {
            if v == 0 {
                return Err(Error::config(format!("Indexer: {name} must be at least 1")));
            }
        }
        if self.gzip && !cfg!(feature = "gzip") {
            return Err(Error::config(
                "Indexer::gzip needs the solr-client feature `gzip`, off in this build",
            ));
        }
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| Error::config("Indexer::build must be called inside a Tokio runtime"))?;
        // The client's update parameters (`update.chain`...), then the indexer's own, which
        // replace a client parameter of the same name.
        let mut query = self.client.update_query(self.commit_within_ms);
        for (k, v) in self.params {
            crate::client::set_param(&mut query, k, v);
        }
        let ctx = Arc::new(Ctx {
            client: self.client,
            query,
            gzip: self.gzip,
            retries: self.retries,
            backoff: self.backoff,
            progress: self.progress,
            pushed: AtomicUsize::new(0),
            state: Mutex::new((BatchReport::default(), 0)),
        });
        let (tx, rx) = mpsc::channel(self.queue);
        let dispatcher = runtime.spawn(dispatch(rx, ctx.clone(), self.in_flight));
        let template = ctx
            .client
            .wire(Method::POST, "update", Vec::new(), RequestKind::Write);
        Ok(Indexer {
            tx: Some(tx),
            open: Vec::new(),
            format: ctx.client.update_format(),
            template,
            capacity: 0,
            batch_docs: self.batch_docs,
            batch_bytes: self.batch_bytes,
            ctx,
            dispatcher: Some(dispatcher),
            held: Vec::new(),
        })
    }
}

/// A concurrent bulk indexer (see the [module docs](self)). Dropping it without
/// [`Self::finish`] abandons the documents not yet sent; batches already on the wire
/// complete in the background.
#[derive(Debug)]
pub struct Indexer {
    tx: Option<mpsc::Sender<Batch>>,
    /// The batches being filled: one per shard (one in all without shards), in the order
    /// their shards were first seen.
    open: Vec<Open>,
    format: UpdateFormat,
    /// The update request whose shards the transport is asked about.
    template: WireRequest,
    /// The largest body sent so far: the room a new batch starts with.
    capacity: usize,
    batch_docs: usize,
    batch_bytes: usize,
    ctx: Arc<Ctx>,
    dispatcher: Option<JoinHandle<()>>,
    /// Batches the queue could not take because the sending task is gone (they are
    /// reported as not attempted).
    held: Vec<Batch>,
}

/// A batch being filled: its body so far and its documents' ids.
struct Open {
    /// The shard of every document in it; `None` when the transport has no opinion.
    shard: Option<String>,
    body: AddBody,
    ids: Vec<String>,
}

impl std::fmt::Debug for Open {
    /// Sizes only: the documents are the application's data.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Open")
            .field("shard", &self.shard)
            .field("docs", &self.ids.len())
            .field("bytes", &self.body.len())
            .finish()
    }
}

/// A full batch: one request's body, its documents' ids and its route.
struct Batch {
    body: Bytes,
    ids: Vec<String>,
    route: Option<RouteKey>,
}

impl std::fmt::Debug for Batch {
    /// Sizes only: the documents are the application's data.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("docs", &self.ids.len())
            .field("bytes", &self.body.len())
            .finish()
    }
}

impl Indexer {
    /// A builder over a clone of `client` (its update format, transport, timeouts and
    /// credentials are the indexer's).
    pub fn builder(client: SolrClient) -> IndexerBuilder {
        IndexerBuilder {
            client,
            batch_docs: 500,
            batch_bytes: 4 << 20,
            in_flight: 4,
            queue: 8,
            gzip: false,
            retries: 3,
            backoff: Duration::from_millis(100),
            commit_within_ms: None,
            params: Vec::new(),
            progress: None,
        }
    }

    /// Adds one document: encodes it into its batch (its shard's batch in SolrCloud) and
    /// hands a full batch to the queue, waiting while the queue is full.
    ///
    /// A document the indexer cannot take is refused with the error, and is also in the
    /// final report as a failed document whose [`FailedDoc::index`](crate::FailedDoc::index)
    /// is its position among the pushes (the rule of [`crate::batch`]: `sent` counts every
    /// document offered). Refused are: a document the client refuses
    /// ([`Error::InvalidDocument`]: no uniqueKey, NaN or an infinity), one that does not
    /// serialize to an object or that the update format cannot carry
    /// ([`Error::InvalidInput`], see [`UpdateFormat::encode_docs`]), and any document pushed
    /// after the sending task stopped. The documents pushed before it are kept.
    pub async fn push<T: Serialize>(&mut self, doc: T) -> Result<()> {
        let index = self.ctx.pushed.fetch_add(1, Ordering::Relaxed);
        let slot = match self.take_doc(&doc, index).await {
            Ok(slot) => slot,
            Err(e) => {
                let mut refused = BatchReport::refused(index, &e);
                if let Some(f) = refused.failed.iter_mut().find(|f| f.id.is_empty()) {
                    // Refused by the format, not for its id: name it when it has one.
                    f.id = doc_id_at(&doc, index, &self.ctx.client.unique_key).unwrap_or_default();
                }
                let mut s = self.ctx.state.lock().unwrap_or_else(|p| p.into_inner());
                s.0.merge(refused);
                return Err(e);
            }
        };
        let open = &self.open[slot];
        if open.ids.len() >= self.batch_docs || open.body.len() >= self.batch_bytes {
            self.flush(slot).await?;
        }
        Ok(())
    }

    /// Puts document number `index` of the pushes into its batch; the batch's slot.
    async fn take_doc<T: Serialize>(&mut self, doc: &T, index: usize) -> Result<usize> {
        let id = doc_id_at(doc, index, &self.ctx.client.unique_key)?;
        let shard = self.shard_of(&id).await;
        let slot = match self.open.iter().position(|o| o.shard == shard) {
            Some(i) => i,
            None => {
                self.open.push(Open {
                    shard,
                    body: AddBody::new(self.format, self.capacity),
                    ids: Vec::new(),
                });
                self.open.len() - 1
            }
        };
        if self.open[slot].body.is_sealed() {
            self.flush(slot).await?;
        }
        self.open[slot].body.push(doc, &id)?;
        if self.open[slot].body.docs() > 1 && self.open[slot].body.len() > self.batch_bytes {
            // Too large with this document: the batch goes without it, and it starts the
            // next one.
            self.open[slot].body.pop_last();
            self.flush(slot).await?;
            self.open[slot].body.push(doc, &id)?;
        }
        self.open[slot].ids.push(id);
        Ok(slot)
    }

    /// The shard the transport puts the document whose id is `id` in; `None` when it has
    /// no opinion (standalone, a router that does not hash ids) or cannot tell (Solr then
    /// forwards what is not the receiving leader's).
    async fn shard_of(&self, id: &String) -> Option<String> {
        let groups = self
            .ctx
            .client
            .transport
            .shard_groups(&self.template, std::slice::from_ref(id))
            .await;
        match groups {
            Ok(Some(g)) if g.len() == 1 && g[0].members == [0] => {
                g.into_iter().next().map(|g| g.shard)
            }
            _ => None,
        }
    }

    /// Pushes every document of `docs` (see [`Self::push`]).
    pub async fn index_iter<I>(&mut self, docs: I) -> Result<()>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        for d in docs {
            self.push(d).await?;
        }
        Ok(())
    }

    /// Pushes every document of `docs` (see [`Self::push`]).
    pub async fn index_stream<S>(&mut self, docs: S) -> Result<()>
    where
        S: Stream,
        S::Item: Serialize,
    {
        let mut docs = std::pin::pin!(docs);
        while let Some(d) = docs.next().await {
            self.push(d).await?;
        }
        Ok(())
    }

    /// Documents pushed so far, refused ones included (the report's `sent`).
    pub fn pushed(&self) -> usize {
        self.ctx.pushed.load(Ordering::Relaxed)
    }

    /// Hands the batch being filled in `slot` to the queue (waits while it is full).
    /// Cancel-safe: if the wait is dropped, the batch stays and goes with a later push or
    /// `finish`.
    async fn flush(&mut self, slot: usize) -> Result<()> {
        if self.open[slot].ids.is_empty() {
            if self.open[slot].body.is_sealed() {
                // Sealed with no document (javabin, its first document refused): start over.
                self.open[slot].body = AddBody::new(self.format, self.capacity);
            }
            return Ok(());
        }
        let Some(tx) = self.tx.clone() else {
            return Err(Error::invalid_input("the indexer is finished"));
        };
        let permit = tx.reserve_owned().await;
        let batch = self.take(slot);
        match permit {
            Ok(permit) => {
                permit.send(batch);
                Ok(())
            }
            Err(_) => {
                self.held.push(batch);
                Err(Error::invalid_input(
                    "the indexer's sending task stopped; finish() reports the rest",
                ))
            }
        }
    }

    /// The batch being filled in `slot`, finished; an empty one takes its place.
    fn take(&mut self, slot: usize) -> Batch {
        let fresh = AddBody::new(self.format, self.capacity);
        let open = &mut self.open[slot];
        let body = std::mem::replace(&mut open.body, fresh).finish();
        let ids = std::mem::take(&mut open.ids);
        let route = Some(match &open.shard {
            Some(s) => RouteKey::Shard(s.clone()),
            None => RouteKey::Ids(ids.clone()),
        });
        self.capacity = self.capacity.max(body.len()).min(self.batch_bytes);
        Batch { body, ids, route }
    }

    /// Sends the last batch, waits for every batch and returns the report of every pushed
    /// document: `sent` is the number pushed (refused ones included, as `failed`), and
    /// `acknowledged + failed.len() + unknown.len() + not_attempted.len() == sent` (see
    /// [`crate::batch`]).
    pub async fn finish(mut self) -> BatchReport {
        for slot in 0..self.open.len() {
            let _ = self.flush(slot).await;
        }
        drop(self.tx.take());
        if let Some(d) = self.dispatcher.take() {
            let _ = d.await;
        }
        let mut report = match self.ctx.state.lock() {
            Ok(mut s) => std::mem::take(&mut s.0),
            Err(p) => std::mem::take(&mut p.into_inner().0),
        };
        let open = self.open.drain(..).map(|o| o.ids);
        for ids in self.held.drain(..).map(|b| b.ids).chain(open) {
            report.sent += ids.len();
            report.not_attempted.extend(ids);
        }
        report
    }
}

/// What the sending tasks share.
struct Ctx {
    client: SolrClient,
    query: Vec<(String, String)>,
    gzip: bool,
    retries: u32,
    backoff: Duration,
    progress: Option<ProgressFn>,
    pushed: AtomicUsize,
    /// The report so far and the number of batches in it.
    state: Mutex<(BatchReport, usize)>,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("client", &self.client)
            .field("pushed", &self.pushed)
            .finish_non_exhaustive()
    }
}

impl Ctx {
    /// Adds one batch's account to the total and tells the progress callback.
    fn record(&self, r: BatchReport) {
        let progress = {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            s.0.merge(r);
            s.1 += 1;
            Progress {
                pushed: self.pushed.load(Ordering::Relaxed),
                batches: s.1,
                acknowledged: s.0.acknowledged,
                failed: s.0.failed.len(),
                unknown: s.0.unknown.len(),
                not_attempted: s.0.not_attempted.len(),
            }
        };
        if let Some(f) = &self.progress {
            f(&progress);
        }
    }

    /// Sends one batch (one request), re-sending while it certainly did not reach Solr or
    /// Solr refused it with 429/503, within the retry budget; accounts for every document
    /// of it.
    async fn send_batch(&self, batch: Batch) -> BatchReport {
        let Batch { body, ids, route } = batch;
        let format = self.client.update_format();
        let body = if self.gzip { gzip_body(&body) } else { body };
        let mut attempt = 0;
        loop {
            let mut req = self.client.wire(
                Method::POST,
                "update",
                self.query.clone(),
                RequestKind::Write,
            );
            req.route = route.clone();
            req.headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_static(format.content_type()),
            );
            if self.gzip {
                req.headers
                    .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            }
            req.body = body.clone();
            match self.client.update_request(req, ids.clone(), false).await {
                Ok(r) => return BatchReport::all_acknowledged(r.docs_sent),
                Err(Error::Update { report, cause }) => {
                    let again = cause.as_deref().is_some_and(resendable);
                    if again && attempt < self.retries {
                        attempt += 1;
                        tokio::time::sleep(self.wait(attempt)).await;
                        continue;
                    }
                    return *report;
                }
                Err(e) => return BatchReport::lost(ids, &e),
            }
        }
    }

    /// The wait before re-send number `attempt` (1-based).
    fn wait(&self, attempt: u32) -> Duration {
        let factor = 1u32 << attempt.saturating_sub(1).min(16);
        self.backoff
            .saturating_mul(factor)
            .min(Duration::from_secs(5))
    }
}

/// True when a request that failed with `cause` may be sent again: it certainly did not
/// reach Solr, or Solr refused it before processing (429, 503).
fn resendable(cause: &Error) -> bool {
    cause.is_not_sent() || matches!(cause.status(), Some(429 | 503))
}

/// Takes batches from the queue and keeps at most `in_flight` of them on the wire. A
/// sending permit is taken before a batch is taken from the queue, so no batch waits here:
/// the indexer holds at most `queue + in_flight` full batches.
async fn dispatch(mut rx: mpsc::Receiver<Batch>, ctx: Arc<Ctx>, in_flight: usize) {
    let slots = Arc::new(Semaphore::new(in_flight));
    let mut tasks: JoinSet<()> = JoinSet::new();
    let mut ids_of: HashMap<tokio::task::Id, Vec<String>> = HashMap::new();
    loop {
        let Ok(permit) = slots.clone().acquire_owned().await else {
            break;
        };
        while let Some(done) = tasks.try_join_next_with_id() {
            settle(&ctx, &mut ids_of, done);
        }
        let Some(batch) = rx.recv().await else {
            break;
        };
        let ids = batch.ids.clone();
        let c = ctx.clone();
        let handle = tasks.spawn(async move {
            let r = c.send_batch(batch).await;
            c.record(r);
            drop(permit);
        });
        ids_of.insert(handle.id(), ids);
    }
    while let Some(done) = tasks.join_next_with_id().await {
        settle(&ctx, &mut ids_of, done);
    }
}

/// Forgets a finished sending task; one that panicked before recording its batch leaves
/// the batch's outcome unknown (it may have been sent).
fn settle(
    ctx: &Ctx,
    ids_of: &mut HashMap<tokio::task::Id, Vec<String>>,
    done: std::result::Result<(tokio::task::Id, ()), tokio::task::JoinError>,
) {
    match done {
        Ok((id, ())) => {
            ids_of.remove(&id);
        }
        Err(e) => {
            if let Some(ids) = ids_of.remove(&e.id()) {
                ctx.record(BatchReport {
                    sent: ids.len(),
                    unknown: ids,
                    requests: 1,
                    ..BatchReport::default()
                });
            }
        }
    }
}

/// `body` gzipped.
#[cfg(feature = "gzip")]
fn gzip_body(body: &[u8]) -> Bytes {
    Bytes::from(crate::transport::gzip_bytes(body))
}

/// Without the `gzip` feature [`IndexerBuilder::build`] refuses `gzip(true)`, so no body
/// is ever gzipped: sent as it is.
#[cfg(not(feature = "gzip"))]
fn gzip_body(body: &[u8]) -> Bytes {
    Bytes::copy_from_slice(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> SolrClient {
        SolrClient::builder("http://127.0.0.1:9/solr")
            .collection("bench")
            .build()
            .expect("client")
    }

    #[test]
    fn zero_sizes_and_no_runtime_are_clear_errors() {
        for b in [
            Indexer::builder(client()).batch_docs(0),
            Indexer::builder(client()).batch_bytes(0),
            Indexer::builder(client()).in_flight(0),
            Indexer::builder(client()).queue(0),
        ] {
            let e = b.build().expect_err("0 is refused");
            assert!(e.to_string().contains("at least 1"), "{e}");
        }
        let e = Indexer::builder(client()).build().expect_err("no runtime");
        assert!(e.to_string().contains("Tokio runtime"), "{e}");
    }

    #[tokio::test]
    async fn nothing_pushed_sends_nothing_and_reports_nothing() {
        let indexer = Indexer::builder(client()).build().expect("builds");
        let r = indexer.finish().await;
        assert_eq!(r, BatchReport::default());
        assert_eq!(client().transport().stats().requests, 0);
    }

    #[tokio::test]
    async fn debug_shows_sizes_not_documents() {
        let mut indexer = Indexer::builder(client())
            .batch_docs(10)
            .build()
            .expect("builds");
        indexer
            .push(serde_json::json!({"id": "a", "secret_s": "hunter2"}))
            .await
            .expect("pushed");
        let text = format!("{indexer:?}");
        assert!(
            !text.contains("hunter2") && text.contains("docs: 1"),
            "{text}"
        );
        let r = indexer.finish().await;
        assert_eq!(
            (r.sent, r.failed.len()),
            (1, 1),
            "port 9 refuses: failed, not unknown"
        );
    }

    #[tokio::test]
    async fn a_non_object_is_refused_and_counted_failed() {
        let mut indexer = Indexer::builder(client()).build().expect("builds");
        let e = indexer.push(5).await.expect_err("not an object");
        assert!(e.to_string().contains("not an object"), "{e}");
        assert_eq!(indexer.pushed(), 1);
        let r = indexer.finish().await;
        assert_eq!((r.sent, r.failed.len(), r.requests), (1, 1, 0), "{r:?}");
        assert_eq!(r.failed[0].index, Some(0));
        assert!(r.is_balanced());
    }

    #[tokio::test]
    async fn an_unreachable_node_fails_every_document_after_the_retries() {
        // Port 9 (discard) refuses connections: nothing is ever sent, so every batch is
        // re-sent `retries` times and then failed, never unknown.
        let mut indexer = Indexer::builder(client())
            .batch_docs(2)
            .retries(2)
            .backoff(Duration::from_millis(1))
            .build()
            .expect("builds");
        let docs: Vec<serde_json::Value> = (0..5)
            .map(|i| serde_json::json!({"id": format!("d{i}")}))
            .collect();
        indexer.index_iter(&docs).await.expect("queued");
        let r = indexer.finish().await;
        assert_eq!((r.sent, r.failed.len(), r.requests), (5, 5, 3));
        assert!(r.unknown.is_empty() && r.is_balanced());
    }

    /// Two shards by the id's last digit (even: `shard1`, odd: `shard2`); answers every
    /// update with success and records each request's route and documents' ids.
    #[derive(Debug, Default)]
    struct TwoShards {
        seen: Mutex<Vec<(Option<RouteKey>, Vec<String>)>>,
    }

    fn shard_of_id(id: &str) -> &'static str {
        let last = id.bytes().last().unwrap_or(b'0');
        if (last - b'0').is_multiple_of(2) {
            "shard1"
        } else {
            "shard2"
        }
    }

    impl crate::transport::Transport for TwoShards {
        fn send(
            &self,
            req: WireRequest,
        ) -> futures::future::BoxFuture<'_, Result<crate::transport::Reply>> {
            // JSON bodies are read; others are recorded with no ids.
            let docs: Vec<serde_json::Value> =
                serde_json::from_slice(&req.body).unwrap_or_default();
            let ids = docs
                .iter()
                .map(|d| d["id"].as_str().expect("id").to_string())
                .collect();
            self.seen.lock().expect("lock").push((req.route, ids));
            let mut headers = http::HeaderMap::new();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            Box::pin(async {
                Ok(crate::transport::Reply::Whole(
                    crate::transport::WireResponse {
                        status: http::StatusCode::OK,
                        headers,
                        body: Bytes::from_static(br#"{"responseHeader":{"status":0,"QTime":1}}"#),
                        timing: crate::timing::Timing::default(),
                    },
                ))
            })
        }
        fn name(&self) -> String {
            "two-shards".into()
        }
        fn stats(&self) -> crate::transport::TransportStats {
            crate::transport::TransportStats::default()
        }
        fn shard_groups<'a>(
            &'a self,
            _req: &'a WireRequest,
            ids: &'a [String],
        ) -> futures::future::BoxFuture<'a, Result<Option<Vec<crate::transport::ShardGroup>>>>
        {
            let mut groups: Vec<crate::transport::ShardGroup> = Vec::new();
            for (i, id) in ids.iter().enumerate() {
                let shard = shard_of_id(id);
                match groups.iter_mut().find(|g| g.shard == shard) {
                    Some(g) => g.members.push(i),
                    None => groups.push(crate::transport::ShardGroup {
                        shard: shard.into(),
                        members: vec![i],
                    }),
                }
            }
            Box::pin(async move { Ok(Some(groups)) })
        }
    }

    /// A client over the fake two-shard transport `t`, sending updates in `format`.
    fn over(t: &Arc<TwoShards>, format: UpdateFormat) -> SolrClient {
        SolrClient::builder("http://127.0.0.1:9/solr")
            .collection("bench")
            .custom_transport(t.clone())
            .update_format(format)
            .build()
            .expect("client")
    }

    #[tokio::test]
    async fn documents_are_batched_per_shard_as_they_are_pushed() {
        let t = Arc::new(TwoShards::default());
        let c = over(&t, UpdateFormat::Json);
        let mut indexer = Indexer::builder(c).batch_docs(5).build().expect("builds");
        // Alternating shards: batches cut when sent would each hold both shards.
        indexer
            .index_iter((0..23).map(|i| serde_json::json!({"id": format!("d{i}")})))
            .await
            .expect("pushed");
        let r = indexer.finish().await;
        assert_eq!((r.sent, r.acknowledged), (23, 23));
        let seen = t.seen.lock().expect("lock").clone();
        // 12 even ids and 11 odd ones: 5+5+2 and 5+5+1, every request one shard's.
        let mut sizes: Vec<(String, usize)> = Vec::new();
        for (route, ids) in &seen {
            let Some(RouteKey::Shard(shard)) = route else {
                panic!("not routed by shard: {route:?}");
            };
            assert!(ids.iter().all(|id| shard_of_id(id) == shard), "{ids:?}");
            sizes.push((shard.clone(), ids.len()));
        }
        sizes.sort();
        let want: Vec<(String, usize)> = [
            ("shard1", 2),
            ("shard1", 5),
            ("shard1", 5),
            ("shard2", 1),
            ("shard2", 5),
            ("shard2", 5),
        ]
        .iter()
        .map(|&(s, n)| (s.to_string(), n))
        .collect();
        assert_eq!(sizes, want);
        assert_eq!(r.requests, 6);
        let mut all: Vec<String> = seen.into_iter().flat_map(|(_, ids)| ids).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 23, "every document sent once");
    }

    #[tokio::test]
    async fn batches_are_cut_by_their_encoded_size() {
        let t = Arc::new(TwoShards::default());
        let c = over(&t, UpdateFormat::Json);
        // Every document is 25 bytes of JSON ({"id":"d0","pad":"xxxxx"} with a 1-digit
        // id); a body is `[` + documents joined by `,` + `]`: 3 documents make 79 bytes,
        // 4 make 105.
        let doc = |i: u32| serde_json::json!({"id": format!("d{}", i * 2), "pad": "xxxxx"});
        assert_eq!(serde_json::to_vec(&doc(0)).expect("json").len(), 25);
        let mut indexer = Indexer::builder(c).batch_bytes(80).build().expect("builds");
        indexer.index_iter((0..5).map(doc)).await.expect("pushed");
        // A document larger than the limit goes alone.
        let big = serde_json::json!({"id": "d8", "pad": "x".repeat(200)});
        indexer.push(&big).await.expect("pushed");
        let r = indexer.finish().await;
        assert_eq!((r.sent, r.acknowledged), (6, 6));
        let sizes: Vec<usize> = t
            .seen
            .lock()
            .expect("lock")
            .iter()
            .map(|(_, ids)| ids.len())
            .collect();
        assert_eq!(sizes, [3, 2, 1]);
    }

    #[tokio::test]
    async fn a_document_the_format_cannot_carry_is_refused_at_push_and_the_rest_sent() {
        let t = Arc::new(TwoShards::default());
        let c = over(&t, UpdateFormat::Json);
        let mut indexer = Indexer::builder(c).build().expect("builds");
        indexer
            .push(serde_json::json!({"id": "d0"}))
            .await
            .expect("pushed");
        let e = indexer
            .push(serde_json::json!({"id": "d2", "n_i": {"set": 1, "inc": 2}}))
            .await
            .expect_err("two atomic operations on one field");
        assert!(e.to_string().contains("\"d2\""), "{e}");
        indexer
            .push(serde_json::json!({"id": "d4"}))
            .await
            .expect("pushed");
        assert_eq!(indexer.pushed(), 3);
        let r = indexer.finish().await;
        assert_eq!((r.sent, r.acknowledged, r.requests), (3, 2, 1));
        assert_eq!(r.failed.len(), 1, "{r:?}");
        assert_eq!(
            (r.failed[0].id.as_str(), r.failed[0].index),
            ("d2", Some(1))
        );
        let seen = t.seen.lock().expect("lock").clone();
        assert_eq!(seen[0].1, ["d0", "d4"]);
    }

    #[cfg(feature = "javabin")]
    #[tokio::test]
    async fn a_javabin_batch_whose_first_document_was_refused_takes_the_next_ones() {
        let t = Arc::new(TwoShards::default());
        let c = over(&t, UpdateFormat::Javabin);
        let mut indexer = Indexer::builder(c).build().expect("builds");
        // Refused after its field names went into the body's name table.
        let e = indexer
            .push(serde_json::json!({"id": "d0", "n_i": {"set": 1, "inc": 2}}))
            .await
            .expect_err("refused");
        assert!(e.to_string().contains("\"d0\""), "{e}");
        let good: Vec<serde_json::Value> = (1..4)
            .map(|i| serde_json::json!({"id": format!("d{}", i * 2), "n_i": i}))
            .collect();
        indexer.index_iter(&good).await.expect("pushed");
        let r = indexer.finish().await;
        assert_eq!((r.sent, r.acknowledged, r.requests), (4, 3, 1));
        assert_eq!(
            (r.failed[0].id.as_str(), r.failed[0].index),
            ("d0", Some(0))
        );
        let seen = t.seen.lock().expect("lock").len();
        assert_eq!(seen, 1);
    }

    #[test]
    fn the_wait_doubles_and_is_capped() {
        let ctx = Ctx {
            client: client(),
            query: Vec::new(),
            gzip: false,
            retries: 3,
            backoff: Duration::from_millis(100),
            progress: None,
            pushed: AtomicUsize::new(0),
            state: Mutex::new((BatchReport::default(), 0)),
        };
        assert_eq!(ctx.wait(1), Duration::from_millis(100));
        assert_eq!(ctx.wait(3), Duration::from_millis(400));
        assert_eq!(ctx.wait(40), Duration::from_secs(5));
    }
}
