//! The raw hyper keep-alive loop: the baseline's floor, with and without decoding.

use anyhow::{Context, Result};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use solr_client::response::SelectResponse;
use solr_client::{Select, SolrClient};

/// The fields the typed row decodes (the bench schema's).
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read by serde; the bench only measures decoding them
pub(super) struct Hit {
    pub(super) id: String,
    pub(super) title: Option<String>,
    pub(super) body: Option<String>,
    pub(super) category: Option<String>,
    pub(super) price: Option<f64>,
    pub(super) popularity: Option<i64>,
}

/// What the raw loop decodes the body into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RawDecode {
    /// Nothing: the body is read whole.
    None,
    /// A `serde_json::Value` tree.
    Json,
    /// The envelope `select_as::<Hit>` returns.
    Typed,
}

/// The raw loop: one HTTP/1.1 connection driven by hyper.
pub(super) struct RawHyper {
    pub(super) sender: hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    pub(super) host: String,
}

impl RawHyper {
    pub(super) async fn connect(base: &url::Url) -> Result<RawHyper> {
        let host = base.host_str().context("the URL has no host")?.to_string();
        let port = base.port_or_known_default().unwrap_or(80);
        let stream = tokio::net::TcpStream::connect((host.as_str(), port))
            .await
            .with_context(|| format!("raw hyper: cannot connect to {host}:{port}"))?;
        stream.set_nodelay(true)?;
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(conn);
        Ok(RawHyper {
            sender,
            host: format!("{host}:{port}"),
        })
    }

    /// GET `uri` (path and query), the body read whole and decoded as `decode` says; true
    /// on HTTP 200 (and a body that decodes).
    pub(super) async fn get(&mut self, uri: &str, decode: RawDecode) -> Result<bool> {
        let req = hyper::Request::get(uri)
            .header(hyper::header::HOST, &self.host)
            .body(Empty::<Bytes>::new())?;
        self.sender.ready().await?;
        let resp = self.sender.send_request(req).await?;
        let ok = resp.status() == hyper::StatusCode::OK;
        let body = resp.into_body().collect().await?.to_bytes();
        match decode {
            RawDecode::None => {}
            RawDecode::Json => {
                let v: serde_json::Value = serde_json::from_slice(&body)?;
                std::hint::black_box(&v);
            }
            RawDecode::Typed => {
                let v: SelectResponse<Hit> = serde_json::from_slice(&body)?;
                std::hint::black_box(&v);
            }
        }
        std::hint::black_box(body.len());
        Ok(ok)
    }
}

pub(super) enum Runner {
    Raw(RawHyper, RawDecode),
    Client(Box<SolrClient>, bool),
}

impl Runner {
    pub(super) async fn one(&mut self, s: &Select, uri: &str) -> bool {
        match self {
            Runner::Raw(r, decode) => r.get(uri, *decode).await.unwrap_or(false),
            Runner::Client(c, false) => c.select(s).await.is_ok(),
            Runner::Client(c, true) => c.select_as::<Hit>(s).await.is_ok(),
        }
    }
}

/// The path and query of `s` as solr-client sends it, for the raw loop.
pub(super) fn raw_uri(client: &SolrClient, s: &Select) -> String {
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
