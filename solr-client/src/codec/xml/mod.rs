//! XML, both ways: update bodies (`encode.rs`: `<add><doc><field name=..>`, escaped by
//! construction, from documents or straight from `T: Serialize`) and `wt=xml` responses
//! (`decode.rs`: Solr's `<response><lst name="responseHeader">...` format, read by
//! [`decode()`] into the value `wt=json` gives).
//!
//! | XML | JSON value |
//! | --- | --- |
//! | `<lst>`, `<response>` | object (see below) |
//! | `<arr>` | array |
//! | `<result numFound start maxScore numFoundExact>` | `{numFound, start, maxScore, numFoundExact, docs}` |
//! | `<doc>` | object; unnamed child `<doc>`s under `_childDocuments_` |
//! | `<str>`, `<date>` | string |
//! | `<int>`, `<long>`, `<short>`, `<byte>` | integer |
//! | `<float>` | the number its decimal text denotes, as a 32-bit float's shortest form |
//! | `<double>` | number |
//! | `<bool>` | boolean; `<null/>` null |
//!
//! Documented difference: Solr's XML writer writes a NamedList and a SimpleOrderedMap both
//! as `<lst>`, so the XML cannot say which one it was; every `<lst>` becomes an object, where
//! `wt=json` (`json.nl=flat`) gives a NamedList as a flat `[name, value, ...]` array (facet
//! counts, for example). Typed sections accept both. Repeated names in one `<lst>` keep the
//! last value.

mod decode;
mod encode;

pub use decode::decode;
pub(crate) use encode::{encode, encode_add, Xml};
