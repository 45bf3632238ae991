//! e2e test crate
