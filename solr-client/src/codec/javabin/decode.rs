//! Reading javabin into the value `wt=json` gives (the table in [`super`]).

use serde_json::{Map, Value};

use super::{tag, JavabinError, MAX_DEPTH, VERSION};
use crate::codec::values::{base64, float32, float64};

/// Decodes a whole javabin body (version byte included) into the value `wt=json` gives.
///
/// ```
/// use solr_client::codec::javabin::{decode, Writer};
/// let mut w = Writer::new();
/// w.ordered_map(1);
/// w.extern_str("QTime");
/// w.int(3);
/// assert_eq!(decode(&w.finish()).unwrap(), serde_json::json!({"QTime": 3}));
/// ```
pub fn decode(body: &[u8]) -> std::result::Result<Value, JavabinError> {
    let mut r = Reader::open(body)?;
    let top = r.value()?;
    if r.pos != body.len() {
        return Err(r.err(format!("{} bytes after the value", body.len() - r.pos)));
    }
    // The JSON writer prints the response NamedList as an object.
    Ok(match top {
        Decoded::Value(v) => v,
        Decoded::NamedList(pairs) => Value::Object(pairs.into_iter().collect()),
        Decoded::Doc(m) | Decoded::InputDoc(m) => Value::Object(m),
        Decoded::End => return Err(r.err("an end tag where a value belongs".into())),
    })
}

/// One decoded item: a value, or the shapes whose JSON form depends on where they stand.
pub(crate) enum Decoded {
    Value(Value),
    /// A NamedList (flat array in JSON; an object at the top).
    NamedList(Vec<(String, Value)>),
    /// A SolrDocument (an object, or an anonymous child where a field name would be).
    Doc(Map<String, Value>),
    /// A SolrInputDocument (likewise).
    InputDoc(Map<String, Value>),
    /// The end tag of an iterator.
    End,
}

/// A map key as text: strings as they are, `null` and scalars printed. A container as a key
/// is refused: printing one as JSON inside another key's JSON escapes it again at every
/// level, so 128 nested levels would grow without bound (found by the `javabin_decode`
/// fuzz target: a 256 MiB allocation from a few hundred bytes).
pub(crate) fn key_text(v: Value, at: usize) -> std::result::Result<String, JavabinError> {
    match v {
        Value::String(s) => Ok(s),
        Value::Null => Ok("null".into()),
        Value::Bool(_) | Value::Number(_) => Ok(v.to_string()),
        Value::Array(_) | Value::Object(_) => Err(JavabinError {
            offset: at,
            message: "a map key is a list or a map (keys are names)".into(),
        }),
    }
}

impl Decoded {
    pub(crate) fn into_value(self) -> Value {
        match self {
            Decoded::Value(v) => v,
            Decoded::NamedList(pairs) => {
                let mut a = Vec::with_capacity(pairs.len() * 2);
                for (k, v) in pairs {
                    a.push(Value::String(k));
                    a.push(v);
                }
                Value::Array(a)
            }
            Decoded::Doc(m) | Decoded::InputDoc(m) => Value::Object(m),
            Decoded::End => Value::Null,
        }
    }
}

pub(crate) struct Reader<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) depth: usize,
    pub(crate) externs: Vec<String>,
}

impl<'a> Reader<'a> {
    /// A reader of the whole javabin body `body`, past its version byte (checked).
    pub(crate) fn open(body: &'a [u8]) -> std::result::Result<Self, JavabinError> {
        let mut r = Reader {
            buf: body,
            pos: 0,
            depth: 0,
            externs: Vec::new(),
        };
        let version = r.u8()?;
        if version != VERSION {
            return Err(r.err(format!(
                "version byte {version}, expected {VERSION}: not a javabin body"
            )));
        }
        Ok(r)
    }
}

impl Reader<'_> {
    pub(crate) fn err(&self, message: String) -> JavabinError {
        JavabinError {
            offset: self.pos,
            message,
        }
    }

    fn left(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn take(&mut self, n: usize) -> std::result::Result<&[u8], JavabinError> {
        if n > self.left() {
            return Err(self.err(format!("truncated: {n} bytes needed, {} left", self.left())));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub(crate) fn u8(&mut self) -> std::result::Result<u8, JavabinError> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn array<const N: usize>(&mut self) -> std::result::Result<[u8; N], JavabinError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    pub(crate) fn vint(&mut self) -> std::result::Result<u64, JavabinError> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err("variable-length number longer than 64 bits".into()))
    }

    /// A size of at most `usize::MAX`, bounded by the bytes left (each item takes at
    /// least `min_item` bytes), so no size can make the decoder allocate past the input.
    pub(crate) fn bounded(
        &self,
        n: u64,
        min_item: usize,
    ) -> std::result::Result<usize, JavabinError> {
        let max = (self.left() / min_item.max(1)) as u64;
        if n > max {
            return Err(self.err(format!(
                "size {n} larger than the {} bytes left can hold",
                self.left()
            )));
        }
        Ok(n as usize)
    }

    /// The size of a tag-and-length tag: the low five bits, `31` meaning a vint follows.
    pub(crate) fn tag_size(
        &mut self,
        t: u8,
        min_item: usize,
    ) -> std::result::Result<usize, JavabinError> {
        let n = self.raw_size(t)?;
        self.bounded(n, min_item)
    }

    /// The number in the low five bits of a tag, `31` meaning a vint follows.
    pub(crate) fn raw_size(&mut self, t: u8) -> std::result::Result<u64, JavabinError> {
        let n = u64::from(t & 0x1f);
        Ok(if n == 0x1f {
            n.saturating_add(self.vint()?)
        } else {
            n
        })
    }

    pub(crate) fn str_body(&mut self, n: usize) -> std::result::Result<String, JavabinError> {
        let at = self.pos;
        let bytes = self.take(n)?;
        std::str::from_utf8(bytes)
            .map(str::to_string)
            .map_err(|e| JavabinError {
                offset: at,
                message: format!("string is not UTF-8: {e}"),
            })
    }

    pub(crate) fn value(&mut self) -> std::result::Result<Decoded, JavabinError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("nested deeper than {MAX_DEPTH}")));
        }
        let at = self.pos;
        let t = self.u8()?;
        let r = self.value_of(t).map_err(|mut e| {
            if e.message.starts_with("unknown tag") {
                e.offset = at;
            }
            e
        });
        self.depth -= 1;
        r
    }

    pub(crate) fn plain(&mut self) -> std::result::Result<Value, JavabinError> {
        Ok(self.value()?.into_value())
    }

    fn key(&mut self) -> std::result::Result<String, JavabinError> {
        let at = self.pos;
        let v = self.plain()?;
        key_text(v, at)
    }

    /// `n` entries (key, value) of a map.
    fn entries(&mut self, n: usize) -> std::result::Result<Map<String, Value>, JavabinError> {
        let mut m = Map::new();
        for _ in 0..n {
            let k = self.key()?;
            let v = self.plain()?;
            m.insert(k, v);
        }
        Ok(m)
    }

    pub(crate) fn value_of(&mut self, t: u8) -> std::result::Result<Decoded, JavabinError> {
        let v = match t >> 5 {
            1 => {
                let n = self.tag_size(t, 1)?;
                Value::String(self.str_body(n)?)
            }
            2 => Value::from(self.small(t)? as i64 as i32),
            3 => Value::from(self.small(t)? as i64),
            4 => {
                let n = self.tag_size(t, 1)?;
                let mut a = Vec::with_capacity(n);
                for _ in 0..n {
                    a.push(self.plain()?);
                }
                Value::Array(a)
            }
            5 => {
                let n = self.tag_size(t, 2)?;
                Value::Object(self.entries(n)?)
            }
            6 => {
                let n = self.tag_size(t, 2)?;
                let mut pairs = Vec::with_capacity(n);
                for _ in 0..n {
                    let k = self.key()?;
                    let v = self.plain()?;
                    pairs.push((k, v));
                }
                return Ok(Decoded::NamedList(pairs));
            }
            7 => Value::String(self.extern_string(t)?),
            _ => return self.plain_tag(t),
        };
        Ok(Decoded::Value(v))
    }

    /// An extern string: a new one (index 0, then the string, remembered) or a reference
    /// to one sent before (its index, from 1).
    fn extern_string(&mut self, t: u8) -> std::result::Result<String, JavabinError> {
        let idx = usize::try_from(self.raw_size(t)?).unwrap_or(usize::MAX);
        if idx == 0 {
            let st = self.u8()?;
            let s = match st >> 5 {
                1 => {
                    let n = self.tag_size(st, 1)?;
                    self.str_body(n)?
                }
                _ if st == tag::NULL => String::from("null"),
                _ => return Err(self.err(format!("extern string of tag {st}"))),
            };
            self.externs.push(s.clone());
            return Ok(s);
        }
        match self.externs.get(idx.saturating_sub(1)) {
            Some(s) => Ok(s.clone()),
            None => Err(self.err(format!(
                "extern string #{idx} referred to before it was sent"
            ))),
        }
    }

    /// Entries (key, value) of a map up to its END tag.
    fn entries_to_end(&mut self) -> std::result::Result<Map<String, Value>, JavabinError> {
        let mut m = Map::new();
        loop {
            let k = self.value()?;
            if matches!(k, Decoded::End) {
                return Ok(m);
            }
            let k = key_text(k.into_value(), self.pos)?;
            let v = self.plain()?;
            m.insert(k, v);
        }
    }

    /// Items of an iterator up to its END tag.
    fn items_to_end(&mut self) -> std::result::Result<Vec<Value>, JavabinError> {
        let mut a = Vec::new();
        loop {
            match self.value()? {
                Decoded::End => return Ok(a),
                d => a.push(d.into_value()),
            }
        }
    }

    pub(crate) fn small(&mut self, t: u8) -> std::result::Result<u64, JavabinError> {
        let mut v = u64::from(t & 0x0f);
        if t & 0x10 != 0 {
            let hi = self.vint()?;
            v |= hi
                .checked_shl(4)
                .filter(|x| x >> 4 == hi)
                .ok_or_else(|| self.err("small number larger than 64 bits".into()))?;
        }
        Ok(v)
    }

    fn plain_tag(&mut self, t: u8) -> std::result::Result<Decoded, JavabinError> {
        let v = match t {
            tag::NULL => Value::Null,
            tag::BOOL_TRUE => Value::Bool(true),
            tag::BOOL_FALSE => Value::Bool(false),
            tag::BYTE => Value::from(self.u8()? as i8),
            tag::SHORT => Value::from(i16::from_be_bytes(self.array()?)),
            tag::INT => Value::from(i32::from_be_bytes(self.array()?)),
            tag::LONG => Value::from(i64::from_be_bytes(self.array()?)),
            tag::FLOAT => float32(f32::from_be_bytes(self.array()?)),
            tag::DOUBLE => float64(f64::from_be_bytes(self.array()?)),
            tag::DATE => Value::String(iso_date(i64::from_be_bytes(self.array()?))),
            tag::MAP => {
                let n = self.vint()?;
                let n = self.bounded(n, 2)?;
                Value::Object(self.entries(n)?)
            }
            tag::MAP_ENTRY_ITER => Value::Object(self.entries_to_end()?),
            tag::MAP_ENTRY => Value::Object(self.entries(1)?),
            tag::SOLRDOC => return self.solr_doc().map(Decoded::Doc),
            tag::SOLRDOCLST => self.doc_list()?,
            tag::BYTEARR => {
                let n = self.vint()?;
                let n = self.bounded(n, 1)?;
                Value::String(base64(self.take(n)?))
            }
            tag::ITERATOR => Value::Array(self.items_to_end()?),
            tag::END => return Ok(Decoded::End),
            tag::SOLRINPUTDOC => return self.input_doc().map(Decoded::InputDoc),
            tag::ENUM_FIELD_VALUE => {
                let _int = self.plain()?;
                self.plain()?
            }
            tag::UUID => Value::String(uuid(&self.array::<16>()?)),
            tag::PRIMITIVE_ARR => self.primitive_array()?,
            other => return Err(self.err(format!("unknown tag {other}"))),
        };
        Ok(Decoded::Value(v))
    }

    fn solr_doc(&mut self) -> std::result::Result<Map<String, Value>, JavabinError> {
        let t = self.u8()?;
        if t >> 5 != tag::ORDERED_MAP >> 5 {
            return Err(self.err(format!("SolrDocument without its field map (tag {t})")));
        }
        let n = self.tag_size(t, 1)?;
        self.doc_fields(n, false)
    }

    /// The `n` fields (name, value) of a SolrDocument or, `input`, a SolrInputDocument, whose
    /// child documents (of the same kind, where a name belongs) go under `_childDocuments_`
    /// after the fields.
    fn doc_fields(
        &mut self,
        n: usize,
        input: bool,
    ) -> std::result::Result<Map<String, Value>, JavabinError> {
        let mut m = Map::new();
        let mut children = Vec::new();
        for _ in 0..n {
            let mut item = self.value()?;
            // In a SolrInputDocument, a float before a field name is a (legacy) field boost.
            if let (true, Decoded::Value(Value::Number(_))) = (input, &item) {
                item = self.value()?;
            }
            match item {
                Decoded::Doc(child) if !input => children.push(Value::Object(child)),
                Decoded::InputDoc(child) if input => children.push(Value::Object(child)),
                k => {
                    let k = key_text(k.into_value(), self.pos)?;
                    let v = self.plain()?;
                    m.insert(k, v);
                }
            }
        }
        if !children.is_empty() {
            m.insert("_childDocuments_".into(), Value::Array(children));
        }
        Ok(m)
    }

    fn doc_list(&mut self) -> std::result::Result<Value, JavabinError> {
        let head = match self.plain()? {
            Value::Array(a) if a.len() >= 3 => a,
            _ => return Err(self.err("SolrDocumentList without its header list".into())),
        };
        let docs = match self.plain()? {
            Value::Array(d) => d,
            Value::Null => Vec::new(),
            _ => return Err(self.err("SolrDocumentList without its document list".into())),
        };
        let mut m = Map::new();
        m.insert("numFound".into(), head[0].clone());
        m.insert("start".into(), head[1].clone());
        if !head[2].is_null() {
            m.insert("maxScore".into(), head[2].clone());
        }
        if let Some(exact) = head.get(3).filter(|v| !v.is_null()) {
            m.insert("numFoundExact".into(), exact.clone());
        }
        m.insert("docs".into(), Value::Array(docs));
        Ok(Value::Object(m))
    }

    fn input_doc(&mut self) -> std::result::Result<Map<String, Value>, JavabinError> {
        let n = self.vint()?;
        let n = self.bounded(n, 1)?;
        let _boost = self.plain()?;
        self.doc_fields(n, true)
    }

    fn primitive_array(&mut self) -> std::result::Result<Value, JavabinError> {
        let t = self.u8()?;
        let n = self.vint()?;
        let width = match t {
            tag::FLOAT | tag::INT => 4,
            tag::LONG | tag::DOUBLE => 8,
            tag::SHORT => 2,
            tag::BOOL_TRUE | tag::BOOL_FALSE | tag::BYTE => 1,
            other => return Err(self.err(format!("primitive array of tag {other}"))),
        };
        let n = self.bounded(n, width)?;
        if t == tag::BYTE {
            return Ok(Value::String(base64(self.take(n)?)));
        }
        let mut a = Vec::with_capacity(n);
        for _ in 0..n {
            a.push(match t {
                tag::FLOAT => float32(f32::from_be_bytes(self.array()?)),
                tag::INT => Value::from(i32::from_be_bytes(self.array()?)),
                tag::LONG => Value::from(i64::from_be_bytes(self.array()?)),
                tag::DOUBLE => float64(f64::from_be_bytes(self.array()?)),
                tag::SHORT => Value::from(i16::from_be_bytes(self.array()?)),
                _ => Value::Bool(self.u8()? != tag::BOOL_FALSE),
            });
        }
        Ok(Value::Array(a))
    }
}

/// Epoch milliseconds as Solr prints a date: `YYYY-MM-DDThh:mm:ssZ`, with `.mmm` when the
/// milliseconds are not zero (Java's `Instant.toString`).
pub fn iso_date(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian, 400-year eras).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year > 9999 {
        format!("+{year}")
    } else {
        format!("-{:04}", -year)
    };
    let (h, mi, s) = (sod / 3600, sod % 3600 / 60, sod % 60);
    if millis == 0 {
        format!("{year}-{month:02}-{day:02}T{h:02}:{mi:02}:{s:02}Z")
    } else {
        format!("{year}-{month:02}-{day:02}T{h:02}:{mi:02}:{s:02}.{millis:03}Z")
    }
}

fn uuid(b: &[u8; 16]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::javabin::{encode_add, Writer};
    use serde_json::json;

    fn round(f: impl FnOnce(&mut Writer)) -> Value {
        let mut w = Writer::new();
        f(&mut w);
        decode(&w.finish()).expect("decodes")
    }

    #[test]
    fn scalars_round_trip() {
        assert_eq!(round(|w| w.null()), Value::Null);
        assert_eq!(round(|w| w.bool(true)), json!(true));
        assert_eq!(round(|w| w.bool(false)), json!(false));
        assert_eq!(round(|w| w.byte(-128)), json!(-128));
        assert_eq!(round(|w| w.short(-32768)), json!(-32768));
        assert_eq!(round(|w| w.short(32767)), json!(32767));
        for i in [0, 1, 14, 15, 16, 255, 4096, i32::MAX, -1, i32::MIN] {
            assert_eq!(round(|w| w.int(i)), json!(i), "int {i}");
        }
        for l in [
            0,
            15,
            1 << 40,
            (1 << 56) - 1,
            1 << 56,
            i64::MAX,
            -1,
            i64::MIN,
        ] {
            assert_eq!(round(|w| w.long(l)), json!(l), "long {l}");
        }
        assert_eq!(round(|w| w.float(1.1)), json!(1.1));
        assert_eq!(round(|w| w.float(3.4028235e38)), json!(3.4028235e38));
        assert_eq!(round(|w| w.float(f32::NAN)), Value::Null);
        assert_eq!(
            round(|w| w.double(1.797_693_134_862_315_7e308)),
            json!(f64::MAX)
        );
        assert_eq!(round(|w| w.double(0.1)), json!(0.1));
        assert_eq!(round(|w| w.str("☃ snow")), json!("☃ snow"));
        let long = "x".repeat(1000);
        assert_eq!(round(|w| w.str(&long)), json!(long));
        assert_eq!(round(|w| w.bytes(&[0xff, 0, 0x7f])), json!("/wB/"));
        assert_eq!(round(|w| w.enum_value(2, "HIGH")), json!("HIGH"));
        let u = [
            0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0, 1, 2, 3, 4, 5, 6, 7,
        ];
        assert_eq!(
            round(|w| w.uuid(u)),
            json!("12345678-9abc-def0-0001-020304050607")
        );
    }

    #[test]
    fn dates_print_like_solr() {
        assert_eq!(round(|w| w.date(0)), json!("1970-01-01T00:00:00Z"));
        assert_eq!(
            round(|w| w.date(613_180_800_000)),
            json!("1989-06-07T00:00:00Z")
        );
        assert_eq!(
            round(|w| w.date(1_704_164_645_120)),
            json!("2024-01-02T03:04:05.120Z")
        );
        assert_eq!(round(|w| w.date(-1)), json!("1969-12-31T23:59:59.999Z"));
        assert_eq!(iso_date(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(iso_date(253_402_300_800_000), "+10000-01-01T00:00:00Z");
    }

    #[test]
    fn containers_round_trip() {
        let v = round(|w| {
            w.array(3);
            w.int(1);
            w.str("a");
            w.null();
        });
        assert_eq!(v, json!([1, "a", null]));
        let v = round(|w| {
            w.iterator();
            w.int(1);
            w.iterator();
            w.end();
            w.end();
        });
        assert_eq!(v, json!([1, []]));
        let v = round(|w| {
            w.map(2);
            w.extern_str("k");
            w.int(1);
            w.int(7); // a non-string key becomes its JSON text
            w.str("x");
        });
        assert_eq!(v, json!({"k": 1, "7": "x"}));
        let v = round(|w| {
            w.map_entry_iter();
            w.extern_str("a");
            w.bool(true);
            w.end();
        });
        assert_eq!(v, json!({"a": true}));
        let v = round(|w| {
            w.map_entry();
            w.str("k");
            w.int(2);
        });
        assert_eq!(v, json!({"k": 2}));
        assert_eq!(round(|w| w.float_array(&[0.5, 1.1])), json!([0.5, 1.1]));
        // A big array: size past the 5-bit field.
        let v = round(|w| {
            w.array(100);
            for i in 0..100 {
                w.int(i);
            }
        });
        assert_eq!(v, Value::Array((0..100).map(Value::from).collect()));
    }

    #[test]
    fn named_list_is_flat_and_ordered_map_an_object_extern_strings_repeat() {
        let v = round(|w| {
            w.named_list(2);
            w.extern_str("facet_fields");
            w.ordered_map(1);
            w.extern_str("category");
            w.named_list(2);
            w.str("books");
            w.int(3);
            w.str("music");
            w.int(1);
            w.extern_str("again");
            w.ordered_map(1);
            w.extern_str("category"); // by index now
            w.int(4);
        });
        assert_eq!(
            v,
            json!({"facet_fields": {"category": ["books", 3, "music", 1]}, "again": {"category": 4}})
        );
    }

    #[test]
    fn documents_and_doc_lists_like_the_json_writer() {
        let v = round(|w| {
            w.ordered_map(1);
            w.extern_str("response");
            w.doc_list(2, 0, Some(1.5), true);
            w.array(2);
            w.solr_doc(2);
            w.extern_str("id");
            w.str("p1");
            w.solr_doc(1); // anonymous child
            w.extern_str("id");
            w.str("c1");
            w.solr_doc(2);
            w.extern_str("id");
            w.str("p2");
            w.extern_str("kids"); // labelled child
            w.solr_doc(1);
            w.extern_str("id");
            w.str("c2");
        });
        assert_eq!(
            v,
            json!({"response": {"numFound": 2, "start": 0, "maxScore": 1.5, "numFoundExact": true,
                "docs": [{"id": "p1", "_childDocuments_": [{"id": "c1"}]},
                         {"id": "p2", "kids": {"id": "c2"}}]}})
        );
        let v = round(|w| {
            w.doc_list(0, 0, None, false);
            w.array(0);
        });
        assert_eq!(
            v,
            json!({"numFound": 0, "start": 0, "numFoundExact": false, "docs": []})
        );
    }

    #[test]
    fn input_documents_skip_field_boosts_and_gather_children() {
        let v = round(|w| {
            w.input_doc(3);
            w.float(2.0); // a legacy field boost, before the name
            w.extern_str("id");
            w.str("p");
            w.extern_str("n");
            w.int(15);
            w.input_doc(1); // an anonymous child
            w.extern_str("id");
            w.str("c");
        });
        assert_eq!(
            v,
            json!({"id": "p", "n": 15, "_childDocuments_": [{"id": "c"}]})
        );
        // In a SolrDocument a number where a name belongs is a name, not a boost.
        let v = round(|w| {
            w.solr_doc(1);
            w.int(7);
            w.str("x");
        });
        assert_eq!(v, json!({"7": "x"}));
    }

    #[test]
    fn compact_ints_and_longs_have_solrs_bytes() {
        let bytes = |f: &dyn Fn(&mut Writer)| {
            let mut w = Writer::new();
            f(&mut w);
            w.finish()[1..].to_vec()
        };
        assert_eq!(bytes(&|w| w.int(14)), [tag::SINT | 14]);
        assert_eq!(bytes(&|w| w.int(15)), [tag::SINT | 0x1f, 0]);
        assert_eq!(bytes(&|w| w.int(300)), [tag::SINT | 0x1c, 18]);
        assert_eq!(bytes(&|w| w.long(14)), [tag::SLONG | 14]);
        assert_eq!(
            bytes(&|w| w.long(1 << 40)),
            [tag::SLONG | 0x10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02]
        );
        assert_eq!(bytes(&|w| w.int(0)).len(), 5);
        assert_eq!(bytes(&|w| w.long(1 << 56)).len(), 9);
    }

    #[test]
    fn update_request_encodes_children_and_atomic_maps() {
        let doc = json!({"id": "p", "n": 3, "f": 0.5, "tags": ["a", "b"],
            "price": {"inc": 2}, "kids": [{"id": "k1"}],
            "_childDocuments_": [{"id": "c1", "x_s": "y"}]});
        let body = encode_add(&[doc.as_object().cloned().expect("object")]).expect("encodes");
        let v = decode(&body).expect("decodes");
        let got = &v["docs"][0];
        assert_eq!(got["id"], json!("p"));
        assert_eq!(got["n"], json!(3));
        assert_eq!(got["f"], json!(0.5));
        assert_eq!(got["tags"], json!(["a", "b"]));
        assert_eq!(got["price"], json!({"inc": 2}));
        assert_eq!(got["kids"][0]["id"], json!("k1"));
        assert_eq!(got["_childDocuments_"], json!([{"id": "c1", "x_s": "y"}]));
        assert_eq!(v["params"], json!({}));
        assert_eq!(v["delByQ"], Value::Null);
    }

    #[test]
    fn every_single_byte_mutation_of_a_response_decodes_or_errs_without_panic() {
        let mut w = Writer::new();
        w.ordered_map(3);
        w.extern_str("responseHeader");
        w.ordered_map(1);
        w.extern_str("QTime");
        w.int(3);
        w.extern_str("response");
        w.doc_list(2, 0, Some(0.5), true);
        w.array(2);
        for i in 0..2 {
            w.solr_doc(4);
            w.extern_str("id");
            w.str(&format!("d{i}"));
            w.extern_str("ts");
            w.date(1_700_000_000_000);
            w.extern_str("tags");
            w.array(2);
            w.str("a");
            w.long(1 << 40);
            w.solr_doc(1);
            w.extern_str("id");
            w.str("child");
        }
        w.extern_str("facets");
        w.named_list(1);
        w.str("k");
        w.float_array(&[1.5]);
        let body = w.finish();
        assert!(decode(&body).is_ok());
        let mut tried = 0;
        for i in 0..body.len() {
            for x in [0x00, 0x01, 0x0f, 0x1f, 0x3f, 0x7f, 0x80, 0xbf, 0xe1, 0xff] {
                let mut m = body.clone();
                m[i] = x;
                let _ = decode(&m);
                let _ = decode(&m[..i]);
                tried += 1;
            }
        }
        assert_eq!(tried, body.len() * 10);
    }

    /// The fuzz target's find: 256 bytes of maps nested as each other's keys. Printing a
    /// container key as JSON escaped it again at every level (a 256 MiB allocation); a
    /// container key is now an error, at once.
    #[test]
    fn containers_as_map_keys_are_errors_not_exponential_text() {
        let input = include_bytes!("testdata/javabin-nested-keys.bin");
        let e = decode(input).expect_err("a container key");
        assert!(e.message.contains("map key"), "{e}");
        let mut w = Writer::new();
        w.map(1);
        w.map(0); // the key: an empty map
        w.str("v");
        assert!(decode(&w.finish()).is_err());
    }

    #[test]
    fn malformed_input_is_an_error_never_a_panic() {
        for bad in [
            &b""[..],
            &[1],
            &[2],
            &[2, 0x21],
            &[2, 0x3f, 0xff, 0xff, 0xff, 0xff, 0x0f],
            &[
                2, 0x9f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
            ],
            &[2, tag::MAP, 0xff, 0xff, 0xff, 0xff, 0x0f],
            &[2, 0xe1],
            &[2, 23],
            &[2, tag::ITERATOR, 1],
            &[2, tag::SOLRDOCLST, tag::NULL],
            &[2, tag::SOLRDOC, 0x20],
            &[2, 0x22, 0xff, 0xfe],
            &[2, tag::NULL, tag::NULL],
            &[
                2, 0x70, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
            ],
            b"<html>",
        ] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
        let deep: Vec<u8> = std::iter::once(2)
            .chain(std::iter::repeat_n(0x81, 100_000))
            .chain(std::iter::once(0))
            .collect();
        let e = decode(&deep).expect_err("too deep");
        assert!(e.message.contains("nested"), "{e}");
    }
}
