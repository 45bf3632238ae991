//! The order of an `/export` sort spec (`"popularity desc,id asc"`) over tuples, as Solr's
//! `/export` orders each shard, so that the tuples of several shards can be merged into one
//! sorted stream ([`super::shard_merge`]).
//!
//! A tuple's key is the values of the sort fields, read from its JSON bytes (the other
//! fields are skipped, not built). Fields compare one after the other, each ascending or
//! descending. Numbers compare numerically (integers exactly, otherwise as `f64`), strings
//! by their UTF-8 bytes (the order of Solr's sorted docValues, which `/export` walks),
//! booleans `false` before `true`. A missing value is what `/export` makes of it: a
//! numeric field without a value sorts as `0` (Solr's `IntValue`/`LongValue`/... use 0),
//! any other field without one sorts before every value in ascending order (ordinal `-1`)
//! and after every value in descending order; two missing values are equal.

use std::cmp::Ordering;
use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::error::{Error, Result};

/// One field of a sort spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SortField {
    /// The field name.
    pub(crate) name: String,
    /// True for `desc`.
    pub(crate) desc: bool,
}

/// A parsed sort spec: the fields in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SortSpec {
    pub(crate) fields: Vec<SortField>,
}

/// The sort field values of one tuple, in the spec's order (None: the tuple lacks it).
pub(crate) type SortKey = Vec<Option<Value>>;

impl SortSpec {
    /// Parses `"f1 asc, f2 desc"`. An empty spec, a field without a direction or with
    /// another word than `asc`/`desc` is [`Error::InvalidInput`].
    pub(crate) fn parse(spec: &str) -> Result<SortSpec> {
        let bad = |why: &str| Error::invalid_input(format!("export sort {spec:?}: {why}"));
        let mut fields = Vec::new();
        for part in spec.split(',') {
            let words: Vec<&str> = part.split_whitespace().collect();
            let desc = match words.as_slice() {
                [_, dir] if dir.eq_ignore_ascii_case("asc") => false,
                [_, dir] if dir.eq_ignore_ascii_case("desc") => true,
                [] => return Err(bad("an empty sort field")),
                _ => return Err(bad("each field needs asc or desc, e.g. \"id asc\"")),
            };
            fields.push(SortField {
                name: words[0].to_string(),
                desc,
            });
        }
        Ok(SortSpec { fields })
    }

    /// The key of the tuple whose JSON is `bytes` (a JSON object; anything else is a
    /// `serde_json` error).
    pub(crate) fn key_of(&self, bytes: &[u8]) -> serde_json::Result<SortKey> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let key = KeySeed(self).deserialize(&mut de)?;
        de.end()?;
        Ok(key)
    }

    /// Compares two keys of this spec.
    pub(crate) fn compare(&self, a: &SortKey, b: &SortKey) -> Ordering {
        for (i, f) in self.fields.iter().enumerate() {
            let (x, y) = (
                a.get(i).and_then(Option::as_ref),
                b.get(i).and_then(Option::as_ref),
            );
            let ord = compare_values(x, y, f.desc);
            if ord != Ordering::Equal {
                return ord;
            }
        }
        Ordering::Equal
    }
}

/// One field's order: ascending order of the values, reversed for `desc`, with missing
/// values placed as the module docs say.
fn compare_values(a: Option<&Value>, b: Option<&Value>, desc: bool) -> Ordering {
    let zero = Value::from(0);
    let ord = match (a, b) {
        (None, None) => return Ordering::Equal,
        // A numeric field without a value is 0 in /export's order.
        (None, Some(v @ Value::Number(_))) => ascending(&zero, v),
        (Some(v @ Value::Number(_)), None) => ascending(v, &zero),
        // Any other missing value is first ascending and last descending.
        (None, Some(_)) => {
            return if desc {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Some(_), None) => {
            return if desc {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (Some(x), Some(y)) => ascending(x, y),
    };
    if desc {
        ord.reverse()
    } else {
        ord
    }
}

/// The ascending order of two present values.
fn ascending(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i.cmp(&j),
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(i), Some(j)) => i.cmp(&j),
                _ => {
                    let (f, g) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
                    f.total_cmp(&g)
                }
            },
        },
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        // Values of different kinds (a field Solr types differently per shard cannot be
        // sorted on): a fixed order of kinds, so the merge stays total.
        _ => rank(a)
            .cmp(&rank(b))
            .then_with(|| a.to_string().cmp(&b.to_string())),
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// Reads a tuple object keeping the sort fields' values only.
struct KeySeed<'a>(&'a SortSpec);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = SortKey;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<SortKey, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = SortKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tuple (a JSON object)")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> std::result::Result<SortKey, M::Error> {
        let fields = &self.0.fields;
        let mut key: SortKey = vec![None; fields.len()];
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match fields.iter().position(|f| f.name == name) {
                Some(i) => key[i] = Some(map.next_value::<Value>()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(spec: &SortSpec, v: Value) -> SortKey {
        spec.key_of(v.to_string().as_bytes()).expect("a key")
    }

    fn sorted(spec: &str, tuples: Vec<Value>) -> Vec<Value> {
        let spec = SortSpec::parse(spec).expect("spec");
        let mut keyed: Vec<(SortKey, Value)> = tuples
            .into_iter()
            .map(|t| (key(&spec, t.clone()), t))
            .collect();
        keyed.sort_by(|a, b| spec.compare(&a.0, &b.0));
        keyed.into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn specs_parse_and_bad_ones_are_typed_errors() {
        let s = SortSpec::parse(" popularity desc ,id  ASC").expect("spec");
        let names: Vec<(&str, bool)> = s.fields.iter().map(|f| (f.name.as_str(), f.desc)).collect();
        assert_eq!(names, [("popularity", true), ("id", false)]);
        for bad in ["", "id", "id up", "id asc,", "id asc extra"] {
            assert!(
                matches!(SortSpec::parse(bad), Err(Error::InvalidInput(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn numbers_compare_numerically_and_strings_by_bytes() {
        let out = sorted(
            "n asc",
            vec![
                json!({"n":10}),
                json!({"n":9}),
                json!({"n":-1.5}),
                json!({"n":2.5}),
            ],
        );
        assert_eq!(
            out,
            [
                json!({"n":-1.5}),
                json!({"n":2.5}),
                json!({"n":9}),
                json!({"n":10})
            ]
        );
        let big = sorted("n asc", vec![json!({"n":u64::MAX}), json!({"n":i64::MAX})]);
        assert_eq!(big, [json!({"n":i64::MAX}), json!({"n":u64::MAX})]);
        // "10" before "9" as strings; 'Z' (0x5a) before 'a' (0x61); é after z (UTF-8 bytes).
        let out = sorted(
            "s asc",
            vec![
                json!({"s":"9"}),
                json!({"s":"a"}),
                json!({"s":"é"}),
                json!({"s":"10"}),
                json!({"s":"Z"}),
            ],
        );
        let want: Vec<Value> = ["10", "9", "Z", "a", "é"]
            .iter()
            .map(|s| json!({"s":s}))
            .collect();
        assert_eq!(out, want);
    }

    #[test]
    fn desc_reverses_and_ties_fall_to_the_next_field() {
        let t = |p: i64, id: &str| json!({"id": id, "p": p, "other": [1, {"x": 2}]});
        let out = sorted(
            "p desc,id asc",
            vec![t(1, "b"), t(3, "c"), t(1, "a"), t(3, "a")],
        );
        assert_eq!(out, [t(3, "a"), t(3, "c"), t(1, "a"), t(1, "b")]);
        let spec = SortSpec::parse("p desc,id asc").expect("spec");
        assert_eq!(
            spec.compare(&key(&spec, t(2, "x")), &key(&spec, t(2, "x"))),
            Ordering::Equal
        );
    }

    #[test]
    fn missing_values_sort_as_export_sorts_them() {
        // A missing number is 0: between the negatives and the positives, either direction.
        let out = sorted("n asc", vec![json!({"n":5}), json!({}), json!({"n":-5})]);
        assert_eq!(out, [json!({"n":-5}), json!({}), json!({"n":5})]);
        let out = sorted("n desc", vec![json!({"n":-5}), json!({}), json!({"n":5})]);
        assert_eq!(out, [json!({"n":5}), json!({}), json!({"n":-5})]);
        // A missing string is first ascending, last descending; two missing are equal.
        let out = sorted("s asc", vec![json!({"s":"a"}), json!({"id":1})]);
        assert_eq!(out, [json!({"id":1}), json!({"s":"a"})]);
        let out = sorted("s desc", vec![json!({"id":1}), json!({"s":"a"})]);
        assert_eq!(out, [json!({"s":"a"}), json!({"id":1})]);
        let spec = SortSpec::parse("s asc").expect("spec");
        assert_eq!(
            spec.compare(&key(&spec, json!({})), &key(&spec, json!({"x":1}))),
            Ordering::Equal
        );
    }

    #[test]
    fn a_tuple_that_is_not_an_object_is_an_error() {
        let spec = SortSpec::parse("id asc").expect("spec");
        assert!(spec.key_of(b"[1,2]").is_err());
        assert!(spec.key_of(b"{\"id\":").is_err());
        assert!(spec.key_of(b"{\"id\":1} x").is_err());
    }
}
