//! The newcomer's guide: see `GUIDE.md` beside this crate's manifest.
#![doc = include_str!("../GUIDE.md")]
