//! One search in every response format (`wt=json`, `xml`, `javabin`, `cbor`): the same
//! documents and QTime, with the bytes on the wire and the decode time of each. Exits with
//! status 1 unless every format decodes the same 20 documents.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --features javabin,cbor --example formats
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use serde_json::json;
use solr_client::{Commit, ResponseFormat, Select};

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let docs: Vec<_> = (0..20)
        .map(|i| {
            json!({"id": format!("example-fmt-{i}"), "title_t": format!("format example {i}"),
                "price_d": 1.5 * i as f64, "ts_dt": "2024-01-02T03:04:05Z"})
        })
        .collect();
    client.add(&docs).await?;
    client.commit(Commit::default()).await?;

    let select = Select::new("id:example-fmt-*").rows(20).sort("id asc");
    let mut first: Option<Vec<_>> = None;
    for f in ResponseFormat::ALL {
        let r = client.with_response_format(f).select(&select).await?;
        check::check_eq(&format!("{f} numFound"), r.num_found(), docs.len() as u64);
        // Every format decodes into the same documents.
        let got = r.docs().to_vec();
        match &first {
            None => first = Some(got),
            Some(want) => check::check_eq(&format!("{f} documents as json's"), &got, want),
        }
        println!(
            "{f:8} numFound {} QTime {:?} ms, {} bytes, decoded in {:?}",
            r.num_found(),
            r.header.qtime,
            r.timing.decoded_bytes,
            r.timing.parse.unwrap_or_default()
        );
    }
    client
        .delete_by_query_with("id:example-fmt-*", Some(1000))
        .await?;
    Ok(())
}
