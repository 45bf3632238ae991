//! The newcomer's guide: see `GUIDE.md` beside this crate's manifest.
#![doc = include_str!("../GUIDE.md")]
// The guide links the items of optional features (the http2 and reqwest transports, the
// blocking client). docs.rs builds with every feature (`package.metadata.docs.rs`); a build
// without one of them still documents, with those links left as plain text.
#![cfg_attr(
    not(all(feature = "http2", feature = "reqwest", feature = "blocking")),
    allow(rustdoc::broken_intra_doc_links)
)]
