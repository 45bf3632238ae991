//! CBOR, both ways: update bodies (`encode.rs`: a CBOR array of maps, read by Solr 9's
//! `CborLoader`, from documents or straight from `T: Serialize`) and `wt=cbor` responses
//! (`decode.rs`: Solr's CBOR writer, a JSON writer that emits CBOR through Jackson, read by
//! [`decode()`] into the value `wt=json` gives).
//!
//! The structure is the JSON writer's (NamedLists as flat arrays with the default
//! `json.nl=flat`, dates as ISO strings), so the mapping is direct. CBOR carries 32-bit
//! floats as such, and a 32-bit (or 16-bit) float is given as the number its shortest
//! decimal form denotes (`1.1`, as JSON prints it with `Float.toString`); 64-bit floats are
//! taken as they are. Byte strings become base64 strings, as in JSON. Solr's writer shares
//! repeated strings (field names, values) through CBOR string references (tags 256 and
//! 25), which are resolved here. The reader is this crate's own (a few dozen lines of the
//! CBOR grammar), because a generic CBOR value widens every float to 64 bits and so loses
//! which ones were 32-bit.

mod decode;
mod encode;

pub use decode::decode;
pub(crate) use decode::{Reader, STRINGREF_NAMESPACE};
pub(crate) use encode::{encode, encode_add, head, Cbor, ARRAY};
