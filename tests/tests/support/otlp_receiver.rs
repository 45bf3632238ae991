//! A test collector: an OTLP/HTTP receiver (protobuf) on a free loopback port that decodes
//! every `POST /v1/traces` with `opentelemetry-proto` and keeps the spans. It stands in for
//! an OpenTelemetry collector, not for Solr. One thread accepts, one thread per connection
//! (the exporter keeps its connection alive); stopped on drop.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// The running receiver; the spans it decoded so far, in arrival order.
pub struct Receiver {
    port: u16,
    spans: Arc<Mutex<Vec<Span>>>,
    stop: Arc<AtomicBool>,
    accept: Option<std::thread::JoinHandle<()>>,
}

impl Receiver {
    /// Binds port 0 on loopback and starts accepting.
    pub fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the OTLP receiver");
        let port = listener.local_addr().expect("addr").port();
        let spans = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (kept, stopping) = (spans.clone(), stop.clone());
        let accept = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let kept = kept.clone();
                std::thread::spawn(move || serve(conn, &kept));
            }
        });
        Receiver {
            port,
            spans,
            stop,
            accept: Some(accept),
        }
    }

    /// The OTLP/HTTP traces endpoint to give the exporter.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/v1/traces", self.port)
    }

    /// The spans received so far.
    pub fn spans(&self) -> Vec<Span> {
        self.spans.lock().expect("spans").clone()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// Serves one connection: each request's body is decoded and its spans kept; the answer is
/// an empty `ExportTraceServiceResponse` (200), or 400 for a body that does not decode.
fn serve(conn: TcpStream, kept: &Mutex<Vec<Span>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let mut out = match conn.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    };
    let mut reader = BufReader::new(conn);
    while let Some(body) = read_request(&mut reader) {
        let status = match ExportTraceServiceRequest::decode(body.as_slice()) {
            Ok(req) => {
                let mut spans = kept.lock().expect("spans");
                for rs in req.resource_spans {
                    for ss in rs.scope_spans {
                        spans.extend(ss.spans);
                    }
                }
                "200 OK"
            }
            Err(_) => "400 Bad Request",
        };
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n"
        );
        if out.write_all(head.as_bytes()).is_err() {
            return;
        }
    }
}

/// One HTTP/1.1 request's body (by its Content-Length); None at the end of the connection.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut len = 0usize;
    let mut line = String::new();
    let mut first = true;
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim_end();
        if l.is_empty() && !first {
            break;
        }
        first = false;
        if let Some((name, value)) = l.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                len = value.trim().parse().ok()?;
            }
        }
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

/// A span's attribute `key` as text (strings as they are, numbers in decimal), if set.
pub fn attr(span: &Span, key: &str) -> Option<String> {
    let v = span
        .attributes
        .iter()
        .find(|kv| kv.key == key)?
        .value
        .as_ref()?
        .value
        .as_ref()?;
    Some(match v {
        Value::StringValue(s) => s.clone(),
        Value::IntValue(i) => i.to_string(),
        Value::DoubleValue(d) => d.to_string(),
        Value::BoolValue(b) => b.to_string(),
        other => format!("{other:?}"),
    })
}

/// Lower-case hex, as ids appear in `traceparent`.
pub fn hex(id: &[u8]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}
