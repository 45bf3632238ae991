//! The `reqwest` transport, like `pooled`, resends an idempotent read once when the server
//! closed the (pooled) connection after reading the request without answering; a write in
//! the same situation is returned as possibly sent. (`pooled` is covered in `faults`,
//! `http2` in `h2_faults`; the scenario itself is [`crate::support::lost_reply`].)

use solr_client::{SolrClient, TransportKind};

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
    lost_reply::read_resent(reqwest_client).await;
    lost_reply::write_reported(reqwest_client).await;
}
