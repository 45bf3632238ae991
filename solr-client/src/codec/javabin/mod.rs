//! javabin: SolrJ's native binary format (`wt=javabin`, `application/javabin`), read and
//! written.
//!
//! The wire format (Solr's `JavaBinCodec`, version 2): a version byte `2`, then one value.
//! A value starts with a tag byte. Tags whose top three bits are set carry a size (or a small
//! number) in the low five bits: string (`0x20`), small int (`0x40`), small long (`0x60`),
//! array (`0x80`), ordered map (`0xA0`, Solr's `SimpleOrderedMap`), named list (`0xC0`) and
//! extern string (`0xE0`, a string sent once and then referred to by index). The others are
//! whole bytes: null, true, false, byte, short, double, int, long, float, date (epoch
//! milliseconds), map, SolrDocument, SolrDocumentList, byte array, iterator (up to an end
//! tag), SolrInputDocument, map entry iterator, enum field value, map entry, UUID and
//! primitive arrays.
//!
//! [`decode()`] maps a javabin value to the [`serde_json::Value`] that `wt=json` (with Solr's
//! default `json.nl=flat`) gives for the same response, so typed decoding works the same
//! whatever the format:
//!
//! | javabin | JSON value |
//! | --- | --- |
//! | date | ISO-8601 string, `2024-01-02T03:04:05Z`, milliseconds when not zero (`.120Z`) |
//! | float (32 bit) | the number its shortest decimal form denotes (`1.1`, as Java's `Float.toString` prints it), not the widened `1.100000023841858` |
//! | byte array | base64 string |
//! | SimpleOrderedMap, map | object |
//! | NamedList | flat array `[name, value, name, value, ...]` |
//! | SolrDocument | object; anonymous child documents under `_childDocuments_` |
//! | SolrDocumentList | `{numFound, start, maxScore (when present), numFoundExact, docs}` |
//! | enum field value | its string |
//! | iterator, primitive array | array |
//!
//! The top-level response is an object even though Solr sends it as a NamedList (as the
//! JSON writer prints it). Decoding never panics and never allocates more than the input
//! can describe: sizes are checked against the bytes left, and nesting is limited to
//! [`MAX_DEPTH`].
//!
//! [`Writer`] writes every tag; [`crate::UpdateFormat::Javabin`] sends the update request SolrJ's
//! `JavaBinUpdateRequestCodec` sends (`params`, `delByQ`, then the documents as
//! SolrInputDocuments, child documents included).
//!
//! Files: `decode.rs` (the reader, into the `wt=json` value), `de.rs` (the reader as a serde
//! `Deserializer`, straight into `T`), `encode.rs` (the [`Writer`] and the update bodies).

mod de;
mod decode;
mod encode;

pub use de::from_slice;
pub use decode::{decode, iso_date};
pub(crate) use decode::{key_text, Decoded, Reader};
pub use encode::Writer;
pub(crate) use encode::{encode, encode_add, Javabin};

/// The javabin version byte Solr 9 writes and reads.
pub const VERSION: u8 = 2;

/// Deepest nesting [`decode`] accepts (arrays, maps, documents inside each other), the
/// limit serde_json applies to JSON.
pub const MAX_DEPTH: usize = 128;

/// The javabin tags (Solr's `JavaBinCodec` constants).
#[allow(missing_docs)]
pub mod tag {
    pub const NULL: u8 = 0;
    pub const BOOL_TRUE: u8 = 1;
    pub const BOOL_FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const SHORT: u8 = 4;
    pub const DOUBLE: u8 = 5;
    pub const INT: u8 = 6;
    pub const LONG: u8 = 7;
    pub const FLOAT: u8 = 8;
    pub const DATE: u8 = 9;
    pub const MAP: u8 = 10;
    pub const SOLRDOC: u8 = 11;
    pub const SOLRDOCLST: u8 = 12;
    pub const BYTEARR: u8 = 13;
    pub const ITERATOR: u8 = 14;
    pub const END: u8 = 15;
    pub const SOLRINPUTDOC: u8 = 16;
    pub const MAP_ENTRY_ITER: u8 = 17;
    pub const ENUM_FIELD_VALUE: u8 = 18;
    pub const MAP_ENTRY: u8 = 19;
    pub const UUID: u8 = 20;
    pub const PRIMITIVE_ARR: u8 = 21;
    pub const STR: u8 = 1 << 5;
    pub const SINT: u8 = 2 << 5;
    pub const SLONG: u8 = 3 << 5;
    pub const ARR: u8 = 4 << 5;
    pub const ORDERED_MAP: u8 = 5 << 5;
    pub const NAMED_LST: u8 = 6 << 5;
    pub const EXTERN_STRING: u8 = 7 << 5;
}

/// Why a javabin body could not be decoded: what was wrong and at which byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavabinError {
    /// Offset of the byte where decoding stopped.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for JavabinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "javabin at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for JavabinError {}
