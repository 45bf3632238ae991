//! The `reqwest` transport, like `pooled`, resends an idempotent read once when the server
//! closed the (pooled) connection after reading the request without answering; a write in
//! the same situation is returned as possibly sent. (`pooled` is covered in `faults`,
//! `http2` in `h2_faults`; the scenario itself is [`crate::support::lost_reply`].)

use serde_json::json;
use solr_client::{SolrClient, TransportKind};

use crate::support::fault_server::{FaultServer, SELECT_OK, UPDATE_OK};
use crate::support::{self, lost_reply};

fn reqwest_client(url: &str) -> SolrClient {
    SolrClient::builder(url)
        .collection("bench")
        .transport(TransportKind::Reqwest)
        .build()
        .expect("client")
}

#[tokio::test]
async fn reqwest_request_lost_to_a_closing_connection_read_retried_write_reported() {
    let _g = support::shared().await;
    let srv = FaultServer::start(lost_reply::script(SELECT_OK)).await;
    lost_reply::read_resent(&srv, &reqwest_client(&srv.url())).await;
    let srv = FaultServer::start(lost_reply::script(UPDATE_OK)).await;
    let docs = [json!({"id": "x1"})];
    lost_reply::write_reported(&srv, &reqwest_client(&srv.url()), &docs).await;
}
