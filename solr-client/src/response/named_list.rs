//! [`NamedList`]: Solr's ordered list of (name, value) pairs, read from either JSON shape
//! Solr uses for it.
//!
//! With the default `json.nl=flat` Solr writes a NamedList as a flat array
//! `["a",1,"b",2]`; a `SimpleOrderedMap`, and every NamedList under `json.nl=map`, is a
//! JSON object `{"a":1,"b":2}`. Decoders of other formats (XML, javabin) may produce
//! either. Both decode to the same [`NamedList`], in Solr's order. A name may be `null`:
//! `facet.missing=true` adds the count of documents without a value under a null name.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeSeq, Serializer};

/// An ordered list of (name, value) pairs, as Solr's `NamedList`. Serialized back in the
/// flat form (`["a",1,"b",2]`).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedList<V> {
    entries: Vec<(Option<String>, V)>,
}

impl<V> Default for NamedList<V> {
    fn default() -> Self {
        NamedList {
            entries: Vec::new(),
        }
    }
}

impl<V> NamedList<V> {
    /// A list of the given entries.
    pub fn new(entries: Vec<(Option<String>, V)>) -> Self {
        NamedList { entries }
    }

    /// The first value named `name`.
    pub fn get(&self, name: &str) -> Option<&V> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_deref() == Some(name))
            .map(|(_, v)| v)
    }

    /// The value under the null name (`facet.missing`'s count), if any.
    pub fn get_null(&self) -> Option<&V> {
        self.entries
            .iter()
            .find(|(k, _)| k.is_none())
            .map(|(_, v)| v)
    }

    /// The entries in order; a `None` name is Solr's null name.
    pub fn iter(&self) -> impl Iterator<Item = (Option<&str>, &V)> {
        self.entries.iter().map(|(k, v)| (k.as_deref(), v))
    }

    /// The entries with a name, in order (the null-named one left out).
    pub fn named(&self) -> impl Iterator<Item = (&str, &V)> {
        self.entries
            .iter()
            .filter_map(|(k, v)| k.as_deref().map(|k| (k, v)))
    }

    /// The names in order (`None` for the null name).
    pub fn keys(&self) -> impl Iterator<Item = Option<&str>> {
        self.entries.iter().map(|(k, _)| k.as_deref())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, owned.
    pub fn into_entries(self) -> Vec<(Option<String>, V)> {
        self.entries
    }
}

impl<V> IntoIterator for NamedList<V> {
    type Item = (Option<String>, V);
    type IntoIter = std::vec::IntoIter<(Option<String>, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<V: Serialize> Serialize for NamedList<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.entries.len() * 2))?;
        for (k, v) in &self.entries {
            seq.serialize_element(k)?;
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

struct NamedListVisitor<V>(PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for NamedListVisitor<V> {
    type Value = NamedList<V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Solr NamedList: a flat [name, value, ...] array or an object")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::with_capacity(seq.size_hint().unwrap_or(0) / 2);
        while let Some(name) = seq.next_element::<Option<String>>()? {
            match seq.next_element::<V>()? {
                Some(v) => entries.push((name, v)),
                None => {
                    return Err(de::Error::custom(
                        "a flat NamedList has an odd number of elements",
                    ))
                }
            }
        }
        Ok(NamedList { entries })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((k, v)) = map.next_entry::<String, V>()? {
            entries.push((Some(k), v));
        }
        Ok(NamedList { entries })
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for NamedList<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NamedListVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_map_forms_decode_alike() {
        let flat: NamedList<u64> = serde_json::from_str(r#"["a",1,"b",2,null,3]"#).unwrap();
        let map: NamedList<u64> = serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap();
        assert_eq!(flat.get("b"), Some(&2));
        assert_eq!(flat.get_null(), Some(&3));
        assert_eq!(flat.len(), 3);
        assert_eq!(
            map.named().collect::<Vec<_>>(),
            flat.named().collect::<Vec<_>>()
        );
        assert_eq!(
            serde_json::to_string(&flat).unwrap(),
            r#"["a",1,"b",2,null,3]"#
        );
        assert!(serde_json::from_str::<NamedList<u64>>(r#"["a",1,"b"]"#).is_err());
        assert!(serde_json::from_str::<NamedList<u64>>(r#"["a","x"]"#).is_err());
        assert!(serde_json::from_str::<NamedList<u64>>("7").is_err());
    }
}
