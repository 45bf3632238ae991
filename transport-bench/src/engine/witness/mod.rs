//! Connection-reuse witnesses that do not depend on the client under test:
//! - [`kernel`]: `Tcp: ActiveOpens` (and SYN retransmissions) of this network namespace;
//! - pcap (`solr_watch::libpcap::witness`): SYN-only packets to the Solr port, captured with libpcap, IPv4 and IPv6,
//!   retransmitted SYNs counted apart, capture drops reported, wire bytes counted (the
//!   capture and packet parsing live in `solr-watch`, which the `watch` command shares);
//! - the transport's own connector count comes from `Transport::stats()`.
//!
//! [`isolation`] puts the client in a network namespace of its own so that the kernel's
//! count is the client's alone, and defines what each witness counts.

pub mod isolation;
pub mod kernel;
pub mod pacing;

pub use kernel::KernelTcp;
