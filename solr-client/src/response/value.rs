//! [`SolrValue`]: a value Solr computed (a facet bucket's value, a statistic, a group's
//! value), typed: integers as integers, decimals as floats, dates as [`SolrDate`]s.
//!
//! Solr's JSON carries no date type: a date field's value is a text
//! `2024-01-02T03:04:05Z`. A text in exactly that form reads as a [`SolrValue::Date`]; any
//! other text stays [`SolrValue::Text`]. Solr writes a non-finite double as the text `NaN`,
//! `Infinity` or `-Infinity`; [`SolrValue::as_f64`] reads those as numbers.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A typed value of a facet, a statistic or a group.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SolrValue {
    /// Solr's null (a group of documents without a value, a statistic of no documents).
    #[default]
    Null,
    /// A boolean field's value.
    Bool(bool),
    /// A whole number (counts, int and long fields).
    Int(i64),
    /// A decimal number (float and double fields, averages, sums).
    Float(f64),
    /// A date field's value.
    Date(SolrDate),
    /// Any other text (string fields, date math such as `+1DAY`).
    Text(String),
    /// A list (a `percentile` with several points).
    List(Vec<SolrValue>),
    /// An object, its entries in Solr's order (a `relatedness` result).
    Map(Vec<(String, SolrValue)>),
}

impl SolrValue {
    /// The value as a float: an integer or a float, or Solr's text for a non-finite double.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            SolrValue::Int(i) => Some(*i as f64),
            SolrValue::Float(f) => Some(*f),
            SolrValue::Text(t) => match t.as_str() {
                "NaN" => Some(f64::NAN),
                "Infinity" => Some(f64::INFINITY),
                "-Infinity" => Some(f64::NEG_INFINITY),
                _ => None,
            },
            _ => None,
        }
    }

    /// The value as a whole number (an integer, or a float with no fraction that fits).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            SolrValue::Int(i) => Some(*i),
            SolrValue::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(*f as i64),
            _ => None,
        }
    }

    /// The value as a date.
    pub fn as_date(&self) -> Option<&SolrDate> {
        match self {
            SolrValue::Date(d) => Some(d),
            _ => None,
        }
    }

    /// The value as text: a text, or a date in Solr's form.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            SolrValue::Text(t) => Some(t),
            SolrValue::Date(d) => Some(d.as_str()),
            _ => None,
        }
    }

    /// True for [`SolrValue::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, SolrValue::Null)
    }
}

impl From<f64> for SolrValue {
    fn from(f: f64) -> Self {
        SolrValue::Float(f)
    }
}

impl From<i64> for SolrValue {
    fn from(i: i64) -> Self {
        SolrValue::Int(i)
    }
}

impl From<bool> for SolrValue {
    fn from(b: bool) -> Self {
        SolrValue::Bool(b)
    }
}

impl From<&str> for SolrValue {
    /// A date in Solr's form becomes a [`SolrValue::Date`], any other text a
    /// [`SolrValue::Text`], as when read from Solr.
    fn from(t: &str) -> Self {
        SolrDate::parse(t).map_or_else(|| SolrValue::Text(t.to_string()), SolrValue::Date)
    }
}

impl fmt::Display for SolrValue {
    /// The value as Solr writes it in a query (`42`, `1.5`, `2024-01-02T03:04:05Z`, `abc`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolrValue::Null => f.write_str("null"),
            SolrValue::Bool(b) => write!(f, "{b}"),
            SolrValue::Int(i) => write!(f, "{i}"),
            SolrValue::Float(x) => write!(f, "{x}"),
            SolrValue::Date(d) => f.write_str(d.as_str()),
            SolrValue::Text(t) => f.write_str(t),
            SolrValue::List(_) | SolrValue::Map(_) => {
                f.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
            }
        }
    }
}

/// A date as Solr writes one: UTC, `YYYY-MM-DDThh:mm:ss` with an optional fraction, then
/// `Z`. Keeps Solr's text; compares by the instant.
#[derive(Debug, Clone)]
pub struct SolrDate {
    text: String,
    seconds: i64,
    nanos: u32,
}

impl SolrDate {
    /// Reads Solr's date form; `None` for anything else (date math, local times, offsets).
    pub fn parse(text: &str) -> Option<SolrDate> {
        let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
        let mut d = date.rsplitn(3, '-');
        let (day, month, year) = (d.next()?, d.next()?, d.next()?);
        let (year, month, day) = (year.parse::<i64>().ok()?, num(month, 2)?, num(day, 2)?);
        let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
        let mut c = clock.split(':');
        let (h, mi, s) = (num(c.next()?, 2)?, num(c.next()?, 2)?, num(c.next()?, 2)?);
        if c.next().is_some() || !(1..=12).contains(&month) || h > 23 || mi > 59 || s > 60 {
            return None;
        }
        if day < 1 || day > days_in_month(year, month) || fraction.len() > 9 {
            return None;
        }
        let nanos = match fraction {
            "" => 0,
            f => num(f, f.len())? * 10u32.pow(9 - f.len() as u32),
        };
        let days = days_from_civil(year, month, day);
        let seconds = days * 86_400 + i64::from(h * 3600 + mi * 60 + s);
        Some(SolrDate {
            text: text.to_string(),
            seconds,
            nanos,
        })
    }

    /// Solr's text of the date.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Seconds since 1970-01-01T00:00:00Z (negative before).
    pub fn unix_seconds(&self) -> i64 {
        self.seconds
    }

    /// The fraction of the second, in nanoseconds.
    pub fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// The date as a [`SystemTime`].
    pub fn to_system_time(&self) -> SystemTime {
        let sub = Duration::from_nanos(u64::from(self.nanos));
        if self.seconds >= 0 {
            UNIX_EPOCH + Duration::from_secs(self.seconds as u64) + sub
        } else {
            UNIX_EPOCH - Duration::from_secs(self.seconds.unsigned_abs()) + sub
        }
    }
}

impl PartialEq for SolrDate {
    fn eq(&self, other: &Self) -> bool {
        (self.seconds, self.nanos) == (other.seconds, other.nanos)
    }
}

impl fmt::Display for SolrDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Exactly `len` ASCII digits.
fn num(s: &str, len: usize) -> Option<u32> {
    (s.len() == len && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (400-year eras).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl Serialize for SolrValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SolrValue::Null => s.serialize_unit(),
            SolrValue::Bool(b) => s.serialize_bool(*b),
            SolrValue::Int(i) => s.serialize_i64(*i),
            SolrValue::Float(f) => s.serialize_f64(*f),
            SolrValue::Date(d) => s.serialize_str(d.as_str()),
            SolrValue::Text(t) => s.serialize_str(t),
            SolrValue::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            SolrValue::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for SolrValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = SolrValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Solr value")
    }
    fn visit_unit<E>(self) -> Result<SolrValue, E> {
        Ok(SolrValue::Null)
    }
    fn visit_none<E>(self) -> Result<SolrValue, E> {
        Ok(SolrValue::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<SolrValue, D::Error> {
        SolrValue::deserialize(d)
    }
    fn visit_bool<E>(self, b: bool) -> Result<SolrValue, E> {
        Ok(SolrValue::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<SolrValue, E> {
        Ok(SolrValue::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<SolrValue, E> {
        Ok(i64::try_from(u).map_or(SolrValue::Float(u as f64), SolrValue::Int))
    }
    fn visit_f64<E>(self, f: f64) -> Result<SolrValue, E> {
        Ok(SolrValue::Float(f))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<SolrValue, E> {
        Ok(SolrValue::from(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SolrValue, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(SolrValue::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SolrValue, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, SolrValue>()? {
            entries.push((k, v));
        }
        Ok(SolrValue::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: serde_json::Value) -> SolrValue {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn numbers_keep_their_kind() {
        assert_eq!(read(json!(42)), SolrValue::Int(42));
        assert_eq!(read(json!(-7)), SolrValue::Int(-7));
        assert_eq!(read(json!(2.5)), SolrValue::Float(2.5));
        assert_eq!(read(json!(u64::MAX)).as_f64(), Some(u64::MAX as f64));
        assert_eq!(read(json!("NaN")).as_f64().map(f64::is_nan), Some(true));
        assert_eq!(read(json!("-Infinity")).as_f64(), Some(f64::NEG_INFINITY));
        assert_eq!(read(json!(3.0)).as_i64(), Some(3));
        assert_eq!(read(json!(3.5)).as_i64(), None);
    }

    #[test]
    fn dates_read_as_instants() {
        let d = read(json!("2024-02-29T23:59:59.5Z"));
        let date = d.as_date().expect("a date");
        assert_eq!(date.unix_seconds(), 1_709_251_199);
        assert_eq!(date.subsec_nanos(), 500_000_000);
        assert_eq!(date.as_str(), "2024-02-29T23:59:59.5Z");
        let epoch = SolrDate::parse("1970-01-01T00:00:00Z").unwrap();
        assert_eq!(epoch.to_system_time(), UNIX_EPOCH);
        let before = SolrDate::parse("1969-12-31T23:59:59Z").unwrap();
        assert_eq!(before.unix_seconds(), -1);
        assert_eq!(
            SolrDate::parse("2024-01-02T03:04:05.000Z"),
            SolrDate::parse("2024-01-02T03:04:05Z")
        );
    }

    #[test]
    fn texts_that_are_not_solr_dates_stay_text() {
        for t in [
            "+1DAY",
            "NOW/DAY",
            "2023-02-29T00:00:00Z",
            "2024-01-02T03:04:05",
            "2024-01-02T03:04:05+01:00",
            "2024-1-02T03:04:05Z",
            "2024-01-02T24:00:00Z",
            "abc",
            "",
        ] {
            assert_eq!(read(json!(t)), SolrValue::Text(t.into()), "{t}");
        }
    }

    #[test]
    fn lists_and_objects_keep_order_and_round_trip() {
        let text = r#"{"relatedness":0.25,"fg":[1,2.5,"2024-01-02T03:04:05Z"],"z":null}"#;
        let typed: SolrValue = serde_json::from_str(text).unwrap();
        let SolrValue::Map(entries) = &typed else {
            panic!("not a map: {typed:?}")
        };
        assert_eq!(entries[0], ("relatedness".into(), SolrValue::Float(0.25)));
        let SolrValue::List(fg) = &entries[1].1 else {
            panic!("not a list: {:?}", entries[1])
        };
        assert_eq!(fg[0], SolrValue::Int(1));
        assert!(fg[2].as_date().is_some());
        assert!(entries[2].1.is_null());
        assert_eq!(typed.to_string(), text);
    }
}
