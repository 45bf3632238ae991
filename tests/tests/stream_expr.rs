//! Streaming expressions built with `solr_client::expr`, sent to the `/stream` handler of
//! the local SolrCloud (collection `bench`, 2 shards x 2 replicas): Solr parses every one
//! (no EXCEPTION tuple, an EOF tuple at the end) and answers the exact counts the indexed
//! documents give, across both shards. Hostile query text (commas, parentheses, quotes,
//! backslashes) reaches Solr exactly: a `{!term}` search for one such id finds that document
//! alone; an escaped quote, which Solr's parser cannot pass on, is refused unsent.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use solr_client::expr::{self, BucketSort, Metric, On, Selection, Sort};
use solr_client::transport::RequestKind;
use solr_client::{escape_query, Commit, Error, Method, SolrClient};

use crate::support;

#[derive(Serialize)]
struct Doc {
    id: String,
    tag_s: String,
    grp_s: String,
    n_i: i64,
}

const N: i64 = 30;
const HOSTILE: [&str; 4] = [
    r#"a,b(c)"#,
    r#"q"uote"#,
    r#"back\slash\\"quote"#,
    r#"it's (x, y) = "z""#,
];

/// The tuples Solr answers for `expr`, its EOF tuple checked and removed; panics on an
/// EXCEPTION tuple (Solr could not parse or run the expression).
async fn run(client: &SolrClient, expr: &expr::Expr) -> Vec<Value> {
    let q = vec![("expr".to_string(), expr.to_string())];
    let req = client.wire(Method::POST, "stream", q, RequestKind::Read);
    let resp = client.send_raw(req).await.expect("/stream answers");
    let body: Value = serde_json::from_slice(&resp.body).expect("JSON tuples");
    let mut docs = body["result-set"]["docs"]
        .as_array()
        .expect("result-set.docs")
        .clone();
    for d in &docs {
        assert!(d.get("EXCEPTION").is_none(), "{expr}\n→ {d}");
    }
    let eof = docs.pop().expect("at least the EOF tuple");
    assert_eq!(eof["EOF"], Value::Bool(true), "{expr}: last tuple {eof}");
    docs
}

async fn index(client: &SolrClient, tag: &str) -> Vec<Doc> {
    let mut docs: Vec<Doc> = (0..N)
        .map(|i| Doc {
            id: format!("{tag}-{i:02}"),
            tag_s: tag.to_string(),
            grp_s: ["a", "b", "c"][(i % 3) as usize].to_string(),
            n_i: i,
        })
        .collect();
    for (i, h) in HOSTILE.iter().enumerate() {
        docs.push(Doc {
            id: format!("{tag}-h{i}-{h}"),
            tag_s: format!("{tag}-hostile"),
            grp_s: (*h).to_string(),
            n_i: 1000 + i as i64,
        });
    }
    client.add(&docs).await.expect("add");
    client.commit(Commit::default()).await.expect("commit");
    docs
}

fn by_tag(tag: &str) -> expr::Search {
    expr::search("bench")
        .q("*:*")
        .fq(format!("tag_s:{tag}"))
        .fl(["id", "grp_s", "n_i"])
        .qt("/export")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_expressions_parse_and_count_exactly_across_shards() {
    let _g = support::shared().await;
    let url = support::cloud2x2().url(None).expect("url").to_string();
    let client = SolrClient::builder(&url)
        .collection("bench")
        .build()
        .unwrap();
    let tag = support::tag("stream-expr");
    index(&client, &tag).await;
    let sorted = |s: Sort| by_tag(&tag).sort([s]);

    let all = run(&client, &sorted(Sort::asc("id")).build().unwrap()).await;
    assert_eq!(all.len(), N as usize);

    let stats = expr::stats("bench")
        .q(format!("tag_s:{tag}"))
        .metric(Metric::count())
        .metric(Metric::sum("n_i"))
        .metric(Metric::min("n_i"))
        .metric(Metric::max("n_i"))
        .build()
        .unwrap();
    let st = &run(&client, &stats).await[0];
    assert_eq!(st["count(*)"].as_i64(), Some(N));
    assert_eq!(st["sum(n_i)"].as_f64(), Some((N * (N - 1) / 2) as f64));
    assert_eq!(
        (st["min(n_i)"].as_f64(), st["max(n_i)"].as_f64()),
        (Some(0.0), Some((N - 1) as f64))
    );

    let facet = expr::facet("bench", ["grp_s"])
        .q(format!("tag_s:{tag}"))
        .bucket_sorts([BucketSort::asc(Metric::count())])
        .bucket_size_limit(10)
        .metric(Metric::count())
        .build()
        .unwrap();
    let buckets = run(&client, &facet).await;
    let counts: Vec<_> = buckets.iter().map(|b| b["count(*)"].as_i64()).collect();
    assert_eq!(counts, vec![Some(N / 3); 3]);

    let rollup = expr::rollup(sorted(Sort::asc("grp_s")), ["grp_s"])
        .metric(Metric::sum("n_i"))
        .metric(Metric::count())
        .build()
        .unwrap();
    let groups: BTreeMap<String, (f64, i64)> = run(&client, &rollup)
        .await
        .iter()
        .map(|t| {
            let g = t["grp_s"].as_str().unwrap().to_string();
            (
                g,
                (
                    t["sum(n_i)"].as_f64().unwrap(),
                    t["count(*)"].as_i64().unwrap(),
                ),
            )
        })
        .collect();
    let want: BTreeMap<String, (f64, i64)> = ["a", "b", "c"]
        .iter()
        .enumerate()
        .map(|(r, g)| {
            let sum = (0..N).filter(|i| i % 3 == r as i64).sum::<i64>();
            (g.to_string(), (sum as f64, N / 3))
        })
        .collect();
    assert_eq!(groups, want);

    let top = expr::top(4, sorted(Sort::asc("id")), [Sort::desc("n_i")])
        .build()
        .unwrap();
    let ns: Vec<_> = run(&client, &top)
        .await
        .iter()
        .map(|t| t["n_i"].as_i64())
        .collect();
    assert_eq!(ns, vec![Some(N - 1), Some(N - 2), Some(N - 3), Some(N - 4)]);

    let unique = expr::unique(sorted(Sort::asc("grp_s")), ["grp_s"])
        .build()
        .unwrap();
    assert_eq!(run(&client, &unique).await.len(), 3);

    let half = |q: &str| by_tag(&tag).fq(q).sort([Sort::asc("n_i")]);
    let merge = expr::merge(
        [half("n_i:[0 TO 9]"), half("n_i:[10 TO *]")],
        [Sort::asc("n_i")],
    );
    let merged: Vec<_> = run(&client, &merge.build().unwrap())
        .await
        .iter()
        .map(|t| t["n_i"].as_i64().unwrap())
        .collect();
    assert_eq!(merged, (0..N).collect::<Vec<_>>());

    let join = expr::inner_join(
        sorted(Sort::asc("id")),
        sorted(Sort::asc("id")),
        On::field("id"),
    );
    assert_eq!(run(&client, &join.build().unwrap()).await.len(), N as usize);
    let hash = expr::hash_join(
        sorted(Sort::asc("id")),
        by_tag(&tag).sort([Sort::asc("n_i")]),
        On::field("id"),
    );
    assert_eq!(run(&client, &hash.build().unwrap()).await.len(), N as usize);

    let select = expr::select(
        sorted(Sort::asc("id")),
        [Selection::field("id"), Selection::rename("n_i", "number")],
    );
    let picked = run(&client, &select.build().unwrap()).await;
    assert_eq!(picked.len(), N as usize);
    assert!(picked
        .iter()
        .all(|t| t.get("number").is_some() && t.get("n_i").is_none()));

    let update = expr::update("bench", 7, sorted(Sort::asc("id")))
        .build()
        .unwrap();
    let indexed: i64 = run(&client, &update)
        .await
        .iter()
        .map(|t| t["batchIndexed"].as_i64().unwrap_or(0))
        .sum();
    assert_eq!(indexed, N);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_query_text_reaches_solr_exactly() {
    let _g = support::shared().await;
    let url = support::cloud2x2().url(None).expect("url").to_string();
    let client = SolrClient::builder(&url)
        .collection("bench")
        .build()
        .unwrap();
    let tag = support::tag("stream-hostile");
    let docs = index(&client, &tag).await;
    for d in docs.iter().filter(|d| d.n_i >= 1000) {
        let by_id = expr::search("bench")
            .q(format!("{{!term f=id}}{}", d.id))
            .fl(["id", "grp_s"])
            .sort([Sort::asc("id")])
            .qt("/export")
            .build()
            .unwrap();
        let found = run(&client, &by_id).await;
        assert_eq!(found.len(), 1, "{by_id}");
        assert_eq!(found[0]["id"].as_str(), Some(d.id.as_str()));
        let by_group = expr::stats("bench")
            .q(format!("{{!term f=grp_s}}{}", d.grp_s))
            .fq(format!("tag_s:{tag}-hostile"))
            .metric(Metric::count())
            .build()
            .unwrap();
        assert_eq!(
            run(&client, &by_group).await[0]["count(*)"].as_i64(),
            Some(1),
            "{by_group}"
        );
    }
    let escaped = expr::search("bench").q(format!("id:{}", escape_query(&docs[N as usize + 1].id)));
    assert!(matches!(escaped.build(), Err(Error::InvalidInput(_))));
}
