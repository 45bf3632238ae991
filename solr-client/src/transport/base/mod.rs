//! The base transports: each connects and makes one exchange per request (`fresh`,
//! `pooled`, `http2`, `reqwest`).

pub(crate) mod fresh;
#[cfg(feature = "http2")]
pub(crate) mod http2;
pub(crate) mod pooled;
#[cfg(feature = "reqwest")]
pub(crate) mod reqwest_default;
#[cfg(feature = "reqwest")]
pub(crate) mod reqwest_faults;
