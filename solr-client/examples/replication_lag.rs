//! Replication lag of a standalone leader/follower pair: the time from an acknowledged
//! add + commit on the leader to the document's first appearance in a search on the follower,
//! written and read through the routing decorator (writes to the leader, reads to the
//! follower).
//!
//! ```text
//! local-solr/solr.sh start pair --name lag --poll-interval 5
//! LEADER_URL=http://127.0.0.1:PORT1/solr FOLLOWER_URL=http://127.0.0.1:PORT2/solr SOLR_COLLECTION=bench \
//!     PROBES=5 POLL_SECS=5 cargo run -p solr-client --example replication_lag
//! ```
//! Probe starts are staggered over one poll interval: a probe started right after the
//! previous one was seen starts right after a poll and would always wait a whole interval.
//! Leader/follower replication is configured in solrconfig.xml (`/replication`'s leader and
//! follower sections), which Solr's `_default` configset lacks: this example needs a pair
//! whose configset has them, such as local-solr's `bench` (core `bench`).

#[path = "common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use solr_client::transport::{ReadPreference, Routing};
use solr_client::{escape_query, Commit, Select, SolrClient, TransportKind};

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let leader = env("LEADER_URL", "http://127.0.0.1:8983/solr");
    let follower = env("FOLLOWER_URL", "http://127.0.0.1:8984/solr");
    let probes: u32 = env("PROBES", "5").parse().unwrap_or(5).max(1);
    let poll = Duration::from_secs_f64(env("POLL_SECS", "5").parse().unwrap_or(5.0));
    let inner = TransportKind::Pooled.build(&Default::default(), false)?;
    let router = Arc::new(
        Routing::builder(inner)
            .collection(common::collection())
            .leader(&leader)
            .replica(&follower)
            .read_preference(ReadPreference::Node(follower.clone()))
            .build()?,
    );
    let client = SolrClient::builder(&leader)
        .collection(common::collection())
        .custom_transport(router.clone())
        .build()?;
    let run = std::process::id();
    let mut lags = Vec::new();
    for i in 0..probes {
        tokio::time::sleep(poll * i / probes).await;
        let id = format!("replication-lag-{run}-{i}");
        client
            .add(&[json!({ "id": id, "tag_s": "replication_lag" })])
            .await?;
        client.commit(Commit::default()).await?;
        let acked = Instant::now();
        let q = Select::new(format!("id:{}", escape_query(&id))).rows(0);
        let lag = loop {
            let r = client.select(&q).await?;
            if r.num_found() > 0 {
                break Some(acked.elapsed());
            }
            if acked.elapsed() > poll * 10 + Duration::from_secs(30) {
                break None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        match lag {
            Some(l) => println!("probe {i}: seen on the follower after {l:?}"),
            None => println!("probe {i}: NOT seen on the follower"),
        }
        lags.push(lag);
    }
    let seen: Vec<Duration> = lags.iter().flatten().copied().collect();
    if !seen.is_empty() {
        let mean = seen.iter().sum::<Duration>() / seen.len() as u32;
        let max = seen.iter().max().copied().unwrap_or_default();
        println!(
            "replication lag over {} of {probes} probes (poll interval {poll:?}): mean {mean:?}, max {max:?}",
            seen.len()
        );
    }
    for s in router.node_stats() {
        println!("{}: {} writes, {} reads", s.node, s.writes, s.reads);
    }
    if seen.len() as u32 != probes {
        eprintln!("some probes never reached the follower");
        std::process::exit(1);
    }
    Ok(())
}
