//! A tiny HTTP/1.1 server for the faults real Solr cannot produce on demand: a stall before
//! or after the headers, a response trickled one byte at a time, a reset in the middle of a
//! body, garbage bodies, 429/503 with `Retry-After`, redirects (3xx with a `Location`, e.g.
//! to a second fault server).
//!
//! It binds `127.0.0.1:0` (never a fixed port), plays a script of [`Fault`]s (one per
//! request, in order, over all connections; the last one repeats), counts accepted
//! connections and records every request it read; dropping it stops it (all of which
//! [`super::script_server`] does).

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::script_server::{Script, ScriptServer};

/// A small but valid Solr select response.
pub const SELECT_OK: &str =
    r#"{"responseHeader":{"status":0,"QTime":1},"response":{"numFound":0,"start":0,"docs":[]}}"#;

/// A small but valid Solr update response.
pub const UPDATE_OK: &str = r#"{"responseHeader":{"status":0,"QTime":1}}"#;

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Fault {
    /// 200 with `body` as `application/json`; the connection stays open (keep-alive).
    Ok(&'static str),
    /// 200 with `body`, then the server closes the connection once it has been idle for
    /// the given time (what Jetty's idle timeout does to a pooled connection).
    OkThenCloseIdle(&'static str, Duration),
    /// Reads the request and closes the connection without answering (the server's idle
    /// timeout raced the request: the request was sent, no response comes).
    CloseWithoutReply,
    /// Sends the headers (Content-Length 100) and nothing more, holding the connection open.
    StallAfterHeaders,
    /// Reads the request and never answers, holding the connection open (a node that hangs).
    NoReply,
    /// 200 with `body`, written one byte every `every`: the whole response (status line and
    /// headers included) when `head`, else the head at once and the body byte by byte. With
    /// `stall_after: Some(n)` only the first `n` trickled bytes are sent, then the connection
    /// is held open without another byte.
    Trickle {
        /// The body (`application/json`).
        body: &'static str,
        /// The gap between two bytes.
        every: Duration,
        /// Trickle the head too (else only the body).
        head: bool,
        /// Stop after this many trickled bytes and hold the connection.
        stall_after: Option<usize>,
    },
    /// Sends the headers (Content-Length 10000) and 100 bytes of body, then resets the
    /// connection (SO_LINGER 0 + close sends RST).
    ResetMidBody,
    /// 200 announcing 10 times the length of `body`, then `body` and a reset (a node that
    /// dies in the middle of a streamed answer, e.g. an `/export` cut after some tuples).
    PartialThenReset(&'static str),
    /// `status` with a Solr-like JSON error body and, when given, `Retry-After: seconds`.
    Status(u16, Option<u64>),
    /// 200 `Content-Encoding: gzip` whose body is the first half of a valid gzip stream.
    TruncatedGzip,
    /// 200 `Content-Encoding: gzip` whose body inflates to `n` bytes of JSON whitespace
    /// (a decompression bomb when `n` is above the client's limit).
    GzipOf(usize),
    /// 200 `Content-Encoding: gzip` with this body, already compressed (for bombs too large
    /// to compress on the fly: concatenated gzip members).
    Gzipped(&'static [u8]),
    /// A redirect: `status` (301, 302, 303, 307, 308) with `Location: location` and a small
    /// `text/html` body, as a proxy or load balancer sends. Keep-alive.
    Redirect(u16, String),
    /// 502 with a `text/html` page, as nginx sends when the upstream is down.
    Html502,
    /// 200 `application/json` whose body is not JSON.
    InvalidJson,
    /// 200 `application/json`, valid JSON of the wrong shape for a select.
    WrongShape,
    /// 200 with a body of `n` bytes; `chunked` hides the length (no Content-Length).
    Oversized {
        /// Body length.
        n: usize,
        /// Send with `Transfer-Encoding: chunked` instead of Content-Length.
        chunked: bool,
    },
}

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Which accepted connection (0-based) carried it.
    pub conn: usize,
    /// Request line, e.g. `GET /solr/bench/select?q=... HTTP/1.1`.
    pub line: String,
    /// Header lines as sent (`Name: value`).
    pub headers: Vec<String>,
    /// The body.
    pub body: Vec<u8>,
}

/// The running server. Dropping it stops it.
pub type FaultServer = ScriptServer<Fault, Seen>;

impl FaultServer {
    /// Starts a server on `127.0.0.1:0` playing `script` (must not be empty).
    pub async fn start(script: Vec<Fault>) -> FaultServer {
        ScriptServer::spawn(script, serve).await
    }
}

/// Reads one request (head + Content-Length body). None on EOF or a broken request.
async fn read_request(sock: &mut TcpStream, buf: &mut Vec<u8>, conn: usize) -> Option<Seen> {
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let mut chunk = [0u8; 4096];
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let line = lines.next()?.to_string();
    let headers: Vec<String> = lines.map(str::to_string).collect();
    let len = headers
        .iter()
        .filter_map(|h| h.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let total = head_end + 4 + len;
    while buf.len() < total {
        let mut chunk = [0u8; 4096];
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf[head_end + 4..total].to_vec();
    buf.drain(..total);
    Some(Seen {
        conn,
        line,
        headers,
        body,
    })
}

fn head(status: &str, content_type: &str, extra: &[String], len: Option<usize>) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n");
    for e in extra {
        h.push_str(e);
        h.push_str("\r\n");
    }
    match len {
        Some(n) => h.push_str(&format!("Content-Length: {n}\r\n")),
        None => h.push_str("Transfer-Encoding: chunked\r\n"),
    }
    h.push_str("\r\n");
    h.into_bytes()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    solr_client::transport::gzip_bytes(data)
}

/// What to do with the connection after answering.
enum After {
    KeepAlive,
    CloseWhenIdle(Duration),
    Close,
    Reset,
    Hold,
}

async fn serve(mut sock: TcpStream, conn: usize, st: Arc<Script<Fault, Seen>>) {
    let mut buf = Vec::new();
    while let Some(seen) = read_request(&mut sock, &mut buf, conn).await {
        st.saw(seen);
        let json = "application/json;charset=utf-8";
        let (out, after): (Vec<u8>, After) = match st.next_fault() {
            Fault::Ok(body) => (ok(json, body.as_bytes()), After::KeepAlive),
            Fault::OkThenCloseIdle(body, idle) => {
                (ok(json, body.as_bytes()), After::CloseWhenIdle(idle))
            }
            Fault::CloseWithoutReply => (Vec::new(), After::Close),
            Fault::StallAfterHeaders => (head("200 OK", json, &[], Some(100)), After::Hold),
            Fault::NoReply => (Vec::new(), After::Hold),
            Fault::Trickle {
                body,
                every,
                head: whole,
                stall_after,
            } => {
                let out = ok(json, body.as_bytes());
                let at_once = if whole { 0 } else { out.len() - body.len() };
                if sock.write_all(&out[..at_once]).await.is_err() {
                    return;
                }
                let _ = sock.flush().await;
                let rest = &out[at_once..];
                let n = stall_after.unwrap_or(rest.len()).min(rest.len());
                for b in &rest[..n] {
                    tokio::time::sleep(every).await;
                    if sock.write_all(std::slice::from_ref(b)).await.is_err() {
                        return;
                    }
                    let _ = sock.flush().await;
                }
                let after = if n < rest.len() {
                    After::Hold
                } else {
                    After::KeepAlive
                };
                (Vec::new(), after)
            }
            Fault::ResetMidBody => {
                let mut out = head("200 OK", json, &[], Some(10_000));
                out.extend_from_slice(&[b' '; 100]);
                (out, After::Reset)
            }
            Fault::PartialThenReset(body) => {
                let mut out = head("200 OK", json, &[], Some(body.len() * 10));
                out.extend_from_slice(body.as_bytes());
                (out, After::Reset)
            }
            Fault::Status(code, retry_after) => {
                let reason = match code {
                    429 => "Too Many Requests",
                    503 => "Service Unavailable",
                    _ => "Error",
                };
                let body = format!(
                    r#"{{"responseHeader":{{"status":{code},"QTime":0}},"error":{{"msg":"busy","code":{code}}}}}"#
                );
                let extra: Vec<String> = retry_after
                    .map(|s| format!("Retry-After: {s}"))
                    .into_iter()
                    .collect();
                let mut out = head(&format!("{code} {reason}"), json, &extra, Some(body.len()));
                out.extend_from_slice(body.as_bytes());
                (out, After::KeepAlive)
            }
            Fault::TruncatedGzip => {
                let full = gzip(SELECT_OK.repeat(20).as_bytes());
                let cut = &full[..full.len() / 2];
                let extra = ["Content-Encoding: gzip".to_string()];
                let mut out = head("200 OK", json, &extra, Some(cut.len()));
                out.extend_from_slice(cut);
                (out, After::KeepAlive)
            }
            Fault::GzipOf(n) => {
                let z = gzip(&vec![b' '; n]);
                let extra = ["Content-Encoding: gzip".to_string()];
                let mut out = head("200 OK", json, &extra, Some(z.len()));
                out.extend_from_slice(&z);
                (out, After::KeepAlive)
            }
            Fault::Gzipped(z) => {
                let extra = ["Content-Encoding: gzip".to_string()];
                let mut out = head("200 OK", json, &extra, Some(z.len()));
                out.extend_from_slice(z);
                (out, After::KeepAlive)
            }
            Fault::Redirect(code, location) => {
                let reason = match code {
                    301 => "Moved Permanently",
                    302 => "Found",
                    303 => "See Other",
                    307 => "Temporary Redirect",
                    308 => "Permanent Redirect",
                    _ => "Redirect",
                };
                let page = format!("<html><body>moved to {location}</body></html>");
                let mut out = head(
                    &format!("{code} {reason}"),
                    "text/html",
                    &[format!("Location: {location}")],
                    Some(page.len()),
                );
                out.extend_from_slice(page.as_bytes());
                (out, After::KeepAlive)
            }
            Fault::Html502 => {
                let page = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
                let mut out = head(
                    "502 Bad Gateway",
                    "text/html",
                    &["Server: nginx".to_string()],
                    Some(page.len()),
                );
                out.extend_from_slice(page.as_bytes());
                (out, After::KeepAlive)
            }
            Fault::InvalidJson => (
                ok(
                    json,
                    br#"{"responseHeader":{"status":0,"QTime":1},"response":{"numFo"#,
                ),
                After::KeepAlive,
            ),
            Fault::WrongShape => (
                ok(
                    json,
                    br#"{"responseHeader":{"status":"zero"},"response":["not","a","doclist"]}"#,
                ),
                After::KeepAlive,
            ),
            Fault::Oversized { n, chunked } => {
                let body = vec![b' '; n];
                if chunked {
                    let mut out = head("200 OK", json, &[], None);
                    for c in body.chunks(8192) {
                        out.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
                        out.extend_from_slice(c);
                        out.extend_from_slice(b"\r\n");
                    }
                    out.extend_from_slice(b"0\r\n\r\n");
                    (out, After::KeepAlive)
                } else {
                    (ok(json, &body), After::KeepAlive)
                }
            }
        };
        if sock.write_all(&out).await.is_err() {
            return;
        }
        let _ = sock.flush().await;
        match after {
            After::KeepAlive => {}
            After::Close => return,
            After::Reset => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let _ = sock.set_zero_linger();
                return;
            }
            After::Hold => {
                // Never answers again; the client's timeout must end this.
                let mut sink = [0u8; 1024];
                while let Ok(n) = sock.read(&mut sink).await {
                    if n == 0 {
                        return;
                    }
                }
                return;
            }
            After::CloseWhenIdle(idle) => {
                // Close unless the next request starts within `idle`.
                let mut peek = [0u8; 1];
                match tokio::time::timeout(idle, sock.peek(&mut peek)).await {
                    Ok(Ok(n)) if n > 0 => {}
                    _ => return,
                }
            }
        }
    }
}

fn ok(content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = head("200 OK", content_type, &[], Some(body.len()));
    out.extend_from_slice(body);
    out
}
