//! [`Tuples`]: a typed stream over a streamed response body, each tuple decoded into `T` as
//! soon as it has arrived.

use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use serde::de::DeserializeOwned;

use super::scan::{ScanError, Scanner, Step};
use crate::error::{Error, Result};
use crate::snippet::snippet;
use crate::transport::BodyStream;
use crate::types::SolrErrorBody;

/// A stream of tuples decoded into `T`, from `/export`, `/stream` or `/sql` (see
/// [`SolrClient::export_as`](crate::SolrClient::export_as)). Memory is one read buffer and
/// one tuple, whatever the number of tuples.
///
/// It ends at the `EOF` tuple (or, for `/export`, at the end of the `docs` array). An
/// `EXCEPTION` tuple is an [`Error::Solr`] carrying Solr's message, after the tuples before
/// it; a body cut short, or one that is not a tuple stream, is an [`Error::Decode`]. After an
/// error the stream ends.
pub struct Tuples<T> {
    /// A cloud export: the shards' tuples merged (then `body` is an empty placeholder).
    merge: Option<Box<super::shard_merge::ShardMerge>>,
    body: BodyStream,
    scanner: Scanner,
    status: u16,
    done: bool,
    /// The tuples are over; the rest of the body (the envelope's closing brackets) is read
    /// so that the connection can be reused.
    draining: bool,
    /// The call's method and path, for the `solr.error` event of the first error the stream
    /// yields (taken then: one event per call).
    call: Option<Box<(http::Method, String)>>,
    _t: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for Tuples<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tuples")
            .field("body", &self.body)
            .field("done", &self.done)
            .finish()
    }
}

/// The marker fields of a tuple.
#[derive(serde::Deserialize)]
struct Marker {
    #[serde(rename = "EXCEPTION")]
    exception: Option<String>,
    #[serde(rename = "EOF", default)]
    eof: bool,
}

/// What one tuple is.
pub(crate) enum Tuple<T> {
    /// A tuple of data.
    Data(T),
    /// The EOF tuple.
    Eof,
}

/// Decodes one tuple's bytes: data, the EOF marker, or Solr's EXCEPTION as an error.
pub(crate) fn decode_tuple<T: DeserializeOwned>(
    bytes: &[u8],
    node: &str,
    status: u16,
) -> Result<Tuple<T>> {
    if has_marker(bytes) {
        if let Ok(m) = serde_json::from_slice::<Marker>(bytes) {
            if let Some(msg) = m.exception {
                return Err(Error::Solr {
                    node: node.into(),
                    status: if status >= 400 { status } else { 500 },
                    body: SolrErrorBody {
                        msg,
                        code: i32::from(status),
                        metadata: None,
                        qtime_ms: None,
                    }
                    .into(),
                });
            }
            if m.eof {
                return Ok(Tuple::Eof);
            }
        }
    }
    serde_json::from_slice::<T>(bytes)
        .map(Tuple::Data)
        .map_err(|e| Error::Decode {
            node: node.into(),
            what: "tuple",
            message: e.to_string().into(),
            snippet: snippet(bytes, 200).into(),
        })
}

/// Decodes a whole tuple stream given as `chunks` (in order) into its tuples, as [`Tuples`]
/// would, stopping at the first error (returned after the tuples before it). For tests and
/// fuzzing: the same body cut anywhere gives the same answer.
///
/// ```
/// let body = br#"{"result-set":{"docs":[{"n":1},{"n":2},{"EOF":true}]}}"#;
/// let (cut_a, cut_b) = body.split_at(17);
/// let (rows, end) = solr_client::stream::decode_tuple_chunks::<serde_json::Value>(
///     [cut_a.to_vec().into(), cut_b.to_vec().into()],
///     1 << 20,
/// );
/// assert_eq!(rows.len(), 2);
/// assert!(end.is_ok());
/// ```
#[doc(hidden)]
pub fn decode_tuple_chunks<T: DeserializeOwned>(
    chunks: impl IntoIterator<Item = bytes::Bytes>,
    limit: usize,
) -> (Vec<T>, Result<()>) {
    let mut scanner = Scanner::new(limit);
    let mut out = Vec::new();
    let fail = |e: ScanError| Error::Decode {
        node: "<bytes>".into(),
        what: "tuple stream",
        message: format!("{e:?}").into(),
        snippet: Default::default(),
    };
    for chunk in chunks {
        scanner.push(chunk);
        loop {
            match scanner.step() {
                Err(e) => return (out, Err(fail(e))),
                Ok(Step::NeedMore) => break,
                Ok(Step::End) => return (out, Ok(())),
                Ok(Step::Tuple(bytes)) => match decode_tuple::<T>(bytes, "<bytes>", 200) {
                    Ok(Tuple::Data(t)) => out.push(t),
                    Ok(Tuple::Eof) => return (out, Ok(())),
                    Err(e) => return (out, Err(e)),
                },
            }
        }
    }
    let end = scanner.finish().map_err(fail);
    (out, end)
}

/// Whether a tuple's bytes hold the string `"EOF"` or `"EXCEPTION"`: a marker key, or the same
/// text as a value (then the marker decode finds no marker and the tuple is data). Run on
/// every tuple, so it only looks at the bytes after each `"` (a `windows` search comparing
/// at every byte was 40% of the client's CPU on an export).
pub(super) fn has_marker(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    while let Some(i) = rest.iter().position(|&b| b == b'"') {
        rest = &rest[i + 1..];
        if rest.first() == Some(&b'E')
            && (rest.starts_with(b"EOF\"") || rest.starts_with(b"EXCEPTION\""))
        {
            return true;
        }
    }
    false
}

impl<T> Tuples<T> {
    /// Tuples read from `body` (an answer with HTTP `status`), each at most `limit` bytes.
    pub fn new(body: BodyStream, status: u16, limit: u64) -> Self {
        Tuples {
            merge: None,
            body,
            scanner: Scanner::new(usize::try_from(limit).unwrap_or(usize::MAX)),
            status,
            done: false,
            draining: false,
            call: None,
            _t: PhantomData,
        }
    }

    /// These tuples as the answer of the call `method path`: an error they yield is that
    /// call's `solr.error` event ([`crate::observe`]).
    pub(crate) fn of_call(mut self, method: http::Method, path: String) -> Self {
        self.call = Some(Box::new((method, path)));
        self
    }

    /// The tuples of a cloud export: the shards' tuples merged by `merge`.
    pub(crate) fn merged(merge: super::shard_merge::ShardMerge) -> Self {
        let timing = merge.timing().clone();
        let mut t = Tuples::new(BodyStream::whole(bytes::Bytes::new(), timing), 200, 0);
        t.merge = Some(Box::new(merge));
        t
    }

    /// The request's timing: the phases to the response head, and once the tuples are over
    /// the body's `transfer` time and `decoded_bytes` (see [`BodyStream::timing`]). For a
    /// cloud export merged from its shards, the timing of the first shard's request.
    pub fn timing(&self) -> &crate::timing::Timing {
        match &self.merge {
            Some(m) => m.timing(),
            None => self.body.timing(),
        }
    }

    /// For a cloud export merged from its shards: each shard's name and the base URL of
    /// the node that served it; empty for a single request.
    pub fn shards(&self) -> Vec<(String, String)> {
        self.merge.as_ref().map(|m| m.served()).unwrap_or_default()
    }

    /// The next item, or None when the scanner needs more input.
    fn next_from_scanner<U>(&mut self, decode: &Decoder<'_, U>) -> Option<Option<Result<U>>> {
        // The node is borrowed from the body, beside the scanner's borrow: no copy per tuple.
        let node = &self.body.timing().node;
        let status = self.status;
        match self.scanner.step() {
            Err(e) => Some(Some(Err(scan_error(node, e)))),
            Ok(Step::NeedMore) => None,
            Ok(Step::End) => Some(None),
            Ok(Step::Tuple(bytes)) => match decode(bytes, node, status) {
                Ok(Tuple::Data(t)) => Some(Some(Ok(t))),
                Ok(Tuple::Eof) => Some(None),
                Err(e) => Some(Some(Err(e))),
            },
        }
    }
}

/// The [`Error::Decode`] of a body from `node` that is not a tuple stream.
fn scan_error(node: &str, e: ScanError) -> Error {
    let message = match e {
        ScanError::NotJson => "the body is not a JSON tuple stream".to_string(),
        ScanError::BadElement(m) => m,
        ScanError::Truncated(m) => m.to_string(),
    };
    Error::Decode {
        node: node.into(),
        what: "tuple stream",
        message: message.into(),
        snippet: Default::default(),
    }
}

/// Turns one tuple's bytes (with the node and the status of its answer) into an item.
pub(crate) type Decoder<'a, U> = dyn Fn(&[u8], &str, u16) -> Result<Tuple<U>> + 'a;

impl<T: DeserializeOwned> Stream for Tuples<T> {
    type Item = Result<T>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<T>>> {
        let this = self.get_mut();
        let next = match &mut this.merge {
            Some(m) => m.poll_next_as::<T>(cx),
            None => this.poll_decoded(cx, &decode_tuple::<T>),
        };
        if let Poll::Ready(Some(Err(e))) = &next {
            if let Some(call) = this.call.take() {
                crate::observe::stream_failed(&call.0, &call.1, e);
            }
        }
        next
    }
}

impl<T> Tuples<T> {
    /// The next tuple of the body, each decoded by `decode`.
    pub(crate) fn poll_decoded<U>(
        &mut self,
        cx: &mut Context<'_>,
        decode: &Decoder<'_, U>,
    ) -> Poll<Option<Result<U>>> {
        let this = self;
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            if this.draining {
                // Whatever follows the last tuple is not the caller's concern: an error there
                // ends the stream as its end would.
                match Pin::new(&mut this.body).poll_next(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Some(Ok(_))) => continue,
                    Poll::Ready(_) => {
                        this.done = true;
                        return Poll::Ready(None);
                    }
                }
            }
            if let Some(item) = this.next_from_scanner(decode) {
                match item {
                    Some(Ok(_)) => {}
                    None => {
                        this.draining = true;
                        continue;
                    }
                    Some(Err(_)) => this.done = true,
                }
                return Poll::Ready(item);
            }
            match Pin::new(&mut this.body).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => this.scanner.push(chunk),
                Poll::Ready(Some(Err(e))) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(None) => {
                    this.done = true;
                    return match this.scanner.finish() {
                        Ok(()) => Poll::Ready(None),
                        Err(e) => Poll::Ready(Some(Err(scan_error(&this.body.timing().node, e)))),
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use futures::StreamExt;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Row {
        id: String,
        n: Option<i64>,
    }

    fn body(text: &str, cut: usize) -> BodyStream {
        let b = text.as_bytes();
        let cut = cut.min(b.len());
        let chunks: Vec<Result<Bytes>> = [&b[..cut], &b[cut..]]
            .into_iter()
            .filter(|c| !c.is_empty())
            .map(|c| Ok(Bytes::copy_from_slice(c)))
            .collect();
        let timing = crate::timing::Timing {
            node: "n".into(),
            ..Default::default()
        };
        BodyStream::new(Box::pin(futures::stream::iter(chunks)), timing)
    }

    async fn collect(text: &str, cut: usize) -> Vec<Result<Row>> {
        Tuples::<Row>::new(body(text, cut), 200, 1 << 20)
            .collect()
            .await
    }

    /// The marker check finds `"EOF"` and `"EXCEPTION"` wherever a plain search would: as
    /// keys, as values, at either end; not inside longer strings, nor escaped (`\"EOF\"`).
    #[test]
    fn the_marker_check_agrees_with_a_plain_search() {
        let plain = |b: &[u8]| {
            [&b"\"EOF\""[..], b"\"EXCEPTION\""]
                .iter()
                .any(|n| b.windows(n.len()).any(|w| w == *n))
        };
        let cases: [&[u8]; 12] = [
            br#"{"EOF":true,"RESPONSE_TIME":3}"#,
            br#"{"EXCEPTION":"boom","EOF":true}"#,
            br#"{"id":"EOF"}"#,
            br#"{"id":"a\"EOF\"b"}"#,
            br#"{"id":"1","category":"search","price":1.25,"popularity":7}"#,
            br#"{"EOFX":1}"#,
            br#"{"XEOF":1}"#,
            br#"{"EXCEPTIONS":1}"#,
            br#"{"E":1,"EO":"F"}"#,
            b"\"EOF\"",
            b"\"",
            b"",
        ];
        let found: Vec<bool> = cases.iter().map(|c| has_marker(c)).collect();
        assert_eq!(
            found,
            [true, true, true, false, false, false, false, false, false, true, false, false]
        );
        for c in cases {
            assert_eq!(has_marker(c), plain(c), "{}", String::from_utf8_lossy(c));
        }
    }

    /// The tuples before an EXCEPTION tuple come out, then Solr's message as Error::Solr,
    /// then nothing; cut at every byte offset.
    #[tokio::test]
    async fn an_exception_tuple_is_an_error_after_the_tuples_before_it() {
        let text = r#"{"result-set":{"docs":[{"id":"a","n":1},{"id":"b"},
            {"EXCEPTION":"Unable to div(...) with a 0 denominator","EOF":true}]}}"#;
        for cut in 0..=text.len() {
            let out = collect(text, cut).await;
            assert_eq!(out.len(), 3, "cut {cut}");
            assert_eq!(out[0].as_ref().expect("a").id, "a");
            assert_eq!(out[1].as_ref().expect("b").n, None);
            match &out[2] {
                Err(Error::Solr { body, .. }) => {
                    assert_eq!(body.msg, "Unable to div(...) with a 0 denominator")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    /// The EOF tuple ends the stream; an export's docs end it too; a truncated body and an
    /// HTML page are Decode errors; a tuple of the wrong shape is a Decode error naming it.
    #[tokio::test]
    async fn eof_end_truncation_and_bad_tuples() {
        let eof = r#"{"result-set":{"docs":[{"id":"a"},{"EOF":true,"RESPONSE_TIME":1}]}}"#;
        assert_eq!(collect(eof, 7).await.len(), 1);
        // After the last tuple the rest of the body is read: its connection can be reused.
        let cut = eof.len() - 2;
        let mut t = Tuples::<Row>::new(body(eof, cut), 200, 1 << 20);
        while t.next().await.is_some() {}
        assert!(t.body.is_ended(), "the body was read to its end");
        let export = r#"{"responseHeader":{"status":0},"response":{"numFound":2,"docs":[{"id":"a"},{"id":"b","n":2}]}}"#;
        let rows: Vec<Row> = collect(export, 50)
            .await
            .into_iter()
            .map(|r| r.expect("row"))
            .collect();
        assert_eq!(
            rows[1],
            Row {
                id: "b".into(),
                n: Some(2)
            }
        );
        let cut = &export[..70];
        let out = collect(cut, 10).await;
        assert!(
            matches!(out.last(), Some(Err(Error::Decode { .. }))),
            "{out:?}"
        );
        let html = collect("<html><body>502 Bad Gateway</body></html>", 5).await;
        assert!(matches!(html.as_slice(), [Err(Error::Decode { .. })]));
        let wrong = collect(r#"{"docs":[{"id":5}]}"#, 3).await;
        assert!(matches!(
            wrong.as_slice(),
            [Err(Error::Decode { what: "tuple", .. })]
        ));
    }
}
