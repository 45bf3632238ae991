//! A [`Timing`] as a Python dict: every phase in milliseconds (`None` for a phase that did
//! not happen, such as connect on a reused connection), `total`, `reused`, `bytes_in`,
//! `bytes_out`, `connection_id`, `http_version`, `attempts`, `node`, `qtime`.

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use solr_client::{HttpVersion, Timing};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The timing as a dict.
pub fn to_dict(py: Python<'_>, t: &Timing) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("blocked", ms(t.blocked))?;
    d.set_item("dns", t.dns.map(ms))?;
    d.set_item("connect", t.connect.map(ms))?;
    d.set_item("tunnel", t.tunnel.map(ms))?;
    d.set_item("tls", t.tls.map(ms))?;
    d.set_item("write", ms(t.write))?;
    d.set_item("server_wait", ms(t.server_wait))?;
    d.set_item("transfer", ms(t.transfer))?;
    d.set_item("decompress", t.decompress.map(ms))?;
    d.set_item("total", ms(t.total()))?;
    d.set_item("reused", t.reused)?;
    d.set_item("bytes_in", t.bytes_in)?;
    d.set_item("bytes_out", t.bytes_out)?;
    d.set_item("decoded_bytes", t.decoded_bytes)?;
    d.set_item("connection_id", t.connection_id)?;
    d.set_item("http_version", version(t.http_version))?;
    d.set_item("content_encoding", t.content_encoding.as_deref())?;
    d.set_item("attempts", t.attempts)?;
    d.set_item("node", &t.node)?;
    d.set_item("qtime", t.qtime_ms)?;
    Ok(d.unbind())
}

fn version(v: HttpVersion) -> &'static str {
    match v {
        HttpVersion::Http2 => "HTTP/2",
        _ => "HTTP/1.1",
    }
}
