//! Seeing inside TLS with a key log: the records of one connection, both directions,
//! decrypted with the secrets its client wrote to `SSLKEYLOGFILE` ([`super::keylog`]).
//!
//! - TLS 1.2 (RFC 5246, 5288, 7905): the key block is the PRF (SHA-256 or SHA-384, by suite)
//!   of the master secret over "key expansion" and the server and client randoms; every record
//!   after a side's ChangeCipherSpec is protected, with that side's sequence number (from 0)
//!   in the additional data. AES-GCM records carry an 8-byte explicit nonce after the 4-byte
//!   implicit salt; ChaCha20-Poly1305 XORs the sequence number into its 12-byte IV.
//! - TLS 1.3 (RFC 8446): key and IV are HKDF-Expand-Label("key"/"iv") of the traffic secret;
//!   records of type application_data are protected, the true content type is the last
//!   non-zero byte of the plaintext. Each side starts on its handshake secret and moves to
//!   `*_TRAFFIC_SECRET_0` after its Finished; a KeyUpdate moves it on to the next secret
//!   ("traffic upd"), counted. EncryptedExtensions tells the protocol chosen by ALPN.
//!
//! Suites: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256 and
//! the TLS 1.2 (EC)DHE/RSA AES-GCM and ChaCha20-Poly1305 suites; others (CBC) are counted as
//! unsupported. The ciphers are aws-lc-rs's (the library rustls uses here); nothing is
//! hand-rolled. Suite, randoms and version come from the Hello messages [`super`]
//! parses.
//!
//! Keys written after the records arrive (a live capture reads the key log as the client
//! writes it) are waited for: the records are kept (up to 8 MB a connection) and decrypted
//! when the key appears, at the latest when the capture ends. A record that fails
//! authentication is counted and skipped; a hole in the capture ends decryption of that
//! direction. Nothing here panics on any input. Not decrypted: TLS 1.3 0-RTT early data
//! (`CLIENT_EARLY_TRAFFIC_SECRET` is skipped; such records count as failed), TLS 1.2
//! renegotiation (records after it fail), CBC suites (unsupported).
//!
//! The application bytes come out as [`Plain`] chunks in order, with the timestamp of the
//! packet that completed their record. `super::conn` feeds them to the HTTP/1.1 parsers like
//! cleartext; bytes of a connection that chose `h2` by ALPN belong to the HTTP/2 decoder.

use std::collections::BTreeMap;
use std::sync::Arc;

use aws_lc_rs::{aead, hkdf, tls_prf};
use serde::{Deserialize, Serialize};

use super::keylog::{KeyLogFile, KeyLogStats, Secrets};
use super::TlsConn;

/// Largest record body accepted (TLS 1.2 allows 2^14 + 2048 of ciphertext).
const MAX_RECORD: usize = 16384 + 2048;
/// Record bytes kept per connection while its keys are not in the key log yet.
const PENDING_CAP: usize = 8 << 20;
/// Longest handshake message followed (certificate chains included).
const MAX_HANDSHAKE: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cipher {
    Aes128Gcm,
    Aes256Gcm,
    Chacha20Poly1305,
}

impl Cipher {
    fn algorithm(self) -> &'static aead::Algorithm {
        match self {
            Cipher::Aes128Gcm => &aead::AES_128_GCM,
            Cipher::Aes256Gcm => &aead::AES_256_GCM,
            Cipher::Chacha20Poly1305 => &aead::CHACHA20_POLY1305,
        }
    }

    fn key_len(self) -> usize {
        match self {
            Cipher::Aes128Gcm => 16,
            _ => 32,
        }
    }

    /// TLS 1.2 fixed IV bytes from the key block: GCM's 4-byte salt, ChaCha's whole IV.
    fn tls12_iv_len(self) -> usize {
        match self {
            Cipher::Chacha20Poly1305 => 12,
            _ => 4,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hash {
    Sha256,
    Sha384,
}

impl Hash {
    fn len(self) -> usize {
        match self {
            Hash::Sha256 => 32,
            Hash::Sha384 => 48,
        }
    }

    fn hkdf(self) -> hkdf::Algorithm {
        match self {
            Hash::Sha256 => hkdf::HKDF_SHA256,
            Hash::Sha384 => hkdf::HKDF_SHA384,
        }
    }

    fn prf(self) -> &'static tls_prf::Algorithm {
        match self {
            Hash::Sha256 => &tls_prf::P_SHA256,
            Hash::Sha384 => &tls_prf::P_SHA384,
        }
    }
}

/// A cipher suite this module decrypts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suite {
    /// IANA value.
    pub id: u16,
    /// A TLS 1.3 suite.
    pub tls13: bool,
    cipher: Cipher,
    hash: Hash,
}

/// The suite `id` if it is one decrypted here.
pub fn suite(id: u16) -> Option<Suite> {
    use Cipher::*;
    use Hash::*;
    let (tls13, cipher, hash) = match id {
        0x1301 => (true, Aes128Gcm, Sha256),
        0x1302 => (true, Aes256Gcm, Sha384),
        0x1303 => (true, Chacha20Poly1305, Sha256),
        // (EC)DHE-ECDSA, ECDHE-RSA, RSA and DHE-RSA with AES-GCM.
        0xc02b | 0xc02f | 0x009c | 0x009e => (false, Aes128Gcm, Sha256),
        0xc02c | 0xc030 | 0x009d | 0x009f => (false, Aes256Gcm, Sha384),
        // ECDHE-RSA, ECDHE-ECDSA and DHE-RSA with ChaCha20-Poly1305.
        0xcca8..=0xccaa => (false, Chacha20Poly1305, Sha256),
        _ => return None,
    };
    Some(Suite {
        id,
        tls13,
        cipher,
        hash,
    })
}

/// The IANA name of a cipher suite (`0x....` for one not known here).
pub fn suite_name(id: u16) -> String {
    match id {
        0x1301 => "TLS_AES_128_GCM_SHA256",
        0x1302 => "TLS_AES_256_GCM_SHA384",
        0x1303 => "TLS_CHACHA20_POLY1305_SHA256",
        0xc02b => "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        0xc02c => "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0xc02f => "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        0xc030 => "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0x009c => "TLS_RSA_WITH_AES_128_GCM_SHA256",
        0x009d => "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x009e => "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
        0x009f => "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
        0xcca8 => "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xcca9 => "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        0xccaa => "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        _ => return format!("0x{id:04x}"),
    }
    .to_string()
}

struct Len(usize);

impl hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

/// HKDF-Expand-Label (RFC 8446 section 7.1) of `secret` with the suite's hash.
fn expand_label(hash: Hash, secret: &[u8], label: &[u8], len: usize) -> Option<Vec<u8>> {
    let prk = hkdf::Prk::new_less_safe(hash.hkdf(), secret);
    let full_len = u8::try_from(6 + label.len()).ok()?;
    let out_len = u16::try_from(len).ok()?.to_be_bytes();
    let info: [&[u8]; 5] = [&out_len, &[full_len], b"tls13 ", label, &[0]];
    let mut out = vec![0; len];
    prk.expand(&info, Len(len)).ok()?.fill(&mut out).ok()?;
    Some(out)
}

/// Record protection of one direction: key, IV and the next sequence number.
struct RecordKey {
    key: aead::LessSafeKey,
    iv: [u8; 12],
    seq: u64,
    tls13: bool,
    /// TLS 1.2 AES-GCM: an 8-byte explicit nonce opens each record.
    explicit_nonce: bool,
}

impl RecordKey {
    fn new(cipher: Cipher, key: &[u8], iv: &[u8], tls13: bool) -> Option<RecordKey> {
        let key = aead::LessSafeKey::new(aead::UnboundKey::new(cipher.algorithm(), key).ok()?);
        let mut full = [0u8; 12];
        full.get_mut(..iv.len())?.copy_from_slice(iv);
        Some(RecordKey {
            key,
            iv: full,
            seq: 0,
            tls13,
            explicit_nonce: !tls13 && cipher != Cipher::Chacha20Poly1305,
        })
    }

    /// TLS 1.3 key and IV of a traffic secret.
    fn tls13(suite: Suite, secret: &[u8]) -> Option<RecordKey> {
        let key = expand_label(suite.hash, secret, b"key", suite.cipher.key_len())?;
        let iv = expand_label(suite.hash, secret, b"iv", 12)?;
        RecordKey::new(suite.cipher, &key, &iv, true)
    }

    /// Opens one record (header and body); the sequence number moves on either way, as the
    /// sender's did. Returns the content type and the plaintext, None when authentication
    /// fails.
    fn open(&mut self, header: [u8; 5], body: &[u8]) -> Option<(u8, Vec<u8>)> {
        let seq = self.seq;
        self.seq += 1;
        let mut nonce = self.iv;
        let mut data = body.to_vec();
        if self.explicit_nonce {
            nonce[4..].copy_from_slice(data.get(..8)?);
            data.drain(..8);
        } else {
            for (n, s) in nonce[4..].iter_mut().zip(seq.to_be_bytes()) {
                *n ^= s;
            }
        }
        let aad: Vec<u8> = if self.tls13 {
            header.to_vec()
        } else {
            let plain_len = u16::try_from(data.len().checked_sub(16)?).ok()?;
            let mut a = seq.to_be_bytes().to_vec();
            a.extend_from_slice(&header[..3]);
            a.extend_from_slice(&plain_len.to_be_bytes());
            a
        };
        let nonce = aead::Nonce::assume_unique_for_key(nonce);
        let n = self
            .key
            .open_in_place(nonce, aead::Aad::from(&aad[..]), &mut data)
            .ok()?
            .len();
        data.truncate(n);
        if !self.tls13 {
            return Some((header[0], data));
        }
        // TLSInnerPlaintext: content, content type, zero padding.
        let last = data.iter().rposition(|&b| b != 0)?;
        let ty = data[last];
        data.truncate(last);
        Some((ty, data))
    }
}

/// Decrypted application bytes of one direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plain {
    /// Client to server.
    pub from_client: bool,
    /// Timestamp (µs) of the packet that completed the record.
    pub ts: u64,
    /// The bytes.
    pub data: Vec<u8>,
}

/// Where a connection's decryption stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyState {
    /// No protected record yet.
    #[default]
    NotYet,
    /// The Hello messages were not captured (the connection was open before the capture).
    NoHandshake,
    /// A cipher suite not decrypted here (e.g. CBC).
    Unsupported(u16),
    /// Waiting for the secrets to appear in the key log.
    Waiting,
    /// The key log holds no (complete) secrets for the connection.
    NoKey,
    /// Decrypting.
    Keyed,
}

/// Per-connection figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DecryptStats {
    /// Where decryption stands.
    pub state: KeyState,
    /// 0x0303 (TLS 1.2) or 0x0304 (TLS 1.3), once the ServerHello was read.
    pub version: u16,
    /// Cipher suite chosen.
    pub suite: Option<u16>,
    /// Protocol chosen by ALPN (ServerHello in TLS 1.2, EncryptedExtensions in TLS 1.3).
    pub alpn: Option<String>,
    /// Protected records decrypted.
    pub records_decrypted: u64,
    /// Protected records that failed authentication (wrong key or damaged).
    pub records_failed: u64,
    /// Protected records not decrypted for want of a key (or of a handshake).
    pub records_without_key: u64,
    /// TLS 1.3 KeyUpdate messages followed.
    pub key_updates: u64,
    /// Alerts decrypted (close_notify included).
    pub alerts: u64,
    /// Application bytes decrypted, client to server.
    pub plain_to_server: u64,
    /// Application bytes decrypted, server to client.
    pub plain_from_server: u64,
    /// Record bytes not decrypted (no key, failed, cut off).
    pub opaque_bytes: u64,
    /// Why a direction stopped (a hole in the capture, not TLS records).
    pub lost: Option<String>,
}

#[derive(Default)]
struct Dir {
    buf: Vec<u8>,
    lost: bool,
    /// TLS 1.2: ChangeCipherSpec seen, the records after it are protected.
    ccs: bool,
    key: Option<RecordKey>,
    /// TLS 1.3: the current traffic secret (for Finished and KeyUpdate).
    secret: Vec<u8>,
    /// TLS 1.3: on the application secrets.
    app: bool,
    /// Handshake bytes decrypted, not yet a whole message.
    hs: Vec<u8>,
}

struct Pending {
    d: usize,
    ts: u64,
    header: [u8; 5],
    body: Vec<u8>,
}

/// Decrypts one TLS connection (see the module docs).
pub struct Decryptor {
    keys: Arc<KeyLogFile>,
    dirs: [Dir; 2],
    suite: Option<Suite>,
    secrets: Option<Secrets>,
    pending: Vec<Pending>,
    pending_bytes: usize,
    stats: DecryptStats,
    client_random: [u8; 32],
    server_random: Option<[u8; 32]>,
}

impl std::fmt::Debug for Decryptor {
    /// Figures only: keys and secrets stay out of Debug output.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decryptor")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

const CLIENT: usize = 0;
const SERVER: usize = 1;

impl Decryptor {
    /// A decryptor looking its secrets up in `keys`.
    pub fn new(keys: Arc<KeyLogFile>) -> Self {
        Decryptor {
            keys,
            dirs: [Dir::default(), Dir::default()],
            suite: None,
            secrets: None,
            pending: Vec::new(),
            pending_bytes: 0,
            stats: DecryptStats::default(),
            client_random: [0; 32],
            server_random: None,
        }
    }

    /// Figures so far.
    pub fn stats(&self) -> &DecryptStats {
        &self.stats
    }

    /// The protocol chosen by ALPN, once known.
    pub fn alpn(&self) -> Option<&str> {
        self.stats.alpn.as_deref()
    }

    /// Adds in-order bytes of one direction received at `ts`; `tls` holds the connection's
    /// handshake prefix (already fed these bytes). Decrypted application bytes go to `out`.
    pub fn feed(
        &mut self,
        from_client: bool,
        ts: u64,
        data: &[u8],
        tls: &TlsConn,
        out: &mut Vec<Plain>,
    ) {
        let d = if from_client { CLIENT } else { SERVER };
        if self.dirs[d].lost {
            self.stats.opaque_bytes += data.len() as u64;
            return;
        }
        self.dirs[d].buf.extend_from_slice(data);
        let mut pos = 0;
        loop {
            let buf = &self.dirs[d].buf;
            let Some(h) = buf.get(pos..pos + 5) else {
                break;
            };
            let header: [u8; 5] = [h[0], h[1], h[2], h[3], h[4]];
            let len = usize::from(u16::from_be_bytes([h[3], h[4]]));
            if !(20..=24).contains(&header[0]) || header[1] != 3 || len > MAX_RECORD {
                self.stats.opaque_bytes += (buf.len() - pos) as u64;
                self.lose(d, "not a TLS record");
                return;
            }
            let Some(body) = buf.get(pos + 5..pos + 5 + len) else {
                break;
            };
            let body = body.to_vec();
            pos += 5 + len;
            self.record(d, ts, header, body, tls, out);
        }
        self.dirs[d].buf.drain(..pos);
    }

    /// Bytes of one direction are missing from the capture: its records cannot be found
    /// any more.
    pub fn gap(&mut self, from_client: bool) {
        let d = if from_client { CLIENT } else { SERVER };
        if !self.dirs[d].lost {
            self.stats.opaque_bytes += self.dirs[d].buf.len() as u64;
            self.lose(d, "bytes missing from the capture");
        }
    }

    fn lose(&mut self, d: usize, why: &str) {
        let dir = &mut self.dirs[d];
        dir.lost = true;
        dir.buf.clear();
        let side = if d == CLIENT { "client" } else { "server" };
        self.stats
            .lost
            .get_or_insert_with(|| format!("{side} TLS records: {why}"));
    }

    /// End of the connection or of the capture: a last look in the key log for records
    /// still waiting, then whatever is left is counted.
    pub fn finish(&mut self, out: &mut Vec<Plain>) {
        if self.stats.state == KeyState::Waiting {
            self.try_keys(true);
            if self.stats.state == KeyState::Waiting {
                self.stats.state = KeyState::NoKey;
            }
            self.replay(out);
        }
        for d in [CLIENT, SERVER] {
            self.stats.opaque_bytes += self.dirs[d].buf.len() as u64;
            self.dirs[d].buf.clear();
        }
    }

    /// Is this record protected?
    fn protected(&self, d: usize, ty: u8) -> bool {
        match self.suite {
            Some(s) if s.tls13 => ty == 23,
            _ => self.dirs[d].ccs && ty != 20,
        }
    }

    fn record(
        &mut self,
        d: usize,
        ts: u64,
        header: [u8; 5],
        body: Vec<u8>,
        tls: &TlsConn,
        out: &mut Vec<Plain>,
    ) {
        let ty = header[0];
        if self.stats.state == KeyState::NotYet && (ty == 20 || ty == 23) {
            self.start(tls);
        }
        if ty == 20 && !self.suite.is_some_and(|s| s.tls13) {
            self.dirs[d].ccs = true;
            return;
        }
        if !self.protected(d, ty) {
            return;
        }
        match self.stats.state {
            KeyState::Keyed => self.open(d, ts, header, &body, out),
            KeyState::Waiting => {
                self.pending_bytes += body.len() + 5;
                self.pending.push(Pending {
                    d,
                    ts,
                    header,
                    body,
                });
                self.try_keys(false);
                if self.stats.state == KeyState::Waiting && self.pending_bytes > PENDING_CAP {
                    self.stats.state = KeyState::NoKey;
                }
                self.replay(out);
            }
            _ => {
                self.stats.records_without_key += 1;
                self.stats.opaque_bytes += body.len() as u64 + 5;
            }
        }
    }

    /// The first protected record: read the Hello messages, then the key log.
    fn start(&mut self, tls: &TlsConn) {
        let f = tls.facts();
        let (Some(cr), true) = (f.client_random, f.server_hello) else {
            self.stats.state = KeyState::NoHandshake;
            return;
        };
        self.client_random = cr;
        self.stats.version = f.version;
        self.stats.suite = f.cipher_suite;
        self.stats.alpn = f.alpn.clone();
        let Some(s) = f.cipher_suite.and_then(suite) else {
            self.stats.state = KeyState::Unsupported(f.cipher_suite.unwrap_or(0));
            return;
        };
        if s.tls13 != (f.version == 0x0304) {
            self.stats.state = KeyState::Unsupported(s.id);
            return;
        }
        self.suite = Some(s);
        self.server_random = f.server_random;
        if !s.tls13 && f.server_random.is_none() {
            self.stats.state = KeyState::NoHandshake;
            return;
        }
        self.stats.state = KeyState::Waiting;
        self.try_keys(false);
    }

    /// Looks the connection's secrets up; sets up the keys once they are all there.
    fn try_keys(&mut self, to_end: bool) {
        let Some(s) = self.suite else { return };
        let Some(sec) = self.keys.lookup(&self.client_random, to_end) else {
            return;
        };
        let complete = if s.tls13 {
            sec.client_handshake.is_some()
                && sec.server_handshake.is_some()
                && sec.client_traffic.is_some()
                && sec.server_traffic.is_some()
        } else {
            sec.master.is_some()
        };
        if !complete {
            // Traffic secrets follow the handshake ones: look again later.
            return;
        }
        if s.tls13 {
            for (d, hs) in [
                (CLIENT, &sec.client_handshake),
                (SERVER, &sec.server_handshake),
            ] {
                let hs = hs.clone().unwrap_or_default();
                self.dirs[d].key = RecordKey::tls13(s, &hs);
                self.dirs[d].secret = hs;
            }
            self.secrets = Some(sec);
            self.stats.state = KeyState::Keyed;
        } else {
            self.secrets = Some(sec);
            let sr = self.server_random.unwrap_or_default();
            self.stats.state = if self.tls12_keys(s, &sr) {
                KeyState::Keyed
            } else {
                KeyState::NoKey
            };
        }
    }

    /// TLS 1.2 key block: client key, server key, client IV, server IV.
    fn tls12_keys(&mut self, s: Suite, server_random: &[u8; 32]) -> bool {
        let Some(master) = self.secrets.as_ref().and_then(|x| x.master.clone()) else {
            return false;
        };
        let (kl, il) = (s.cipher.key_len(), s.cipher.tls12_iv_len());
        let Ok(secret) = tls_prf::Secret::new(s.hash.prf(), &master) else {
            return false;
        };
        let Ok(block) = secret.derive_with_seed_concatination(
            b"key expansion",
            server_random,
            &self.client_random,
            2 * kl + 2 * il,
        ) else {
            return false;
        };
        let b = block.as_ref();
        let (ck, rest) = b.split_at(kl);
        let (sk, rest) = rest.split_at(kl);
        let (ci, si) = rest.split_at(il);
        self.dirs[CLIENT].key = RecordKey::new(s.cipher, ck, ci, false);
        self.dirs[SERVER].key = RecordKey::new(s.cipher, sk, si, false);
        self.dirs[CLIENT].key.is_some() && self.dirs[SERVER].key.is_some()
    }

    /// Decrypts the records that waited for keys (or counts them if none came).
    fn replay(&mut self, out: &mut Vec<Plain>) {
        if self.stats.state == KeyState::Waiting {
            return;
        }
        let keyed = self.stats.state == KeyState::Keyed;
        for p in std::mem::take(&mut self.pending) {
            if keyed {
                self.open(p.d, p.ts, p.header, &p.body, out);
            } else {
                self.stats.records_without_key += 1;
                self.stats.opaque_bytes += p.body.len() as u64 + 5;
            }
        }
        self.pending_bytes = 0;
    }

    fn open(&mut self, d: usize, ts: u64, header: [u8; 5], body: &[u8], out: &mut Vec<Plain>) {
        let Some(key) = self.dirs[d].key.as_mut() else {
            self.stats.records_without_key += 1;
            self.stats.opaque_bytes += body.len() as u64 + 5;
            return;
        };
        let mut opened = key.open(header, body);
        if opened.is_none() && key.tls13 && !self.dirs[d].app {
            // A Finished not seen (or 0-RTT): try the application secret from its start.
            if let Some(mut k) = self.app_key(d) {
                opened = k.open(header, body);
                if opened.is_some() {
                    self.switch_to_app(d, k);
                }
            }
        }
        let Some((ty, plain)) = opened else {
            self.stats.records_failed += 1;
            self.stats.opaque_bytes += body.len() as u64 + 5;
            return;
        };
        self.stats.records_decrypted += 1;
        match ty {
            23 => {
                if d == CLIENT {
                    self.stats.plain_to_server += plain.len() as u64;
                } else {
                    self.stats.plain_from_server += plain.len() as u64;
                }
                if !plain.is_empty() {
                    out.push(Plain {
                        from_client: d == CLIENT,
                        ts,
                        data: plain,
                    });
                }
            }
            22 if self.suite.is_some_and(|s| s.tls13) => self.handshake(d, &plain),
            21 => self.stats.alerts += 1,
            _ => {}
        }
    }

    fn app_key(&self, d: usize) -> Option<RecordKey> {
        let s = self.suite?;
        let sec = self.secrets.as_ref()?;
        let secret = if d == CLIENT {
            sec.client_traffic.as_ref()?
        } else {
            sec.server_traffic.as_ref()?
        };
        RecordKey::tls13(s, secret)
    }

    fn switch_to_app(&mut self, d: usize, key: RecordKey) {
        let sec = self.secrets.as_ref();
        let secret = if d == CLIENT {
            sec.and_then(|s| s.client_traffic.clone())
        } else {
            sec.and_then(|s| s.server_traffic.clone())
        };
        let dir = &mut self.dirs[d];
        dir.key = Some(key);
        dir.secret = secret.unwrap_or_default();
        dir.app = true;
        dir.hs.clear();
    }

    /// TLS 1.3 handshake messages inside protected records.
    fn handshake(&mut self, d: usize, plain: &[u8]) {
        self.dirs[d].hs.extend_from_slice(plain);
        loop {
            let hs = &self.dirs[d].hs;
            let Some(h) = hs.get(..4) else { break };
            let (t, len) = (
                h[0],
                usize::from(h[1]) << 16 | usize::from(h[2]) << 8 | usize::from(h[3]),
            );
            if len > MAX_HANDSHAKE {
                self.dirs[d].hs.clear();
                break;
            }
            let Some(body) = hs.get(4..4 + len) else {
                break;
            };
            let body = body.to_vec();
            self.dirs[d].hs.drain(..4 + len);
            match t {
                // EncryptedExtensions: the ALPN choice.
                8 => {
                    if let Some(a) = alpn_of_extensions(&body) {
                        self.stats.alpn = Some(a);
                    }
                }
                // Finished: the next record is on the application secret.
                20 if !self.dirs[d].app => {
                    if let Some(k) = self.app_key(d) {
                        self.switch_to_app(d, k);
                    }
                    break;
                }
                // KeyUpdate: next secret.
                24 => {
                    let Some(s) = self.suite else { break };
                    let dir = &mut self.dirs[d];
                    let Some(next) =
                        expand_label(s.hash, &dir.secret, b"traffic upd", s.hash.len())
                    else {
                        break;
                    };
                    dir.key = RecordKey::tls13(s, &next);
                    dir.secret = next;
                    self.stats.key_updates += 1;
                }
                _ => {}
            }
        }
    }
}

/// The ALPN protocol in an extensions block (u16 length, then type/length/data entries).
fn alpn_of_extensions(b: &[u8]) -> Option<String> {
    let total = usize::from(u16::from_be_bytes([*b.first()?, *b.get(1)?]));
    let mut e = b.get(2..2 + total)?;
    while e.len() >= 4 {
        let t = u16::from_be_bytes([e[0], e[1]]);
        let len = usize::from(u16::from_be_bytes([e[2], e[3]]));
        let d = e.get(4..4 + len)?;
        if t == 16 {
            return super::alpn(d);
        }
        e = &e[4 + len..];
    }
    None
}

/// What the key log decrypted over a capture (`watch.json` under `tls.decryption`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TlsDecryption {
    /// Lines read from the key log.
    pub keylog_lines: u64,
    /// Connections (client randoms) the key log held secrets for.
    pub keylog_connections: u64,
    /// Key log lines that could not be read: "line N: why" (never the line's text).
    pub keylog_malformed: Vec<String>,
    /// TLS connections decrypted with the key log.
    pub connections_decrypted: u64,
    /// TLS connections whose secrets were not (completely) in the key log.
    pub no_key: u64,
    /// TLS connections whose handshake was not captured (open before the capture).
    pub no_handshake: u64,
    /// TLS connections with a cipher suite not decrypted here (e.g. CBC).
    pub unsupported_suite: u64,
    /// TLS connections that ended before any protected record.
    pub no_protected_records: u64,
    /// Decrypted connections by cipher suite.
    pub suites: BTreeMap<String, u64>,
    /// Decrypted connections by TLS version (`1.2`, `1.3`).
    pub versions: BTreeMap<String, u64>,
    /// Decrypted connections by ALPN protocol (`(none)` without ALPN).
    pub alpn: BTreeMap<String, u64>,
    /// Protected records decrypted.
    pub records_decrypted: u64,
    /// Protected records that failed authentication.
    pub records_failed: u64,
    /// Protected records without a key.
    pub records_without_key: u64,
    /// TLS 1.3 key updates followed.
    pub key_updates: u64,
    /// Alerts decrypted (close_notify included).
    pub alerts: u64,
    /// Application bytes decrypted, client to server.
    pub plaintext_bytes_to_server: u64,
    /// Application bytes decrypted, server to client.
    pub plaintext_bytes_from_server: u64,
}

impl TlsDecryption {
    /// Starts a summary with what the key log held.
    pub fn new(k: &KeyLogStats) -> Self {
        TlsDecryption {
            keylog_lines: k.lines,
            keylog_connections: k.connections,
            keylog_malformed: k
                .malformed
                .iter()
                .map(|m| format!("line {}: {}", m.line, m.why))
                .collect(),
            ..Default::default()
        }
    }

    /// Adds one TLS connection.
    pub fn add(&mut self, s: &DecryptStats) {
        match s.state {
            KeyState::Keyed => {
                self.connections_decrypted += 1;
                let suite = s.suite.map_or("?".into(), suite_name);
                *self.suites.entry(suite).or_default() += 1;
                let v = if s.version == 0x0304 { "1.3" } else { "1.2" };
                *self.versions.entry(v.into()).or_default() += 1;
                let a = s.alpn.clone().unwrap_or_else(|| "(none)".into());
                *self.alpn.entry(a).or_default() += 1;
            }
            KeyState::NoKey | KeyState::Waiting => self.no_key += 1,
            KeyState::NoHandshake => self.no_handshake += 1,
            KeyState::Unsupported(_) => self.unsupported_suite += 1,
            KeyState::NotYet => self.no_protected_records += 1,
        }
        self.records_decrypted += s.records_decrypted;
        self.records_failed += s.records_failed;
        self.records_without_key += s.records_without_key;
        self.key_updates += s.key_updates;
        self.alerts += s.alerts;
        self.plaintext_bytes_to_server += s.plain_to_server;
        self.plaintext_bytes_from_server += s.plain_from_server;
    }
}

#[cfg(test)]
#[path = "decrypt_tests.rs"]
pub(crate) mod tests;
