//! The hosts a [`crate::Proxy`] is not used for (`NO_PROXY`).

use std::net::IpAddr;

/// A list of hosts reached directly, not through the proxy, in the `NO_PROXY` syntax that
/// curl and reqwest read: entries separated by commas (or spaces); `*` alone matches every
/// host; `example.com`, `.example.com` and `*.example.com` each match `example.com` and
/// every name under it; an IP address matches itself and `10.0.0.0/8` (or an IPv6 prefix)
/// every address in it. A `:port` on an entry is ignored (the entry matches every port).
/// Names compare case-insensitively. Default: empty (every host goes through the proxy).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoProxy {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    All,
    Domain(String),
    Net(IpAddr, u8),
}

impl NoProxy {
    /// Parses a `NO_PROXY` list. Empty entries are skipped; nothing in it is an error (an
    /// entry that is neither an address nor a network is taken as a name).
    pub fn parse(list: &str) -> Self {
        let entries = list
            .split([',', ' ', '\t'])
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(Entry::parse)
            .collect();
        NoProxy { entries }
    }

    /// Whether no entry was given.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `host` (a URL's host: a name, an IPv4 address or a bracketed IPv6 address)
    /// is reached directly.
    pub fn matches(&self, host: &str) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let ip = host.parse::<IpAddr>().ok();
        let name = host.trim_end_matches('.').to_ascii_lowercase();
        self.entries.iter().any(|e| match e {
            Entry::All => true,
            Entry::Net(net, bits) => ip.is_some_and(|ip| in_network(ip, *net, *bits)),
            Entry::Domain(d) => {
                name == *d
                    || (name.len() > d.len()
                        && name.ends_with(d.as_str())
                        && name.as_bytes()[name.len() - d.len() - 1] == b'.')
            }
        })
    }
}

impl Entry {
    fn parse(raw: &str) -> Entry {
        if raw == "*" {
            return Entry::All;
        }
        if let Some(net) = network(raw) {
            return net;
        }
        let bare = raw.trim_start_matches('[');
        let bare = match bare.split_once(']') {
            Some((ip, _port)) => ip,
            None => bare.split(':').next().unwrap_or(bare),
        };
        if let Some(net) = network(bare) {
            return net;
        }
        let name = bare.trim_start_matches("*.").trim_start_matches('.');
        Entry::Domain(name.trim_end_matches('.').to_ascii_lowercase())
    }
}

/// `addr` or `addr/bits` as a network entry.
fn network(raw: &str) -> Option<Entry> {
    let (addr, bits) = match raw.split_once('/') {
        Some((a, b)) => (a, b.parse::<u8>().ok()?),
        None => (raw, if raw.contains(':') { 128 } else { 32 }),
    };
    let ip = addr.parse::<IpAddr>().ok()?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    (bits <= max).then_some(Entry::Net(ip, bits))
}

/// Whether the first `bits` bits of `ip` and `net` agree (both the same family).
fn in_network(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let (a, b, width) = match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => (u128::from(u32::from(a)), u128::from(u32::from(b)), 32),
        (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), 128),
        _ => return false,
    };
    if bits == 0 {
        return true;
    }
    let shift = width - u32::from(bits);
    (a >> shift) == (b >> shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_suffixes_addresses_and_networks() {
        let np =
            NoProxy::parse("localhost, .example.com,*.corp.test 10.0.0.0/8,::1,192.168.1.5:8080");
        for direct in [
            "localhost",
            "LOCALHOST",
            "example.com",
            "solr.example.com",
            "a.corp.test",
            "10.2.3.4",
            "[::1]",
            "192.168.1.5",
        ] {
            assert!(np.matches(direct), "{direct} is reached directly");
        }
        for proxied in [
            "badexample.com",
            "example.org",
            "11.0.0.1",
            "[::2]",
            "192.168.1.6",
        ] {
            assert!(!np.matches(proxied), "{proxied} goes through the proxy");
        }
    }

    #[test]
    fn star_matches_all_and_empty_matches_none() {
        assert!(NoProxy::parse("*").matches("anything.test"));
        let empty = NoProxy::parse(" , ");
        assert!(empty.is_empty());
        assert!(!empty.matches("localhost"));
    }
}
