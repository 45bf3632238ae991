//! javabin decoded straight into `T: Deserialize`, with no `serde_json::Value` tree in
//! between: a `serde::Deserializer` over the javabin reader that presents each value in
//! the shape `wt=json` gives (see the table in [`super`]), so a type reads the
//! same from either format.
//!
//! Strings, numbers, arrays, maps, ordered maps, NamedLists (flat `[name, value, ...]`
//! arrays, an object at the top), SolrDocuments and SolrDocumentLists stream into the
//! visitor. Rare shapes are read as a `Value` first and handed over from there:
//! anonymous child documents (gathered under `_childDocuments_` after the fields, where
//! the JSON writer puts them), SolrInputDocuments, primitive arrays, enum types (`T`'s own
//! enums), and a SolrDocumentList's header. The decoder's limits hold here too: sizes are
//! checked against the bytes left before anything is sized by them, a list or map as a
//! map key is an error, and nesting stops at [`MAX_DEPTH`].

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};
use serde_json::Value;

use super::{iso_date, key_text, tag, Decoded, JavabinError, Reader, MAX_DEPTH};

/// A javabin decoding error, or a type mismatch reported by `T` (at the byte where it was
/// found).
#[derive(Debug)]
pub(crate) struct DeError {
    offset: Option<usize>,
    message: String,
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "javabin at byte {o}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            offset: None,
            message: msg.to_string(),
        }
    }
}

impl From<JavabinError> for DeError {
    fn from(e: JavabinError) -> Self {
        DeError {
            offset: Some(e.offset),
            message: e.message,
        }
    }
}

fn from_json(e: serde_json::Error) -> DeError {
    de::Error::custom(e)
}

type R<T> = std::result::Result<T, DeError>;

/// Decodes a whole javabin body (version byte included) straight into `T`: the value
/// [`decode`](super::decode()) followed by `serde_json::from_value` gives, without
/// building the `serde_json::Value` tree. Never panics; a type mismatch is an error at the
/// byte where it was found.
///
/// ```
/// use solr_client::codec::javabin::{from_slice, Writer};
/// #[derive(serde::Deserialize)]
/// struct Header {
///     #[serde(rename = "QTime")]
///     qtime: i64,
/// }
/// let mut w = Writer::new();
/// w.ordered_map(1);
/// w.extern_str("QTime");
/// w.int(3);
/// assert_eq!(from_slice::<Header>(&w.finish()).unwrap().qtime, 3);
/// ```
pub fn from_slice<'de, T: de::Deserialize<'de>>(body: &'de [u8]) -> Result<T, JavabinError> {
    from_slice_de(body).map_err(|e| JavabinError {
        offset: e.offset.unwrap_or(0),
        message: e.message,
    })
}

fn from_slice_de<'de, T: de::Deserialize<'de>>(body: &'de [u8]) -> R<T> {
    let r = Reader::open(body)?;
    let mut de = De { r, top: true };
    let v = T::deserialize(&mut de).map_err(|mut e| {
        if e.offset.is_none() {
            e.offset = Some(de.r.pos);
        }
        e
    })?;
    if de.r.pos != body.len() {
        return Err(de
            .r
            .err(format!("{} bytes after the value", body.len() - de.r.pos))
            .into());
    }
    Ok(v)
}

struct De<'de> {
    r: Reader<'de>,
    /// The next value is the whole body's (a NamedList there is an object).
    top: bool,
}

impl<'de> De<'de> {
    fn peek(&self) -> R<u8> {
        match self.r.buf.get(self.r.pos) {
            Some(&t) => Ok(t),
            None => Err(self
                .r
                .err("truncated: 1 bytes needed, 0 left".into())
                .into()),
        }
    }

    /// Fails where the tree decoder would: reading one more value would nest too deep.
    fn check_depth(&self) -> R<()> {
        if self.r.depth + 1 > MAX_DEPTH {
            return Err(self.r.err(format!("nested deeper than {MAX_DEPTH}")).into());
        }
        Ok(())
    }

    fn enter(&mut self) -> R<()> {
        self.r.depth += 1;
        if self.r.depth > MAX_DEPTH {
            return Err(self.r.err(format!("nested deeper than {MAX_DEPTH}")).into());
        }
        Ok(())
    }

    /// The next value as the `Value` the tree decoder gives (rare shapes).
    fn tree(&mut self) -> R<Value> {
        let top = std::mem::take(&mut self.top);
        let d = self.r.value()?;
        self.tree_of(d, top)
    }

    /// A tree decoder's item as its `Value` (at the top, a NamedList is an object).
    fn tree_of(&self, d: Decoded, top: bool) -> R<Value> {
        Ok(match d {
            Decoded::NamedList(pairs) if top => Value::Object(pairs.into_iter().collect()),
            Decoded::End if top => {
                return Err(self.r.err("an end tag where a value belongs".into()).into())
            }
            d => d.into_value(),
        })
    }

    /// A string of `n` bytes, borrowed from the body.
    fn str_at(&mut self, n: usize) -> R<&'de str> {
        let at = self.r.pos;
        let buf: &'de [u8] = self.r.buf;
        self.r.take(n)?;
        std::str::from_utf8(&buf[at..at + n]).map_err(|e| {
            JavabinError {
                offset: at,
                message: format!("string is not UTF-8: {e}"),
            }
            .into()
        })
    }

    /// An extern string: defined here (index 0) or referred to by index.
    fn extern_str(&mut self, t: u8) -> R<usize> {
        let idx = usize::try_from(self.r.raw_size(t)?).unwrap_or(usize::MAX);
        if idx == 0 {
            let st = self.r.u8()?;
            let s = match st >> 5 {
                1 => {
                    let n = self.r.tag_size(st, 1)?;
                    self.r.str_body(n)?
                }
                _ if st == tag::NULL => String::from("null"),
                _ => return Err(self.r.err(format!("extern string of tag {st}")).into()),
            };
            self.r.externs.push(s);
            Ok(self.r.externs.len() - 1)
        } else if idx <= self.r.externs.len() {
            Ok(idx - 1)
        } else {
            Err(self
                .r
                .err(format!(
                    "extern string #{idx} referred to before it was sent"
                ))
                .into())
        }
    }

    fn any<V: Visitor<'de>>(&mut self, visitor: V) -> R<V::Value> {
        self.enter()?;
        let r = self.any_inner(visitor);
        self.r.depth -= 1;
        r
    }

    fn any_inner<V: Visitor<'de>>(&mut self, visitor: V) -> R<V::Value> {
        let top = std::mem::take(&mut self.top);
        let t = self.peek()?;
        // Every reader reads past the tag.
        let at = self.r.pos;
        self.r.pos += 1;
        if t >> 5 != 0 {
            self.sized(t, top, visitor)
        } else {
            self.plain(t, at, top, visitor)
        }
    }

    /// A value whose tag carries its size in the low bits (strings, small numbers, arrays,
    /// ordered and named lists, extern strings).
    #[inline]
    fn sized<V: Visitor<'de>>(&mut self, t: u8, top: bool, visitor: V) -> R<V::Value> {
        match t >> 5 {
            1 => {
                let n = self.r.tag_size(t, 1)?;
                let s = self.str_at(n)?;
                visitor.visit_borrowed_str(s)
            }
            2 => visitor.visit_i64(i64::from(self.r.small(t)? as i64 as i32)),
            3 => visitor.visit_i64(self.r.small(t)? as i64),
            4 => {
                let n = self.r.tag_size(t, 1)?;
                visitor.visit_seq(Items::new(self, Some(n), false))
            }
            5 => {
                let n = self.r.tag_size(t, 2)?;
                visitor.visit_map(Entries::new(self, Some(n), false))
            }
            6 => {
                let n = self.r.tag_size(t, 2)?;
                if top {
                    return visitor.visit_map(Entries::new(self, Some(n), false));
                }
                // Flat: name, value, name, value, ... (each name at least one byte).
                let items = n
                    .checked_mul(2)
                    .ok_or_else(|| self.r.err("size overflow".into()))?;
                visitor.visit_seq(Items::new(self, Some(items), true))
            }
            _ => {
                let i = self.extern_str(t)?;
                visitor.visit_str(&self.r.externs[i])
            }
        }
    }

    /// A value of a plain tag (the tag is the whole first byte); `at` is the tag's offset.
    #[inline]
    fn plain<V: Visitor<'de>>(&mut self, t: u8, at: usize, top: bool, visitor: V) -> R<V::Value> {
        match t {
            tag::NULL => visitor.visit_unit(),
            tag::BOOL_TRUE => visitor.visit_bool(true),
            tag::BOOL_FALSE => visitor.visit_bool(false),
            tag::BYTE => visitor.visit_i64(i64::from(self.r.u8()? as i8)),
            tag::SHORT => visitor.visit_i64(i64::from(i16::from_be_bytes(self.r.array()?))),
            tag::INT => visitor.visit_i64(i64::from(i32::from_be_bytes(self.r.array()?))),
            tag::LONG => visitor.visit_i64(i64::from_be_bytes(self.r.array()?)),
            tag::FLOAT => {
                let f = f32::from_be_bytes(self.r.array()?);
                finite_or_unit(f.is_finite().then(|| shortest(f)), visitor)
            }
            tag::DOUBLE => {
                let f = f64::from_be_bytes(self.r.array()?);
                finite_or_unit(f.is_finite().then_some(f), visitor)
            }
            tag::DATE => visitor.visit_string(iso_date(i64::from_be_bytes(self.r.array()?))),
            tag::MAP => {
                let n = self.r.vint()?;
                let n = self.r.bounded(n, 2)?;
                visitor.visit_map(Entries::new(self, Some(n), false))
            }
            tag::MAP_ENTRY_ITER => visitor.visit_map(Entries::new(self, None, false)),
            tag::ITERATOR => visitor.visit_seq(Items::new(self, None, false)),
            tag::SOLRDOC => self.solr_doc(visitor),
            tag::SOLRDOCLST => self.doc_list(visitor),
            tag::ENUM_FIELD_VALUE => {
                let _int = self.r.plain()?;
                self.any(visitor)
            }
            _ => self.through_tree(t, at, top, visitor),
        }
    }

    /// A SolrDocument: its field map, as a map.
    fn solr_doc<V: Visitor<'de>>(&mut self, visitor: V) -> R<V::Value> {
        let t = self.r.u8()?;
        if t >> 5 != tag::ORDERED_MAP >> 5 {
            return Err(self
                .r
                .err(format!("SolrDocument without its field map (tag {t})"))
                .into());
        }
        let n = self.r.tag_size(t, 1)?;
        visitor.visit_map(Entries::new(self, Some(n), true))
    }

    /// Byte arrays, UUIDs, SolrInputDocuments, single map entries, primitive arrays, end tags
    /// and unknown tags: as the tree decoder reads them (an unknown tag reported at `at`).
    fn through_tree<V: Visitor<'de>>(
        &mut self,
        t: u8,
        at: usize,
        top: bool,
        visitor: V,
    ) -> R<V::Value> {
        let d = self.r.value_of(t).map_err(|mut e| {
            if e.message.starts_with("unknown tag") {
                e.offset = at;
            }
            e
        })?;
        let v = self.tree_of(d, top)?;
        v.deserialize_any(visitor).map_err(from_json)
    }

    /// `Some(N)` when the `N` bytes of a float at `at` are there and `null_if` them (NaN or
    /// infinite: null, as the tree decoder reads them).
    fn null_float<const N: usize>(&self, at: usize, null_if: fn([u8; N]) -> bool) -> Option<usize> {
        self.r
            .buf
            .get(at..at + N)
            .and_then(|b| <[u8; N]>::try_from(b).ok())
            .filter(|b| null_if(*b))
            .map(|_| N)
    }

    /// A SolrDocumentList: `{numFound, start, maxScore (when present), numFoundExact
    /// (when present), docs}`, the documents streamed.
    fn doc_list<V: Visitor<'de>>(&mut self, visitor: V) -> R<V::Value> {
        let head = match self.r.plain()? {
            Value::Array(a) if a.len() >= 3 => a,
            _ => {
                return Err(self
                    .r
                    .err("SolrDocumentList without its header list".into())
                    .into())
            }
        };
        let mut fields: Vec<(&'static str, Value)> = Vec::with_capacity(4);
        let mut head = head.into_iter();
        let num_found = head.next().unwrap_or(Value::Null);
        let start = head.next().unwrap_or(Value::Null);
        let max_score = head.next().unwrap_or(Value::Null);
        let exact = head.next().unwrap_or(Value::Null);
        fields.push(("numFound", num_found));
        fields.push(("start", start));
        if !max_score.is_null() {
            fields.push(("maxScore", max_score));
        }
        if !exact.is_null() {
            fields.push(("numFoundExact", exact));
        }
        visitor.visit_map(DocList {
            de: self,
            fields: fields.into_iter(),
            value: None,
            docs: false,
        })
    }
}

/// A 32-bit float as the number its shortest decimal form denotes (as
/// [`crate::codec::values::float32`]), formatted on the stack.
fn shortest(f: f32) -> f64 {
    struct Buf {
        b: [u8; 64],
        n: usize,
    }
    impl fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.n + s.len();
            if end > self.b.len() {
                return Err(fmt::Error);
            }
            self.b[self.n..end].copy_from_slice(s.as_bytes());
            self.n = end;
            Ok(())
        }
    }
    let mut b = Buf { b: [0; 64], n: 0 };
    if fmt::Write::write_fmt(&mut b, format_args!("{f}")).is_ok() {
        if let Some(v) = std::str::from_utf8(&b.b[..b.n])
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
        {
            return v;
        }
    }
    // A longer form than the buffer holds: the tree decoder's way.
    f.to_string().parse().unwrap_or(f64::from(f))
}

impl<'de> Deserializer<'de> for &mut De<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        // What the tree decoder makes null: null, NaN and infinite floats, an end tag.
        let at = self.r.pos + 1;
        let width = match self.peek()? {
            tag::NULL => Some(0),
            tag::END if !self.top => Some(0),
            tag::FLOAT => self.null_float(at, |b| !f32::from_be_bytes(b).is_finite()),
            tag::DOUBLE => self.null_float(at, |b| !f64::from_be_bytes(b).is_finite()),
            _ => None,
        };
        match width {
            Some(w) => {
                self.check_depth()?;
                self.r.pos = at + w;
                self.top = false;
                visitor.visit_none()
            }
            None => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> R<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> R<V::Value> {
        self.tree()?
            .deserialize_enum(name, variants, visitor)
            .map_err(from_json)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// The items of an array, an iterator (`left` None: up to the end tag) or a flat
/// NamedList (`key_next`: names and values alternate, names read as map keys).
struct Items<'a, 'de> {
    de: &'a mut De<'de>,
    left: Option<usize>,
    /// A flat NamedList: names and values alternate.
    named: bool,
    /// The last item given was a name (so a value is next).
    key_next: bool,
}

impl<'a, 'de> Items<'a, 'de> {
    fn new(de: &'a mut De<'de>, left: Option<usize>, named: bool) -> Self {
        Items {
            de,
            left,
            named,
            key_next: false,
        }
    }
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = DeError;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> R<Option<S::Value>> {
        match &mut self.left {
            Some(0) => return Ok(None),
            Some(n) => *n -= 1,
            None => {
                self.de.check_depth()?;
                if self.de.peek()? == tag::END {
                    self.de.r.pos += 1;
                    return Ok(None);
                }
            }
        }
        if self.named {
            // key_next: the last item was a name, so this one is its value.
            let is_name = !self.key_next;
            self.key_next = is_name;
            if is_name {
                return seed.deserialize(Key { de: &mut *self.de }).map(Some);
            }
        }
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        self.left
    }
}

/// The entries of a map, an ordered map, a NamedList read as an object, a map entry
/// iterator (`left` None) or a SolrDocument (`doc`: anonymous children, SolrDocuments where
/// a name belongs, are gathered and given last under `_childDocuments_`).
struct Entries<'a, 'de> {
    de: &'a mut De<'de>,
    left: Option<usize>,
    doc: bool,
    children: Vec<Value>,
    giving_children: bool,
}

impl<'a, 'de> Entries<'a, 'de> {
    fn new(de: &'a mut De<'de>, left: Option<usize>, doc: bool) -> Self {
        Entries {
            de,
            left,
            doc,
            children: Vec::new(),
            giving_children: false,
        }
    }
}

impl<'de> de::MapAccess<'de> for Entries<'_, 'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> R<Option<K::Value>> {
        loop {
            match &mut self.left {
                Some(0) => {
                    if self.children.is_empty() || self.giving_children {
                        return Ok(None);
                    }
                    self.giving_children = true;
                    return seed
                        .deserialize("_childDocuments_".into_deserializer())
                        .map(Some);
                }
                Some(n) => *n -= 1,
                None => {
                    self.de.check_depth()?;
                    if self.de.peek()? == tag::END {
                        self.de.r.pos += 1;
                        return Ok(None);
                    }
                }
            }
            if self.doc && self.de.peek()? == tag::SOLRDOC {
                let child = self.de.tree()?;
                self.children.push(child);
                continue;
            }
            return seed.deserialize(Key { de: &mut *self.de }).map(Some);
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> R<V::Value> {
        if self.giving_children {
            let children = Value::Array(std::mem::take(&mut self.children));
            return seed.deserialize(children).map_err(from_json);
        }
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        self.left
    }
}

/// A SolrDocumentList as a map: its header fields, then `docs`.
struct DocList<'a, 'de> {
    de: &'a mut De<'de>,
    fields: std::vec::IntoIter<(&'static str, Value)>,
    value: Option<Value>,
    docs: bool,
}

impl<'de> de::MapAccess<'de> for DocList<'_, 'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> R<Option<K::Value>> {
        if let Some((k, v)) = self.fields.next() {
            self.value = Some(v);
            return seed.deserialize(k.into_deserializer()).map(Some);
        }
        if self.docs {
            return Ok(None);
        }
        self.docs = true;
        seed.deserialize("docs".into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> R<V::Value> {
        if let Some(v) = self.value.take() {
            return seed.deserialize(v).map_err(from_json);
        }
        let t = self.de.peek()?;
        if t >> 5 == tag::ARR >> 5 || t == tag::ITERATOR {
            return seed.deserialize(&mut *self.de);
        }
        // Anything else must decode to a list (or null: none).
        let docs = match self.de.r.plain()? {
            Value::Array(d) => d,
            Value::Null => Vec::new(),
            _ => {
                return Err(self
                    .de
                    .r
                    .err("SolrDocumentList without its document list".into())
                    .into())
            }
        };
        seed.deserialize(Value::Array(docs)).map_err(from_json)
    }
}

/// A map key (or a NamedList name): a string as it is, `null` and scalars as their JSON
/// text; a list or a map is an error.
struct Key<'a, 'de> {
    de: &'a mut De<'de>,
}

impl<'de> Deserializer<'de> for Key<'_, 'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        let de = self.de;
        de.top = false;
        let t = de.peek()?;
        match t >> 5 {
            1 => {
                de.enter()?;
                de.r.pos += 1;
                let n = de.r.tag_size(t, 1)?;
                let s = de.str_at(n)?;
                de.r.depth -= 1;
                visitor.visit_borrowed_str(s)
            }
            7 => {
                de.enter()?;
                de.r.pos += 1;
                let i = de.extern_str(t)?;
                de.r.depth -= 1;
                visitor.visit_str(&de.r.externs[i])
            }
            _ => {
                let at = de.r.pos;
                let v = de.r.value()?;
                let k = key_text(v.into_value(), at)?;
                visitor.visit_string(k)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        // A name is never null (a null key reads as "null").
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> R<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
/// A float Solr can hold (finite) as a number; NaN and the infinities as null, as the tree
/// decoder reads them.
#[inline]
fn finite_or_unit<'de, V: Visitor<'de>>(f: Option<f64>, visitor: V) -> R<V::Value> {
    match f {
        Some(f) => visitor.visit_f64(f),
        None => visitor.visit_unit(),
    }
}
