//! The run-time names of the feature-gated transports and formats, tested across
//! `scripts/features.sh`'s feature sets (a module of its own: it uses the codec and the
//! transports, which both use `features`).

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
