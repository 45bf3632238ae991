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
//! Floats: NaN and infinities become null (as `serde_json::to_value` made them); an `f32`
//! is widened to `f64` in XML, CBOR and javabin (as before), while JSON prints its
//! shortest form (`1.1`, not `1.100000023841858`). Fields come in the order the type
//! serializes them (a struct's declaration order); maps such as [`crate::Document`] keep
//! their own order.

use std::fmt;

use serde::ser::{self, Impossible, Serialize};
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
        SerError(Error::InvalidInput(msg.to_string()), Origin::Value)
    }
}

impl From<Error> for SerError {
    fn from(e: Error) -> Self {
        SerError(e, Origin::Encoder)
    }
}

pub(crate) type SerResult<T = ()> = std::result::Result<T, SerError>;

fn json_err(e: serde_json::Error) -> SerError {
    SerError(Error::InvalidInput(e.to_string()), Origin::Value)
}

/// `v` as a `serde_json::Value` (for the shapes that need all of a value before encoding).
pub(crate) fn to_value<T: Serialize + ?Sized>(v: &T) -> SerResult<Value> {
    serde_json::to_value(v).map_err(json_err)
}

/// The `id` of each document as text (as [`super::doc_id`] prints it: a string as it is,
/// anything else as JSON, `<no id>` when absent). Only the `id` field is serialized; a
/// document that is not a map or struct is an error naming its position.
pub(crate) fn doc_ids<T: Serialize>(docs: &[T]) -> crate::Result<Vec<String>> {
    docs.iter()
        .enumerate()
        .map(|(index, d)| d.serialize(IdOf { index }).map_err(|e| e.0))
        .collect()
}

/// Serializes a document only far enough to find its `id`.
struct IdOf {
    index: usize,
}

impl IdOf {
    fn not_object(&self, what: &str) -> SerError {
        SerError(
            Error::InvalidInput(format!("document #{} is not an object: {what}", self.index)),
            Origin::Encoder,
        )
    }
}

fn id_text<T: Serialize + ?Sized>(v: &T) -> SerResult<String> {
    match v.serialize(IdText) {
        Ok(s) => Ok(s),
        Err(_) => to_value(v).map(|v| v.to_string()),
    }
}

/// Collects the `id` of a struct or map document.
struct IdFields {
    index: usize,
    id: Option<String>,
    key: String,
}

impl IdFields {
    fn done(self) -> String {
        self.id.unwrap_or_else(|| String::from("<no id>"))
    }
    fn wrap(&self, e: SerError) -> SerError {
        SerError(
            Error::InvalidInput(format!(
                "document #{} cannot be serialized: {e}",
                self.index
            )),
            Origin::Encoder,
        )
    }
}

impl ser::SerializeStruct for IdFields {
    type Ok = String;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> SerResult {
        if key == "id" {
            self.id = Some(id_text(v).map_err(|e| self.wrap(e))?);
        }
        Ok(())
    }
    fn end(self) -> SerResult<String> {
        Ok(self.done())
    }
}

impl ser::SerializeMap for IdFields {
    type Ok = String;
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> SerResult {
        self.key.clear();
        let r = key.serialize(KeyText(&mut self.key));
        r.map_err(|e| self.wrap(e))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        if self.key == "id" {
            self.id = Some(id_text(v).map_err(|e| self.wrap(e))?);
        }
        Ok(())
    }
    fn end(self) -> SerResult<String> {
        Ok(self.done())
    }
}

macro_rules! not_object {
    ($($name:ident($($arg:ty),*) = $what:expr;)*) => {
        $(fn $name(self, $(_: $arg),*) -> SerResult<String> { Err(self.not_object($what)) })*
    };
}

impl ser::Serializer for IdOf {
    type Ok = String;
    type Error = SerError;
    type SerializeSeq = Impossible<String, SerError>;
    type SerializeTuple = Impossible<String, SerError>;
    type SerializeTupleStruct = Impossible<String, SerError>;
    type SerializeTupleVariant = Impossible<String, SerError>;
    type SerializeMap = IdFields;
    type SerializeStruct = IdFields;
    type SerializeStructVariant = Impossible<String, SerError>;

    not_object! {
        serialize_bool(bool) = "a boolean";
        serialize_i8(i8) = "a number";
        serialize_i16(i16) = "a number";
        serialize_i32(i32) = "a number";
        serialize_i64(i64) = "a number";
        serialize_u8(u8) = "a number";
        serialize_u16(u16) = "a number";
        serialize_u32(u32) = "a number";
        serialize_u64(u64) = "a number";
        serialize_f32(f32) = "a number";
        serialize_f64(f64) = "a number";
        serialize_char(char) = "a string";
        serialize_str(&str) = "a string";
        serialize_bytes(&[u8]) = "an array";
        serialize_none() = "null";
        serialize_unit() = "null";
        serialize_unit_struct(&'static str) = "null";
        serialize_unit_variant(&'static str, u32, &'static str) = "a string";
    }
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
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> SerResult<String> {
        Err(self.not_object("an enum variant"))
    }
    fn serialize_seq(self, _: Option<usize>) -> SerResult<Self::SerializeSeq> {
        Err(self.not_object("an array"))
    }
    fn serialize_tuple(self, _: usize) -> SerResult<Self::SerializeTuple> {
        Err(self.not_object("an array"))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeTupleStruct> {
        Err(self.not_object("an array"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeTupleVariant> {
        Err(self.not_object("an enum variant"))
    }
    fn serialize_map(self, _: Option<usize>) -> SerResult<IdFields> {
        Ok(IdFields {
            index: self.index,
            id: None,
            key: String::new(),
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> SerResult<IdFields> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeStructVariant> {
        Err(self.not_object("an enum variant"))
    }
}

/// An `id` value as text, for the plain shapes (others go through `serde_json`).
struct IdText;

fn unsupported<T>() -> SerResult<T> {
    Err(SerError(
        Error::InvalidInput("not a plain value".into()),
        Origin::Value,
    ))
}

macro_rules! to_text {
    ($($name:ident($t:ty);)*) => {
        $(fn $name(self, v: $t) -> SerResult<String> { Ok(v.to_string()) })*
    };
}

impl ser::Serializer for IdText {
    type Ok = String;
    type Error = SerError;
    type SerializeSeq = Impossible<String, SerError>;
    type SerializeTuple = Impossible<String, SerError>;
    type SerializeTupleStruct = Impossible<String, SerError>;
    type SerializeTupleVariant = Impossible<String, SerError>;
    type SerializeMap = Impossible<String, SerError>;
    type SerializeStruct = Impossible<String, SerError>;
    type SerializeStructVariant = Impossible<String, SerError>;

    to_text! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_char(char);
        serialize_str(&str);
    }
    fn serialize_f32(self, v: f32) -> SerResult<String> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> SerResult<String> {
        Ok(serde_json::Number::from_f64(v).map_or_else(|| "null".into(), |n| n.to_string()))
    }
    fn serialize_bytes(self, _: &[u8]) -> SerResult<String> {
        unsupported()
    }
    fn serialize_none(self) -> SerResult<String> {
        Ok("null".into())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> SerResult<String> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> SerResult<String> {
        Ok("null".into())
    }
    fn serialize_unit_struct(self, _: &'static str) -> SerResult<String> {
        Ok("null".into())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> SerResult<String> {
        Ok(v.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> SerResult<String> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> SerResult<String> {
        unsupported()
    }
    fn serialize_seq(self, _: Option<usize>) -> SerResult<Self::SerializeSeq> {
        unsupported()
    }
    fn serialize_tuple(self, _: usize) -> SerResult<Self::SerializeTuple> {
        unsupported()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeTupleStruct> {
        unsupported()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeTupleVariant> {
        unsupported()
    }
    fn serialize_map(self, _: Option<usize>) -> SerResult<Self::SerializeMap> {
        unsupported()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> SerResult<Self::SerializeStruct> {
        unsupported()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeStructVariant> {
        unsupported()
    }
}

/// Writes a map key as text into a buffer: strings, characters, numbers and booleans (as
/// `serde_json` accepts them); anything else is an error.
struct KeyText<'a>(&'a mut String);

fn bad_key<T>() -> SerResult<T> {
    Err(SerError(
        Error::InvalidInput("key must be a string".into()),
        Origin::Value,
    ))
}

macro_rules! key_text {
    ($($name:ident($t:ty);)*) => {
        $(fn $name(self, v: $t) -> SerResult { use fmt::Write; let _ = write!(self.0, "{v}"); Ok(()) })*
    };
}

impl ser::Serializer for KeyText<'_> {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = Impossible<(), SerError>;
    type SerializeTuple = Impossible<(), SerError>;
    type SerializeTupleStruct = Impossible<(), SerError>;
    type SerializeTupleVariant = Impossible<(), SerError>;
    type SerializeMap = Impossible<(), SerError>;
    type SerializeStruct = Impossible<(), SerError>;
    type SerializeStructVariant = Impossible<(), SerError>;

    key_text! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_char(char);
    }
    fn serialize_str(self, v: &str) -> SerResult {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_f32(self, _: f32) -> SerResult {
        bad_key()
    }
    fn serialize_f64(self, _: f64) -> SerResult {
        bad_key()
    }
    fn serialize_bytes(self, _: &[u8]) -> SerResult {
        bad_key()
    }
    fn serialize_none(self) -> SerResult {
        bad_key()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> SerResult {
        bad_key()
    }
    fn serialize_unit(self) -> SerResult {
        bad_key()
    }
    fn serialize_unit_struct(self, _: &'static str) -> SerResult {
        bad_key()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> SerResult {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> SerResult {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> SerResult {
        bad_key()
    }
    fn serialize_seq(self, _: Option<usize>) -> SerResult<Self::SerializeSeq> {
        bad_key()
    }
    fn serialize_tuple(self, _: usize) -> SerResult<Self::SerializeTuple> {
        bad_key()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeTupleStruct> {
        bad_key()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeTupleVariant> {
        bad_key()
    }
    fn serialize_map(self, _: Option<usize>) -> SerResult<Self::SerializeMap> {
        bad_key()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> SerResult<Self::SerializeStruct> {
        bad_key()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeStructVariant> {
        bad_key()
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
        self.key.clear();
        key.serialize(KeyText(&mut self.key))
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
        Error::InvalidInput("a document must serialize as a map or a struct".into()),
        Origin::Value,
    ))
}

macro_rules! not_a_document {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self, $(_: $arg),*) -> SerResult { not_a_document() })*
    };
}

impl<'a, F: Format> ser::Serializer for DocSer<'a, F> {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = Impossible<(), SerError>;
    type SerializeTuple = Impossible<(), SerError>;
    type SerializeTupleStruct = Impossible<(), SerError>;
    type SerializeTupleVariant = Impossible<(), SerError>;
    type SerializeMap = DocFields<'a, F>;
    type SerializeStruct = DocFields<'a, F>;
    type SerializeStructVariant = Impossible<(), SerError>;

    not_a_document! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> SerResult {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> SerResult {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> SerResult {
        not_a_document()
    }
    fn serialize_seq(self, _: Option<usize>) -> SerResult<Self::SerializeSeq> {
        not_a_document()
    }
    fn serialize_tuple(self, _: usize) -> SerResult<Self::SerializeTuple> {
        not_a_document()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeTupleStruct> {
        not_a_document()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeTupleVariant> {
        not_a_document()
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
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> SerResult<Self::SerializeStructVariant> {
        not_a_document()
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

impl<F: Format> ser::SerializeSeq for SeqOut<'_, F> {
    type Ok = ();
    type Error = SerError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        self.item(v)
    }
    fn end(self) -> SerResult {
        self.done()
    }
}

impl<F: Format> ser::SerializeTuple for SeqOut<'_, F> {
    type Ok = ();
    type Error = SerError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        self.item(v)
    }
    fn end(self) -> SerResult {
        self.done()
    }
}

impl<F: Format> ser::SerializeTupleStruct for SeqOut<'_, F> {
    type Ok = ();
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        self.item(v)
    }
    fn end(self) -> SerResult {
        self.done()
    }
}

/// A value built whole by `serde_json`'s value serializer, then given to the format.
pub(crate) struct Whole<'a, F, S> {
    f: &'a mut F,
    depth: usize,
    inner: S,
}

type JsonSer = serde_json::value::Serializer;

impl<F: Format, S: ser::SerializeMap<Ok = Value, Error = serde_json::Error>> ser::SerializeMap
    for Whole<'_, F, S>
{
    type Ok = ();
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> SerResult {
        self.inner.serialize_key(key).map_err(json_err)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        self.inner.serialize_value(v).map_err(json_err)
    }
    fn end(self) -> SerResult {
        let v = self.inner.end().map_err(json_err)?;
        self.f.value(&v, self.depth)
    }
}

impl<F: Format, S: ser::SerializeStruct<Ok = Value, Error = serde_json::Error>> ser::SerializeStruct
    for Whole<'_, F, S>
{
    type Ok = ();
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> SerResult {
        self.inner.serialize_field(key, v).map_err(json_err)
    }
    fn end(self) -> SerResult {
        let v = self.inner.end().map_err(json_err)?;
        self.f.value(&v, self.depth)
    }
}

impl<F: Format, S: ser::SerializeTupleVariant<Ok = Value, Error = serde_json::Error>>
    ser::SerializeTupleVariant for Whole<'_, F, S>
{
    type Ok = ();
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        self.inner.serialize_field(v).map_err(json_err)
    }
    fn end(self) -> SerResult {
        let v = self.inner.end().map_err(json_err)?;
        self.f.value(&v, self.depth)
    }
}

impl<F: Format, S: ser::SerializeStructVariant<Ok = Value, Error = serde_json::Error>>
    ser::SerializeStructVariant for Whole<'_, F, S>
{
    type Ok = ();
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> SerResult {
        self.inner.serialize_field(key, v).map_err(json_err)
    }
    fn end(self) -> SerResult {
        let v = self.inner.end().map_err(json_err)?;
        self.f.value(&v, self.depth)
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
    fn serialize_i8(self, v: i8) -> SerResult {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> SerResult {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> SerResult {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> SerResult {
        self.f.i64(v, self.depth)
    }
    fn serialize_u8(self, v: u8) -> SerResult {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> SerResult {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> SerResult {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> SerResult {
        self.f.u64(v, self.depth)
    }
    fn serialize_f32(self, v: f32) -> SerResult {
        self.serialize_f64(f64::from(v))
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
        Ok(Whole {
            inner: ser::Serializer::serialize_tuple_variant(
                serde_json::value::Serializer,
                name,
                index,
                variant,
                len,
            )
            .map_err(json_err)?,
            f: self.f,
            depth: self.depth,
        })
    }
    fn serialize_map(self, len: Option<usize>) -> SerResult<Self::SerializeMap> {
        Ok(Whole {
            inner: ser::Serializer::serialize_map(serde_json::value::Serializer, len)
                .map_err(json_err)?,
            f: self.f,
            depth: self.depth,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> SerResult<Self::SerializeStruct> {
        Ok(Whole {
            inner: ser::Serializer::serialize_struct(serde_json::value::Serializer, name, len)
                .map_err(json_err)?,
            f: self.f,
            depth: self.depth,
        })
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> SerResult<Self::SerializeStructVariant> {
        Ok(Whole {
            inner: ser::Serializer::serialize_struct_variant(
                serde_json::value::Serializer,
                name,
                index,
                variant,
                len,
            )
            .map_err(json_err)?,
            f: self.f,
            depth: self.depth,
        })
    }
}

/// JSON: `[doc, doc, ...]`, each written by `serde_json::to_writer`.
pub(crate) fn encode_json<D: Serialize>(docs: &[D]) -> crate::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(docs.len() * 128 + 2);
    out.push(b'[');
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let start = out.len();
        serde_json::to_writer(&mut out, d)
            .map_err(|e| Error::InvalidInput(format!("cannot encode documents as JSON: {e}")))?;
        if may_hold_atomic_ops(&out[start..]) {
            // Rare: read this one document back and check it like the Value path does.
            let doc: crate::types::Document =
                serde_json::from_slice(&out[start..]).map_err(|e| {
                    Error::InvalidInput(format!("cannot encode documents as JSON: {e}"))
                })?;
            super::atomic::check(super::UpdateFormat::Json, std::slice::from_ref(&doc))?;
        }
    }
    out.push(b']');
    Ok(out)
}

/// Whether compact JSON `json` has a key named like an atomic operation (`"add":`, ...).
/// Inside a JSON string every `"` is escaped, so a match is always a real key; a false
/// positive (a field named `set`) only costs a second look.
fn may_hold_atomic_ops(json: &[u8]) -> bool {
    json.iter().enumerate().any(|(i, &b)| {
        b == b':'
            && i >= 2
            && json[i - 1] == b'"'
            && super::values::ATOMIC_OPS.iter().any(|op| {
                let op = op.as_bytes();
                i >= op.len() + 2
                    && &json[i - 1 - op.len()..i - 1] == op
                    && json[i - 2 - op.len()] == b'"'
            })
    })
}

/// The crate error for a failure encoding the document whose `id` is `id`.
pub(crate) fn doc_error(e: SerError, id: &str) -> Error {
    match e.1 {
        Origin::Encoder => e.0,
        Origin::Value => Error::InvalidInput(format!("document {id:?} cannot be serialized: {e}")),
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
