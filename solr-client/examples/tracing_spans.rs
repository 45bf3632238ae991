//! Print the client's `tracing` spans with `tracing-subscriber`'s fmt output: one
//! `solr.request` span per call and one `solr.attempt` span per HTTP exchange, with the
//! node, path, status, whether the connection was reused, QTime and every phase in ms.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --features tracing --example tracing_spans
//! ```

use solr_client::{Select, SolrClient, TransportKind};
use tracing_subscriber::fmt::format::FmtSpan;

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    if !cfg!(feature = "tracing") {
        println!("built without the `tracing` feature: no spans; run with --features tracing");
    }
    // A span's fields are printed when it closes, once every field is recorded.
    tracing_subscriber::fmt()
        .with_max_level(tracing_subscriber::filter::LevelFilter::DEBUG)
        .with_span_events(FmtSpan::CLOSE)
        .with_target(false)
        .init();

    let url = std::env::var("SOLR_URL").unwrap_or_else(|_| "http://127.0.0.1:8983/solr".into());
    let client = SolrClient::builder(&url)
        .collection("bench")
        .transport(TransportKind::Pooled)
        .build()?;
    // The first search opens a connection (dns_ms, connect_ms); the second reuses it.
    for _ in 0..2 {
        client.select(&Select::new("*:*").rows(1)).await?;
    }
    // A core that does not exist: a 404 attempt, and the typed error with its hint.
    let wrong = SolrClient::builder(&url)
        .collection("no_such_core")
        .build()?;
    if let Err(e) = wrong.select(&Select::new("*:*")).await {
        println!("{e}");
    }
    Ok(())
}
