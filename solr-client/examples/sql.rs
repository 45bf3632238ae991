//! Parallel SQL on `/sql` as a typed row stream, checked against the same data through
//! `select`. `/sql` needs SolrCloud and Solr's `sql` module: on a Solr without it (this
//! project's local launcher has no `solr-sql` artifact), the answer is a typed
//! [`Error::Solr`] naming the missing handler, which this example checks instead. Exits with
//! status 1 when an answer differs from what was indexed.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr cargo run -p solr-client --example sql
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use check::{check, check_eq};
use futures::TryStreamExt;
use serde::Deserialize;
use solr_client::{Error, Select};

#[derive(Debug, Deserialize, PartialEq)]
struct Row {
    id: String,
    popularity: i64,
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let tag = "example-sql";
    common::numbered(&client, tag, 10, 0).await?;

    let stmt = format!(
        "SELECT id, popularity FROM bench WHERE tag_s = '{tag}' AND popularity < 4 \
         ORDER BY popularity ASC LIMIT 10"
    );
    match client.sql_as::<Row>(&stmt).await {
        Ok(rows) => {
            let rows: Vec<Row> = rows.try_collect().await?;
            for r in &rows {
                println!("{} {}", r.id, r.popularity);
            }
            let select = Select::new(format!("tag_s:{tag} AND popularity:[* TO 3]"))
                .fl("id,popularity")
                .sort("popularity asc");
            let want = client.select_as::<Row>(&select).await?.into_docs();
            check_eq("rows through /sql and through select", rows, want);
        }
        Err(Error::Solr { status, body, .. }) if body.msg.contains("SQLHandler") => {
            println!(
                "this Solr has no sql module: Solr {status}: {}",
                body.msg.trim()
            );
            check_eq("status", status, 500);
        }
        Err(e) => check(
            false,
            &format!("rows, or the typed missing-module error: {e}"),
        ),
    }
    Ok(())
}
