//! Command-line pieces that sit on top of the library crates: the `watch` command
//! (over `solr-watch`) and the WAN options (over `wan-emu`).

pub mod wan;
pub mod watch;
