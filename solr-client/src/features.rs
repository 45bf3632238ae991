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
        "https" => ("rustls", cfg!(feature = "rustls")),
        "gzip" => ("gzip", cfg!(feature = "gzip")),
        _ => return None,
    };
    (!on).then_some(feature)
}

#[cfg(test)]
mod tests {
    use crate::codec::{ResponseFormat, UpdateFormat};
    use crate::transport::TransportKind;
    use crate::Error;

    /// Every name parses when its feature is on, and is a Config error naming the feature
    /// when it is off (never a panic, never "unknown"). Run under
    /// `scripts/features.sh`'s feature sets, this covers both sides.
    #[test]
    fn run_time_choices_name_the_missing_feature() {
        type Parse = fn(&str) -> Result<String, Error>;
        let cases: [(&str, bool, Parse); 4] = [
            ("cbor", cfg!(feature = "cbor"), |s| {
                s.parse::<ResponseFormat>()
                    .map(|f| f.to_string())
                    .and_then(|_| s.parse::<UpdateFormat>().map(|f| f.to_string()))
            }),
            ("javabin", cfg!(feature = "javabin"), |s| {
                s.parse::<ResponseFormat>()
                    .map(|f| f.to_string())
                    .and_then(|_| s.parse::<UpdateFormat>().map(|f| f.to_string()))
            }),
            ("reqwest", cfg!(feature = "reqwest"), |s| {
                s.parse::<TransportKind>().map(|k| k.to_string())
            }),
            ("http2", cfg!(feature = "http2"), |s| {
                s.parse::<TransportKind>().map(|k| k.to_string())
            }),
        ];
        for (name, on, parse) in cases {
            match parse(name) {
                Ok(shown) => {
                    assert!(on, "{name} parsed without its feature");
                    assert_eq!(shown, name);
                }
                Err(Error::Config(msg)) => {
                    assert!(!on, "{name}: {msg}");
                    assert!(msg.contains(&format!("`{name}` feature")), "{msg}");
                }
                Err(e) => panic!("{name}: {e:?}"),
            }
        }
        assert!(
            matches!("nope".parse::<UpdateFormat>(), Err(Error::Config(m)) if m.contains("unknown"))
        );
    }
}
