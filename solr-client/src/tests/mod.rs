//! Unit tests that cross several modules of the crate (each module's own tests live beside it).

#[cfg(all(feature = "cbor", feature = "javabin"))]
mod atomic;
#[cfg(all(feature = "cbor", feature = "javabin"))]
mod codec_speed;
mod features;
