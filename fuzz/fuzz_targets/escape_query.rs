//! `escape_query` on arbitrary text: the output, read the way Solr's standard query
//! parser reads it, is one literal term equal to the input. Every syntax character and
//! every whitespace character is behind a backslash; removing the escapes gives the input.
//! The empty text is the one exception: it becomes `""` (an empty phrase, a term matching
//! nothing), since an empty query is not a term at all.
#![no_main]

use libfuzzer_sys::fuzz_target;
use solr_client::escape_query;

const SYNTAX: &str = "\\+-!():^[]\"{}~*?|&;/";

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let escaped = escape_query(&input);
    if input.is_empty() {
        assert_eq!(escaped, "\"\"");
        return;
    }
    let mut unescaped = String::with_capacity(input.len());
    let mut chars = escaped.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let next = chars.next().expect("a backslash always escapes something");
            unescaped.push(next);
        } else {
            assert!(
                !SYNTAX.contains(c) && !c.is_whitespace(),
                "unescaped {c:?} in {escaped:?}"
            );
            unescaped.push(c);
        }
    }
    assert_eq!(unescaped, input);
    assert!(!escaped.contains("{!"));
});
