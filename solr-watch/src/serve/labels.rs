//! Who a series belongs to (`host`, and for eBPF `pid`, `comm`, `cgroup`, `container`) and
//! label values escaped for the text exposition.
//!
//! `prometheus-client` 0.24 writes label values as they are: a `comm` holding a quote, a
//! backslash or a newline would break the whole scrape. [`Value`] escapes them as the
//! OpenMetrics text format requires (`\\`, `\"`, `\n`).

use std::fmt::Write;

use prometheus_client::encoding::{EncodeLabelValue, LabelValueEncoder};

/// A label value, escaped when encoded.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub String);

impl EncodeLabelValue for Value {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(&escape(&self.0))
    }
}

/// `s` with backslash, double quote and line feed escaped (OpenMetrics label values).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// A label set: names and values, in exposition order.
pub type Labels = Vec<(&'static str, Value)>;

/// The process a series belongs to: the pcap watch knows only its host, the eBPF watch the
/// process (each `None` is left out of the labels).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Who {
    /// Process id.
    pub pid: Option<u32>,
    /// Command name.
    pub comm: Option<String>,
    /// cgroup v2 path.
    pub cgroup: Option<String>,
    /// Container id.
    pub container: Option<String>,
}

impl Who {
    /// The whole host (the pcap watch): no process labels.
    pub fn host() -> Self {
        Who::default()
    }

    /// The labels of this process on `host`, plus `extra` (e.g. `encoding`).
    pub fn labels(&self, host: &str, extra: Option<(&'static str, &str)>) -> Labels {
        let mut l = vec![("host", Value(host.to_string()))];
        if let Some(pid) = self.pid {
            l.push(("pid", Value(pid.to_string())));
        }
        let known = [
            ("comm", &self.comm),
            ("cgroup", &self.cgroup),
            ("container", &self.container),
        ];
        for (k, v) in known {
            if let Some(v) = v {
                l.push((k, Value(v.clone())));
            }
        }
        if let Some((k, v)) = extra {
            l.push((k, Value(v.to_string())));
        }
        l
    }
}

/// This machine's hostname (`/proc/sys/kernel/hostname`), or `localhost`.
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// A bounded label value for a response's `Content-Encoding` (clients choose it: an
/// unknown one is `other`, so a client cannot grow the series without bound).
pub fn encoding(header: Option<&str>) -> &'static str {
    let v = header.map(|h| h.trim().to_ascii_lowercase());
    match v.as_deref() {
        None | Some("") | Some("identity") => "identity",
        Some("gzip") | Some("x-gzip") => "gzip",
        Some("br") => "br",
        Some("deflate") => "deflate",
        Some("zstd") => "zstd",
        Some(_) => "other",
    }
}
