//! Saved captures: THE reader of pcap and pcapng files ([`reader`], streaming, pure Rust),
//! what can be wrong in one ([`flaw`]), and a minimal pcapng writer ([`pcapng`]).

pub mod flaw;
pub mod pcapng;
pub mod reader;
