//! The gzip response decoder on arbitrary bytes, with a small limit: Ok within the limit,
//! or Decompress / TooLarge, never a panic and never more than the limit allocated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use solr_client::transport::gunzip_bytes;
use solr_client::Error;

const LIMIT: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    match gunzip_bytes(data, LIMIT) {
        Ok(out) => assert!(out.len() as u64 <= LIMIT),
        Err(Error::Decompress { .. } | Error::TooLarge { .. }) => {}
        Err(other) => panic!("unexpected error kind: {other:?}"),
    }
});
