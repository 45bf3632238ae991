//! `watch --keylog` on arbitrary input: the text before the first NUL byte is a key log (any
//! lines, labels, lengths and hex), the rest a TLS conversation in chunks `[dir][len][bytes]`
//! fed to the handshake parser and the decryptor, then finished. Nothing may panic, and no
//! record is counted twice.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use solr_watch::tls::decrypt::Decryptor;
use solr_watch::tls::keylog::{KeyLog, KeyLogFile};
use solr_watch::tls::TlsConn;

fuzz_target!(|data: &[u8]| {
    let cut = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let text = String::from_utf8_lossy(&data[..cut]);
    let log = KeyLog::parse(&text);
    assert!(log.malformed().len() as u64 <= log.lines());
    let keys = Arc::new(KeyLogFile::from_text(&text));
    let mut tls = TlsConn::default();
    let mut d = Decryptor::new(keys);
    let mut out = Vec::new();
    let mut rest = data.get(cut + 1..).unwrap_or(&[]);
    let mut ts = 0;
    while let [dir, len, r @ ..] = rest {
        let n = usize::from(*len).min(r.len());
        let from_client = dir & 1 == 0;
        if from_client {
            tls.client(&r[..n]);
        } else {
            tls.server(&r[..n]);
        }
        if dir & 2 != 0 {
            d.gap(from_client);
        }
        ts += 1;
        d.feed(from_client, ts, &r[..n], &tls, &mut out);
        rest = &r[n..];
    }
    d.finish(&mut out);
    let s = d.stats();
    let plain: u64 = out.iter().map(|p| p.data.len() as u64).sum();
    assert_eq!(plain, s.plain_to_server + s.plain_from_server);
});
