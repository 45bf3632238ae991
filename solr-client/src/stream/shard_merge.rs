//! [`ShardMerge`]: the tuples of several per-shard `/export` streams merged k-way into one
//! stream in the order of the export's sort, as SolrJ's `CloudSolrStream` merges shards.
//!
//! Each shard holds one tuple read ahead (its head, with its sort key); the merge hands out
//! the smallest head (ties: the shard listed first) and reads the next tuple of that shard
//! only when it is asked for the next item. Memory is one read buffer and one tuple per
//! shard, whatever the number of tuples. A shard that fails once tuples have been handed
//! out cannot be read again from another replica without repeating or skipping tuples, so
//! its error ends the stream as an [`Error::ExportIncomplete`] naming the shard: never a
//! short stream that looks complete.

use std::task::{Context, Poll};

use serde::de::{DeserializeOwned, IgnoredAny};

use super::sort_key::{SortKey, SortSpec};
use super::tuples::{decode_tuple, has_marker, Tuple, Tuples};
use crate::error::{Error, Result};
use crate::snippet::snippet;
use crate::timing::Timing;

/// One tuple read ahead: its sort key and its JSON bytes.
#[derive(Debug)]
pub(crate) struct Keyed {
    key: SortKey,
    bytes: Vec<u8>,
}

/// Decodes one tuple's bytes into a [`Keyed`]: the EOF marker ends the stream and an
/// EXCEPTION tuple is Solr's error, as for any tuple stream.
pub(crate) fn decode_keyed(
    spec: &SortSpec,
    bytes: &[u8],
    node: &str,
    status: u16,
) -> Result<Tuple<Keyed>> {
    if has_marker(bytes) {
        if let Tuple::Eof = decode_tuple::<IgnoredAny>(bytes, node, status)? {
            return Ok(Tuple::Eof);
        }
    }
    let key = spec.key_of(bytes).map_err(|e| Error::Decode {
        node: node.into(),
        what: "tuple",
        message: e.to_string().into(),
        snippet: snippet(bytes, 200).into(),
    })?;
    Ok(Tuple::Data(Keyed {
        key,
        bytes: bytes.to_vec(),
    }))
}

/// One shard's stream with its head.
#[derive(Debug)]
pub(crate) struct ShardReader {
    name: String,
    node: String,
    tuples: Tuples<IgnoredAny>,
    head: Option<Keyed>,
    /// Tuples read from this shard (the head included).
    read: u64,
}

impl ShardReader {
    /// Shard `name` read from `node` through `tuples`, whose first tuple `first` was read
    /// already (None: the shard has no tuple).
    pub(crate) fn new(
        name: String,
        node: String,
        tuples: Tuples<IgnoredAny>,
        first: Option<Keyed>,
    ) -> Self {
        let read = u64::from(first.is_some());
        ShardReader {
            name,
            node,
            tuples,
            head: first,
            read,
        }
    }
}

/// See the module docs.
#[derive(Debug)]
pub(crate) struct ShardMerge {
    spec: SortSpec,
    shards: Vec<ShardReader>,
    /// The shard whose head was handed out last: its next tuple is read before the next
    /// choice.
    refill: Option<usize>,
    handed_out: u64,
    done: bool,
}

impl ShardMerge {
    /// Merges `shards` (at least one) by `spec`.
    pub(crate) fn new(spec: SortSpec, shards: Vec<ShardReader>) -> Self {
        ShardMerge {
            spec,
            shards,
            refill: None,
            handed_out: 0,
            done: false,
        }
    }

    /// The timing of the first shard's request.
    pub(crate) fn timing(&self) -> &Timing {
        self.shards[0].tuples.timing()
    }

    /// Each shard's name and the node that serves it.
    pub(crate) fn served(&self) -> Vec<(String, String)> {
        self.shards
            .iter()
            .map(|s| (s.name.clone(), s.node.clone()))
            .collect()
    }

    /// The next tuple of the merge, decoded into `T`. After an error the stream ends.
    pub(crate) fn poll_next_as<T: DeserializeOwned>(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<T>>> {
        if self.done {
            return Poll::Ready(None);
        }
        if let Some(i) = self.refill {
            if let Err(e) = std::task::ready!(self.poll_refill(i, cx)) {
                self.done = true;
                return Poll::Ready(Some(Err(e)));
            }
            self.refill = None;
        }
        let Some(i) = self.smallest() else {
            self.done = true;
            return Poll::Ready(None);
        };
        let shard = &mut self.shards[i];
        let Some(head) = shard.head.take() else {
            self.done = true;
            return Poll::Ready(None);
        };
        self.refill = Some(i);
        self.handed_out += 1;
        let row = serde_json::from_slice::<T>(&head.bytes).map_err(|e| Error::Decode {
            node: shard.node.clone().into(),
            what: "tuple",
            message: e.to_string().into(),
            snippet: snippet(&head.bytes, 200).into(),
        });
        if row.is_err() {
            self.done = true;
        }
        Poll::Ready(Some(row))
    }

    /// Reads the next head of shard `i` (None at its end); its error is the export's.
    fn poll_refill(&mut self, i: usize, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let spec = &self.spec;
        let shard = &mut self.shards[i];
        let decode = |b: &[u8], node: &str, status: u16| decode_keyed(spec, b, node, status);
        match std::task::ready!(shard.tuples.poll_decoded(cx, &decode)) {
            None => Poll::Ready(Ok(())),
            Some(Ok(k)) => {
                shard.head = Some(k);
                shard.read += 1;
                Poll::Ready(Ok(()))
            }
            Some(Err(e)) => Poll::Ready(Err(Error::ExportIncomplete {
                shard: shard.name.clone().into(),
                node: shard.node.clone().into(),
                handed_out: self.handed_out,
                from_shard: shard.read,
                cause: Box::new(e),
            })),
        }
    }

    /// The shard with the smallest head (the first of equal ones); None when all ended.
    fn smallest(&self) -> Option<usize> {
        let mut best: Option<(usize, &SortKey)> = None;
        for (i, s) in self.shards.iter().enumerate() {
            let Some(h) = &s.head else { continue };
            match best {
                Some((_, k)) if self.spec.compare(&h.key, k) != std::cmp::Ordering::Less => {}
                _ => best = Some((i, &h.key)),
            }
        }
        best.map(|(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::BodyStream;
    use bytes::Bytes;
    use futures::StreamExt;
    use serde_json::{json, Value};

    /// A shard's body: an /export answer with `docs`, cut short after `cut` bytes when given
    /// (then the body ends with an I/O error, as a reset connection does).
    fn body(docs: &[Value], cut: Option<usize>) -> Tuples<IgnoredAny> {
        let text =
            json!({"responseHeader":{"status":0},"response":{"numFound":docs.len(),"docs":docs}})
                .to_string();
        let mut chunks: Vec<Result<Bytes>> = Vec::new();
        match cut {
            None => chunks.push(Ok(Bytes::from(text))),
            Some(n) => {
                chunks.push(Ok(Bytes::copy_from_slice(&text.as_bytes()[..n])));
                chunks.push(Err(Error::Io {
                    node: "n".into(),
                    message: "connection reset".into(),
                    not_sent: false,
                }));
            }
        }
        let timing = Timing {
            node: "n".into(),
            ..Default::default()
        };
        Tuples::new(
            BodyStream::new(Box::pin(futures::stream::iter(chunks)), timing),
            200,
            1 << 20,
        )
    }

    /// A shard reader over `docs` with its first tuple read ahead, as the opening does.
    async fn reader(
        spec: &SortSpec,
        name: &str,
        docs: &[Value],
        cut: Option<usize>,
    ) -> ShardReader {
        let mut t = body(docs, cut);
        let decode = |b: &[u8], node: &str, status: u16| decode_keyed(spec, b, node, status);
        let first = futures::future::poll_fn(|cx| t.poll_decoded(cx, &decode)).await;
        let first = first.transpose().expect("a first tuple");
        ShardReader::new(name.into(), format!("node-{name}"), t, first)
    }

    async fn merge(spec: &str, shards: &[Vec<Value>]) -> Vec<Result<Value>> {
        let spec = SortSpec::parse(spec).expect("spec");
        let mut readers = Vec::new();
        for (i, docs) in shards.iter().enumerate() {
            readers.push(reader(&spec, &format!("shard{}", i + 1), docs, None).await);
        }
        Tuples::<Value>::merged(ShardMerge::new(spec, readers))
            .collect()
            .await
    }

    fn ok(rows: Vec<Result<Value>>) -> Vec<Value> {
        rows.into_iter().map(|r| r.expect("a row")).collect()
    }

    #[tokio::test]
    async fn shards_merge_in_the_sort_order_each_tuple_once() {
        let d = |id: &str, p: i64| json!({"id": id, "p": p});
        let one = vec![d("a", 5), d("c", 3), d("e", 3)];
        let two = vec![d("b", 9), d("d", 3), d("f", 1)];
        let three: Vec<Value> = Vec::new();
        let out = ok(merge("p desc,id asc", &[one, two, three]).await);
        assert_eq!(
            out,
            [
                d("b", 9),
                d("a", 5),
                d("c", 3),
                d("d", 3),
                d("e", 3),
                d("f", 1)
            ]
        );
    }

    #[tokio::test]
    async fn ties_take_the_first_shard_and_keep_every_tuple() {
        let d = |id: &str, s: &str| json!({"id": id, "s": s});
        let out = ok(merge(
            "s asc",
            &[
                vec![d("1", "x"), d("3", "y")],
                vec![d("2", "x"), d("4", "y")],
            ],
        )
        .await);
        let ids: Vec<&str> = out.iter().map(|v| v["id"].as_str().expect("id")).collect();
        assert_eq!(ids, ["1", "2", "3", "4"]);
    }

    #[tokio::test]
    async fn missing_values_merge_where_export_puts_them() {
        // Shard order as /export gives it: a missing number is 0, a missing string first.
        let one = vec![
            json!({"id":"a","n":-2}),
            json!({"id":"b"}),
            json!({"id":"c","n":4}),
        ];
        let two = vec![json!({"id":"d","n":-1}), json!({"id":"e","n":1})];
        let ids = |rows: Vec<Value>| -> Vec<String> {
            rows.iter()
                .map(|v| v["id"].as_str().expect("id").to_string())
                .collect()
        };
        assert_eq!(
            ids(ok(merge("n asc", &[one, two]).await)),
            ["a", "d", "b", "e", "c"]
        );
        let one = vec![json!({"id":"a","s":"z"}), json!({"id":"b"})];
        let two = vec![json!({"id":"c","s":"m"}), json!({"id":"d"})];
        assert_eq!(
            ids(ok(merge("s desc,id asc", &[one, two]).await)),
            ["a", "c", "b", "d"]
        );
    }

    #[tokio::test]
    async fn a_shard_failing_after_tuples_were_handed_out_is_an_incomplete_export() {
        let spec = SortSpec::parse("id asc").expect("spec");
        let docs: Vec<Value> = (0..4).map(|i| json!({"id": format!("b{i}")})).collect();
        let whole = json!({"responseHeader":{"status":0},"response":{"numFound":4,"docs":docs}})
            .to_string();
        // Cut after the second tuple of shard2.
        let cut = whole.find("b2").expect("b2") - 2;
        let readers = vec![
            reader(
                &spec,
                "shard1",
                &[json!({"id":"a0"}), json!({"id":"c0"})],
                None,
            )
            .await,
            reader(&spec, "shard2", &docs, Some(cut)).await,
        ];
        let out: Vec<Result<Value>> = Tuples::merged(ShardMerge::new(spec, readers))
            .collect()
            .await;
        let ids: Vec<String> = out
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|v| v["id"].to_string())
            .collect();
        assert_eq!(ids, ["\"a0\"", "\"b0\"", "\"b1\""]);
        assert_eq!(out.len(), 4, "the tuples, then one error, then nothing");
        match &out[3] {
            Err(
                e @ Error::ExportIncomplete {
                    shard,
                    handed_out,
                    from_shard,
                    ..
                },
            ) => {
                assert_eq!((shard.as_str(), *handed_out, *from_shard), ("shard2", 3, 2));
                let text = e.to_string();
                assert!(
                    text.contains("incomplete") && text.contains("shard2"),
                    "{text}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_tuple_of_the_wrong_shape_is_a_decode_error_and_the_end() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Row {
            id: i64,
        }
        let spec = SortSpec::parse("id asc").expect("spec");
        let readers = vec![
            reader(
                &spec,
                "shard1",
                &[json!({"id":"x"}), json!({"id":"y"})],
                None,
            )
            .await,
        ];
        let out: Vec<Result<Row>> = Tuples::merged(ShardMerge::new(spec, readers))
            .collect()
            .await;
        assert!(
            matches!(out.as_slice(), [Err(Error::Decode { what: "tuple", .. })]),
            "{out:?}"
        );
    }
}
