//! The layers over a transport, each written once over [`Reply`](super::Reply): retry,
//! redirects, the 401 renewal, gzip, and the [`Decorator`](decorator::Decorator) seam.

pub(crate) mod auth;
pub(crate) mod counting;
pub(crate) mod decorator;
#[cfg(feature = "gzip")]
pub(crate) mod gzip;
pub(crate) mod redirect;
pub(crate) mod retry;
