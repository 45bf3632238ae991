//! JSON update bodies (`encode.rs`), from documents or straight from `T: Serialize`, with the
//! atomic-operation check `serde_json` cannot make while it writes (`guard.rs`). JSON
//! responses need no decoder of this crate: `serde_json` reads them straight into the type
//! ([`crate::codec::decode()`]).

mod encode;
mod guard;

pub(crate) use encode::{encode, encode_add};
pub(crate) use guard::check as check_atomic;
