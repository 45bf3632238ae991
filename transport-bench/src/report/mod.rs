//! The line chart the sweeps share ([`lines`]): p50 vs RTT (`sweep`), time and bytes vs rows
//! (`large-responses`), reads vs write rate (`routing`).

pub mod lines;
