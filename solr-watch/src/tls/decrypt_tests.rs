//! Decryption checked against RFC 8448's "Simple 1-RTT Handshake" trace and against TLS 1.2
//! and 1.3 traffic rustls produces in memory with a `KeyLog`, every suite rustls offers here.
//! The certificates in `testdata/` are throw-away self-signed ones (P-256 and RSA-2048).

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::aws_lc_rs::{cipher_suite as cs, default_provider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{Connection, DigitallySignedStruct, SignatureScheme, SupportedCipherSuite};

use super::*;

fn h(s: &str) -> Vec<u8> {
    let s: String = s.split_ascii_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

// RFC 8448 section 3 (TLS_AES_128_GCM_SHA256): secrets, derived keys and records.
const C_HS: &str = "b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21";
const S_HS: &str = "b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38";
const C_AP: &str = "9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5";
const S_AP: &str = "a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643";
const CLIENT_HELLO: &str = "01 00 00 c0 03 03 cb 34 ec b1 e7 81 63 ba 1c 38 c6 da cb 19 6a 6d ff a2
    1a 8d 99 12 ec 18 a2 ef 62 83 02 4d ec e7 00 00 06 13 01 13 03 13 02 01
    00 00 91 00 00 00 0b 00 09 00 00 06 73 65 72 76 65 72 ff 01 00 01 00 00
    0a 00 14 00 12 00 1d 00 17 00 18 00 19 01 00 01 01 01 02 01 03 01 04 00
    23 00 00 00 33 00 26 00 24 00 1d 00 20 99 38 1d e5 60 e4 bd 43 d2 3d 8e
    43 5a 7d ba fe b3 c0 6e 51 c1 3c ae 4d 54 13 69 1e 52 9a af 2c 00 2b 00
    03 02 03 04 00 0d 00 20 00 1e 04 03 05 03 06 03 02 03 08 04 08 05 08 06
    04 01 05 01 06 01 02 01 04 02 05 02 06 02 02 02 00 2d 00 02 01 01 00 1c
    00 02 40 01";
const SERVER_HELLO_REC: &str =
    "16 03 03 00 5a 02 00 00 56 03 03 a6 af 06 a4 12 18 60 dc 5e 6e 60 24 9c
    d3 4c 95 93 0c 8a c5 cb 14 34 da c1 55 77 2e d3 e2 69 28 00 13 01 00 00
    2e 00 33 00 24 00 1d 00 20 c9 82 88 76 11 20 95 fe 66 76 2b db f7 c6 72
    e1 56 d6 cc 25 3b 83 3d f1 dd 69 b1 b0 4e 75 1f 0f 00 2b 00 02 03 04";
/// EncryptedExtensions, Certificate, CertificateVerify, Finished.
const SERVER_FLIGHT_REC: &str =
    "17 03 03 02 a2 d1 ff 33 4a 56 f5 bf f6 59 4a 07 cc 87 b5 80 23 3f 50 0f
    45 e4 89 e7 f3 3a f3 5e df 78 69 fc f4 0a a4 0a a2 b8 ea 73 f8 48 a7 ca
    07 61 2e f9 f9 45 cb 96 0b 40 68 90 51 23 ea 78 b1 11 b4 29 ba 91 91 cd
    05 d2 a3 89 28 0f 52 61 34 aa dc 7f c7 8c 4b 72 9d f8 28 b5 ec f7 b1 3b
    d9 ae fb 0e 57 f2 71 58 5b 8e a9 bb 35 5c 7c 79 02 07 16 cf b9 b1 18 3e
    f3 ab 20 e3 7d 57 a6 b9 d7 47 76 09 ae e6 e1 22 a4 cf 51 42 73 25 25 0c
    7d 0e 50 92 89 44 4c 9b 3a 64 8f 1d 71 03 5d 2e d6 5b 0e 3c dd 0c ba e8
    bf 2d 0b 22 78 12 cb b3 60 98 72 55 cc 74 41 10 c4 53 ba a4 fc d6 10 92
    8d 80 98 10 e4 b7 ed 1a 8f d9 91 f0 6a a6 24 82 04 79 7e 36 a6 a7 3b 70
    a2 55 9c 09 ea d6 86 94 5b a2 46 ab 66 e5 ed d8 04 4b 4c 6d e3 fc f2 a8
    94 41 ac 66 27 2f d8 fb 33 0e f8 19 05 79 b3 68 45 96 c9 60 bd 59 6e ea
    52 0a 56 a8 d6 50 f5 63 aa d2 74 09 96 0d ca 63 d3 e6 88 61 1e a5 e2 2f
    44 15 cf 95 38 d5 1a 20 0c 27 03 42 72 96 8a 26 4e d6 54 0c 84 83 8d 89
    f7 2c 24 46 1a ad 6d 26 f5 9e ca ba 9a cb bb 31 7b 66 d9 02 f4 f2 92 a3
    6a c1 b6 39 c6 37 ce 34 31 17 b6 59 62 22 45 31 7b 49 ee da 0c 62 58 f1
    00 d7 d9 61 ff b1 38 64 7e 92 ea 33 0f ae ea 6d fa 31 c7 a8 4d c3 bd 7e
    1b 7a 6c 71 78 af 36 87 90 18 e3 f2 52 10 7f 24 3d 24 3d c7 33 9d 56 84
    c8 b0 37 8b f3 02 44 da 8c 87 c8 43 f5 e5 6e b4 c5 e8 28 0a 2b 48 05 2c
    f9 3b 16 49 9a 66 db 7c ca 71 e4 59 94 26 f7 d4 61 e6 6f 99 88 2b d8 9f
    c5 08 00 be cc a6 2d 6c 74 11 6d bd 29 72 fd a1 fa 80 f8 5d f8 81 ed be
    5a 37 66 89 36 b3 35 58 3b 59 91 86 dc 5c 69 18 a3 96 fa 48 a1 81 d6 b6
    fa 4f 9d 62 d5 13 af bb 99 2f 2b 99 2f 67 f8 af e6 7f 76 91 3f a3 88 cb
    56 30 c8 ca 01 e0 c6 5d 11 c6 6a 1e 2a c4 c8 59 77 b7 c7 a6 99 9b bf 10
    dc 35 ae 69 f5 51 56 14 63 6c 0b 9b 68 c1 9e d2 e3 1c 0b 3b 66 76 30 38
    eb ba 42 f3 b3 8e dc 03 99 f3 a9 f2 3f aa 63 97 8c 31 7f c9 fa 66 a7 3f
    60 f0 50 4d e9 3b 5b 84 5e 27 55 92 c1 23 35 ee 34 0b bc 4f dd d5 02 78
    40 16 e4 b3 be 7e f0 4d da 49 f4 b4 40 a3 0c b5 d2 af 93 98 28 fd 4a e3
    79 4e 44 f9 4d f5 a6 31 ed e4 2c 17 19 bf da bf 02 53 fe 51 75 be 89 8e
    75 0e dc 53 37 0d 2b";
const CLIENT_FINISHED_REC: &str =
    "17 03 03 00 35 75 ec 4d c2 38 cc e6 0b 29 80 44 a7 1e 21 9c 56 cc 77 b0
    51 7f e9 b9 3c 7a 4b fc 44 d8 7f 38 f8 03 38 ac 98 fc 46 de b3 84 bd 1c
    ae ac ab 68 67 d7 26 c4 05 46";
const NEW_SESSION_TICKET_REC: &str =
    "17 03 03 00 de 3a 6b 8f 90 41 4a 97 d6 95 9c 34 87 68 0d e5 13 4a 2b 24
    0e 6c ff ac 11 6e 95 d4 1d 6a f8 f6 b5 80 dc f3 d1 1d 63 c7 58 db 28 9a
    01 59 40 25 2f 55 71 3e 06 1d c1 3e 07 88 91 a3 8e fb cf 57 53 ad 8e f1
    70 ad 3c 73 53 d1 6d 9d a7 73 b9 ca 7f 2b 9f a1 b6 c0 d4 a3 d0 3f 75 e0
    9c 30 ba 1e 62 97 2a c4 6f 75 f7 b9 81 be 63 43 9b 29 99 ce 13 06 46 15
    13 98 91 d5 e4 c5 b4 06 f1 6e 3f c1 81 a7 7c a4 75 84 00 25 db 2f 0a 77
    f8 1b 5a b0 5b 94 c0 13 46 75 5f 69 23 2c 86 51 9d 86 cb ee ac 87 aa c3
    47 d1 43 f9 60 5d 64 f6 50 db 4d 02 3e 70 e9 52 ca 49 fe 51 37 12 1c 74
    bc 26 97 68 7e 24 87 46 d6 df 35 30 05 f3 bc e1 86 96 12 9c 81 53 55 6b
    3b 6c 67 79 b3 7b f1 59 85 68 4f";
const CLIENT_APP_REC: &str =
    "17 03 03 00 43 a2 3f 70 54 b6 2c 94 d0 af fa fe 82 28 ba 55 cb ef ac ea
    42 f9 14 aa 66 bc ab 3f 2b 98 19 a8 a5 b4 6b 39 5b d5 4a 9a 20 44 1e 2b
    62 97 4e 1f 5a 62 92 a2 97 70 14 bd 1e 3d ea e6 3a ee bb 21 69 49 15 e4";
const SERVER_APP_REC: &str =
    "17 03 03 00 43 2e 93 7e 11 ef 4a c7 40 e5 38 ad 36 00 5f c4 a4 69 32 fc
    32 25 d0 5f 82 aa 1b 36 e3 0e fa f9 7d 90 e6 df fc 60 2d cb 50 1a 59 a8
    fc c4 9c 4b f2 e5 f0 a2 1c 00 47 c2 ab f3 32 54 0d d0 32 e1 67 c2 95 5d";
const CLIENT_ALERT_REC: &str =
    "17 03 03 00 13 c9 87 27 60 65 56 66 b7 4d 7f f1 15 3e fd 6d b6 d0 b0 e3";
const SERVER_ALERT_REC: &str =
    "17 03 03 00 13 b5 8f d6 71 66 eb f5 99 d2 47 20 cf be 7e fa 7a 88 64 a9";

fn split(rec: &str) -> ([u8; 5], Vec<u8>) {
    let r = h(rec);
    ([r[0], r[1], r[2], r[3], r[4]], r[5..].to_vec())
}

fn rfc_suite() -> Suite {
    suite(0x1301).expect("TLS_AES_128_GCM_SHA256")
}

#[test]
fn rfc8448_traffic_keys_from_the_secrets() {
    let s = rfc_suite();
    let k = |secret: &str, label: &[u8], n| {
        hexs(&expand_label(s.hash, &h(secret), label, n).expect("expand"))
    };
    assert_eq!(k(S_HS, b"key", 16), "3fce516009c21727d0f2e4e86ee403bc");
    assert_eq!(k(S_HS, b"iv", 12), "5d313eb2671276ee13000b30");
    assert_eq!(k(C_HS, b"key", 16), "dbfaa693d1762c5b666af5d950258d01");
    assert_eq!(k(C_HS, b"iv", 12), "5bd3c71b836e0b76bb73265f");
    assert_eq!(k(S_AP, b"key", 16), "9f02283b6c9c07efc26bb9f2ac92e356");
    assert_eq!(k(S_AP, b"iv", 12), "cf782b88dd83549aadf1e984");
    assert_eq!(k(C_AP, b"key", 16), "17422dda596ed5d9acd890e3c63f5051");
    assert_eq!(k(C_AP, b"iv", 12), "5b78923dee08579033e523d9");
}

#[test]
fn rfc8448_records_decrypt_to_the_traced_plaintext() {
    let s = rfc_suite();
    let key = |secret: &str| RecordKey::tls13(s, &h(secret)).expect("key");

    let mut server_hs = key(S_HS);
    let (hd, body) = split(SERVER_FLIGHT_REC);
    let (ty, p) = server_hs.open(hd, &body).expect("server flight opens");
    assert_eq!(ty, 22);
    assert_eq!(p.len(), 0x2a2 - 16 - 1);
    // EncryptedExtensions (40 bytes) first, the 36-byte Finished last.
    assert_eq!(&p[..4], &[8, 0, 0, 0x24]);
    assert_eq!(&p[p.len() - 36..p.len() - 32], &[20, 0, 0, 0x20]);

    let mut client_hs = key(C_HS);
    let (hd, body) = split(CLIENT_FINISHED_REC);
    let (ty, p) = client_hs.open(hd, &body).expect("client Finished opens");
    assert_eq!((ty, &p[..4]), (22, &[20u8, 0, 0, 0x20][..]));
    assert_eq!(p.len(), 36);

    let payload: Vec<u8> = (0..50).collect();
    let mut server_ap = key(S_AP);
    let (hd, body) = split(NEW_SESSION_TICKET_REC);
    let (ty, p) = server_ap.open(hd, &body).expect("NewSessionTicket opens");
    assert_eq!((ty, p[0]), (22, 4));
    let (hd, body) = split(SERVER_APP_REC);
    assert_eq!(server_ap.open(hd, &body), Some((23, payload.clone())));
    let (hd, body) = split(SERVER_ALERT_REC);
    assert_eq!(server_ap.open(hd, &body), Some((21, vec![1, 0])));

    let mut client_ap = key(C_AP);
    let (hd, body) = split(CLIENT_APP_REC);
    assert_eq!(client_ap.open(hd, &body), Some((23, payload)));
    let (hd, body) = split(CLIENT_ALERT_REC);
    assert_eq!(client_ap.open(hd, &body), Some((21, vec![1, 0])));

    // A flipped bit fails authentication; the wrong direction's key too.
    let (hd, mut body) = split(CLIENT_APP_REC);
    body[10] ^= 1;
    assert_eq!(key(C_AP).open(hd, &body), None);
    let (hd, body) = split(CLIENT_APP_REC);
    assert_eq!(key(S_AP).open(hd, &body), None);
}

fn rfc_keylog() -> String {
    let cr = hexs(&h(CLIENT_HELLO)[6..38]);
    format!(
        "# RFC 8448 section 3\nCLIENT_HANDSHAKE_TRAFFIC_SECRET {cr} {C_HS}\n\
         SERVER_HANDSHAKE_TRAFFIC_SECRET {cr} {S_HS}\n\
         CLIENT_TRAFFIC_SECRET_0 {cr} {C_AP}\nSERVER_TRAFFIC_SECRET_0 {cr} {S_AP}\n"
    )
}

/// The RFC 8448 connection as (from_client, bytes) in wire order.
fn rfc_wire() -> Vec<(bool, Vec<u8>)> {
    let mut ch = vec![0x16, 3, 1, 0, 0xc4];
    ch.extend(h(CLIENT_HELLO));
    let mut server = h(SERVER_HELLO_REC);
    server.extend(h(SERVER_FLIGHT_REC));
    vec![
        (true, ch),
        (false, server),
        (true, h(CLIENT_FINISHED_REC)),
        (false, h(NEW_SESSION_TICKET_REC)),
        (true, h(CLIENT_APP_REC)),
        (false, h(SERVER_APP_REC)),
        (true, h(CLIENT_ALERT_REC)),
        (false, h(SERVER_ALERT_REC)),
    ]
}

/// Feeds `wire` in pieces of `step` bytes; returns what came out per direction.
fn run(keys: &str, wire: &[(bool, Vec<u8>)], step: usize) -> (Decryptor, Vec<u8>, Vec<u8>) {
    let mut tls = TlsConn::default();
    let mut d = Decryptor::new(Arc::new(KeyLogFile::from_text(keys)));
    let mut out = Vec::new();
    for (i, (from_client, bytes)) in wire.iter().enumerate() {
        for piece in bytes.chunks(step) {
            if *from_client {
                tls.client(piece);
            } else {
                tls.server(piece);
            }
            d.feed(*from_client, i as u64, piece, &tls, &mut out);
        }
    }
    d.finish(&mut out);
    let side = |c: bool| -> Vec<u8> {
        out.iter()
            .filter(|p| p.from_client == c)
            .flat_map(|p| p.data.clone())
            .collect()
    };
    let (c, s) = (side(true), side(false));
    (d, c, s)
}

#[test]
fn rfc8448_connection_through_the_decryptor_in_any_pieces() {
    let payload: Vec<u8> = (0..50).collect();
    for step in [1, 7, 100, 4096] {
        let (d, c, s) = run(&rfc_keylog(), &rfc_wire(), step);
        let st = d.stats();
        assert_eq!(st.state, KeyState::Keyed, "step {step}");
        assert_eq!((c, s), (payload.clone(), payload.clone()), "step {step}");
        assert_eq!(st.records_decrypted, 7);
        assert_eq!((st.records_failed, st.records_without_key), (0, 0));
        assert_eq!((st.alerts, st.key_updates), (2, 0));
        assert_eq!((st.version, st.suite), (0x0304, Some(0x1301)));
        assert_eq!(st.opaque_bytes, 0);
    }
}

#[test]
fn rfc8448_without_keys_or_with_a_wrong_one() {
    let (d, c, s) = run("", &rfc_wire(), 64);
    assert_eq!(d.stats().state, KeyState::NoKey);
    assert!(c.is_empty() && s.is_empty());
    assert_eq!(d.stats().records_without_key, 7);

    // The client's secrets swapped with the server's: nothing authenticates.
    let wrong = rfc_keylog()
        .replace(C_HS, "x")
        .replace(S_HS, C_HS)
        .replace('x', S_HS)
        .replace(C_AP, "y")
        .replace(S_AP, C_AP)
        .replace('y', S_AP);
    let (d, c, s) = run(&wrong, &rfc_wire(), 64);
    assert!(c.is_empty() && s.is_empty());
    assert_eq!(d.stats().records_failed, 7);
    assert_eq!(d.stats().records_decrypted, 0);

    // Garbage instead of records: counted, no panic.
    let mut wire = rfc_wire();
    wire[4].1 = b"GET / HTTP/1.1\r\n\r\n".to_vec();
    let (d, c, _) = run(&rfc_keylog(), &wire, 3);
    assert!(c.is_empty());
    assert!(d
        .stats()
        .lost
        .as_deref()
        .unwrap_or("")
        .contains("not a TLS record"));
}

// rustls in memory, with a KeyLog.

#[derive(Debug, Default)]
struct Collect(Mutex<String>);

impl rustls::KeyLog for Collect {
    fn log(&self, label: &str, client_random: &[u8], secret: &[u8]) {
        let mut s = self.0.lock().expect("lock");
        s.push_str(&format!(
            "{label} {} {}\n",
            hexs(client_random),
            hexs(secret)
        ));
    }
}

#[derive(Debug)]
struct AnyCert;

impl ServerCertVerifier for AnyCert {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &CertificateDer<'_>,
        _: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Ok(HandshakeSignatureValid::assertion())
    }
    fn verify_tls13_signature(
        &self,
        _: &[u8],
        _: &CertificateDer<'_>,
        _: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Ok(HandshakeSignatureValid::assertion())
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        default_provider()
            .signature_verification_algorithms
            .supported_schemes()
    }
}

struct Wire {
    client: Connection,
    server: Connection,
    log: Vec<(bool, Vec<u8>)>,
    got_by_server: Vec<u8>,
    got_by_client: Vec<u8>,
}

impl Wire {
    /// Moves every pending byte both ways until both sides are quiet.
    fn settle(&mut self) {
        loop {
            let mut moved = false;
            for from_client in [true, false] {
                let (from, to) = if from_client {
                    (&mut self.client, &mut self.server)
                } else {
                    (&mut self.server, &mut self.client)
                };
                let got = if from_client {
                    &mut self.got_by_server
                } else {
                    &mut self.got_by_client
                };
                while from.wants_write() {
                    let mut buf = Vec::new();
                    from.write_tls(&mut buf).expect("write_tls");
                    let mut rd = &buf[..];
                    while !rd.is_empty() {
                        to.read_tls(&mut rd).expect("read_tls");
                        to.process_new_packets().expect("process");
                        let mut chunk = [0u8; 65536];
                        while let Ok(n @ 1..) = to.reader().read(&mut chunk) {
                            got.extend_from_slice(&chunk[..n]);
                        }
                    }
                    self.log.push((from_client, buf));
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
    }
}

fn connect(suite: SupportedCipherSuite, ecdsa: bool, keys: Arc<Collect>) -> Wire {
    let mut provider = default_provider();
    provider.cipher_suites = vec![suite];
    let provider = Arc::new(provider);
    let version = suite.version();
    let (cert, key): (&[u8], &[u8]) = if ecdsa {
        (
            include_bytes!("../testdata/ec-cert.der"),
            include_bytes!("../testdata/ec-key.der"),
        )
    } else {
        (
            include_bytes!("../testdata/rsa-cert.der"),
            include_bytes!("../testdata/rsa-key.der"),
        )
    };
    let server = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[version])
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(cert.to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.to_vec())),
        )
        .expect("server config");
    let mut client = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[version])
        .expect("versions")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCert))
        .with_no_client_auth();
    client.key_log = keys;
    client.alpn_protocols = vec![b"http/1.1".to_vec()];
    let mut server = server;
    server.alpn_protocols = vec![b"http/1.1".to_vec()];
    let name = ServerName::try_from("localhost").expect("name");
    Wire {
        client: Connection::Client(
            rustls::ClientConnection::new(Arc::new(client), name).expect("client"),
        ),
        server: Connection::Server(
            rustls::ServerConnection::new(Arc::new(server)).expect("server"),
        ),
        log: Vec::new(),
        got_by_server: Vec::new(),
        got_by_client: Vec::new(),
    }
}

#[test]
fn rustls_traffic_of_every_suite_decrypts_byte_for_byte() {
    let suites = [
        (cs::TLS13_AES_128_GCM_SHA256, true),
        (cs::TLS13_AES_256_GCM_SHA384, true),
        (cs::TLS13_CHACHA20_POLY1305_SHA256, true),
        (cs::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true),
        (cs::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, true),
        (cs::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, true),
        (cs::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, false),
        (cs::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, false),
        (cs::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, false),
    ];
    for (s, ecdsa) in suites {
        let id = u16::from(s.suite());
        let name = suite_name(id);
        let tls13 = s.version() == &rustls::version::TLS13;
        let keys = Arc::new(Collect::default());
        let mut w = connect(s, ecdsa, keys.clone());
        w.settle();
        let request = b"GET /solr/bench/select?q=*:* HTTP/1.1\r\nHost: localhost\r\n\r\n".to_vec();
        // Larger than one record (16 KB): several records, sequence numbers moving on.
        let response: Vec<u8> = (0..40_000u32).map(|i| (i * 7 % 251) as u8).collect();
        w.client.writer().write_all(&request).expect("write");
        w.settle();
        w.server.writer().write_all(&response).expect("write");
        w.settle();
        if tls13 {
            // KeyUpdate with update_requested: the server answers with its own.
            w.client.refresh_traffic_keys().expect("key update");
            w.settle();
        }
        w.client.writer().write_all(&request).expect("write");
        w.settle();
        w.server
            .writer()
            .write_all(&response[..1000])
            .expect("write");
        w.client.send_close_notify();
        w.server.send_close_notify();
        w.settle();
        let sent_c: Vec<u8> = [request.clone(), request.clone()].concat();
        let sent_s: Vec<u8> = [response.clone(), response[..1000].to_vec()].concat();
        assert_eq!(
            (&w.got_by_server, &w.got_by_client),
            (&sent_c, &sent_s),
            "{name}: rustls itself"
        );

        let log = keys.0.lock().expect("lock").clone();
        for step in [1000, 1 << 20] {
            let (d, c, sv) = run(&log, &w.log, step);
            let st = d.stats();
            assert_eq!(st.state, KeyState::Keyed, "{name}");
            assert_eq!(st.suite, Some(id), "{name}");
            assert!(c == sent_c, "{name}: client bytes differ");
            assert!(sv == sent_s, "{name}: server bytes differ");
            assert_eq!(st.records_failed + st.records_without_key, 0, "{name}");
            assert_eq!(st.key_updates, if tls13 { 2 } else { 0 }, "{name}");
            assert_eq!(st.alerts, 2, "{name}: both close_notify");
            assert_eq!(st.alpn.as_deref(), Some("http/1.1"), "{name}");
            assert_eq!(
                (st.plain_to_server, st.plain_from_server),
                (sent_c.len() as u64, sent_s.len() as u64)
            );
        }
    }
}

#[test]
fn secrets_written_after_the_records_are_waited_for() {
    // The key log is empty while the records arrive and filled before the end.
    let dir = std::env::temp_dir().join(format!("tb-tls-late-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("keys.log");
    std::fs::write(&path, "").expect("write");
    let keys = Arc::new(KeyLogFile::open(&path).expect("open"));
    let mut tls = TlsConn::default();
    let mut d = Decryptor::new(keys);
    let mut out = Vec::new();
    for (from_client, bytes) in rfc_wire() {
        if from_client {
            tls.client(&bytes);
        } else {
            tls.server(&bytes);
        }
        d.feed(from_client, 1, &bytes, &tls, &mut out);
    }
    assert!(out.is_empty());
    assert_eq!(d.stats().state, KeyState::Waiting);
    std::fs::write(&path, rfc_keylog()).expect("write");
    d.finish(&mut out);
    assert_eq!(d.stats().state, KeyState::Keyed);
    assert_eq!(out.len(), 2);
    assert_eq!(d.stats().records_decrypted, 7);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An Ethernet/IPv4/TCP frame on 127.0.0.1 (no checksums: the tracker does not read them).
fn frame(sport: u16, dport: u16, seq: u32, flags: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 12];
    f.extend([0x08, 0x00, 0x45, 0]);
    f.extend(((40 + payload.len()) as u16).to_be_bytes());
    f.extend([0, 0, 0x40, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]);
    f.extend(sport.to_be_bytes());
    f.extend(dport.to_be_bytes());
    f.extend(seq.to_be_bytes());
    f.extend([0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    f.extend(payload);
    f
}

/// One HTTPS connection from `cport` made by rustls (TLS 1.3): two Solr searches, the second
/// asking for gzip. Returns its frames in wire order and the key log lines.
pub(crate) fn https_conn(cport: u16, ts: &mut u64) -> (Vec<(u64, Vec<u8>)>, String) {
    const SRV: u16 = 8983;
    let keys = Arc::new(Collect::default());
    let mut w = connect(cs::TLS13_AES_128_GCM_SHA256, true, keys.clone());
    w.settle();
    let body = br#"{"responseHeader":{"status":0,"QTime":3,"params":{}},"response":{"numFound":0,"start":0,"docs":[]}}"#;
    for gzip in [false, true] {
        let ae = if gzip {
            "Accept-Encoding: gzip\r\n"
        } else {
            ""
        };
        let req = format!("GET /solr/bench/select?q=*:*&wt=json HTTP/1.1\r\nHost: x\r\n{ae}\r\n");
        w.client.writer().write_all(req.as_bytes()).expect("write");
        w.settle();
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        w.server.writer().write_all(head.as_bytes()).expect("write");
        w.server.writer().write_all(body).expect("write");
        w.settle();
    }
    let (mut cseq, mut sseq) = (1000u32, 9000u32);
    let mut frames = Vec::new();
    let mut push = |f: Vec<u8>, frames: &mut Vec<(u64, Vec<u8>)>| {
        *ts += 50;
        frames.push((*ts, f));
    };
    push(frame(cport, SRV, cseq, 0x02, b""), &mut frames);
    push(frame(SRV, cport, sseq, 0x12, b""), &mut frames);
    cseq += 1;
    sseq += 1;
    for (from_client, bytes) in &w.log {
        for seg in bytes.chunks(1460) {
            if *from_client {
                push(frame(cport, SRV, cseq, 0x18, seg), &mut frames);
                cseq += seg.len() as u32;
            } else {
                push(frame(SRV, cport, sseq, 0x18, seg), &mut frames);
                sseq += seg.len() as u32;
            }
        }
    }
    push(frame(cport, SRV, cseq, 0x11, b""), &mut frames);
    let log = keys.0.lock().expect("lock").clone();
    (frames, log)
}
