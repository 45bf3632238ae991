//! What a Solr request and response say, read from the bytes on the wire: the endpoint and
//! `wt` of a request, the format of an update body (from `Content-Type`, else sniffed), and
//! `QTime` from a JSON or XML response (gunzipped or inflated first when needed).

use std::io::Read;

use super::http::Message;
pub use crate::facts::{BodyFormat, Facts};

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

/// Reads a complete response's QTime into its [`Facts`] and drops the body.
pub fn digest_response(m: &mut Message) {
    if !m.incomplete {
        m.facts.qtime = decode(m.header("content-encoding"), &m.body).and_then(|d| qtime(&d));
    }
    m.body = Vec::new();
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
    let head = &decoded[..decoded.len().min(64 * 1024)];
    let digits = |rest: &[u8]| -> Option<u64> {
        let s: String = rest
            .iter()
            .skip_while(|b| b.is_ascii_whitespace() || **b == b':' || **b == b'>')
            .take_while(|b| b.is_ascii_digit())
            .map(|b| *b as char)
            .collect();
        s.parse().ok()
    };
    if let Some(i) = find(head, b"\"QTime\"") {
        return digits(&head[i + 7..]);
    }
    if let Some(i) = find(head, b"name=\"QTime\"") {
        return digits(&head[i + 12..]);
    }
    None
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
