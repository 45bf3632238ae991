//! The float check of the id pass: a writing-free walk of one field's value, at any depth
//! (items of a list, child documents, atomic operations, map values), that stops at the
//! first NaN or infinity. Every other shape is passed over; a value whose own `Serialize`
//! fails is left for the encoder to report.

use std::fmt;

use serde::ser::{self, Serialize};

/// `Err(())` when `v` holds NaN or an infinity anywhere; `Ok` otherwise.
pub(crate) fn check<T: Serialize + ?Sized>(v: &T) -> Result<(), ()> {
    match v.serialize(Finite) {
        Err(Stop::NotFinite) => Err(()),
        _ => Ok(()),
    }
}

/// Why the walk stopped.
#[derive(Debug)]
enum Stop {
    /// A float that is NaN or an infinity.
    NotFinite,
    /// The value's own `Serialize` failed (the encoder reports it).
    Other,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stop::NotFinite => "not finite",
            Stop::Other => "serialize failed",
        })
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop::Other
    }
}

/// The walking serializer; it is its own compound serializer too.
struct Finite;

type Walk = Result<(), Stop>;

/// Serializer methods that accept a scalar without looking at it.
macro_rules! pass {
    ($($name:ident($t:ty))*) => { $(fn $name(self, _: $t) -> Walk { Ok(()) })* };
}

/// Compound serializer impls whose elements (and keys) are walked.
macro_rules! compound {
    ($($tr:ident { $($m:ident($($arg:ident: $ty:ty),*);)* })*) => {$(
        impl ser::$tr for Finite {
            type Ok = ();
            type Error = Stop;
            $(fn $m<T: Serialize + ?Sized>(&mut self, $($arg: $ty,)* v: &T) -> Walk {
                $(let _ = $arg;)*
                v.serialize(Finite)
            })*
            fn end(self) -> Walk {
                Ok(())
            }
        }
    )*};
}

compound! {
    SerializeSeq { serialize_element(); }
    SerializeTuple { serialize_element(); }
    SerializeTupleStruct { serialize_field(); }
    SerializeTupleVariant { serialize_field(); }
    SerializeMap { serialize_key(); serialize_value(); }
    SerializeStruct { serialize_field(key: &'static str); }
    SerializeStructVariant { serialize_field(key: &'static str); }
}

impl ser::Serializer for Finite {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Finite;
    type SerializeTuple = Finite;
    type SerializeTupleStruct = Finite;
    type SerializeTupleVariant = Finite;
    type SerializeMap = Finite;
    type SerializeStruct = Finite;
    type SerializeStructVariant = Finite;

    pass!(serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32)
        serialize_i64(i64) serialize_u8(u8) serialize_u16(u16) serialize_u32(u32)
        serialize_u64(u64) serialize_char(char) serialize_str(&str) serialize_bytes(&[u8])
        serialize_unit_struct(&'static str));
    fn serialize_f32(self, v: f32) -> Walk {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Walk {
        if v.is_finite() {
            Ok(())
        } else {
            Err(Stop::NotFinite)
        }
    }
    fn serialize_none(self) -> Walk {
        Ok(())
    }
    fn serialize_unit(self) -> Walk {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Walk {
        v.serialize(self)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Walk {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Walk {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        v: &T,
    ) -> Walk {
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Finite, Stop> {
        Ok(Finite)
    }
    fn serialize_tuple(self, _: usize) -> Result<Finite, Stop> {
        Ok(Finite)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Finite, Stop> {
        Ok(Finite)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Finite, Stop> {
        Ok(Finite)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Finite, Stop> {
        Ok(Finite)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Finite, Stop> {
        Ok(Finite)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Finite, Stop> {
        Ok(Finite)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::check;

    #[test]
    fn every_depth_is_checked() {
        assert!(check(&1.5f64).is_ok());
        assert!(check(&f64::NAN).is_err());
        assert!(check(&f32::INFINITY).is_err());
        assert!(check(&vec![1.0, f64::NEG_INFINITY]).is_err());
        assert!(check(&Some(vec![Some(f64::NAN)])).is_err());
        assert!(check(&BTreeMap::from([("inc", f64::NAN)])).is_err());
        assert!(check(&serde_json::json!({"set": [1.0, 2.5], "s": "NaN"})).is_ok());
        assert!(check(&("a", 1u8, None::<f64>)).is_ok());
    }
}
