//! Solr's streaming endpoints as typed streams at constant memory: `/export`
//! ([`SolrClient::export_as`]), streaming expressions on `/stream`
//! ([`SolrClient::stream_as`]) and Parallel SQL on `/sql` ([`SolrClient::sql_as`]).
//! Through a SolrCloud client `/export` is read shard by shard and merged by its sort
//! (the private modules `cloud_export`, `shard_merge`, `sort_key`).
//!
//! The response body is read as it arrives ([`Transport::send_streaming`]) and each tuple
//! decoded into `T` as soon as it is whole ([`Tuples`]): memory is one read buffer and one
//! tuple, whatever the size of the result. The body is not bounded by the client's
//! `max_response_bytes` (one tuple is), nor by the request timeout once the head has
//! arrived; the read-idle timeout still watches every wait for bytes.
//!
//! [`Transport::send_streaming`]: crate::transport::Transport::send_streaming

mod cloud_export;
mod scan;
mod shard_merge;
mod sort_key;
mod tuples;

use std::fmt::Display;

use http::header::{HeaderValue, CONTENT_TYPE};
use http::Method;
use serde::de::DeserializeOwned;

use crate::client::SolrClient;
use crate::error::{Error, Result};
use crate::transport::{RequestKind, StreamingResponse, WireRequest};

pub use tuples::{decode_tuple_chunks, Tuples};

/// An `/export` request: every document matching `q` (and the filters), sorted, with the
/// `fl` fields. `/export` reads docValues: every field of `fl` and `sort` needs them, else
/// Solr refuses the request ([`Error::Solr`] with its message).
///
/// `/export` answers from the one core it reaches. Through a SolrCloud client
/// ([`SolrClient::cloud`]) [`SolrClient::export_as`] sends one per shard and merges them by
/// the `sort`, so the whole collection comes out; the sort must then be `field asc|desc`
/// pairs separated by commas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    q: String,
    fq: Vec<String>,
    fl: String,
    sort: String,
    collection: Option<String>,
}

impl Export {
    /// All documents matching `q`, with `fl` `id` sorted by `id asc` until changed.
    pub fn new(q: impl Into<String>) -> Self {
        Export {
            q: q.into(),
            fq: Vec::new(),
            fl: "id".into(),
            sort: "id asc".into(),
            collection: None,
        }
    }
    /// Adds a filter query.
    pub fn fq(mut self, fq: impl Into<String>) -> Self {
        self.fq.push(fq.into());
        self
    }
    /// The fields returned (comma-separated; docValues fields only).
    pub fn fl(mut self, fl: impl Into<String>) -> Self {
        self.fl = fl.into();
        self
    }
    /// The sort (required by `/export`; docValues fields only), e.g. `id asc`.
    pub fn sort(mut self, sort: impl Into<String>) -> Self {
        self.sort = sort.into();
        self
    }
    /// Exports from this collection (or core) instead of the client's. Through a SolrCloud
    /// client, only the client's own collection (or alias) is merged from its shards; any
    /// other name (a core) is one request, answered by that one core.
    pub fn collection(mut self, name: impl Into<String>) -> Self {
        self.collection = Some(name.into());
        self
    }

    /// The query parameters: `q`, each `fq`, `fl`, `sort`, then `wt=json` and `indent=off`.
    /// Solr's JSON writer indents by default: unindented, the same tuples are about a third
    /// fewer bytes to send and to scan (SolrJ's `SolrStream` asks for the same).
    pub fn params(&self) -> Vec<(String, String)> {
        let mut p = vec![("q".to_string(), self.q.clone())];
        p.extend(self.fq.iter().map(|f| ("fq".to_string(), f.clone())));
        p.push(("fl".into(), self.fl.clone()));
        p.push(("sort".into(), self.sort.clone()));
        p.push(("wt".into(), "json".into()));
        p.push(("indent".into(), "off".into()));
        p
    }
}

impl SolrClient {
    /// Exports every document `export` selects, each decoded into `T` as it arrives.
    ///
    /// A standalone client sends one `/export` request. A SolrCloud client
    /// ([`SolrClient::cloud`]) exporting its collection sends one `/export` per shard, each
    /// with `distrib=false` to one active replica of it, and merges the shards' tuples by the
    /// sort (as SolrJ's `CloudSolrStream` does), holding one tuple per shard: every document
    /// once, in order, at constant memory. The first tuple of each shard is read before this
    /// returns; a replica failing until then is replaced by another replica of its shard.
    /// A shard failing after tuples were handed out ends the stream with
    /// [`Error::ExportIncomplete`] naming it. A sort the merge cannot read (not `field
    /// asc|desc` pairs) is [`Error::InvalidInput`]; a shard without an active replica is
    /// [`Error::NoNode`].
    ///
    /// ```no_run
    /// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
    /// use futures::TryStreamExt;
    /// #[derive(serde::Deserialize)]
    /// struct Row { id: String, popularity: Option<i64> }
    /// let export = solr_client::Export::new("*:*").fl("id,popularity").sort("id asc");
    /// let mut rows = client.export_as::<Row>(&export).await?;
    /// while let Some(row) = rows.try_next().await? {
    ///     println!("{} {:?}", row.id, row.popularity);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn export_as<T: DeserializeOwned>(&self, export: &Export) -> Result<Tuples<T>> {
        let r = self.export_inner(export).await;
        self.observed(Method::GET, "export", r)
    }

    /// [`Self::export_as`] without its failure event.
    async fn export_inner<T: DeserializeOwned>(&self, export: &Export) -> Result<Tuples<T>> {
        if let Some(router) = self.cloud_router() {
            if let Some(merged) = self.export_cloud(router, export).await? {
                return Ok(merged);
            }
        }
        let mut req = self.wire(Method::GET, "export", export.params(), RequestKind::Read);
        if let Some(c) = &export.collection {
            req.path = format!("{c}/export");
        }
        self.tuples(req).await
    }

    /// Runs the streaming expression `expr` (any `Display`: a string, or an expression
    /// builder) on `/stream` of the client's collection; each tuple decoded into `T`. An
    /// `EXCEPTION` tuple is an [`Error::Solr`] after the tuples before it.
    pub async fn stream_as<T: DeserializeOwned>(&self, expr: impl Display) -> Result<Tuples<T>> {
        self.stream_as_with(expr, &[]).await
    }

    /// [`Self::stream_as`] with extra parameters. On a standalone Solr (no ZooKeeper) a
    /// `search` names the cores it reads with `{collection}.shards`, e.g.
    /// `[("bench.shards", "http://127.0.0.1:8983/solr/bench")]`; without it Solr answers
    /// `zkHost not found for collection`.
    pub async fn stream_as_with<T: DeserializeOwned>(
        &self,
        expr: impl Display,
        extra: &[(&str, &str)],
    ) -> Result<Tuples<T>> {
        let mut params = vec![("expr".to_string(), expr.to_string())];
        params.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let r = self.tuples(self.form_post("stream", params)).await;
        self.observed(Method::POST, "stream", r)
    }

    /// Runs the SQL `statement` on `/sql` (SolrCloud, with Solr's `sql` module), rows
    /// decoded into `T` (named as the statement names its columns). `aggregationMode` is
    /// Solr's default (`facet`); [`Self::sql_as_with`] sets it.
    pub async fn sql_as<T: DeserializeOwned>(&self, statement: &str) -> Result<Tuples<T>> {
        self.sql_as_with(statement, &[]).await
    }

    /// [`Self::sql_as`] with extra parameters, e.g. `[("aggregationMode", "map_reduce")]`.
    pub async fn sql_as_with<T: DeserializeOwned>(
        &self,
        statement: &str,
        extra: &[(&str, &str)],
    ) -> Result<Tuples<T>> {
        let mut params = vec![("stmt".to_string(), statement.to_string())];
        params.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let r = self.tuples(self.form_post("sql", params)).await;
        self.observed(Method::POST, "sql", r)
    }

    /// A streamed call's result, with the one `solr.error` event of a call that fails
    /// ([`crate::observe`]): before handing out a tuple, or at the first error its tuples
    /// yield (an `EXCEPTION` tuple, a body cut short). A shard's replica replaced by another
    /// before its first tuple is not a failed call.
    fn observed<T>(
        &self,
        method: Method,
        handler: &str,
        r: Result<Tuples<T>>,
    ) -> Result<Tuples<T>> {
        let path = format!("{}/{handler}", self.collection());
        match r {
            Ok(t) => Ok(t.of_call(method, path)),
            Err(e) => {
                crate::observe::stream_failed(&method, &path, &e);
                Err(e)
            }
        }
    }

    /// A form POST to `handler` of the client's collection (expressions and statements can
    /// be longer than a URL).
    fn form_post(&self, handler: &str, params: Vec<(String, String)>) -> WireRequest {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params.iter())
            .finish();
        let mut req = self.wire(Method::POST, handler, Vec::new(), RequestKind::Read);
        req.headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-www-form-urlencoded"),
        );
        req.body = bytes::Bytes::from(body);
        req
    }

    /// Sends `req` for a streamed answer: a success is its tuples; an error status is the
    /// typed error (Solr's EXCEPTION tuple, its error body, or the unexpected answer).
    async fn tuples<T: DeserializeOwned>(&self, req: WireRequest) -> Result<Tuples<T>> {
        let (node, path, limit) = (req.node.clone(), req.path.clone(), req.max_response_bytes);
        let resp = self.send_streaming(req).await?;
        if resp.status.is_success() {
            reject_encoded(&resp)?;
            return Ok(Tuples::new(resp.body, resp.status.as_u16(), limit));
        }
        Err(crate::hint::not_found(
            error_answer(resp, limit).await,
            &node,
            &path,
        ))
    }
}

/// The error an answer with an error status stands for.
async fn error_answer(resp: StreamingResponse, limit: u64) -> Error {
    let whole = match resp.into_buffered(limit).await {
        Ok(w) => w,
        Err(e) => return e,
    };
    let (status, node) = (whole.status.as_u16(), whole.timing.node.clone());
    let body = crate::transport::BodyStream::whole(whole.body.clone(), whole.timing.clone());
    let mut tuples = Tuples::<serde::de::IgnoredAny>::new(body, status, limit);
    use futures::StreamExt;
    while let Some(item) = tuples.next().await {
        if let Err(e @ Error::Solr { .. }) = item {
            return e;
        }
    }
    match crate::response::decode::<serde::de::IgnoredAny>(whole, "tuple stream") {
        Err(e) => e,
        Ok(_) => Error::UnexpectedResponse {
            node: node.into(),
            status,
            content_type: None,
            snippet: Default::default(),
        },
    }
}

/// An [`Error::Decompress`] when the body still carries a `Content-Encoding` (gzip off).
fn reject_encoded(resp: &StreamingResponse) -> Result<()> {
    let enc = resp
        .headers
        .get(http::header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok());
    crate::codec::reject_encoding(enc, &resp.timing().node)
}

#[cfg(test)]
mod tests {
    use super::Export;

    /// An export asks for unindented JSON, after its own parameters in order.
    #[test]
    fn export_params_ask_for_unindented_json() {
        let p = Export::new("*:*")
            .fq("category:jvm")
            .fl("id,price")
            .sort("id desc")
            .params();
        let p: Vec<(&str, &str)> = p.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            p,
            [
                ("q", "*:*"),
                ("fq", "category:jvm"),
                ("fl", "id,price"),
                ("sort", "id desc"),
                ("wt", "json"),
                ("indent", "off"),
            ]
        );
    }
}
