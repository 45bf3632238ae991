//! What a Solr request and response say, read from the bytes on the wire: the endpoint and
//! `wt` of a request, the format of an update body (from `Content-Type`, else sniffed), and
//! `QTime` and `status` from a response's `responseHeader` (gunzipped or inflated first when
//! needed) in each format Solr writes: JSON and XML read here, javabin (SolrJ's default) and
//! CBOR with solr-client's decoders ([`solr_client::codec::response_head`]).

use std::io::Read;

use super::http::Message;
pub use crate::wire::facts::{BodyFormat, Facts};

/// Most decoded bytes read from a compressed body (QTime sits in the first few hundred).
const MAX_DECODED: u64 = 4 * 1024 * 1024;

/// Reads a complete request's body into its [`Facts`] and drops the body.
pub fn digest_request(m: &mut Message) {
    if m.body_len > 0 {
        let f = body_format(m.header("content-type"), &m.body);
        m.facts.format = Some(f);
        if f == BodyFormat::Form {
            m.facts.form_wt = param(&String::from_utf8_lossy(&m.body), "wt");
        }
        if f == BodyFormat::Xml && m.body_len == m.body.len() as u64 {
            m.facts.json_estimate = super::xmljson::estimate(&m.body);
        }
    }
    m.body = Vec::new();
}

/// Reads a complete response's QTime and Solr status into its [`Facts`] and drops the body.
pub fn digest_response(m: &mut Message) {
    if !m.incomplete {
        if let Some(d) = decode(m.header("content-encoding"), &m.body) {
            let h = header(m.header("content-type"), &d);
            m.facts.qtime = h.qtime;
            m.facts.solr_status = h.status;
        }
    }
    m.body = Vec::new();
}

/// What a response's `responseHeader` said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Header {
    /// `status` (0: Solr handled the request).
    pub status: Option<i64>,
    /// `QTime`, ms.
    pub qtime: Option<u64>,
}

/// The `responseHeader` of a decoded (not compressed) Solr response body, or its start, in
/// any format Solr writes: the format from `Content-Type` (Solr answers javabin as
/// `application/octet-stream`), else from the first bytes. Nothing readable: both None.
pub fn header(content_type: Option<&str>, decoded: &[u8]) -> Header {
    use solr_client::codec::response_head;
    let known = |h: Option<solr_client::ResponseHeader>| Header {
        status: h.as_ref().map(|h| i64::from(h.status)),
        qtime: h.and_then(|h| h.qtime).map(u64::from),
    };
    match body_format(content_type, decoded) {
        BodyFormat::Javabin => known(response_head::javabin(decoded).ok().flatten()),
        BodyFormat::Cbor => known(response_head::cbor(decoded).ok().flatten()),
        _ => Header {
            status: int_named(decoded, "status"),
            qtime: qtime(decoded),
        },
    }
}

/// The format of a request body from its `Content-Type`, else from its first bytes.
pub fn body_format(content_type: Option<&str>, body: &[u8]) -> BodyFormat {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    if ct.contains("json") {
        return BodyFormat::Json;
    }
    if ct.contains("xml") {
        return BodyFormat::Xml;
    }
    if ct.contains("javabin") {
        return BodyFormat::Javabin;
    }
    if ct.contains("cbor") {
        return BodyFormat::Cbor;
    }
    if ct.contains("csv") {
        return BodyFormat::Csv;
    }
    let first = body.iter().find(|b| !b.is_ascii_whitespace()).copied();
    match first {
        Some(b'{') | Some(b'[') => BodyFormat::Json,
        Some(b'<') => BodyFormat::Xml,
        // javabin opens with its version byte (2) followed by a tagged value.
        Some(2) if body.first() == Some(&2) => BodyFormat::Javabin,
        // CBOR: a map or array head, or the self-describe tag 55799 (d9 d9 f7).
        Some(0x80..=0xbf) | Some(0xd9) => BodyFormat::Cbor,
        _ if ct.contains("x-www-form-urlencoded") => BodyFormat::Form,
        _ => BodyFormat::Other,
    }
}

/// The path of a request target (query string removed).
pub fn path(target: &str) -> &str {
    let t = target.split(['?', '#']).next().unwrap_or(target);
    // An absolute-form target (proxy request): keep only the path.
    match t.find("://") {
        Some(i) => t[i + 3..].find('/').map_or("/", |j| &t[i + 3 + j..]),
        None => t,
    }
}

/// The value of query parameter `name` in a request target or a form body.
pub fn param(query: &str, name: &str) -> Option<String> {
    let q = query.split_once('?').map_or(query, |(_, q)| q);
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == name).then(|| v.to_string())
    })
}

/// Decodes a (possibly partial) body with `Content-Encoding` `encoding`; None when it cannot.
pub fn decode(encoding: Option<&str>, body: &[u8]) -> Option<Vec<u8>> {
    let enc = encoding.unwrap_or("identity").trim().to_ascii_lowercase();
    let mut out = Vec::new();
    let res = match enc.as_str() {
        "" | "identity" => return Some(body.to_vec()),
        "gzip" | "x-gzip" => flate2::read::MultiGzDecoder::new(body)
            .take(MAX_DECODED)
            .read_to_end(&mut out),
        "deflate" => flate2::read::ZlibDecoder::new(body)
            .take(MAX_DECODED)
            .read_to_end(&mut out),
        _ => return None,
    };
    // A body the capture kept only the start of ends early: what was decoded still counts.
    match res {
        Ok(_) => Some(out),
        Err(_) if !out.is_empty() => Some(out),
        Err(_) => None,
    }
}

/// QTime from a decoded JSON or XML Solr response.
pub fn qtime(decoded: &[u8]) -> Option<u64> {
    int_named(decoded, "QTime").and_then(|q| u64::try_from(q).ok())
}

/// The first integer named `name` in the first 64 KB of a JSON (`"name":7`) or XML
/// (`<int name="name">7</int>`) response: where Solr writes its `responseHeader`.
fn int_named(decoded: &[u8], name: &str) -> Option<i64> {
    let head = &decoded[..decoded.len().min(64 * 1024)];
    let digits = |rest: &[u8]| -> Option<i64> {
        let s: String = rest
            .iter()
            .skip_while(|b| b.is_ascii_whitespace() || **b == b':' || **b == b'>')
            .enumerate()
            .take_while(|(i, b)| b.is_ascii_digit() || (*i == 0 && **b == b'-'))
            .map(|(_, b)| *b as char)
            .collect();
        s.parse().ok()
    };
    let json = format!("\"{name}\"");
    if let Some(i) = find(head, json.as_bytes()) {
        return digits(&head[i + json.len()..]);
    }
    let xml = format!("name=\"{name}\"");
    find(head, xml.as_bytes()).and_then(|i| digits(&head[i + xml.len()..]))
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn qtime_json_xml_and_gzip() {
        let json = br#"{"responseHeader":{"status":0,"QTime":17,"params":{}},"response":{}}"#;
        assert_eq!(qtime(json), Some(17));
        let xml = br#"<response><lst name="responseHeader"><int name="status">0</int><int name="QTime">3</int></lst></response>"#;
        assert_eq!(qtime(xml), Some(3));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(json).expect("gzip");
        let gz = gz.finish().expect("gzip");
        assert_eq!(decode(Some("gzip"), &gz).and_then(|d| qtime(&d)), Some(17));
        assert_eq!(decode(Some("gzip"), b"not gzip"), None);
        assert_eq!(decode(Some("br"), b"x"), None);
        assert_eq!(qtime(b"{}"), None);
    }

    #[test]
    fn header_of_each_format_and_of_a_body_kept_only_in_part() {
        let json = br#"{"responseHeader":{"status":0,"QTime":17},"response":{}}"#;
        let both = |status, qtime| Header {
            status: Some(status),
            qtime: Some(qtime),
        };
        assert_eq!(header(Some("application/json"), json), both(0, 17));
        let xml = br#"<response><lst name="responseHeader"><int name="status">500</int><int name="QTime">3</int></lst></response>"#;
        assert_eq!(header(Some("application/xml"), xml), both(500, 3));
        // A javabin response whose documents the capture kept only the start of (more than
        // the 1 MB a message keeps): the header is read from what is there.
        let mut w = solr_client::codec::javabin::Writer::new();
        w.named_list(2);
        w.extern_str("responseHeader");
        w.ordered_map(2);
        w.extern_str("status");
        w.int(0);
        w.extern_str("QTime");
        w.int(9);
        w.extern_str("response");
        w.str(&"d".repeat(2000));
        let body = w.finish();
        assert_eq!(
            header(Some("application/octet-stream"), &body[..100]),
            both(0, 9)
        );
        assert_eq!(header(None, &body[..10]), Header::default());
        assert_eq!(header(None, b""), Header::default());
    }

    #[test]
    fn formats_paths_params() {
        assert_eq!(body_format(Some("application/json"), b""), BodyFormat::Json);
        assert_eq!(
            body_format(Some("text/xml; charset=utf-8"), b""),
            BodyFormat::Xml
        );
        assert_eq!(body_format(None, b" <add>"), BodyFormat::Xml);
        assert_eq!(body_format(None, b"[{}]"), BodyFormat::Json);
        assert_eq!(body_format(None, &[2, 0xe0]), BodyFormat::Javabin);
        assert_eq!(body_format(None, &[0xa1, 0x61]), BodyFormat::Cbor);
        assert_eq!(
            body_format(Some("application/x-www-form-urlencoded"), b"q=a"),
            BodyFormat::Form
        );
        assert_eq!(
            path("/solr/bench/select?q=*:*&wt=json"),
            "/solr/bench/select"
        );
        assert_eq!(path("http://h:1/solr/x?y"), "/solr/x");
        assert_eq!(param("/s?q=a&wt=xml", "wt").as_deref(), Some("xml"));
        assert_eq!(param("/s?q=a", "wt"), None);
    }
}
