//! Searches: ping, select (untyped and typed), kNN and real-time get.

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::Method;
use serde::de::DeserializeOwned;

use super::send::with_qtime;
use super::SolrClient;
use crate::codec::ResponseFormat;
use crate::error::Result;
use crate::request::{Knn, Select};
use crate::response::{decode, decode_as, Document, PingResponse, SelectResponse};
use crate::timing::Timing;
use crate::transport::{RequestKind, WireRequest};

impl SolrClient {
    /// `admin/ping`: Solr's health check for the collection.
    pub async fn ping(&self) -> Result<PingResponse> {
        let req = self.wire(
            Method::GET,
            "admin/ping",
            vec![("wt".into(), "json".into())],
            RequestKind::Admin,
        );
        let (mut r, timing): (PingResponse, Timing) = self
            .exchange(
                req,
                |w| decode(w, "ping response"),
                |r: &PingResponse| r.header.qtime,
            )
            .await?;
        r.timing = with_qtime(timing, r.header.qtime);
        Ok(r)
    }

    /// Runs a search; the hits come back as untyped [`Document`]s. See [`Self::select_as`].
    pub async fn select(&self, s: &Select) -> Result<SelectResponse> {
        self.select_as::<Document>(s).await
    }

    /// Runs a search and decodes the hits (and the documents of grouped, expanded and
    /// MoreLikeThis sections) straight from the response bytes into `T`, with no
    /// intermediate JSON tree per document (with `wt=json`, the default
    /// [`ResponseFormat`], and with `wt=javabin`; XML and CBOR are read into a tree first). With an `fl` subset, make the fields not
    /// selected `Option`s (or `#[serde(default)]`).
    ///
    /// ```no_run
    /// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
    /// #[derive(serde::Deserialize)]
    /// struct Book { id: String, title: Option<String>, price: Option<f64> }
    /// let r = client
    ///     .select_as::<Book>(&solr_client::Select::new("*:*").fl("id,price"))
    ///     .await?;
    /// for b in r.docs() {
    ///     println!("{} {:?}", b.id, b.price);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn select_as<T: DeserializeOwned>(&self, s: &Select) -> Result<SelectResponse<T>> {
        self.search_as(self.select_request(s), "select response")
            .await
    }

    /// Sends a search and decodes its answer into a [`SelectResponse`] of `T` (named `what`
    /// in errors), its timing carrying Solr's QTime: [`Self::select_as`] and
    /// [`Self::query_json`].
    // `exchange` hands its reader a reference to the decoded value, here a box.
    #[allow(clippy::borrowed_box)]
    pub(crate) async fn search_as<T: DeserializeOwned>(
        &self,
        req: WireRequest,
        what: &'static str,
    ) -> Result<SelectResponse<T>> {
        let format = self.response_format;
        // Boxed from the decode to here: the envelope (hundreds of bytes) is moved through
        // the call's futures and results as a pointer, and copied out once at the end.
        let (mut r, timing): (Box<SelectResponse<T>>, Timing) = self
            .exchange(
                req,
                |w| decode_as(w, what, format),
                |r: &Box<SelectResponse<T>>| r.header.qtime,
            )
            .await?;
        r.timing = with_qtime(timing, r.header.qtime);
        Ok(*r)
    }

    /// The wire request [`Self::select`] sends for `s` (its handler, collection, GET or
    /// POST), for callers that want the raw answer ([`Self::send_raw`]).
    pub fn select_request(&self, s: &Select) -> WireRequest {
        let mut params = s.params();
        if self.response_format != ResponseFormat::Json {
            params.retain(|(k, _)| k != "wt");
            params.push(("wt".into(), self.response_format.as_str().into()));
        }
        let handler = s.handler_path();
        let mut req = if s.post || over_get_limit(&params) {
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(params.iter())
                .finish();
            let mut req = self.wire(Method::POST, handler, Vec::new(), RequestKind::Read);
            req.headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_static("application/x-www-form-urlencoded"),
            );
            req.body = Bytes::from(body);
            req
        } else {
            self.wire(Method::GET, handler, params, RequestKind::Read)
        };
        if let Some(c) = &s.more.collection {
            req.path = format!("{c}/{}", handler.trim_start_matches('/'));
        }
        req
    }

    /// Runs a kNN search.
    pub async fn knn(&self, k: &Knn) -> Result<SelectResponse> {
        self.select(&k.to_select()).await
    }

    /// Runs a kNN search and decodes the hits straight into `T`, as [`Self::select_as`].
    pub async fn knn_as<T: DeserializeOwned>(&self, k: &Knn) -> Result<SelectResponse<T>> {
        self.select_as::<T>(&k.to_select()).await
    }
}

/// True when `params`, form-encoded as a query string, would be longer than
/// [`MAX_GET_QUERY_BYTES`](crate::request::MAX_GET_QUERY_BYTES). Encoding makes a byte at
/// most three (`%XX`), so a query whose raw bytes, times three, fit is short enough without
/// encoding it here (the transport encodes it once, as it writes the request line); only
/// a query near the limit is measured exactly.
fn over_get_limit(params: &[(String, String)]) -> bool {
    let limit = crate::request::MAX_GET_QUERY_BYTES;
    let raw: usize = params.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
    if raw.saturating_mul(3) <= limit {
        return false;
    }
    encoded_len(params) > limit
}

/// The length of `params` as a form-encoded query string, without building it.
fn encoded_len(params: &[(String, String)]) -> usize {
    let len = |s: &str| {
        url::form_urlencoded::byte_serialize(s.as_bytes())
            .map(str::len)
            .sum::<usize>()
    };
    params
        .iter()
        .map(|(k, v)| len(k) + len(v) + 2)
        .sum::<usize>()
        .saturating_sub(1)
}

/// Real-time get (`/get`), built by [`Get`](crate::request::Get).
impl SolrClient {
    /// Real-time get of documents by id, decoded into `T` (in the client's response
    /// format). An empty id list sends nothing.
    pub async fn get<T: DeserializeOwned>(
        &self,
        get: &crate::request::Get,
    ) -> Result<crate::request::GetResponse<T>> {
        if get.ids.is_empty() {
            return Ok(crate::request::GetResponse {
                docs: Vec::new(),
                num_found: 0,
                timing: Timing::default(),
            });
        }
        let mut params = get.params();
        params.push(("wt".into(), self.response_format.as_str().into()));
        let req = self.wire(Method::GET, "get", params, RequestKind::Read);
        let format = self.response_format;
        let (raw, timing): (crate::request::GetRaw<T>, Timing) = self
            .exchange(
                req,
                |w| decode_as(w, "real-time get response", format),
                |_| None,
            )
            .await?;
        Ok(crate::request::GetResponse {
            docs: raw.response.docs,
            num_found: raw.response.num_found,
            timing,
        })
    }
}
