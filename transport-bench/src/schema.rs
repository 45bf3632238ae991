//! The JSON Schema of a report type, as the scenarios publish it (`schema` lists them all and
//! a test there keeps `transport-bench/schema/*.schema.json` current).

/// The JSON Schema of `T`, pretty-printed (what `transport-bench/schema/*.schema.json` hold).
pub fn schema_of<T: schemars::JsonSchema>() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(T)).unwrap_or_default()
}
