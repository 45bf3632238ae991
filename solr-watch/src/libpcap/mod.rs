//! What uses libpcap (the `live` feature): the bench's SYN witness ([`witness`]), live
//! captures under it, and libpcap's own reading of a saved file (the tests' independent
//! oracle for [`crate::pcap::reader`]).

pub mod witness;
