//! Which optional parts this build of the crate has, for errors that name the missing
//! feature when a choice made at run time (a format or transport parsed from a string, an
//! https URL) needs one that is off.

/// The cargo feature a run-time choice named `name` needs, when this build lacks it: for
/// `"cbor"`, `Some("cbor")` unless the `cbor` feature is on. `None` for names that are
/// either available or not gated at all.
pub(crate) fn missing(name: &str) -> Option<&'static str> {
    let (feature, on) = match name {
        "cbor" => ("cbor", cfg!(feature = "cbor")),
        "javabin" => ("javabin", cfg!(feature = "javabin")),
        "reqwest" => ("reqwest", cfg!(feature = "reqwest")),
        "http2" => ("http2", cfg!(feature = "http2")),
        "https" => ("rustls", cfg!(feature = "rustls-base")),
        "gzip" => ("gzip", cfg!(feature = "gzip")),
        _ => return None,
    };
    (!on).then_some(feature)
}
