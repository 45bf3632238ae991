//! Encoding documents straight from `T: Serialize`, with no `serde_json::Value` per
//! document: the shared serde front end of the XML, CBOR and javabin update encoders
//! (JSON is written by `serde_json::to_writer`), and the `id` pass.
//!
//! A document must serialize as a map or a struct. Its fields stream into the format:
//! scalars and arrays of scalars are written as they come. A field value that is an object
//! (a labelled child document or an atomic update such as `{"inc": 1}`, told apart by its
//! keys) or an array of unknown length is first built as a `serde_json::Value`, since its
//! encoding depends on all of it; those are the rare shapes and are encoded exactly as the
//! `Value`-based encoders do. Anonymous children (`_childDocuments_`) are written after the
//! fields, as before.
//!
//! Floats: NaN and infinities never reach an encoder: the id pass ([`doc_ids`]) refuses
//! the document. (Below, they would become null, as `serde_json::to_value` makes them.) An `f32`
//! is widened to `f64` in XML, CBOR and javabin (as before), while JSON prints its
//! shortest form (`1.1`, not `1.100000023841858`). Fields come in the order the type
//! serializes them (a struct's declaration order); maps such as [`crate::Document`] keep
//! their own order.

use std::fmt;

use serde::ser::{self, Impossible, Serialize};
use serde_json::value::Serializer as JsonSer;
use serde_json::Value;

use crate::error::Error;

/// The error of the encoders' serializers: the crate's error, or a message from `T`.
#[derive(Debug)]
pub(crate) struct SerError(pub(crate) Error, pub(crate) Origin);

/// Where a [`SerError`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The document's own `Serialize` (or `serde_json`): its message names no document.
    Value,
    /// The encoder, whose message names the document and field.
    Encoder,
}

impl fmt::Display for SerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Error::InvalidInput(m) => f.write_str(m),
            e => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SerError {}

impl ser::Error for SerError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SerError(Error::invalid_input(msg.to_string()), Origin::Value)
    }
}

impl From<Error> for SerError {
    fn from(e: Error) -> Self {
        SerError(e, Origin::Encoder)
    }
}

pub(crate) type SerResult<T = ()> = std::result::Result<T, SerError>;

fn json_err(e: serde_json::Error) -> SerError {
    SerError(Error::invalid_input(e.to_string()), Origin::Value)
}

/// `v` as a `serde_json::Value` (for the shapes that need all of a value before encoding).
pub(crate) fn to_value<T: Serialize + ?Sized>(v: &T) -> SerResult<Value> {
    serde_json::to_value(v).map_err(json_err)
}

/// The uniqueKey value of each document as text (a string as it is, anything else as
/// JSON). Only the uniqueKey field `key` is read; every other field is walked for floats
/// Solr cannot index ([`finite`]). A document that is not a map or struct, lacks the
/// uniqueKey (or has it null), or holds NaN or an infinity is an error naming its position.
pub(crate) fn doc_ids<T: Serialize>(docs: &[T], key: &str) -> crate::Result<Vec<String>> {
    docs.iter()
        .enumerate()
        .map(|(index, d)| doc_id_at(d, index, key))
        .collect()
}

/// The uniqueKey value of one document (see [`doc_ids`]); errors name it `#index`.
pub(crate) fn doc_id_at<T: Serialize + ?Sized>(
    doc: &T,
    index: usize,
    key: &str,
) -> crate::Result<String> {
    doc.serialize(IdOf { index, key }).map_err(|e| e.0)
}

/// Serializes a document only far enough to find its uniqueKey, checking every other
/// field's floats.
struct IdOf<'k> {
    index: usize,
    key: &'k str,
}

impl IdOf<'_> {
    fn refuse<T>(self, what: &str) -> SerResult<T> {
        Err(self.not_object(what))
    }
    fn not_object(&self, what: &str) -> SerError {
        SerError(
            Error::invalid_input(format!("document #{} is not an object: {what}", self.index)),
            Origin::Encoder,
        )
    }
}

/// The uniqueKey value as text; `None` for null.
fn id_text<T: Serialize + ?Sized>(v: &T) -> SerResult<Option<String>> {
    match v.serialize(IdText) {
        Ok(s) => Ok(s),
        Err(_) => to_value(v).map(|v| (!v.is_null()).then(|| v.to_string())),
    }
}

/// Collects the uniqueKey of a struct or map document.
struct IdFields<'k> {
    index: usize,
    name: &'k str,
    id: Option<String>,
    key: String,
}

impl IdFields<'_> {
    fn done(self) -> SerResult<String> {
        let IdFields {
            index, name, id, ..
        } = self;
        id.ok_or_else(|| {
            SerError(
                Error::InvalidDocument {
                    index,
                    id: None,
                    field: name.into(),
                    problem: crate::DocumentProblem::MissingUniqueKey,
                },
                Origin::Encoder,
            )
        })
    }
    fn wrap(&self, e: SerError) -> SerError {
        SerError(
            Error::invalid_input(format!(
                "document #{} cannot be serialized: {e}",
                self.index
            )),
            Origin::Encoder,
        )
    }
    /// Reads the uniqueKey from field `field`'s value, or checks its floats.
    fn field<T: Serialize + ?Sized>(&mut self, field: &str, v: &T) -> SerResult {
        if field == self.name {
            self.id = id_text(v).map_err(|e| self.wrap(e))?;
            return Ok(());
        }
        if finite::check(v).is_err() {
            return Err(SerError(
                Error::InvalidDocument {
                    index: self.index,
                    id: self.id.clone().map(Into::into),
                    field: field.into(),
                    problem: crate::DocumentProblem::NotFinite,
                },
                Origin::Encoder,
            ));
        }
        Ok(())
    }
}

impl ser::SerializeStruct for IdFields<'_> {
    type Ok = String;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> SerResult {
        self.field(key, v)
    }
    fn end(self) -> SerResult<String> {
        self.done()
    }
}

impl ser::SerializeMap for IdFields<'_> {
    type Ok = String;
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> SerResult {
        let r = read_key(&mut self.key, key);
        r.map_err(|e| self.wrap(e))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        let field = std::mem::take(&mut self.key);
        let r = self.field(&field, v);
        self.key = field;
        r
    }
    fn end(self) -> SerResult<String> {
        self.done()
    }
}

/// The `ser::Serializer` methods of the shapes a serializer refuses, each returning the
/// serializer's own `self.refuse(what)` (`what` names the shape, for a message). Takes
/// method names and the groups `scalars` (bool to unit variant), `sequences` (seq, tuple,
/// tuple struct), `objects` (map, struct) and `variants` (newtype, tuple and struct
/// variants).
macro_rules! refuse {
    ($($method:ident)*) => { $(refuse!(@ $method);)* };
    (@ scalars) => {
        refuse!(serialize_bool serialize_i8 serialize_i16 serialize_i32 serialize_i64
            serialize_u8 serialize_u16 serialize_u32 serialize_u64 serialize_f32 serialize_f64
            serialize_char serialize_str serialize_bytes serialize_none serialize_unit
            serialize_unit_struct serialize_unit_variant);
    };
    (@ sequences) => { refuse!(serialize_seq serialize_tuple serialize_tuple_struct); };
    (@ objects) => { refuse!(serialize_map serialize_struct); };
    (@ variants) => {
        refuse!(serialize_newtype_variant serialize_tuple_variant serialize_struct_variant);
    };
    (@ serialize_bool) => { refuse!(@fn "a boolean", serialize_bool(bool) -> Ok); };
    (@ serialize_i8) => { refuse!(@fn "a number", serialize_i8(i8) -> Ok); };
    (@ serialize_i16) => { refuse!(@fn "a number", serialize_i16(i16) -> Ok); };
    (@ serialize_i32) => { refuse!(@fn "a number", serialize_i32(i32) -> Ok); };
    (@ serialize_i64) => { refuse!(@fn "a number", serialize_i64(i64) -> Ok); };
    (@ serialize_u8) => { refuse!(@fn "a number", serialize_u8(u8) -> Ok); };
    (@ serialize_u16) => { refuse!(@fn "a number", serialize_u16(u16) -> Ok); };
    (@ serialize_u32) => { refuse!(@fn "a number", serialize_u32(u32) -> Ok); };
    (@ serialize_u64) => { refuse!(@fn "a number", serialize_u64(u64) -> Ok); };
    (@ serialize_f32) => { refuse!(@fn "a number", serialize_f32(f32) -> Ok); };
    (@ serialize_f64) => { refuse!(@fn "a number", serialize_f64(f64) -> Ok); };
    (@ serialize_char) => { refuse!(@fn "a string", serialize_char(char) -> Ok); };
    (@ serialize_str) => { refuse!(@fn "a string", serialize_str(&str) -> Ok); };
    (@ serialize_bytes) => { refuse!(@fn "an array", serialize_bytes(&[u8]) -> Ok); };
    (@ serialize_none) => { refuse!(@fn "null", serialize_none() -> Ok); };
    (@ serialize_unit) => { refuse!(@fn "null", serialize_unit() -> Ok); };
    (@ serialize_unit_struct) => {
        refuse!(@fn "null", serialize_unit_struct(&'static str) -> Ok);
    };
    (@ serialize_unit_variant) => {
        refuse!(@fn "a string", serialize_unit_variant(&'static str, u32, &'static str) -> Ok);
    };
    (@ serialize_seq) => {
        refuse!(@fn "an array", serialize_seq(Option<usize>) -> SerializeSeq);
    };
    (@ serialize_tuple) => { refuse!(@fn "an array", serialize_tuple(usize) -> SerializeTuple); };
    (@ serialize_tuple_struct) => {
        refuse!(@fn "an array",
            serialize_tuple_struct(&'static str, usize) -> SerializeTupleStruct);
    };
    (@ serialize_map) => {
        refuse!(@fn "an object", serialize_map(Option<usize>) -> SerializeMap);
    };
    (@ serialize_struct) => {
        refuse!(@fn "an object", serialize_struct(&'static str, usize) -> SerializeStruct);
    };
    (@ serialize_tuple_variant) => {
        refuse!(@fn "an enum variant", serialize_tuple_variant(&'static str, u32, &'static str,
            usize) -> SerializeTupleVariant);
    };
    (@ serialize_struct_variant) => {
        refuse!(@fn "an enum variant", serialize_struct_variant(&'static str, u32, &'static str,
            usize) -> SerializeStructVariant);
    };
    (@ serialize_some) => {
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> SerResult<Self::Ok> {
            self.refuse("a value")
        }
    };
    (@ serialize_newtype_variant) => {
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> SerResult<Self::Ok> {
            self.refuse("an enum variant")
        }
    };
    (@fn $what:literal, $name:ident($($arg:ty),*) -> $ret:ident) => {
        fn $name(self, $(_: $arg),*) -> SerResult<Self::$ret> {
            self.refuse($what)
        }
    };
}
pub(crate) use refuse;

/// `type $name = Impossible<$ok, SerError>;` for each compound a serializer refuses.
macro_rules! impossible {
    ($ok:ty: $($name:ident)*) => { $(type $name = Impossible<$ok, SerError>;)* };
}

/// `ser::Serializer` methods that print the value with `Display` through the serializer's
/// own `self.text(v)`: `plain` (booleans, integers, characters) and `serialize_str`.
macro_rules! as_text {
    ($($method:ident)*) => { $(as_text!(@ $method);)* };
    (@ plain) => {
        as_text!(@fn serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32)
            serialize_i64(i64) serialize_u8(u8) serialize_u16(u16) serialize_u32(u32)
            serialize_u64(u64) serialize_char(char));
    };
    (@ serialize_str) => { as_text!(@fn serialize_str(&str)); };
    (@fn $($name:ident($t:ty))*) => {
        $(fn $name(self, v: $t) -> SerResult<Self::Ok> {
            self.text(v)
        })*
    };
}

/// Serializer methods that widen a number and pass it on.
macro_rules! widen {
    ($($name:ident($t:ty) => $to:ident($wide:ty);)*) => {
        $(fn $name(self, v: $t) -> SerResult<Self::Ok> {
            self.$to(<$wide>::from(v))
        })*
    };
}

impl<'k> ser::Serializer for IdOf<'k> {
    type Ok = String;
    type Error = SerError;
    impossible!(String: SerializeSeq SerializeTuple SerializeTupleStruct SerializeTupleVariant);
    type SerializeMap = IdFields<'k>;
    type SerializeStruct = IdFields<'k>;
    impossible!(String: SerializeStructVariant);

    refuse!(scalars sequences variants);
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> SerResult<String> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> SerResult<String> {
        v.serialize(self)
    }
    fn serialize_map(self, _: Option<usize>) -> SerResult<IdFields<'k>> {
        Ok(IdFields {
            index: self.index,
            name: self.key,
            id: None,
            key: String::new(),
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> SerResult<IdFields<'k>> {
        self.serialize_map(None)
    }
}

/// An `id` value as text, for the plain shapes (others go through `serde_json`).
struct IdText;

fn unsupported<T>() -> SerResult<T> {
    Err(SerError(
        Error::invalid_input("not a plain value"),
        Origin::Value,
    ))
}

impl IdText {
    fn refuse<T>(self, _: &str) -> SerResult<T> {
        unsupported()
    }
    fn text(self, v: impl fmt::Display) -> SerResult<Option<String>> {
        Ok(Some(v.to_string()))
    }
}

impl ser::Serializer for IdText {
    type Ok = Option<String>;
    type Error = SerError;
    impossible!(Option<String>: SerializeSeq SerializeTuple SerializeTupleStruct SerializeTupleVariant
        SerializeMap SerializeStruct SerializeStructVariant);

    as_text!(plain serialize_str);
    refuse!(serialize_bytes sequences objects variants);
    widen!(serialize_f32(f32) => serialize_f64(f64););
    fn serialize_f64(self, v: f64) -> SerResult<Option<String>> {
        Ok(serde_json::Number::from_f64(v).map(|n| n.to_string()))
    }
    fn serialize_none(self) -> SerResult<Option<String>> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> SerResult<Option<String>> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> SerResult<Option<String>> {
        Ok(None)
    }
    fn serialize_unit_struct(self, _: &'static str) -> SerResult<Option<String>> {
        Ok(None)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        v: &'static str,
    ) -> SerResult<Option<String>> {
        Ok(Some(v.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> SerResult<Option<String>> {
        v.serialize(self)
    }
}

/// Reads a map key into `buf` as text ([`KeyText`]).
pub(crate) fn read_key<T: Serialize + ?Sized>(buf: &mut String, key: &T) -> SerResult {
    buf.clear();
    key.serialize(KeyText(buf))
}

/// Writes a map key as text into a buffer: strings, characters, numbers and booleans (as
/// `serde_json` accepts them); anything else is an error.
struct KeyText<'a>(&'a mut String);

fn bad_key<T>() -> SerResult<T> {
    Err(SerError(
        Error::invalid_input("key must be a string"),
        Origin::Value,
    ))
}

impl KeyText<'_> {
    fn refuse<T>(self, _: &str) -> SerResult<T> {
        bad_key()
    }
    fn text(self, v: impl fmt::Display) -> SerResult {
        use fmt::Write;
        let _ = write!(self.0, "{v}");
        Ok(())
    }
}

impl ser::Serializer for KeyText<'_> {
    type Ok = ();
    type Error = SerError;
    impossible!((): SerializeSeq SerializeTuple SerializeTupleStruct SerializeTupleVariant
        SerializeMap SerializeStruct SerializeStructVariant);

    as_text!(plain);
    refuse!(serialize_f32 serialize_f64 serialize_bytes serialize_none serialize_some
        serialize_unit serialize_unit_struct sequences objects variants);
    fn serialize_str(self, v: &str) -> SerResult {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> SerResult {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> SerResult {
        v.serialize(self)
    }
}

/// What a format does with a document's parts. `depth` is 0 for a field's value, 1 for an
/// item of it, and so on.
pub(crate) trait Format {
    /// Whether `_childDocuments_` is held back and given to [`Format::doc_end`] (XML and
    /// javabin) instead of being an ordinary field (CBOR).
    const CHILDREN_APART: bool;
    /// The update format written.
    const FORMAT: super::UpdateFormat;
    /// Starts a document whose `id` is `id`.
    fn doc_begin(&mut self, id: &str);
    /// Starts a field.
    fn field_begin(&mut self, name: &str) -> SerResult;
    /// Ends a document of `fields` fields (`_childDocuments_` not counted) and its
    /// anonymous children.
    fn doc_end(&mut self, fields: usize, children: Option<&Value>) -> SerResult;
    /// null (also NaN and infinities).
    fn null(&mut self, depth: usize) -> SerResult;
    /// A boolean.
    fn bool(&mut self, v: bool, depth: usize) -> SerResult;
    /// A signed integer.
    fn i64(&mut self, v: i64, depth: usize) -> SerResult;
    /// An unsigned integer.
    fn u64(&mut self, v: u64, depth: usize) -> SerResult;
    /// A finite float.
    fn f64(&mut self, v: f64, depth: usize) -> SerResult;
    /// A string.
    fn str(&mut self, v: &str, depth: usize) -> SerResult;
    /// The start of an array of `len` items.
    fn seq_begin(&mut self, len: usize, depth: usize) -> SerResult;
    /// The end of an array.
    fn seq_end(&mut self, depth: usize) -> SerResult;
    /// A value built whole first (objects, arrays of unknown length, enum variants).
    fn value(&mut self, v: &Value, depth: usize) -> SerResult;
}

/// Serializes one document into `f`.
pub(crate) fn document<F: Format, T: Serialize + ?Sized>(
    f: &mut F,
    id: &str,
    doc: &T,
) -> SerResult {
    f.doc_begin(id);
    doc.serialize(DocSer { f, id })
}

struct DocSer<'a, F> {
    f: &'a mut F,
    id: &'a str,
}

/// The fields of a document being written.
pub(crate) struct DocFields<'a, F> {
    f: &'a mut F,
    id: &'a str,
    fields: usize,
    children: Option<Value>,
    key: String,
}

impl<F: Format> DocFields<'_, F> {
    fn field<T: Serialize + ?Sized>(&mut self, name: &str, v: &T) -> SerResult {
        if F::CHILDREN_APART && name == "_childDocuments_" {
            self.children = Some(to_value(v)?);
            return Ok(());
        }
        self.f.field_begin(name)?;
        v.serialize(ValueSer {
            f: &mut AtomicGuard {
                f: &mut *self.f,
                id: self.id,
                field: name,
            },
            depth: 0,
        })?;
        self.fields += 1;
        Ok(())
    }
    fn done(self) -> SerResult {
        self.f.doc_end(self.fields, self.children.as_ref())
    }
}

impl<F: Format> ser::SerializeStruct for DocFields<'_, F> {
    type Ok = ();
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> SerResult {
        self.field(key, v)
    }
    fn end(self) -> SerResult {
        self.done()
    }
}

impl<F: Format> ser::SerializeMap for DocFields<'_, F> {
    type Ok = ();
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> SerResult {
        read_key(&mut self.key, key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        let key = std::mem::take(&mut self.key);
        let r = self.field(&key, v);
        self.key = key;
        r
    }
    fn end(self) -> SerResult {
        self.done()
    }
}

fn not_a_document<T>() -> SerResult<T> {
    Err(SerError(
        Error::invalid_input("a document must serialize as a map or a struct"),
        Origin::Value,
    ))
}

impl<F> DocSer<'_, F> {
    fn refuse<T>(self, _: &str) -> SerResult<T> {
        not_a_document()
    }
}

impl<'a, F: Format> ser::Serializer for DocSer<'a, F> {
    type Ok = ();
    type Error = SerError;
    impossible!((): SerializeSeq SerializeTuple SerializeTupleStruct SerializeTupleVariant);
    type SerializeMap = DocFields<'a, F>;
    type SerializeStruct = DocFields<'a, F>;
    impossible!((): SerializeStructVariant);

    refuse!(scalars sequences variants);
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> SerResult {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> SerResult {
        v.serialize(self)
    }
    fn serialize_map(self, _: Option<usize>) -> SerResult<DocFields<'a, F>> {
        Ok(DocFields {
            f: self.f,
            id: self.id,
            fields: 0,
            children: None,
            key: String::new(),
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> SerResult<DocFields<'a, F>> {
        self.serialize_map(None)
    }
}

/// Forwards a field's value to the format, checking an object value (built whole) for the
/// atomic operations the format cannot carry on one field (`atomic::check_field`).
struct AtomicGuard<'a, F> {
    f: &'a mut F,
    id: &'a str,
    field: &'a str,
}

impl<F: Format> Format for AtomicGuard<'_, F> {
    const CHILDREN_APART: bool = F::CHILDREN_APART;
    const FORMAT: super::UpdateFormat = F::FORMAT;
    fn doc_begin(&mut self, id: &str) {
        self.f.doc_begin(id)
    }
    fn field_begin(&mut self, name: &str) -> SerResult {
        self.f.field_begin(name)
    }
    fn doc_end(&mut self, fields: usize, children: Option<&Value>) -> SerResult {
        self.f.doc_end(fields, children)
    }
    fn null(&mut self, depth: usize) -> SerResult {
        self.f.null(depth)
    }
    fn bool(&mut self, v: bool, depth: usize) -> SerResult {
        self.f.bool(v, depth)
    }
    fn i64(&mut self, v: i64, depth: usize) -> SerResult {
        self.f.i64(v, depth)
    }
    fn u64(&mut self, v: u64, depth: usize) -> SerResult {
        self.f.u64(v, depth)
    }
    fn f64(&mut self, v: f64, depth: usize) -> SerResult {
        self.f.f64(v, depth)
    }
    fn str(&mut self, v: &str, depth: usize) -> SerResult {
        self.f.str(v, depth)
    }
    fn seq_begin(&mut self, len: usize, depth: usize) -> SerResult {
        self.f.seq_begin(len, depth)
    }
    fn seq_end(&mut self, depth: usize) -> SerResult {
        self.f.seq_end(depth)
    }
    fn value(&mut self, v: &Value, depth: usize) -> SerResult {
        if depth == 0 {
            super::atomic::check_field(F::FORMAT, self.id, self.field, v)
                .map_err(|e| SerError(e, Origin::Encoder))?;
        }
        self.f.value(v, depth)
    }
}

/// Serializes a field value (or an item of one) into a [`Format`].
struct ValueSer<'a, F> {
    f: &'a mut F,
    depth: usize,
}

/// An array: items streamed when its length is known, built whole otherwise.
pub(crate) enum SeqOut<'a, F> {
    Direct {
        f: &'a mut F,
        depth: usize,
    },
    Whole {
        f: &'a mut F,
        depth: usize,
        items: Vec<Value>,
    },
}

impl<F: Format> SeqOut<'_, F> {
    fn item<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        match self {
            SeqOut::Direct { f, depth } => v.serialize(ValueSer {
                f: &mut **f,
                depth: *depth + 1,
            }),
            SeqOut::Whole { items, .. } => {
                items.push(to_value(v)?);
                Ok(())
            }
        }
    }
    fn done(self) -> SerResult {
        match self {
            SeqOut::Direct { f, depth } => f.seq_end(depth),
            SeqOut::Whole { f, depth, items } => f.value(&Value::Array(items), depth),
        }
    }
}

/// The array traits of [`SeqOut`]: each item through `SeqOut::item`, the end through
/// `SeqOut::done`.
macro_rules! seq_out {
    ($($trait:ident::$method:ident),*) => {$(
        impl<F: Format> ser::$trait for SeqOut<'_, F> {
            type Ok = ();
            type Error = SerError;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
                self.item(v)
            }
            fn end(self) -> SerResult {
                self.done()
            }
        }
    )*};
}

seq_out!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

/// A value built whole by `serde_json`'s value serializer, then given to the format.
pub(crate) struct Whole<'a, F, S> {
    f: &'a mut F,
    depth: usize,
    inner: S,
}

/// The compound traits of [`Whole`]: each method forwards to `serde_json`'s value
/// serializer, and the end gives the value built to the format.
macro_rules! whole {
    ($($trait:ident { $($method:ident($($arg:ident: $ty:ty),*);)* })*) => {$(
        impl<F: Format, S: ser::$trait<Ok = Value, Error = serde_json::Error>> ser::$trait
            for Whole<'_, F, S>
        {
            type Ok = ();
            type Error = SerError;
            $(fn $method<T: Serialize + ?Sized>(&mut self, $($arg: $ty),*) -> SerResult {
                self.inner.$method($($arg),*).map_err(json_err)
            })*
            fn end(self) -> SerResult {
                let v = self.inner.end().map_err(json_err)?;
                self.f.value(&v, self.depth)
            }
        }
    )*};
}

whole! {
    SerializeMap { serialize_key(key: &T); serialize_value(v: &T); }
    SerializeStruct { serialize_field(key: &'static str, v: &T); }
    SerializeTupleVariant { serialize_field(v: &T); }
    SerializeStructVariant { serialize_field(key: &'static str, v: &T); }
}

impl<'a, F: Format> ValueSer<'a, F> {
    /// A value built whole through `inner`, one of `serde_json`'s value serializers.
    fn whole<S>(self, inner: Result<S, serde_json::Error>) -> SerResult<Whole<'a, F, S>> {
        Ok(Whole {
            inner: inner.map_err(json_err)?,
            f: self.f,
            depth: self.depth,
        })
    }
}

impl<'a, F: Format> ser::Serializer for ValueSer<'a, F> {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = SeqOut<'a, F>;
    type SerializeTuple = SeqOut<'a, F>;
    type SerializeTupleStruct = SeqOut<'a, F>;
    type SerializeTupleVariant = Whole<'a, F, <JsonSer as ser::Serializer>::SerializeTupleVariant>;
    type SerializeMap = Whole<'a, F, <JsonSer as ser::Serializer>::SerializeMap>;
    type SerializeStruct = Whole<'a, F, <JsonSer as ser::Serializer>::SerializeStruct>;
    type SerializeStructVariant =
        Whole<'a, F, <JsonSer as ser::Serializer>::SerializeStructVariant>;

    fn serialize_bool(self, v: bool) -> SerResult {
        self.f.bool(v, self.depth)
    }
    fn serialize_i64(self, v: i64) -> SerResult {
        self.f.i64(v, self.depth)
    }
    fn serialize_u64(self, v: u64) -> SerResult {
        self.f.u64(v, self.depth)
    }
    widen! {
        serialize_i8(i8) => serialize_i64(i64);
        serialize_i16(i16) => serialize_i64(i64);
        serialize_i32(i32) => serialize_i64(i64);
        serialize_u8(u8) => serialize_u64(u64);
        serialize_u16(u16) => serialize_u64(u64);
        serialize_u32(u32) => serialize_u64(u64);
        serialize_f32(f32) => serialize_f64(f64);
    }
    fn serialize_f64(self, v: f64) -> SerResult {
        if v.is_finite() {
            self.f.f64(v, self.depth)
        } else {
            self.f.null(self.depth)
        }
    }
    fn serialize_char(self, v: char) -> SerResult {
        self.f.str(v.encode_utf8(&mut [0u8; 4]), self.depth)
    }
    fn serialize_str(self, v: &str) -> SerResult {
        self.f.str(v, self.depth)
    }
    fn serialize_bytes(self, v: &[u8]) -> SerResult {
        self.f.seq_begin(v.len(), self.depth)?;
        for b in v {
            self.f.u64(u64::from(*b), self.depth + 1)?;
        }
        self.f.seq_end(self.depth)
    }
    fn serialize_none(self) -> SerResult {
        self.f.null(self.depth)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> SerResult {
        v.serialize(self)
    }
    fn serialize_unit(self) -> SerResult {
        self.f.null(self.depth)
    }
    fn serialize_unit_struct(self, _: &'static str) -> SerResult {
        self.f.null(self.depth)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> SerResult {
        self.f.str(v, self.depth)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> SerResult {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        v: &T,
    ) -> SerResult {
        let whole = ser::Serializer::serialize_newtype_variant(
            serde_json::value::Serializer,
            name,
            index,
            variant,
            v,
        )
        .map_err(json_err)?;
        self.f.value(&whole, self.depth)
    }
    fn serialize_seq(self, len: Option<usize>) -> SerResult<SeqOut<'a, F>> {
        Ok(match len {
            Some(n) => {
                self.f.seq_begin(n, self.depth)?;
                SeqOut::Direct {
                    f: self.f,
                    depth: self.depth,
                }
            }
            None => SeqOut::Whole {
                f: self.f,
                depth: self.depth,
                items: Vec::new(),
            },
        })
    }
    fn serialize_tuple(self, len: usize) -> SerResult<SeqOut<'a, F>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> SerResult<SeqOut<'a, F>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> SerResult<Self::SerializeTupleVariant> {
        self.whole(ser::Serializer::serialize_tuple_variant(
            JsonSer, name, index, variant, len,
        ))
    }
    fn serialize_map(self, len: Option<usize>) -> SerResult<Self::SerializeMap> {
        self.whole(ser::Serializer::serialize_map(JsonSer, len))
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> SerResult<Self::SerializeStruct> {
        self.whole(ser::Serializer::serialize_struct(JsonSer, name, len))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> SerResult<Self::SerializeStructVariant> {
        self.whole(ser::Serializer::serialize_struct_variant(
            JsonSer, name, index, variant, len,
        ))
    }
}

/// The crate error for a failure encoding the document whose `id` is `id`.
pub(crate) fn doc_error(e: SerError, id: &str) -> Error {
    match e.1 {
        Origin::Encoder => e.0,
        Origin::Value => Error::invalid_input(format!("document {id:?} cannot be serialized: {e}")),
    }
}

/// Encodes every document of `docs` (whose ids are `ids`) into `f`.
pub(crate) fn documents<F: Format, D: Serialize, S: AsRef<str>>(
    f: &mut F,
    docs: &[D],
    ids: &[S],
) -> crate::Result<()> {
    for (d, id) in docs.iter().zip(ids) {
        let id = id.as_ref();
        document(f, id, d).map_err(|e| doc_error(e, id))?;
    }
    Ok(())
}

mod finite;
#[cfg(test)]
mod tests;
