//! TLS seen from outside: record framing and the cleartext handshake messages only.
//! ClientHello (session ID, session ticket, pre-shared key offered), ServerHello (version
//! chosen, PSK accepted, session ID echoed) and, for TLS 1.2, whether a Certificate follows:
//! enough to tell a full handshake from a resumed one. Everything after is opaque.

pub mod decrypt;
pub mod keylog;

use serde::{Deserialize, Serialize};

/// Bytes of each direction kept for the handshake.
const KEEP: usize = 32 * 1024;

/// How a TLS connection started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Handshake {
    /// Certificate exchanged: a full handshake.
    Full,
    /// Session resumed (ticket, PSK or session ID).
    Resumed,
    /// Not enough of the handshake captured to say.
    Unknown,
}

/// What one connection's handshake showed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsFacts {
    /// A ClientHello was parsed.
    pub client_hello: bool,
    /// The ClientHello carried a non-empty session ticket extension.
    pub offered_ticket: bool,
    /// The ClientHello offered a pre-shared key (TLS 1.3 resumption).
    pub offered_psk: bool,
    /// The ClientHello carried a non-empty session ID.
    pub client_session_id: Vec<u8>,
    /// A ServerHello was parsed.
    pub server_hello: bool,
    /// Version chosen: 0x0304 for TLS 1.3, 0x0303 for 1.2.
    pub version: u16,
    /// The server accepted the PSK (TLS 1.3).
    pub psk_accepted: bool,
    /// The server echoed the client's session ID (TLS 1.2 resumption).
    pub session_id_echoed: bool,
    /// A Certificate message was seen in cleartext (TLS 1.2 full handshake).
    pub certificate_seen: bool,
    /// ChangeCipherSpec from the server seen before any Certificate (TLS 1.2).
    pub ccs_before_certificate: bool,
    /// Server Name Indication.
    pub sni: Option<String>,
    /// TLS records seen in the kept prefix of both directions.
    pub records: u64,
    /// The ClientHello random (the key log's index).
    pub client_random: Option<[u8; 32]>,
    /// The ServerHello random (TLS 1.2 key expansion).
    pub server_random: Option<[u8; 32]>,
    /// Cipher suite the server chose.
    pub cipher_suite: Option<u16>,
    /// Protocol the server chose by ALPN in its ServerHello (TLS 1.2; TLS 1.3 sends it
    /// encrypted, see `tls_decrypt`).
    pub alpn: Option<String>,
}

impl TlsFacts {
    /// Full, resumed, or unknown.
    pub fn handshake(&self) -> Handshake {
        if !self.server_hello {
            return Handshake::Unknown;
        }
        if self.version == 0x0304 {
            return if self.psk_accepted {
                Handshake::Resumed
            } else {
                Handshake::Full
            };
        }
        if self.certificate_seen {
            Handshake::Full
        } else if self.session_id_echoed || self.ccs_before_certificate {
            Handshake::Resumed
        } else {
            Handshake::Unknown
        }
    }
}

/// Collects the start of both directions and parses them.
#[derive(Debug, Default, Clone)]
pub struct TlsConn {
    client: Vec<u8>,
    server: Vec<u8>,
}

impl TlsConn {
    /// Adds client-to-server bytes.
    pub fn client(&mut self, data: &[u8]) {
        let room = KEEP.saturating_sub(self.client.len()).min(data.len());
        self.client.extend_from_slice(&data[..room]);
    }

    /// Adds server-to-client bytes.
    pub fn server(&mut self, data: &[u8]) {
        let room = KEEP.saturating_sub(self.server.len()).min(data.len());
        self.server.extend_from_slice(&data[..room]);
    }

    /// Parses what was kept.
    pub fn facts(&self) -> TlsFacts {
        let mut f = TlsFacts::default();
        let (c_hs, _, n1) = records(&self.client);
        let (s_hs, s_ccs_at, n2) = records(&self.server);
        f.records = n1 + n2;
        if let Some(ch) = first_message(&c_hs, 1) {
            client_hello(ch, &mut f);
        }
        if let Some(sh) = first_message(&s_hs, 2) {
            server_hello(sh, &mut f);
        }
        // TLS 1.2: which came first from the server, a Certificate or ChangeCipherSpec?
        let mut off = 0;
        let mut cert_at = None;
        while let Some((t, len)) = msg_header(&s_hs, off) {
            if t == 11 {
                cert_at = Some(off);
                break;
            }
            off += 4 + len;
        }
        f.certificate_seen = cert_at.is_some();
        f.ccs_before_certificate = s_ccs_at.is_some() && cert_at.is_none();
        f
    }
}

/// Concatenated handshake-record payloads up to the first ChangeCipherSpec or application
/// data record; the offset in that payload where a ChangeCipherSpec came; records counted.
fn records(b: &[u8]) -> (Vec<u8>, Option<usize>, u64) {
    let mut hs = Vec::new();
    let mut off = 0;
    let mut n = 0;
    let mut ccs = None;
    let mut plain = true;
    while off + 5 <= b.len() {
        let t = b[off];
        if !(20..=24).contains(&t) || b[off + 1] != 3 {
            break;
        }
        let len = usize::from(u16::from_be_bytes([b[off + 3], b[off + 4]]));
        n += 1;
        let end = (off + 5 + len).min(b.len());
        match t {
            22 if plain => hs.extend_from_slice(&b[off + 5..end]),
            20 => {
                ccs.get_or_insert(hs.len());
                plain = false;
            }
            23 => plain = false,
            _ => {}
        }
        off += 5 + len;
    }
    (hs, ccs, n)
}

fn msg_header(hs: &[u8], off: usize) -> Option<(u8, usize)> {
    let h = hs.get(off..off + 4)?;
    Some((
        h[0],
        usize::from(h[1]) << 16 | usize::from(h[2]) << 8 | usize::from(h[3]),
    ))
}

fn first_message(hs: &[u8], want: u8) -> Option<&[u8]> {
    let (t, len) = msg_header(hs, 0)?;
    (t == want).then(|| &hs[4..(4 + len).min(hs.len())])
}

struct Cur<'a>(&'a [u8], usize);

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.0.get(self.1..self.1 + n)?;
        self.1 += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<usize> {
        self.take(1).map(|b| usize::from(b[0]))
    }
    fn u16(&mut self) -> Option<usize> {
        self.take(2)
            .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
    }
}

fn extensions(c: &mut Cur<'_>) -> Vec<(usize, Vec<u8>)> {
    let mut out = Vec::new();
    let Some(total) = c.u16() else { return out };
    let Some(body) = c.take(total).or_else(|| c.0.get(c.1..)) else {
        return out;
    };
    let mut e = Cur(body, 0);
    while let (Some(t), Some(len)) = (e.u16(), e.u16()) {
        let Some(d) = e.take(len) else { break };
        out.push((t, d.to_vec()));
    }
    out
}

fn client_hello(b: &[u8], f: &mut TlsFacts) -> Option<()> {
    f.client_hello = true;
    let mut c = Cur(b, 0);
    c.take(2)?;
    f.client_random = c.take(32)?.try_into().ok();
    let sid = c.u8()?;
    f.client_session_id = c.take(sid)?.to_vec();
    let cs = c.u16()?;
    c.take(cs)?;
    let comp = c.u8()?;
    c.take(comp)?;
    for (t, d) in extensions(&mut c) {
        match t {
            0 => {
                // server_name list: len(2) type(1) len(2) name
                let mut s = Cur(&d, 0);
                s.take(3)?;
                let n = s.u16()?;
                f.sni = s.take(n).map(|h| String::from_utf8_lossy(h).to_string());
            }
            35 if !d.is_empty() => f.offered_ticket = true,
            41 => f.offered_psk = true,
            _ => {}
        }
    }
    Some(())
}

fn server_hello(b: &[u8], f: &mut TlsFacts) -> Option<()> {
    f.server_hello = true;
    let mut c = Cur(b, 0);
    let v = c.u16()?;
    f.version = v as u16;
    f.server_random = c.take(32)?.try_into().ok();
    let sid = c.u8()?;
    let sid = c.take(sid)?;
    f.session_id_echoed = !sid.is_empty() && sid == f.client_session_id.as_slice();
    f.cipher_suite = c.u16().map(|v| v as u16);
    c.take(1)?;
    for (t, d) in extensions(&mut c) {
        match t {
            43 if d.len() == 2 => f.version = u16::from_be_bytes([d[0], d[1]]),
            41 => f.psk_accepted = true,
            16 => f.alpn = alpn(&d),
            _ => {}
        }
    }
    Some(())
}

/// The first protocol name of an ALPN extension body (a list of length-prefixed names).
pub(crate) fn alpn(d: &[u8]) -> Option<String> {
    let mut c = Cur(d, 0);
    c.u16()?;
    let n = c.u8()?;
    c.take(n).map(|p| String::from_utf8_lossy(p).into_owned())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn record(t: u8, body: &[u8]) -> Vec<u8> {
        let mut r = vec![t, 3, 3];
        r.extend((body.len() as u16).to_be_bytes());
        r.extend(body);
        r
    }

    fn msg(t: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![t];
        m.extend(&(body.len() as u32).to_be_bytes()[1..]);
        m.extend(body);
        m
    }

    fn ext(t: u16, d: &[u8]) -> Vec<u8> {
        let mut e = t.to_be_bytes().to_vec();
        e.extend((d.len() as u16).to_be_bytes());
        e.extend(d);
        e
    }

    /// A ClientHello record with session id `sid` and extensions `exts`.
    pub(crate) fn client_hello_record(sid: &[u8], exts: &[Vec<u8>]) -> Vec<u8> {
        let mut b = vec![3, 3];
        b.extend([7u8; 32]);
        b.push(sid.len() as u8);
        b.extend(sid);
        b.extend([0, 2, 0x13, 0x01, 1, 0]);
        let e: Vec<u8> = exts.concat();
        b.extend((e.len() as u16).to_be_bytes());
        b.extend(e);
        record(22, &msg(1, &b))
    }

    fn server_hello_record(sid: &[u8], exts: &[Vec<u8>]) -> Vec<u8> {
        let mut b = vec![3, 3];
        b.extend([9u8; 32]);
        b.push(sid.len() as u8);
        b.extend(sid);
        b.extend([0x13, 0x01, 0]);
        let e: Vec<u8> = exts.concat();
        b.extend((e.len() as u16).to_be_bytes());
        b.extend(e);
        record(22, &msg(2, &b))
    }

    #[test]
    fn tls13_full_vs_psk_resumed() {
        let mut full = TlsConn::default();
        full.client(&client_hello_record(&[1; 32], &[ext(43, &[2, 3, 4])]));
        full.server(&server_hello_record(&[1; 32], &[ext(43, &[3, 4])]));
        full.server(&record(20, &[1]));
        full.server(&record(23, &[0; 40]));
        let f = full.facts();
        assert!(f.client_hello && !f.offered_psk && f.version == 0x0304);
        assert_eq!(f.handshake(), Handshake::Full);

        let mut res = TlsConn::default();
        res.client(&client_hello_record(&[], &[ext(41, &[0; 10])]));
        res.server(&server_hello_record(
            &[],
            &[ext(43, &[3, 4]), ext(41, &[0, 0])],
        ));
        let f = res.facts();
        assert!(f.offered_psk && f.psk_accepted);
        assert_eq!(f.handshake(), Handshake::Resumed);
    }

    #[test]
    fn tls12_certificate_vs_ticket_resumption() {
        let mut full = TlsConn::default();
        full.client(&client_hello_record(&[], &[ext(35, &[])]));
        let mut sh = server_hello_record(&[], &[]);
        sh.extend(record(22, &msg(11, &[0; 20])));
        full.server(&sh);
        let f = full.facts();
        assert!(!f.offered_ticket);
        assert_eq!(f.handshake(), Handshake::Full);

        let mut res = TlsConn::default();
        res.client(&client_hello_record(&[5; 32], &[ext(35, &[1; 64])]));
        let mut sh = server_hello_record(&[5; 32], &[]);
        sh.extend(record(20, &[1]));
        res.server(&sh);
        let f = res.facts();
        assert!(f.offered_ticket && f.session_id_echoed);
        assert_eq!(f.handshake(), Handshake::Resumed);
    }

    #[test]
    fn garbage_and_truncation_never_panic() {
        let ch = client_hello_record(&[1; 32], &[ext(0, b"\0\0\x05\0\x03abc"), ext(41, &[1])]);
        for cut in 0..ch.len() {
            let mut t = TlsConn::default();
            t.client(&ch[..cut]);
            t.server(&ch[..cut]);
            let _ = t.facts().handshake();
        }
        let mut t = TlsConn::default();
        t.client(&[0x16, 3, 1, 0xff, 0xff, 1, 0xff, 0xff, 0xff]);
        assert_eq!(t.facts().handshake(), Handshake::Unknown);
    }
}
