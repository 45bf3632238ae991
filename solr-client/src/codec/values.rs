//! Small value helpers the response decoders and update encoders share: JSON numbers from
//! binary floats, base64 text of byte strings, the atomic-update operation names.

use serde_json::{Number, Value};

/// A 32-bit float as the number its shortest decimal form denotes (what Solr's JSON writer
/// prints with `Float.toString`); NaN and infinities, which JSON cannot carry, as null.
pub(crate) fn float32(f: f32) -> Value {
    if !f.is_finite() {
        return Value::Null;
    }
    // Rust's Display of f32 is the shortest decimal that reads back as the same f32.
    let shortest: f64 = f.to_string().parse().unwrap_or(f64::from(f));
    float64(shortest)
}

/// A 64-bit float as a JSON number (null for NaN and infinities).
pub(crate) fn float64(f: f64) -> Value {
    Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// Standard base64 with padding (how Solr's JSON writer prints a byte array).
#[cfg(any(feature = "javabin", feature = "cbor"))]
pub(crate) fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The atomic-update operations Solr knows.
pub(crate) const ATOMIC_OPS: [&str; 6] =
    ["set", "add", "add-distinct", "remove", "removeregex", "inc"];
