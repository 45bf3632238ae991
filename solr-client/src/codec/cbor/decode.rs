//! Reading `wt=cbor` responses into the value `wt=json` gives (see [`super`]).

use serde_json::{Map, Value};

use crate::codec::values::{base64, float32, float64};

/// Deepest nesting accepted (as for JSON and javabin).
const MAX_DEPTH: usize = 128;

/// Decodes a CBOR response body. Never panics; nesting is limited to 128 levels and no
/// length can make it allocate past the input.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    if body.is_empty() {
        return Err("empty body".into());
    }
    let mut r = Reader::new(body);
    let v = match r.item()? {
        Item::Value(v) => v,
        Item::Break => return Err("a break where a value belongs".into()),
    };
    if r.pos != body.len() {
        return Err(format!("{} bytes after the CBOR value", body.len() - r.pos));
    }
    Ok(v)
}

/// Tag 256 opens a string-reference namespace; tag 25 refers to the n-th string of the
/// innermost one (the "stringref" extension Solr's Jackson CBOR writer uses).
pub(crate) const STRINGREF_NAMESPACE: u64 = 256;
const STRINGREF: u64 = 25;

enum Item {
    Value(Value),
    Break,
}

pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: usize,
    /// The strings of each open namespace, in the order they appeared.
    pub(crate) tables: Vec<Vec<Value>>,
}

impl<'a> Reader<'a> {
    /// A reader at the first byte of `body`.
    pub(crate) fn new(body: &'a [u8]) -> Self {
        Reader {
            buf: body,
            pos: 0,
            depth: 0,
            tables: Vec::new(),
        }
    }
}

impl Reader<'_> {
    pub(crate) fn err(&self, m: &str) -> String {
        format!("CBOR at byte {}: {m}", self.pos)
    }

    pub(crate) fn take(&mut self, n: u64) -> Result<&[u8], String> {
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            return Err(self.err(&format!("truncated: {n} bytes needed, {left} left")));
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    pub(crate) fn uint(&mut self, info: u8) -> Result<u64, String> {
        Ok(match info {
            0..=23 => u64::from(info),
            24 => u64::from(self.take(1)?[0]),
            25 => u64::from(u16::from_be_bytes([self.take(1)?[0], self.take(1)?[0]])),
            26 => {
                let b = self.take(4)?;
                u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            }
            27 => {
                let b = self.take(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                u64::from_be_bytes(a)
            }
            _ => return Err(self.err(&format!("bad additional information {info}"))),
        })
    }

    /// A count of items, each at least one byte: never more than the bytes left.
    pub(crate) fn count(&mut self, info: u8) -> Result<usize, String> {
        let n = self.uint(info)?;
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            return Err(self.err(&format!("{n} items cannot fit in {left} bytes")));
        }
        Ok(n as usize)
    }

    /// Records a string in the innermost namespace when it is long enough to be worth a
    /// reference at the table's current size (the stringref rule).
    fn record(&mut self, len: usize, v: &Value) {
        if let Some(t) = self.tables.last_mut() {
            let min = match t.len() as u64 {
                0..24 => 3,
                24..256 => 4,
                256..65_536 => 5,
                65_536..4_294_967_296 => 7,
                _ => 11,
            };
            if len >= min {
                t.push(v.clone());
            }
        }
    }

    /// The bytes of a byte or text string (definite, or indefinite in chunks).
    fn string_bytes(&mut self, major: u8, info: u8) -> Result<Vec<u8>, String> {
        if info != 31 {
            let n = self.uint(info)?;
            return Ok(self.take(n)?.to_vec());
        }
        let mut out = Vec::new();
        loop {
            let b = self.take(1)?[0];
            if b == 0xff {
                return Ok(out);
            }
            if b >> 5 != major || b & 0x1f == 31 {
                return Err(self.err("bad chunk in an indefinite-length string"));
            }
            let n = self.uint(b & 0x1f)?;
            out.extend_from_slice(self.take(n)?);
        }
    }

    pub(crate) fn value(&mut self) -> Result<Value, String> {
        match self.item()? {
            Item::Value(v) => Ok(v),
            Item::Break => Err(self.err("a break where a value belongs")),
        }
    }

    /// The next key of a map as text; None at the break that ends an indefinite-length
    /// (`indefinite`) map.
    pub(crate) fn map_key(&mut self, indefinite: bool) -> Result<Option<String>, String> {
        Ok(Some(match self.item()? {
            Item::Break if indefinite => return Ok(None),
            Item::Break => return Err(self.err("a break inside a map")),
            Item::Value(Value::String(s)) => s,
            // A container as a key is refused: printed as JSON inside another key's JSON it
            // is escaped again at every level and grows without bound (found by fuzzing).
            Item::Value(Value::Array(_) | Value::Object(_)) => {
                return Err(self.err("a map key is a list or a map (keys are names)"))
            }
            Item::Value(other) => other.to_string(),
        }))
    }

    fn item(&mut self) -> Result<Item, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(&format!("nested deeper than {MAX_DEPTH}")));
        }
        let r = self.item_inner();
        self.depth -= 1;
        r
    }

    fn item_inner(&mut self) -> Result<Item, String> {
        let b = self.take(1)?[0];
        let (major, info) = (b >> 5, b & 0x1f);
        let v = match major {
            0 => Value::from(self.uint(info)?),
            1 => {
                let n = self.uint(info)?;
                match i64::try_from(n) {
                    Ok(x) => Value::from(-1 - x),
                    Err(_) => float64(-1.0 - n as f64),
                }
            }
            2 => {
                let bytes = self.string_bytes(2, info)?;
                let v = Value::String(base64(&bytes));
                self.record(bytes.len(), &v);
                v
            }
            3 => self.text(info)?,
            4 => self.array(info)?,
            5 => self.map(info)?,
            6 => self.tagged(info)?,
            _ => return self.simple(info),
        };
        Ok(Item::Value(v))
    }

    /// A text string (major type 3), recorded for string references.
    #[inline]
    fn text(&mut self, info: u8) -> Result<Value, String> {
        let bytes = self.string_bytes(3, info)?;
        let len = bytes.len();
        let s = String::from_utf8(bytes).map_err(|_| self.err("text is not UTF-8"))?;
        let v = Value::String(s);
        self.record(len, &v);
        Ok(v)
    }

    /// An array (major type 4), definite or indefinite (`info` 31).
    #[inline]
    fn array(&mut self, info: u8) -> Result<Value, String> {
        let mut a = Vec::new();
        if info == 31 {
            while let Item::Value(v) = self.item()? {
                a.push(v);
            }
        } else {
            let n = self.count(info)?;
            a.reserve(n);
            for _ in 0..n {
                a.push(self.value()?);
            }
        }
        Ok(Value::Array(a))
    }

    /// A map (major type 5), definite or indefinite (`info` 31).
    #[inline]
    fn map(&mut self, info: u8) -> Result<Value, String> {
        let mut m = Map::new();
        let n = if info == 31 {
            None
        } else {
            Some(self.count(info)?)
        };
        let mut i = 0;
        while n != Some(i) {
            let Some(k) = self.map_key(n.is_none())? else {
                break;
            };
            let v = self.value()?;
            m.insert(k, v);
            i += 1;
        }
        Ok(Value::Object(m))
    }

    /// A tagged value (major type 6): string-reference namespaces and references resolved,
    /// any other tag (dates as text, big numbers...) read as the tagged value itself.
    #[inline]
    fn tagged(&mut self, info: u8) -> Result<Value, String> {
        match self.uint(info)? {
            STRINGREF_NAMESPACE => {
                self.tables.push(Vec::new());
                let r = self.value();
                self.tables.pop();
                r
            }
            STRINGREF => {
                let idx = match self.value()? {
                    Value::Number(n) => n.as_u64(),
                    _ => None,
                };
                let table = self
                    .tables
                    .last()
                    .ok_or_else(|| self.err("a string reference outside any namespace"))?;
                match idx.and_then(|i| table.get(usize::try_from(i).ok()?)) {
                    Some(v) => Ok(v.clone()),
                    None => Err(self.err(&format!("string reference {idx:?} to no string"))),
                }
            }
            _ => self.value(),
        }
    }

    /// A simple value or float (major type 7), or the break that ends an indefinite item.
    #[inline]
    fn simple(&mut self, info: u8) -> Result<Item, String> {
        let v = match info {
            20 => Value::Bool(false),
            21 => Value::Bool(true),
            22 | 23 => Value::Null,
            25 => {
                let h = self.uint(25)? as u16;
                float32(half_to_f32(h))
            }
            26 => float32(f32::from_bits(self.uint(26)? as u32)),
            27 => float64(f64::from_bits(self.uint(27)?)),
            31 => return Ok(Item::Break),
            24 => {
                self.take(1)?;
                Value::Null
            }
            0..=19 => Value::Null,
            _ => return Err(self.err(&format!("bad simple value {info}"))),
        };
        Ok(Item::Value(v))
    }
}

/// An IEEE half-precision float as f32 (exact: every half is an f32).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    sign * match exp {
        0 => frac * 2f32.powi(-24),
        31 if frac == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + frac / 1024.0) * 2f32.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fuzzing find: maps nested as each other's keys (`a1 a1 a1 ...`) took over 10 s
    /// when every container key was printed as JSON inside the next; now an error at once.
    #[test]
    fn containers_as_map_keys_are_errors() {
        let input = include_bytes!("testdata/cbor-nested-keys.bin");
        let e = decode(input).expect_err("a container key");
        assert!(e.contains("map key"), "{e}");
        assert!(decode(&[0xa1, 0xa0, 0x61, b'v']).is_err(), "{{}} as a key");
    }
    use serde_json::json;

    #[test]
    fn maps_arrays_and_floats_like_json() {
        let v = ciborium::Value::Map(vec![
            (
                ciborium::Value::Text("responseHeader".into()),
                ciborium::Value::Map(vec![(
                    ciborium::Value::Text("QTime".into()),
                    ciborium::Value::Integer(3.into()),
                )]),
            ),
            (
                ciborium::Value::Text("f".into()),
                ciborium::Value::Float(f64::from(1.1f32)),
            ),
            (
                ciborium::Value::Text("b".into()),
                ciborium::Value::Bytes(vec![0xff, 0, 0x7f]),
            ),
        ]);
        let mut body = Vec::new();
        ciborium::ser::into_writer(&v, &mut body).expect("encodes");
        assert_eq!(
            decode(&body).expect("decodes"),
            json!({"responseHeader": {"QTime": 3}, "f": 1.1, "b": "/wB/"})
        );
    }

    #[test]
    fn string_references_resolve() {
        use ciborium::Value as C;
        let r = |i: u64| C::Tag(25, Box::new(C::Integer(i.into())));
        // "id" is too short to be recorded; "title" is #0, "books" #1.
        let v = C::Tag(
            256,
            Box::new(C::Array(vec![
                C::Map(vec![
                    (C::Text("id".into()), C::Text("a".into())),
                    (C::Text("title".into()), C::Text("books".into())),
                ]),
                C::Map(vec![(r(0), r(1))]),
            ])),
        );
        let mut body = Vec::new();
        ciborium::ser::into_writer(&v, &mut body).expect("encodes");
        assert_eq!(
            decode(&body).expect("decodes"),
            json!([{"id": "a", "title": "books"}, {"title": "books"}])
        );
        let mut bad = Vec::new();
        ciborium::ser::into_writer(&r(0), &mut bad).expect("encodes");
        assert!(decode(&bad).is_err());
        let mut bad = Vec::new();
        ciborium::ser::into_writer(&C::Tag(256, Box::new(r(3))), &mut bad).expect("encodes");
        assert!(decode(&bad).is_err());
    }

    #[test]
    fn garbage_and_truncation_are_errors() {
        assert!(decode(b"").is_err());
        assert!(decode(b"<html>").is_err());
        assert!(decode(&[0xa1, 0x61]).is_err());
        assert!(decode(&[0x9f; 10_000]).is_err());
    }
}
