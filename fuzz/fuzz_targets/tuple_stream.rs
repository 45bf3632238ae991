//! The incremental tuple decoder (`/export`, `/stream`, `/sql` bodies) on arbitrary bytes: the
//! first byte picks where the rest is cut in two chunks; the tuples and the outcome are the
//! same as for the whole body, an error is Decode or Solr (an EXCEPTION tuple), never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use solr_client::stream::decode_tuple_chunks;
use solr_client::Error;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, body)) = data.split_first() else {
        return;
    };
    let cut = usize::from(cut).min(body.len());
    let whole = decode_tuple_chunks::<serde_json::Value>([body.to_vec().into()], 4096);
    let (a, b) = body.split_at(cut);
    let split =
        decode_tuple_chunks::<serde_json::Value>([a.to_vec().into(), b.to_vec().into()], 4096);
    assert_eq!(whole.0, split.0, "the tuples depend on the cut");
    assert_eq!(
        whole.1.is_ok(),
        split.1.is_ok(),
        "the outcome depends on the cut"
    );
    if let Err(e) = whole.1 {
        assert!(
            matches!(e, Error::Decode { .. } | Error::Solr { .. }),
            "{e:?}"
        );
    }
});
