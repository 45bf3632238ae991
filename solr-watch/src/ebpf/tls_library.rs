//! Which TLS library a process has loaded, read from its memory map (`/proc/PID/maps`):
//! what the report names when the process's TLS was not read, and what to do instead.

use schemars::JsonSchema;
use serde::Serialize;

/// A TLS library a process has mapped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TlsLibrary {
    /// Its name: `GnuTLS`, `Java (JSSE)`, `NSS`, `OpenSSL`, ...
    pub name: String,
    /// The mapped file it was recognised by.
    pub path: String,
}

/// File-name marks, in the order they are tried (a JVM is Java whatever else it maps).
const MARKS: [(&str, &str); 7] = [
    ("libjvm.so", "Java (JSSE)"),
    ("libgnutls", "GnuTLS"),
    ("libnss3.so", "NSS"),
    ("libwolfssl", "wolfSSL"),
    ("libmbedtls", "Mbed TLS"),
    ("libboringssl", "BoringSSL"),
    ("libssl.so", "OpenSSL"),
];

/// The TLS library among the files `maps` (the text of `/proc/PID/maps`) names, if any.
pub fn from_maps(maps: &str) -> Option<TlsLibrary> {
    let files: Vec<&str> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|f| f.starts_with('/'))
        .collect();
    MARKS.iter().find_map(|(mark, name)| {
        let file = files.iter().find(|f| file_name(f).starts_with(mark))?;
        Some(TlsLibrary {
            name: (*name).into(),
            path: (*file).into(),
        })
    })
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The library of process `pid`, read now.
pub fn of_process(pid: u32) -> Option<TlsLibrary> {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .ok()
        .and_then(|m| from_maps(&m))
}

/// What was not read, for the report's "requests unknown" line; `refused`: why the probes
/// of that library did not attach, when they were tried.
pub fn not_read(lib: Option<&TlsLibrary>, connections: usize, refused: Option<&str>) -> String {
    let by = lib.map_or_else(
        || "a TLS library linked into the program (rustls, Go's crypto/tls, ...)".to_string(),
        |l| format!("{} ({})", l.name, l.path),
    );
    match refused {
        Some(why) => format!(
            "{connections} TLS connections encrypted by {by}, whose probes did not attach: {why}"
        ),
        None => format!(
            "{connections} TLS connections encrypted by {by}, which watch --ebpf does not read \
             (it reads the OpenSSL it probes)"
        ),
    }
}

/// What to do instead, for that library; `refused`: its probes were tried and refused.
pub fn advice(lib: Option<&TlsLibrary>, refused: bool) -> String {
    let cleartext = "or watch the cleartext side (between a TLS terminator and Solr)";
    if refused {
        return "run watch --ebpf as root or with CAP_SYS_ADMIN: the kernel attaches uprobes \
                only with CAP_SYS_ADMIN (CAP_BPF with CAP_PERFMON loads the probes and reads \
                http, not https)"
            .into();
    }
    match lib.map(|l| l.name.as_str()) {
        Some("OpenSSL") => format!(
            "probe this OpenSSL too: watch --ebpf --tls-binary {}",
            lib.map_or("", |l| l.path.as_str())
        ),
        Some("GnuTLS") | Some("NSS") => format!(
            "run the client with SSLKEYLOGFILE=FILE (this library writes its keys there) and \
             watch a capture with --keylog FILE (pcap, not --ebpf), {cleartext}"
        ),
        Some("Java (JSSE)") => {
            format!("JSSE writes no key log of its own: {cleartext}, or run the client over http")
        }
        _ => format!(
            "a key log where the program enables one (Go: tls.Config.KeyLogWriter; rustls: \
             KeyLogFile) with a pcap watch --keylog FILE, {cleartext}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAPS: &str = "\
7f0a1000-7f0a2000 r--p 00000000 fd:01 1234 /usr/lib/x86_64-linux-gnu/libgnutls.so.30.34.3
7f0a3000-7f0a4000 r-xp 00000000 fd:01 1235 /usr/lib/x86_64-linux-gnu/libc.so.6
7ffd1000-7ffd2000 rw-p 00000000 00:00 0 [stack]
";

    #[test]
    fn the_library_is_named_from_the_map_and_gets_its_own_advice() {
        let lib = from_maps(MAPS).expect("GnuTLS");
        assert_eq!(lib.name, "GnuTLS");
        assert_eq!(lib.path, "/usr/lib/x86_64-linux-gnu/libgnutls.so.30.34.3");
        assert!(advice(Some(&lib), false).contains("SSLKEYLOGFILE"));
        assert_eq!(
            not_read(Some(&lib), 3, None),
            "3 TLS connections encrypted by GnuTLS \
             (/usr/lib/x86_64-linux-gnu/libgnutls.so.30.34.3), which watch --ebpf does not \
             read (it reads the OpenSSL it probes)"
        );
    }

    #[test]
    fn a_jvm_is_java_even_with_openssl_mapped_and_openssl_elsewhere_is_a_tls_binary() {
        let jvm = "1-2 r-xp 0 0:0 1 /usr/lib/jvm/java-17/lib/server/libjvm.so\n\
                   3-4 r-xp 0 0:0 1 /usr/lib/x86_64-linux-gnu/libssl.so.3\n";
        assert_eq!(from_maps(jvm).expect("java").name, "Java (JSSE)");
        let conda = "1-2 r-xp 0 0:0 1 /opt/conda/lib/libssl.so.3\n";
        let lib = from_maps(conda).expect("openssl");
        assert!(advice(Some(&lib), false).contains("--tls-binary /opt/conda/lib/libssl.so.3"));
        assert!(not_read(Some(&lib), 2, Some("EACCES"))
            .ends_with("whose probes did not attach: EACCES"));
        assert!(advice(Some(&lib), true).contains("CAP_SYS_ADMIN"));
        assert_eq!(from_maps("1-2 r-xp 0 0:0 1 /usr/bin/app\n"), None);
        assert!(advice(None, false).contains("KeyLogWriter"));
    }
}
