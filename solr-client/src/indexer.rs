//! A concurrent bulk indexer with bounded memory and an exact report.
//!
//! [`Indexer`] takes documents one at a time ([`Indexer::push`], or a whole iterator or
//! `Stream`), cuts them into batches by document count and by size, and keeps up to
//! `in_flight` batches on the wire at once. Between the producer and the senders sits a
//! queue of at most `queue` batches: when it is full, `push` waits (backpressure), so the
//! indexer never holds more than `queue + in_flight` batches plus the one being filled.
//!
//! Every batch goes through the same path as [`SolrClient::add`](crate::SolrClient::add):
//! the client's update format (JSON, XML, CBOR, javabin), its transport, and, when the
//! transport knows the shards (SolrCloud routing), one request per shard leader. Optionally
//! the request bodies are gzipped ([`IndexerBuilder::gzip`]).
//!
//! [`Indexer::finish`] sends what is left, waits for every batch and returns one
//! [`BatchReport`] in which every pushed document is counted exactly once:
//! `acknowledged + failed.len() + unknown.len() + not_attempted.len() == sent`, where
//! `sent` is the number of documents pushed.
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
use crate::codec::doc_id;
use crate::error::{Error, Result};
use crate::shard_split;
use crate::transport::RequestKind;
use crate::types::Document;

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

    /// Most bytes per batch, counted as the documents' JSON size (the body in the JSON
    /// format; the other formats differ by their framing). A document larger than this goes
    /// alone. Default 4 MiB.
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

    /// Adds a request parameter to every update, e.g. `update.chain`. Default none.
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
                return Err(Error::Config(format!("Indexer: {name} must be at least 1")));
            }
        }
        if self.gzip && !cfg!(feature = "gzip") {
            return Err(Error::Config(
                "Indexer::gzip needs the solr-client feature `gzip`, off in this build".into(),
            ));
        }
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            Error::Config("Indexer::build must be called inside a Tokio runtime".into())
        })?;
        let mut query = vec![("wt".to_string(), "json".to_string())];
        if let Some(ms) = self.commit_within_ms {
            query.push(("commitWithin".into(), ms.to_string()));
        }
        query.extend(self.params);
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
        Ok(Indexer {
            tx: Some(tx),
            current: Batch::default(),
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
    current: Batch,
    batch_docs: usize,
    batch_bytes: usize,
    ctx: Arc<Ctx>,
    dispatcher: Option<JoinHandle<()>>,
    /// Batches the queue could not take because the sending task is gone (they are
    /// reported as not attempted).
    held: Vec<Batch>,
}

#[derive(Default)]
struct Batch {
    docs: Vec<Document>,
    ids: Vec<String>,
    bytes: usize,
}

impl std::fmt::Debug for Batch {
    /// Sizes only: the documents are the application's data.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("docs", &self.docs.len())
            .field("bytes", &self.bytes)
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

    /// Adds one document. Waits while the queue is full. A document that does not
    /// serialize to an object is refused ([`Error::InvalidInput`]) and not counted.
    pub async fn push<T: Serialize>(&mut self, doc: T) -> Result<()> {
        let doc = match serde_json::to_value(doc) {
            Ok(serde_json::Value::Object(m)) => m,
            Ok(other) => {
                return Err(Error::InvalidInput(format!(
                    "document #{} is not an object: {}",
                    self.pushed(),
                    kind_of(&other)
                )))
            }
            Err(e) => {
                return Err(Error::InvalidInput(format!(
                    "document #{} cannot be serialized: {e}",
                    self.pushed()
                )))
            }
        };
        let mut size = ByteCount(0);
        // Writing into a counter cannot fail, and the value serialized once already.
        let _ = serde_json::to_writer(&mut size, &doc);
        let size = size.0 + 1;
        if !self.current.docs.is_empty() && self.current.bytes + size > self.batch_bytes {
            self.flush().await?;
        }
        self.current.ids.push(doc_id(&doc));
        self.current.docs.push(doc);
        self.current.bytes += size;
        self.ctx.pushed.fetch_add(1, Ordering::Relaxed);
        if self.current.docs.len() >= self.batch_docs || self.current.bytes >= self.batch_bytes {
            self.flush().await?;
        }
        Ok(())
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

    /// Documents pushed so far.
    pub fn pushed(&self) -> usize {
        self.ctx.pushed.load(Ordering::Relaxed)
    }

    /// Hands the batch being filled to the queue (waits while it is full). Cancel-safe: if
    /// the wait is dropped, the batch stays and goes with the next push or `finish`.
    async fn flush(&mut self) -> Result<()> {
        if self.current.docs.is_empty() {
            return Ok(());
        }
        let Some(tx) = &self.tx else {
            return Err(Error::InvalidInput("the indexer is finished".into()));
        };
        match tx.reserve().await {
            Ok(permit) => {
                permit.send(std::mem::take(&mut self.current));
                Ok(())
            }
            Err(_) => {
                self.held.push(std::mem::take(&mut self.current));
                Err(Error::InvalidInput(
                    "the indexer's sending task stopped; finish() reports the rest".into(),
                ))
            }
        }
    }

    /// Sends the last batch, waits for every batch and returns the report of every pushed
    /// document: `sent` is the number pushed, and `acknowledged + failed.len() +
    /// unknown.len() + not_attempted.len() == sent`.
    pub async fn finish(mut self) -> BatchReport {
        let _ = self.flush().await;
        drop(self.tx.take());
        if let Some(d) = self.dispatcher.take() {
            let _ = d.await;
        }
        let mut report = match self.ctx.state.lock() {
            Ok(mut s) => std::mem::take(&mut s.0),
            Err(p) => std::mem::take(&mut p.into_inner().0),
        };
        for b in self
            .held
            .drain(..)
            .chain([std::mem::take(&mut self.current)])
        {
            report.sent += b.ids.len();
            report.not_attempted.extend(b.ids);
        }
        report
    }
}

fn kind_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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

    /// Sends one batch (one request per shard when the transport knows the shards) and
    /// accounts for every document of it.
    async fn send_batch(&self, batch: Batch) -> BatchReport {
        let template = self.client.wire(
            Method::POST,
            "update",
            self.query.clone(),
            RequestKind::Write,
        );
        let mut attempt = 0;
        let parts = loop {
            match shard_split::parts(self.client.transport.as_ref(), &template, &batch.ids).await {
                Ok(p) => break p,
                // Nothing was sent: the shard map could not be had.
                Err(e) if attempt < self.retries => {
                    attempt += 1;
                    tokio::time::sleep(self.wait(attempt)).await;
                    let _ = e;
                }
                Err(e) => return BatchReport::all_failed(batch.ids, &e.to_string()),
            }
        };
        let mut report = if parts.len() == 1 {
            let route = parts.into_iter().next().and_then(|p| p.route);
            self.send_part(&batch.docs, batch.ids, route).await
        } else {
            let sends = parts.into_iter().map(|part| {
                let docs: Vec<Document> = part
                    .members
                    .iter()
                    .map(|&i| batch.docs[i].clone())
                    .collect();
                let ids: Vec<String> = part.members.iter().map(|&i| batch.ids[i].clone()).collect();
                async move { self.send_part(&docs, ids, part.route).await }
            });
            let mut total = BatchReport::default();
            for r in futures::future::join_all(sends).await {
                total.merge(r);
            }
            total
        };
        // One update call per batch, however many shard requests it took.
        report.requests = 1;
        report
    }

    /// Sends one request's documents, re-sending while it certainly did not reach Solr or
    /// Solr refused it with 429/503, within the retry budget.
    async fn send_part(
        &self,
        docs: &[Document],
        ids: Vec<String>,
        route: Option<crate::transport::RouteKey>,
    ) -> BatchReport {
        let format = self.client.update_format();
        let body = match format.encode_add(docs) {
            Ok(b) if self.gzip => gzip_body(&b),
            Ok(b) => b,
            Err(e) => return BatchReport::all_failed(ids, &e.to_string()),
        };
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
            match self.client.update_request(req, ids.clone()).await {
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
                Err(e @ Error::VersionConflict { .. }) => {
                    return BatchReport::all_failed(ids, &e.to_string())
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
    async fn a_non_object_is_refused_and_not_counted() {
        let mut indexer = Indexer::builder(client()).build().expect("builds");
        let e = indexer.push(5).await.expect_err("not an object");
        assert!(e.to_string().contains("not an object"), "{e}");
        assert_eq!(indexer.pushed(), 0);
        assert!(indexer.finish().await.is_balanced());
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
