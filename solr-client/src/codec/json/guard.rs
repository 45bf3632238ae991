//! The atomic-operation guard of the JSON encoder, which `serde_json` writes without the
//! serde front end: a second, writing-free walk of a document's fields. Each field value
//! that is an object (through `Option` and newtypes) has its keys checked with
//! [`atomic::check_field`], the rule the other formats' encoders apply to the same value;
//! every other shape is passed over without looking into it, so the walk costs about a
//! call per field.

use serde::ser::{self, Serialize};
use serde_json::{Map, Value};

use crate::codec::ser::{doc_error, read_key, refuse, SerError, SerResult};
use crate::codec::{atomic, UpdateFormat};

/// Checks the atomic operations of each object field of `doc`, whose id is `id`, as the
/// JSON update format carries them. A document that is not an object has no fields to
/// check (the id pass, [`crate::codec::doc_ids`], refuses it, as it refuses a field name that is
/// not text).
pub(crate) fn check<T: Serialize + ?Sized>(id: &str, doc: &T) -> crate::Result<()> {
    doc.serialize(Doc { id }).map_err(|e| doc_error(e, id))
}

/// Walks a document: its fields, when it is a map or a struct.
struct Doc<'a> {
    id: &'a str,
}

/// Walks a field's value: its keys, when it is a map or a struct.
struct Field<'a> {
    id: &'a str,
    name: &'a str,
}

/// The fields of a document.
struct Fields<'a> {
    id: &'a str,
    key: String,
}

/// The keys of an object field.
struct Keys<'a> {
    id: &'a str,
    name: &'a str,
    keys: Map<String, Value>,
    key: String,
}

/// Passes over a shape without looking into it.
#[derive(Default)]
struct Skip;

impl ser::SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> SerResult {
        v.serialize(Field {
            id: self.id,
            name: key,
        })
    }
    fn end(self) -> SerResult {
        Ok(())
    }
}

impl ser::SerializeMap for Fields<'_> {
    type Ok = ();
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> SerResult {
        read_key(&mut self.key, key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> SerResult {
        v.serialize(Field {
            id: self.id,
            name: &self.key,
        })
    }
    fn end(self) -> SerResult {
        Ok(())
    }
}

impl Keys<'_> {
    fn add(&mut self, key: &str) {
        self.keys.insert(key.to_string(), Value::Null);
    }
}

impl ser::SerializeStruct for Keys<'_> {
    type Ok = ();
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, _: &T) -> SerResult {
        self.add(key);
        Ok(())
    }
    fn end(self) -> SerResult {
        let ops = Value::Object(self.keys);
        atomic::check_field(UpdateFormat::Json, self.id, self.name, &ops).map_err(SerError::from)
    }
}

impl ser::SerializeMap for Keys<'_> {
    type Ok = ();
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> SerResult {
        let mut k = std::mem::take(&mut self.key);
        if read_key(&mut k, key).is_err() {
            // Not an operation name (nor text): the object is no atomic update.
            k.clear();
            k.push('\0');
        }
        self.add(&k);
        self.key = k;
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, _: &T) -> SerResult {
        Ok(())
    }
    fn end(self) -> SerResult {
        ser::SerializeStruct::end(self)
    }
}

/// [`Skip`] as every compound trait: each item, field or entry passed over.
macro_rules! skip {
    ($($trait:ident { $($method:ident($($arg:ty),*);)* })*) => {$(
        impl ser::$trait for Skip {
            type Ok = ();
            type Error = SerError;
            $(fn $method<T: Serialize + ?Sized>(&mut self, $(_: $arg),*) -> SerResult {
                Ok(())
            })*
            fn end(self) -> SerResult {
                Ok(())
            }
        }
    )*};
}

skip! {
    SerializeSeq { serialize_element(&T); }
    SerializeTuple { serialize_element(&T); }
    SerializeTupleStruct { serialize_field(&T); }
    SerializeTupleVariant { serialize_field(&T); }
    SerializeStructVariant { serialize_field(&'static str, &T); }
    SerializeMap { serialize_key(&T); serialize_value(&T); }
    SerializeStruct { serialize_field(&'static str, &T); }
}

impl<'a> Doc<'a> {
    fn open(self) -> Fields<'a> {
        Fields {
            id: self.id,
            key: String::new(),
        }
    }
}

impl<'a> Field<'a> {
    fn open(self) -> Keys<'a> {
        Keys {
            id: self.id,
            name: self.name,
            keys: Map::new(),
            key: String::new(),
        }
    }
}

/// The walk's serializers: each looks through `Option` and newtypes to a map or a struct,
/// which it opens (`self.open()`), and passes over every other shape.
macro_rules! walker {
    ($($walker:ident => $open:ident;)*) => {$(
        impl $walker<'_> {
            fn refuse<T: Default>(self, _: &str) -> SerResult<T> {
                Ok(T::default())
            }
        }

        impl<'a> ser::Serializer for $walker<'a> {
            type Ok = ();
            type Error = SerError;
            type SerializeSeq = Skip;
            type SerializeTuple = Skip;
            type SerializeTupleStruct = Skip;
            type SerializeTupleVariant = Skip;
            type SerializeStructVariant = Skip;
            type SerializeMap = $open<'a>;
            type SerializeStruct = $open<'a>;

            refuse!(scalars sequences variants);
            fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> SerResult {
                v.serialize(self)
            }
            fn serialize_newtype_struct<T: Serialize + ?Sized>(
                self,
                _: &'static str,
                v: &T,
            ) -> SerResult {
                v.serialize(self)
            }
            fn serialize_map(self, _: Option<usize>) -> SerResult<$open<'a>> {
                Ok(self.open())
            }
            fn serialize_struct(self, _: &'static str, _: usize) -> SerResult<$open<'a>> {
                Ok(self.open())
            }
        }
    )*};
}

walker! {
    Doc => Fields;
    Field => Keys;
}
