//! Print the client's `tracing` spans with `tracing-subscriber`'s fmt output: one
//! `solr.request` span per call and one `solr.attempt` span per HTTP exchange, with the
//! node, path, status, whether the connection was reused, QTime and every phase in ms.
//! Exits with status 1 unless the search on a core that does not exist is `Error::NotFound`.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --features tracing --example tracing_spans
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use solr_client::{Error, Select, SolrClient, TransportKind};
use tracing_subscriber::fmt::format::FmtSpan;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    // Solr and the collection checked before spans are printed.
    common::client().await;
    // A span's fields are printed when it closes, once every field is recorded.
    tracing_subscriber::fmt()
        .with_max_level(tracing_subscriber::filter::LevelFilter::DEBUG)
        .with_span_events(FmtSpan::CLOSE)
        .with_target(false)
        .init();

    let client = common::builder().transport(TransportKind::Pooled).build()?;
    // The first search opens a connection (dns_ms, connect_ms); the second reuses it.
    for _ in 0..2 {
        client.select(&Select::new("*:*").rows(1)).await?;
    }
    // A core that does not exist: a 404 attempt, and the typed error with its hint.
    let wrong = SolrClient::builder(common::solr_url())
        .collection("no_such_core")
        .build()?;
    match wrong.select(&Select::new("*:*")).await {
        Err(e @ Error::NotFound { .. }) => println!("{e}"),
        other => check::check(false, &format!("a missing core is NotFound, got {other:?}")),
    }
    Ok(())
}
