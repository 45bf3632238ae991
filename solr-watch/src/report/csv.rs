//! The two CSV files of a watch run, `connections.csv` and `requests.csv`, written through
//! `bench-report`'s one CSV path (serde records, RFC 4180 quoting).

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::report::{ConnectionRecord, RequestRecord};

/// One line of `connections.csv`: a [`ConnectionRecord`] without its request list.
#[derive(Serialize)]
struct ConnectionRow<'a> {
    id: usize,
    client: &'a str,
    protocol: &'a str,
    opened_in_capture: bool,
    start_ms: f64,
    end_ms: f64,
    requests: Option<u64>,
    bytes_to_server: u64,
    bytes_from_server: u64,
    closed_by: &'a str,
    max_idle_ms: Option<f64>,
    handshake: Option<String>,
}

impl<'a> From<&'a ConnectionRecord> for ConnectionRow<'a> {
    fn from(x: &'a ConnectionRecord) -> Self {
        Self {
            id: x.id,
            client: &x.client,
            protocol: &x.protocol,
            opened_in_capture: x.opened_in_capture,
            start_ms: x.start_ms,
            end_ms: x.end_ms,
            requests: x.requests,
            bytes_to_server: x.bytes_to_server,
            bytes_from_server: x.bytes_from_server,
            closed_by: &x.closed_by,
            max_idle_ms: x.max_idle_ms,
            handshake: x.handshake.map(|h| format!("{h:?}").to_ascii_lowercase()),
        }
    }
}

/// Writes `connections.csv` (one line per connection) into `dir`.
pub fn connections(dir: &Path, list: &[ConnectionRecord]) -> Result<()> {
    let rows: Vec<ConnectionRow> = list.iter().map(ConnectionRow::from).collect();
    Ok(bench_report::write_csv(
        &dir.join("connections.csv"),
        &rows,
    )?)
}

/// Writes `requests.csv` (one line per request) into `dir`.
pub fn requests(dir: &Path, list: &[RequestRecord]) -> Result<()> {
    Ok(bench_report::write_csv(&dir.join("requests.csv"), list)?)
}
