//! `wt=cbor` responses: Solr's CBOR writer (a JSON writer that emits CBOR through Jackson),
//! decoded into the value `wt=json` gives.
//!
//! The structure is the JSON writer's (NamedLists as flat arrays with the default
//! `json.nl=flat`, dates as ISO strings), so the mapping is direct. One documented
//! difference: CBOR carries 32-bit floats as such, and a 32-bit float is given as the number
//! its shortest decimal form denotes (`1.1`, as JSON prints it); the decoder sees the value
//! widened to 64 bits, so a double that is exactly a 32-bit float's value is shown the same
//! way. Byte strings become base64 strings, as in JSON.

use serde_json::{Map, Value};

use super::javabin::{base64, float32, float64};

/// Decodes a CBOR response body. Never panics; nesting is limited by the CBOR reader.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    if body.is_empty() {
        return Err("empty body".into());
    }
    let mut reader = body;
    let v: ciborium::Value =
        ciborium::de::from_reader(&mut reader).map_err(|e| format!("invalid CBOR: {e}"))?;
    if !reader.is_empty() {
        return Err(format!("{} bytes after the CBOR value", reader.len()));
    }
    Ok(convert(v))
}

fn convert(v: ciborium::Value) -> Value {
    use ciborium::Value as C;
    match v {
        C::Null => Value::Null,
        C::Bool(b) => Value::Bool(b),
        C::Integer(i) => {
            let i = i128::from(i);
            if let Ok(x) = i64::try_from(i) {
                Value::from(x)
            } else if let Ok(x) = u64::try_from(i) {
                Value::from(x)
            } else {
                float64(i as f64)
            }
        }
        C::Float(f) => {
            let narrow = f as f32;
            if f64::from(narrow) == f {
                float32(narrow)
            } else {
                float64(f)
            }
        }
        C::Text(s) => Value::String(s),
        C::Bytes(b) => Value::String(base64(&b)),
        C::Array(a) => Value::Array(a.into_iter().map(convert).collect()),
        C::Map(entries) => {
            let mut m = Map::new();
            for (k, v) in entries {
                let k = match convert(k) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                m.insert(k, convert(v));
            }
            Value::Object(m)
        }
        C::Tag(_, inner) => convert(*inner),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn garbage_and_truncation_are_errors() {
        assert!(decode(b"").is_err());
        assert!(decode(b"<html>").is_err());
        assert!(decode(&[0xa1, 0x61]).is_err());
        assert!(decode(&[0x9f; 10_000]).is_err());
    }
}
