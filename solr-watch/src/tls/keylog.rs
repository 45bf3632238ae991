//! TLS secrets from a key log: the NSS `SSLKEYLOGFILE` format that curl, Python, Go, Node,
//! Firefox, Chrome and Java agents write when the variable is set.
//!
//! One secret per line, `LABEL <client random, 64 hex digits> <secret, hex>`:
//! `CLIENT_RANDOM` carries the TLS 1.2 master secret (48 bytes); TLS 1.3 writes
//! `CLIENT_HANDSHAKE_TRAFFIC_SECRET`, `SERVER_HANDSHAKE_TRAFFIC_SECRET`,
//! `CLIENT_TRAFFIC_SECRET_0` and `SERVER_TRAFFIC_SECRET_0` (32 or 48 bytes, the suite's hash
//! length). Comments (`#`), blank lines and other labels (`EXPORTER_SECRET`,
//! `CLIENT_EARLY_TRAFFIC_SECRET`, ...) are skipped; a line that is not three fields of the
//! right lengths is counted as malformed with its line number and why, never with its text.
//!
//! [`KeyLogFile`] reads the file as it grows (a live capture while the client writes it):
//! a lookup that misses reads what was appended since, so keys written after watch started
//! are found. Secrets never reach `Debug` output, errors or reports.

use std::collections::HashMap;
use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};

/// Bytes of a ClientHello random.
pub const RANDOM_LEN: usize = 32;

/// The secrets one connection's client logged, found by its ClientHello random.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    /// TLS 1.2 master secret (`CLIENT_RANDOM`).
    pub master: Option<Vec<u8>>,
    /// TLS 1.3 `CLIENT_HANDSHAKE_TRAFFIC_SECRET`.
    pub client_handshake: Option<Vec<u8>>,
    /// TLS 1.3 `SERVER_HANDSHAKE_TRAFFIC_SECRET`.
    pub server_handshake: Option<Vec<u8>>,
    /// TLS 1.3 `CLIENT_TRAFFIC_SECRET_0`.
    pub client_traffic: Option<Vec<u8>>,
    /// TLS 1.3 `SERVER_TRAFFIC_SECRET_0`.
    pub server_traffic: Option<Vec<u8>>,
}

impl fmt::Debug for Secrets {
    /// Names which secrets are present; never their bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let has = |s: &Option<Vec<u8>>| s.as_ref().map(|_| "<redacted>");
        f.debug_struct("Secrets")
            .field("master", &has(&self.master))
            .field("client_handshake", &has(&self.client_handshake))
            .field("server_handshake", &has(&self.server_handshake))
            .field("client_traffic", &has(&self.client_traffic))
            .field("server_traffic", &has(&self.server_traffic))
            .finish()
    }
}

/// A line that could not be read, by number (from 1) and reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// Line number, from 1.
    pub line: u64,
    /// Why (never the line's text: it may hold a secret).
    pub why: String,
}

/// Secrets by client random.
#[derive(Default)]
pub struct KeyLog {
    by_random: HashMap<[u8; RANDOM_LEN], Secrets>,
    lines: u64,
    ignored: u64,
    malformed: Vec<Malformed>,
}

impl fmt::Debug for KeyLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyLog")
            .field("connections", &self.by_random.len())
            .field("lines", &self.lines)
            .field("ignored", &self.ignored)
            .field("malformed", &self.malformed)
            .finish()
    }
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

impl KeyLog {
    /// Parses a whole key log text.
    pub fn parse(text: &str) -> KeyLog {
        let mut k = KeyLog::default();
        for line in text.lines() {
            k.add_line(line);
        }
        k
    }

    /// Reads one more line (without its line end).
    pub fn add_line(&mut self, line: &str) {
        self.lines += 1;
        let n = self.lines;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return;
        }
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        let label = fields[0];
        let slot: fn(&mut Secrets) -> &mut Option<Vec<u8>> = match label {
            "CLIENT_RANDOM" => |s| &mut s.master,
            "CLIENT_HANDSHAKE_TRAFFIC_SECRET" => |s| &mut s.client_handshake,
            "SERVER_HANDSHAKE_TRAFFIC_SECRET" => |s| &mut s.server_handshake,
            "CLIENT_TRAFFIC_SECRET_0" => |s| &mut s.client_traffic,
            "SERVER_TRAFFIC_SECRET_0" => |s| &mut s.server_traffic,
            _ => {
                self.ignored += 1;
                return;
            }
        };
        let bad = |why: String| Malformed { line: n, why };
        let err = if fields.len() != 3 {
            Some(bad(format!(
                "{label}: {} fields, expected 3 (label, client random, secret)",
                fields.len()
            )))
        } else {
            match (unhex(fields[1]), unhex(fields[2])) {
                (None, _) => Some(bad(format!("{label}: client random is not hex"))),
                (_, None) => Some(bad(format!("{label}: secret is not hex"))),
                (Some(r), _) if r.len() != RANDOM_LEN => Some(bad(format!(
                    "{label}: client random is {} bytes, not {RANDOM_LEN}",
                    r.len()
                ))),
                (Some(_), Some(s)) if label == "CLIENT_RANDOM" && s.len() != 48 => Some(bad(
                    format!("{label}: master secret is {} bytes, not 48", s.len()),
                )),
                (Some(_), Some(s)) if label != "CLIENT_RANDOM" && ![32, 48].contains(&s.len()) => {
                    Some(bad(format!(
                        "{label}: secret is {} bytes, not 32 or 48",
                        s.len()
                    )))
                }
                (Some(r), Some(s)) => {
                    let mut key = [0u8; RANDOM_LEN];
                    key.copy_from_slice(&r);
                    *slot(self.by_random.entry(key).or_default()) = Some(s);
                    None
                }
            }
        };
        if let Some(e) = err {
            self.malformed.push(e);
        }
    }

    /// The secrets logged for `client_random`.
    pub fn get(&self, client_random: &[u8; RANDOM_LEN]) -> Option<&Secrets> {
        self.by_random.get(client_random)
    }

    /// Connections (client randoms) with at least one secret.
    pub fn connections(&self) -> usize {
        self.by_random.len()
    }

    /// Lines read.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Lines with a label this tool does not use (skipped).
    pub fn ignored(&self) -> u64 {
        self.ignored
    }

    /// Lines that could not be read.
    pub fn malformed(&self) -> &[Malformed] {
        &self.malformed
    }
}

#[derive(Debug, Default)]
struct FileState {
    log: KeyLog,
    /// Bytes of the file consumed (up to the last complete line).
    offset: u64,
}

/// A key log file read as it grows, shared by every connection of a capture.
#[derive(Debug)]
pub struct KeyLogFile {
    path: Option<PathBuf>,
    state: Mutex<FileState>,
}

impl KeyLogFile {
    /// Opens `path` and reads what it holds now. An unreadable file is an error; a file that
    /// does not exist yet is read once it appears (the client creates it on its first
    /// connection).
    pub fn open(path: &Path) -> Result<KeyLogFile> {
        let k = KeyLogFile {
            path: Some(path.to_path_buf()),
            state: Mutex::new(FileState::default()),
        };
        if path.exists() {
            std::fs::File::open(path)
                .with_context(|| format!("opening the key log {}", path.display()))?;
        }
        k.refresh(false);
        Ok(k)
    }

    /// A fixed key log from text (tests, or keys that are not in a file).
    pub fn from_text(text: &str) -> KeyLogFile {
        KeyLogFile {
            path: None,
            state: Mutex::new(FileState {
                log: KeyLog::parse(text),
                offset: 0,
            }),
        }
    }

    /// Reads lines appended since the last read. With `to_end`, a last line without a line
    /// end counts too (the file is complete); otherwise it waits for its line end.
    pub fn refresh(&self, to_end: bool) {
        let Some(path) = &self.path else { return };
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Ok(mut f) = std::fs::File::open(path) else {
            return;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len < st.offset {
            // Truncated and rewritten: start over (secrets already read stay known).
            st.offset = 0;
        }
        if len == st.offset || f.seek(SeekFrom::Start(st.offset)).is_err() {
            return;
        }
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_err() {
            return;
        }
        let complete = if to_end {
            buf.len()
        } else {
            buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
        };
        for line in String::from_utf8_lossy(&buf[..complete]).lines() {
            st.log.add_line(line);
        }
        st.offset += complete as u64;
    }

    /// The secrets of the connection whose ClientHello carried `client_random`, after reading
    /// the lines appended to the file since the last look.
    pub fn lookup(&self, client_random: &[u8; RANDOM_LEN], to_end: bool) -> Option<Secrets> {
        let found = |s: &Self| {
            s.state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .log
                .get(client_random)
                .cloned()
        };
        // Always read what was appended first: a TLS 1.3 connection's secrets arrive as
        // several lines (handshake secrets, then traffic secrets), so an entry found with
        // only some of them must not stop the file from being read further.
        self.refresh(to_end);
        found(self)
    }

    /// Counts of what was read so far.
    pub fn stats(&self) -> KeyLogStats {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        KeyLogStats {
            connections: st.log.connections() as u64,
            lines: st.log.lines(),
            ignored: st.log.ignored(),
            malformed: st.log.malformed().to_vec(),
        }
    }
}

/// What a key log held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyLogStats {
    /// Client randoms with at least one secret.
    pub connections: u64,
    /// Lines read.
    pub lines: u64,
    /// Lines with a label not used here.
    pub ignored: u64,
    /// Lines that could not be read.
    pub malformed: Vec<Malformed>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const R1: &str = "0101010101010101010101010101010101010101010101010101010101010101";
    const R2: &str = "0202020202020202020202020202020202020202020202020202020202020202";

    fn hex(n: usize, b: u8) -> String {
        format!("{b:02x}").repeat(n)
    }

    #[test]
    fn every_label_comments_blank_and_unknown() {
        let text = format!(
            "# SSL/TLS secrets log file, generated by OpenSSL\n\n\
             CLIENT_RANDOM {R1} {m}\n\
             CLIENT_HANDSHAKE_TRAFFIC_SECRET {R2} {a}\r\n\
             SERVER_HANDSHAKE_TRAFFIC_SECRET {R2} {b}\n\
             CLIENT_TRAFFIC_SECRET_0 {R2} {c}\n\
             SERVER_TRAFFIC_SECRET_0 {R2} {d}\n\
             EXPORTER_SECRET {R2} {c}\n   \n",
            m = hex(48, 0xaa),
            a = hex(32, 1),
            b = hex(32, 2),
            c = hex(48, 3),
            d = hex(48, 4),
        );
        let k = KeyLog::parse(&text);
        assert_eq!(k.connections(), 2);
        assert_eq!(k.lines(), 9);
        assert_eq!(k.ignored(), 1);
        assert!(k.malformed().is_empty(), "{:?}", k.malformed());
        let s1 = k.get(&[1; 32]).expect("R1");
        assert_eq!(s1.master.as_deref(), Some(&[0xaa; 48][..]));
        assert!(s1.client_traffic.is_none());
        let s2 = k.get(&[2; 32]).expect("R2");
        assert_eq!(s2.client_handshake.as_deref(), Some(&[1; 32][..]));
        assert_eq!(s2.server_handshake.as_deref(), Some(&[2; 32][..]));
        assert_eq!(s2.client_traffic.as_deref(), Some(&[3; 48][..]));
        assert_eq!(s2.server_traffic.as_deref(), Some(&[4; 48][..]));
        assert!(s2.master.is_none());
        assert!(k.get(&[3; 32]).is_none());
    }

    #[test]
    fn malformed_lines_are_counted_by_number_without_their_text() {
        let secret = hex(48, 0x5e);
        let text = format!(
            "CLIENT_RANDOM {R1}\n\
             CLIENT_RANDOM {R1} {secret} extra\n\
             CLIENT_RANDOM zz{} {secret}\n\
             CLIENT_RANDOM {R1} {secret}z\n\
             CLIENT_RANDOM 0101 {secret}\n\
             CLIENT_RANDOM {R1} {}\n\
             SERVER_TRAFFIC_SECRET_0 {R1} {}\n\
             CLIENT_RANDOM {R1} {secret}\n",
            &R1[2..],
            hex(32, 0x5e),
            hex(40, 0x5e),
        );
        let k = KeyLog::parse(&text);
        let lines: Vec<u64> = k.malformed().iter().map(|m| m.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5, 6, 7]);
        let why: Vec<&str> = k.malformed().iter().map(|m| m.why.as_str()).collect();
        assert!(why[0].contains("2 fields"), "{why:?}");
        assert!(why[1].contains("4 fields"), "{why:?}");
        assert!(why[2].contains("random is not hex"), "{why:?}");
        assert!(why[3].contains("secret is not hex"), "{why:?}");
        assert!(why[4].contains("2 bytes, not 32"), "{why:?}");
        assert!(why[5].contains("32 bytes, not 48"), "{why:?}");
        assert!(why[6].contains("40 bytes, not 32 or 48"), "{why:?}");
        let all = format!("{k:?} {:?}", k.get(&[1; 32]));
        assert!(!all.contains("5e5e"), "no secret in Debug: {all}");
        assert!(all.contains("<redacted>"));
        // The one good line still counts.
        assert_eq!(k.connections(), 1);
    }

    #[test]
    fn a_growing_file_is_read_as_lines_complete() {
        let dir = std::env::temp_dir().join(format!("tb-keylog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("keys.log");
        let _ = std::fs::remove_file(&path);
        let k = KeyLogFile::open(&path).expect("a missing file is read once it appears");
        assert!(k.lookup(&[1; 32], false).is_none());
        let line1 = format!("CLIENT_RANDOM {R1} {}\n", hex(48, 7));
        let line2 = format!("CLIENT_RANDOM {R2} {}", hex(48, 8));
        std::fs::write(&path, format!("{line1}{}", &line2[..40])).expect("write");
        assert!(k.lookup(&[1; 32], false).is_some(), "appended after open");
        assert!(k.lookup(&[2; 32], false).is_none(), "line not complete yet");
        std::fs::write(&path, format!("{line1}{line2}")).expect("write");
        assert!(k.lookup(&[2; 32], false).is_none(), "still no line end");
        assert!(k.lookup(&[2; 32], true).is_some(), "complete at the end");
        assert_eq!(k.stats().connections, 2);
        assert!(k.stats().malformed.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
