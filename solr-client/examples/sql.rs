//! Parallel SQL on `/sql` as a typed row stream, checked against the same data through
//! `select`. `/sql` needs SolrCloud and Solr's `sql` module (`SOLR_MODULES=sql`); `_default`
//! needs nothing more (`/sql` is an implicit handler). On a Solr without the module (this
//! project's local launcher: the `solr-sql` jar ships only in Solr's binary distribution),
//! Solr answers a typed [`Error::Solr`] naming the missing SQLHandler: the example prints it
//! and exits with status 3 (not run). Exits with status 1 when an answer differs from what
//! was indexed.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example sql
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
    popularity_i: i64,
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let client = common::client().await;
    let tag = "example-sql";
    common::numbered(&client, tag, 10, 0).await?;

    let stmt = format!(
        "SELECT id, popularity_i FROM {} WHERE tag_s = '{tag}' AND popularity_i < 4 \
         ORDER BY popularity_i ASC LIMIT 10",
        common::collection()
    );
    match client.sql_as::<Row>(&stmt).await {
        Ok(rows) => {
            let rows: Vec<Row> = rows.try_collect().await?;
            for r in &rows {
                println!("{} {}", r.id, r.popularity_i);
            }
            let select = Select::new(format!("tag_s:{tag} AND popularity_i:[* TO 3]"))
                .fl("id,popularity_i")
                .sort("popularity_i asc");
            let want = client.select_as::<Row>(&select).await?.into_docs();
            check_eq("rows through /sql and through select", rows, want);
        }
        Err(Error::Solr { status, body, .. }) if body.msg.contains("SQLHandler") => {
            check::not_run(&format!(
                "this Solr has no sql module (SOLR_MODULES=sql): Solr {status}: {}",
                body.msg.trim()
            ))
        }
        Err(e) => check(
            false,
            &format!("rows, or the typed missing-module error: {e}"),
        ),
    }
    Ok(())
}
