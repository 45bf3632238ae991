//! [`SolrClient::query_json`]: a search in the JSON Request API, its JSON body POSTed to the
//! collection's `/query` handler, answered as a [`SelectResponse`].

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::Method;
use serde::de::DeserializeOwned;

use crate::codec::ResponseFormat;
use crate::error::Result;
use crate::request::JsonQuery;
use crate::response::SelectResponse;
use crate::transport::{RequestKind, WireRequest};
use crate::SolrClient;

impl SolrClient {
    /// Runs a search given in the JSON Request API ([`JsonQuery`]) and decodes the hits
    /// straight into `T`, with every section typed as for [`Self::select_as`]. The body is
    /// JSON whatever the client's [`ResponseFormat`]; the answer comes in that format.
    ///
    /// ```no_run
    /// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
    /// use solr_client::request::{JsonFacet, JsonQuery};
    /// #[derive(serde::Deserialize)]
    /// struct Book { id: String }
    /// let q = JsonQuery::new("*:*").filter("category:a").limit(3)
    ///     .facet("cats", JsonFacet::terms("category"));
    /// let r = client.query_json::<Book>(&q).await?;
    /// println!("{} hits, first {:?}", r.num_found(), r.docs().first().map(|b| &b.id));
    /// # Ok(()) }
    /// ```
    pub async fn query_json<T: DeserializeOwned>(
        &self,
        q: &JsonQuery,
    ) -> Result<SelectResponse<T>> {
        self.search_as(self.query_json_request(q), "query response")
            .await
    }

    /// The wire request [`Self::query_json`] sends: a POST of the JSON body to the
    /// collection's handler, `wt` in the query string when the client reads another format.
    pub fn query_json_request(&self, q: &JsonQuery) -> WireRequest {
        let format = self.response_format();
        let params = match format {
            ResponseFormat::Json => Vec::new(),
            other => vec![("wt".to_string(), other.as_str().to_string())],
        };
        let mut req = self.wire(Method::POST, q.handler_path(), params, RequestKind::Read);
        req.headers
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        req.body = Bytes::from(q.body().to_string());
        req
    }
}
