//! N searches against a local Solr through one path, for `scripts/instructions.sh`, which
//! runs this binary under callgrind at two values of N and divides the difference of the
//! instruction counts by the difference of the searches: the client's instructions per
//! search, whatever the process start, the connection and the warm-up cost.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr COLLECTION=bench \
//!     cargo bench -p solr-client --bench instructions -- pooled 200
//! ```
//!
//! The paths (first argument):
//! - `seed`: indexes the documents the searches find (`DOCS`, default 2000) and commits.
//! - `pooled`: [`SolrClient::select`] on the pooled transport (untyped documents).
//! - `raw`: the same requests on one hyper HTTP/1.1 keep-alive connection, the body decoded
//!   into a `serde_json::Value` (the equal-work loop of `pooled`).
//! - `typed`: [`SolrClient::select_as`] into a small struct on the pooled transport.
//! - `raw-typed`: the raw loop, the body decoded by `serde_json` into the envelope `typed`
//!   returns (`SelectResponse<Hit>`).
//!
//! The raw loops send the very path and query the client would (from
//! [`SolrClient::select_request`], built before the searches, as `transport-bench baseline`
//! does); the client builds each request from its [`Select`]. Both cycle over the same 16
//! searches (`body:` words, some with a `category` filter, 10 rows). `WARMUP` (default 20)
//! searches run before the N counted ones. A failed search exits with status 1; without
//! `SOLR_URL` it says so and does nothing.

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use solr_client::{Commit, Select, SelectResponse, SolrClient, TransportKind};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The fields the typed searches decode (the bench schema's).
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read by serde; only the decoding is measured
struct Hit {
    id: String,
    title: Option<String>,
    body: Option<String>,
    category: Option<String>,
    price: Option<f64>,
    popularity: Option<i64>,
}

const WORDS: [&str; 12] = [
    "solr",
    "lucene",
    "latency",
    "network",
    "handshake",
    "keepalive",
    "socket",
    "buffer",
    "shard",
    "replica",
    "cache",
    "query",
];
const CATEGORIES: [&str; 4] = ["books", "music", "film", "games"];

/// The 16 searches every path cycles over.
fn searches() -> Vec<Select> {
    (0..16)
        .map(|i| {
            let s = Select::new(format!(
                "body:({} {})",
                WORDS[i % WORDS.len()],
                WORDS[(i * 5 + 3) % WORDS.len()]
            ))
            .rows(10);
            if i % 3 == 0 {
                s.fq(format!("category:{}", CATEGORIES[i % CATEGORIES.len()]))
            } else {
                s
            }
        })
        .collect()
}

/// One raw hyper HTTP/1.1 keep-alive connection.
struct Raw {
    sender: hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    host: String,
}

impl Raw {
    async fn connect(base: &url::Url) -> Result<Raw> {
        let host = base.host_str().ok_or("SOLR_URL has no host")?.to_string();
        let port = base.port_or_known_default().unwrap_or(80);
        let stream = tokio::net::TcpStream::connect((host.as_str(), port)).await?;
        stream.set_nodelay(true)?;
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(conn);
        Ok(Raw {
            sender,
            host: format!("{host}:{port}"),
        })
    }

    /// GETs `uri` and decodes the body into a `Value` or, `typed`, into the typed envelope.
    async fn get(&mut self, uri: &str, typed: bool) -> Result<()> {
        let req = hyper::Request::get(uri)
            .header(hyper::header::HOST, &self.host)
            .body(Empty::<Bytes>::new())?;
        self.sender.ready().await?;
        let resp = self.sender.send_request(req).await?;
        if resp.status() != hyper::StatusCode::OK {
            return Err(format!("HTTP {}", resp.status()).into());
        }
        let body = resp.into_body().collect().await?.to_bytes();
        if typed {
            let v: SelectResponse<Hit> = serde_json::from_slice(&body)?;
            std::hint::black_box(&v);
        } else {
            let v: serde_json::Value = serde_json::from_slice(&body)?;
            std::hint::black_box(&v);
        }
        Ok(())
    }
}

/// The path and query of `s` as the client sends it.
fn raw_uri(client: &SolrClient, s: &Select) -> String {
    let req = client.select_request(s);
    let mut base = client.node().clone();
    let path = format!("{}/{}", base.path().trim_end_matches('/'), req.path);
    base.set_path(&path);
    base.query_pairs_mut()
        .clear()
        .extend_pairs(req.query.iter());
    match base.query() {
        Some(q) => format!("{}?{q}", base.path()),
        None => base.path().to_string(),
    }
}

/// Indexes `docs` documents whose bodies hold the searched words, and commits.
async fn seed(client: &SolrClient, docs: usize) -> Result<()> {
    let batch: Vec<serde_json::Value> = (0..docs)
        .map(|i| {
            let body: Vec<&str> = (0..30)
                .map(|k| WORDS[(i * 7 + k * 3) % WORDS.len()])
                .collect();
            serde_json::json!({
                "id": format!("instructions-{i}"),
                "title": format!("{} {}", WORDS[i % WORDS.len()], WORDS[(i / 3) % WORDS.len()]),
                "body": body.join(" "),
                "category": CATEGORIES[i % CATEGORIES.len()],
                "price": (i % 1000) as f64 / 4.0 + 0.25,
                "popularity": (i * 7919) % 1000,
            })
        })
        .collect();
    client.add(&batch).await?;
    client.commit(Commit::default()).await?;
    Ok(())
}

/// Runs `n` searches of `mode` after `warmup` ones.
async fn run(mode: &str, n: usize, warmup: usize, url: &str, collection: &str) -> Result<()> {
    let client = SolrClient::builder(url)
        .collection(collection)
        .transport(TransportKind::Pooled)
        .build()?;
    let searches = searches();
    match mode {
        "seed" => {
            let docs = std::env::var("DOCS").map_or(Ok(2000), |d| d.parse())?;
            return seed(&client, docs).await;
        }
        "pooled" | "typed" => {
            let typed = mode == "typed";
            for s in searches.iter().cycle().take(warmup + n) {
                if typed {
                    std::hint::black_box(client.select_as::<Hit>(s).await?);
                } else {
                    std::hint::black_box(client.select(s).await?);
                }
            }
        }
        "raw" | "raw-typed" => {
            let typed = mode == "raw-typed";
            let uris: Vec<String> = searches.iter().map(|s| raw_uri(&client, s)).collect();
            let mut raw = Raw::connect(client.node()).await?;
            for uri in uris.iter().cycle().take(warmup + n) {
                raw.get(uri, typed).await?;
            }
        }
        other => {
            return Err(
                format!("unknown path {other:?}: seed, pooled, raw, typed or raw-typed").into(),
            )
        }
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("SOLR_URL") else {
        println!("instructions: set SOLR_URL (scripts/instructions.sh does)");
        return;
    };
    let collection = std::env::var("COLLECTION").unwrap_or_else(|_| "bench".into());
    // `cargo bench` passes `--bench`: skip flags.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let mode = args.first().map_or("pooled", String::as_str);
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let warmup: usize = std::env::var("WARMUP")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(20);
    if let Err(e) = run(mode, n, warmup, &url, &collection).await {
        eprintln!("instructions: {mode}: {e}");
        std::process::exit(1);
    }
    println!("instructions: {mode} {n} searches ok");
}
