//! HTTP on a connection: the HTTP/1.1 exchange (`exchange`), its HTTP/2 counterpart
//! (`h2`), the incoming body, and the HTTP/2 frame clock.

pub(crate) mod exchange;
#[cfg(feature = "http2")]
pub(crate) mod h2;
#[cfg(feature = "http2")]
pub(crate) mod h2_clock;
pub(crate) mod incoming;
