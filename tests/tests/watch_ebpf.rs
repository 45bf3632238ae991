//! `watch --ebpf` as root against the real local Solr, without any key log: curl, Python
//! `requests` and Node's `https` over HTTPS (plaintext read at OpenSSL's SSL_write/SSL_read),
//! each reported with its request count and the QTimes the client itself printed, attributed
//! to the client's pid; HTTP/2 over TLS (curl, ALPN `h2`) read the same way; two clients
//! at once kept apart; the project's own `fresh` transport over plain http (in a child
//! process, so its pid carries only its own connections) with as many connections as its
//! connector counted; wget (GnuTLS) and Java (JSSE), whose TLS no probe reads, as unknown
//! requests naming their library; a bad `--tls-binary`; and the refusal, unprivileged and
//! without BTF; and, with tracefs unmounted in a mount namespace, the fallback to the raw
//! syscall tracepoints reading the same requests.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;

use solr_watch::ebpf::{self, report::ProcessReport, EbpfOptions, EbpfReport};

use crate::support;

/// Requests per client.
const R: usize = 3;
/// Set in a child process of this test binary: what the child is for.
const CHILD: &str = "WATCH_EBPF_CHILD";

/// The probes, attached and draining in a thread until [`Watch::stop`].
pub(crate) struct Watch {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<EbpfReport>,
    /// Why the raw syscall tracepoints read the bytes, when each syscall's own could not.
    raw_syscalls: Option<String>,
}

impl Watch {
    pub(crate) fn start(port: u16) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let s = stop.clone();
        let handle = std::thread::spawn(move || {
            let opts = EbpfOptions {
                ports: vec![port],
                duration: None,
                tls_binaries: Vec::new(),
            };
            let ready = ebpf::Ready::check().unwrap_or_else(|e| panic!("{e:#}"));
            let probes = ready
                .attach(&opts)
                .unwrap_or_else(|e| panic!("attach: {e:#}"));
            tx.send((probes.tls_libraries.len(), probes.raw_syscalls.clone()))
                .expect("send");
            ebpf::watch_attached(&probes, &opts, &s).unwrap_or_else(|e| panic!("watch: {e:#}"))
        });
        let (libs, raw_syscalls) = rx.recv().expect("the probes attached");
        assert!(libs >= 2, "libssl and node probed: {libs}");
        Watch {
            stop,
            handle,
            raw_syscalls,
        }
    }

    pub(crate) fn stop(self) -> EbpfReport {
        // Let the last events reach the ring buffer.
        std::thread::sleep(std::time::Duration::from_millis(300));
        self.stop.store(true, Ordering::Relaxed);
        let r = self.handle.join().expect("watch thread");
        let mut text = Vec::new();
        ebpf::print_text(&r, &mut text).expect("print");
        eprintln!("{}", String::from_utf8_lossy(&text));
        r
    }
}

/// Every `"QTime":N` in `out`, in order.
fn qtimes(out: &str) -> Vec<Option<u64>> {
    out.match_indices("\"QTime\":")
        .map(|(i, k)| {
            let digits: String = out[i + k.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            Some(digits.parse().expect("QTime digits"))
        })
        .collect()
}

/// What a client process printed and its pid.
struct Client {
    pid: u32,
    qtimes: Vec<Option<u64>>,
    /// The connections strace saw it open.
    connections: u64,
}

/// Runs the client under `strace -f -e trace=connect`: the kernel-level witness of the
/// connections it opened to `port` and of the pid that opened them.
fn run(cmd: Command, port: u16) -> Client {
    let trace = std::env::temp_dir().join(support::tag("ebpf-strace"));
    let mut traced = Command::new("strace");
    traced
        .args(["-f", "-qq", "-e", "trace=connect", "-o"])
        .arg(&trace)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => traced.env(k, v),
            None => traced.env_remove(k),
        };
    }
    let out = traced.output().expect("strace runs the client");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{traced:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let strace = std::fs::read_to_string(&trace).expect("strace output");
    let _ = std::fs::remove_file(&trace);
    let needle = format!("sin_port=htons({port})");
    let connects: Vec<u32> = strace
        .lines()
        .filter(|l| l.contains(&needle))
        .map(|l| {
            l.split_whitespace()
                .next()
                .and_then(|p| p.parse().ok())
                .expect("strace -f: pid first")
        })
        .collect();
    let pid = *connects
        .first()
        .unwrap_or_else(|| panic!("no connect to {port} in {strace}"));
    assert!(
        connects.iter().all(|&p| p == pid),
        "one process connects: {connects:?}"
    );
    Client {
        pid,
        qtimes: qtimes(&text),
        connections: connects.len() as u64,
    }
}

fn urls(base: &str) -> Vec<String> {
    (0..R)
        .map(|i| format!("{base}/bench/select?q=*:*&rows={i}&wt=json"))
        .collect()
}

/// curl over `http` ("--http1.1" or "--http2": HTTP/2 by ALPN on one connection).
fn curl_with(http: &str, ca: &str, urls: &[String]) -> Command {
    let mut c = Command::new("curl");
    c.args(["-sS", "--fail", http, "--cacert", ca]).args(urls);
    c.env_remove("SSLKEYLOGFILE");
    c
}

fn curl(ca: &str, urls: &[String]) -> Command {
    curl_with("--http1.1", ca, urls)
}

const PY: &str = r#"
import sys, requests
s = requests.Session()
s.verify = sys.argv[1]
for u in sys.argv[2:]:
    print(s.get(u).text, flush=True)
"#;

fn python(ca: &str, urls: &[String]) -> Command {
    let mut c = Command::new("python3");
    c.args(["-c", PY, ca]).args(urls);
    // requests lets an environment bundle override the session's CA.
    c.env_remove("SSLKEYLOGFILE")
        .env_remove("REQUESTS_CA_BUNDLE")
        .env_remove("CURL_CA_BUNDLE");
    c
}

const NODE: &str = r#"
const https = require('https'); const fs = require('fs');
const [ca, ...urls] = process.argv.slice(1);
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: fs.readFileSync(ca) });
(async () => {
  for (const u of urls) {
    const body = await new Promise((ok, ko) => https.get(u, { agent }, (res) => {
      let b = ''; res.on('data', (d) => b += d); res.on('end', () => ok(b));
    }).on('error', ko));
    console.log(body);
  }
  agent.destroy();
})();
"#;

fn node(ca: &str, urls: &[String]) -> Command {
    let mut c = Command::new("node");
    c.args(["-e", NODE, ca]).args(urls);
    c.env_remove("SSLKEYLOGFILE");
    c
}

pub(crate) fn process(r: &EbpfReport, pid: u32) -> &ProcessReport {
    r.processes
        .iter()
        .find(|p| p.process.pid == pid)
        .unwrap_or_else(|| {
            panic!(
                "pid {pid} in {:?}",
                r.processes.iter().map(|p| &p.process).collect::<Vec<_>>()
            )
        })
}

/// Connections the servers on this host (the local Solr) accepted from the client `label`.
fn accepted_from(r: &EbpfReport, label: &str) -> u64 {
    r.servers
        .iter()
        .filter_map(|s| s.from_clients_seen.get(label))
        .sum()
}

/// The client's requests, QTimes and connections exactly, under its own pid and name, and
/// the same connections accepted by the local Solr.
fn assert_client(r: &EbpfReport, c: &Client, comm: &str) {
    let conns = c.connections;

    let p = process(r, c.pid);
    assert_eq!(
        accepted_from(r, &p.process.label()),
        conns,
        "{comm}: accepted by Solr"
    );
    assert!(
        p.process.comm.starts_with(comm),
        "{} for {comm}",
        p.process.comm
    );
    assert_eq!(c.qtimes.len(), R, "{comm} printed {R} responses");
    let requests = p.report.requests.as_ref().map_or(0, |x| x.requests);
    assert_eq!(requests, R as u64, "{comm}: requests");
    assert_eq!(
        p.qtimes, c.qtimes,
        "{comm}: QTimes as the client printed them"
    );
    assert_eq!(
        p.report.connections.opened, conns,
        "{comm}: connections opened"
    );
    assert_eq!(p.report.connections.tls, conns, "{comm}: TLS connections");
}

fn tls_solr() -> (String, String, u16) {
    let s = support::standalone_tls();
    let base = s.url(None).expect("url").to_string();
    let ca = s.ca.as_ref().expect("CA").display().to_string();
    let port = url::Url::parse(&base)
        .ok()
        .and_then(|u| u.port())
        .expect("port");
    (base, ca, port)
}

#[test]
fn https_clients_without_a_key_log_are_attributed_with_their_qtimes() {
    // Counts connections to the port: no other test may open one meanwhile.
    let _g = support::exclusive_blocking();
    let (base, ca, port) = tls_solr();
    let urls = urls(&base);
    let w = Watch::start(port);
    let tracefs = std::path::Path::new("/sys/kernel/tracing/events/syscalls").exists();
    assert_eq!(
        w.raw_syscalls.is_none(),
        tracefs,
        "each syscall's own tracepoints exactly when tracefs has them: {:?}",
        w.raw_syscalls
    );
    let curl_c = run(curl(&ca, &urls), port);
    let py = run(python(&ca, &urls), port);
    let nd = run(node(&ca, &urls), port);
    let r = w.stop();
    assert_eq!(r.lost_events, 0);
    assert_client(&r, &curl_c, "curl");
    assert_client(&r, &py, "python");
    assert_client(&r, &nd, "node");
    let cmd = &process(&r, curl_c.pid).process.cmdline;
    assert!(cmd.starts_with("curl ") && cmd.contains(&urls[0]), "{cmd}");
}

/// The https clients' test, in a child of this binary run in a mount namespace of its own
/// where tracefs is unmounted: the watch falls back to the raw syscall tracepoints, says why,
/// and reads the same requests and QTimes.
#[test]
fn without_tracefs_the_raw_tracepoints_read_the_same_requests() {
    let name = "watch_ebpf::without_tracefs_the_raw_tracepoints_read_the_same_requests";
    if std::env::var_os(CHILD).is_some() {
        let (base, ca, port) = tls_solr();
        let urls = urls(&base);
        let w = Watch::start(port);
        let why = w
            .raw_syscalls
            .clone()
            .expect("the raw tracepoints, tracefs being gone");
        assert!(why.contains("tracefs"), "{why}");
        let (curl_c, py) = (run(curl(&ca, &urls), port), run(python(&ca, &urls), port));
        let r = w.stop();
        assert_eq!(r.lost_events, 0);
        assert_client(&r, &curl_c, "curl");
        assert_client(&r, &py, "python");
        return println!("raw tracepoints read both clients");
    }
    let _g = support::exclusive_blocking();
    tls_solr();
    let umount = "umount /sys/kernel/tracing 2>/dev/null; \
                  umount /sys/kernel/debug/tracing 2>/dev/null; exec \"$@\"";
    let out = Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            umount,
            "sh",
        ])
        .arg(std::env::current_exe().expect("exe"))
        .args(["--exact", name, "--nocapture"])
        .env(CHILD, "raw")
        .output()
        .expect("unshare runs the child");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("raw tracepoints read both clients"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn two_clients_at_once_are_kept_apart() {
    // Counts connections to the port: no other test may open one meanwhile.
    let _g = support::exclusive_blocking();
    let (base, ca, port) = tls_solr();
    let urls = urls(&base);
    let w = Watch::start(port);
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| run(curl(&ca, &urls), port));
        let b = s.spawn(|| run(python(&ca, &urls), port));
        (a.join().expect("curl"), b.join().expect("python"))
    });
    let r = w.stop();
    assert_client(&r, &a, "curl");
    assert_client(&r, &b, "python");
}

#[test]
fn http2_over_tls_is_read_from_the_plaintext() {
    // Counts connections to the port: no other test may open one meanwhile.
    let _g = support::exclusive_blocking();
    let (base, ca, port) = tls_solr();
    let urls = urls(&base);
    let w = Watch::start(port);
    let c = run(curl_with("--http2", &ca, &urls), port);
    let r = w.stop();
    assert_eq!(r.lost_events, 0);
    assert_client(&r, &c, "curl");
    let h2 = process(&r, c.pid)
        .report
        .http2
        .as_ref()
        .expect("an HTTP/2 summary");
    assert_eq!(
        (h2.connections, h2.tls, h2.streams),
        (c.connections, c.connections, R as u64),
        "every connection spoke HTTP/2 inside TLS, one stream per request"
    );
    assert_eq!(h2.connections_lost, 0);
}

/// In the child: 10 searches with the `fresh` transport, then its connector count.
async fn fresh_child(base: &str) {
    let c = support::client(base, solr_client::TransportKind::Fresh, false);
    for _ in 0..10 {
        c.select(&solr_client::Select::new("*:*").rows(1))
            .await
            .expect("search");
    }
    println!("connector {}", c.transport().stats().connections_opened);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_transport_over_http_matches_its_connector_count() {
    let s = support::standalone();
    let base = s.url(None).expect("url").to_string();
    if std::env::var_os(CHILD).is_some() {
        return fresh_child(&base).await;
    }
    let _g = support::exclusive().await;
    let port = url::Url::parse(&base)
        .ok()
        .and_then(|u| u.port())
        .expect("port");
    let w = Watch::start(port);
    let out = Command::new(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            "watch_ebpf::fresh_transport_over_http_matches_its_connector_count",
            "--nocapture",
        ])
        .env(CHILD, "fresh")
        .stdout(Stdio::piped())
        .spawn()
        .expect("child");
    let pid = out.id();
    let out = out.wait_with_output().expect("child runs");
    let r = w.stop();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let connector: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("connector "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("connector count in {text}"));
    let p = process(&r, pid);
    assert_eq!(
        p.report.connections.opened, connector,
        "connections = the connector witness"
    );
    assert_eq!(connector, 10, "fresh: one connection per search");
    assert_eq!(
        accepted_from(&r, &p.process.label()),
        connector,
        "Solr accepted each of them"
    );
    assert!(
        r.servers.iter().any(|s| s.process.comm == "java"),
        "the accepting process is Solr's JVM: {:?}",
        r.servers.iter().map(|s| &s.process).collect::<Vec<_>>()
    );
    assert_eq!(p.report.requests.as_ref().map_or(0, |x| x.requests), 10);
    assert_eq!(p.report.connections.http1, 10);
}

/// A client that pauses 5 ms after each write (an `LD_PRELOAD` shim around `SSL_write` and
/// `send`, built here) is timed from the request's first byte: the watch's median wall time
/// is within 15% of the client's own, over https (stamped at `SSL_write` entry) and http.
#[test]
fn a_client_paused_after_each_write_is_timed_from_its_first_byte() {
    let _g = support::exclusive_blocking();
    let dir = std::env::temp_dir().join(support::tag("ebpf-pause"));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("pause.c"), PAUSE_SHIM).expect("pause.c");
    let shim = dir.join("pause.so");
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&shim)
        .arg(dir.join("pause.c"))
        .arg("-ldl")
        .output()
        .expect("cc runs");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let (tls_base, ca, tls_port) = tls_solr();
    let plain = support::standalone().url(None).expect("url").to_string();
    let plain_port = url::Url::parse(&plain)
        .ok()
        .and_then(|u| u.port())
        .expect("port");
    for (base, port) in [(tls_base, tls_port), (plain, plain_port)] {
        let urls: Vec<String> = (0..9)
            .map(|i| format!("{base}/bench/select?q=*:*&rows={i}&wt=json"))
            .collect();
        let w = Watch::start(port);
        let mut curl = Command::new("curl");
        curl.args([
            "-sS",
            "--fail",
            "--http1.1",
            "--cacert",
            &ca,
            "-w",
            "%{time_total}\n",
        ]);
        for u in &urls {
            curl.args(["-o", "/dev/null", u]);
        }
        let child = curl
            .env("LD_PRELOAD", &shim)
            .env_remove("SSLKEYLOGFILE")
            .stdout(Stdio::piped())
            .spawn()
            .expect("curl");
        let pid = child.id();
        let out = child.wait_with_output().expect("curl ends");
        assert!(out.status.success(), "curl over {base}");
        let r = w.stop();
        let mut own: Vec<f64> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim().parse::<f64>().expect("time_total") * 1000.0)
            .collect();
        assert_eq!(own.len(), urls.len());
        own.sort_by(f64::total_cmp);
        let own_p50 = own[own.len() / 2];
        let p = process(&r, pid);
        let q = p.report.requests.as_ref().expect("requests read");
        assert_eq!(q.requests, urls.len() as u64, "{base}");
        let watch_p50 = q.wall.p50_ms.expect("wall p50");
        // The pause alone is 5 ms: a watch that stamps the write's end misses it.
        assert!(own_p50 >= 5.0, "{base}: curl's own median {own_p50} ms");
        assert!(
            (watch_p50 - own_p50).abs() <= 0.15 * own_p50,
            "{base}: watch median {watch_p50} ms, curl's own {own_p50} ms"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sleeps 5 ms after each `SSL_write` (https) and `send` (http) the client makes.
const PAUSE_SHIM: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/socket.h>
#include <unistd.h>
int SSL_write(void *ssl, const void *buf, int num) {
  static int (*real)(void *, const void *, int);
  if (!real) real = (int (*)(void *, const void *, int))dlsym(RTLD_NEXT, "SSL_write");
  int r = real(ssl, buf, num);
  usleep(5000);
  return r;
}
ssize_t send(int fd, const void *buf, size_t len, int flags) {
  static ssize_t (*real)(int, const void *, size_t, int);
  if (!real) real = (ssize_t (*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
  ssize_t r = real(fd, buf, len, flags);
  usleep(5000);
  return r;
}
"#;

/// wget (GnuTLS) and Java's HttpClient (JSSE): TLS no probe reads. Their requests are
/// unknown, never 0; the report names each library and what to do instead, and no finding
/// rests on the unknown counts.
#[test]
fn tls_no_probe_reads_is_unknown_and_names_its_library() {
    let _g = support::exclusive_blocking();
    let (base, ca, port) = tls_solr();
    let urls = urls(&base);
    let dir = std::env::temp_dir().join(support::tag("ebpf-java"));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("Get.java"), JAVA).expect("Get.java");
    let tls_dir = std::path::Path::new(&ca).parent().expect("tls dir");
    let password = std::fs::read_to_string(tls_dir.join("password")).expect("password");
    let w = Watch::start(port);
    let wget = run(wget(&ca, &urls), port);
    let out = Command::new("java")
        .arg(format!(
            "-Djavax.net.ssl.trustStore={}",
            tls_dir.join("truststore.p12").display()
        ))
        .arg(format!(
            "-Djavax.net.ssl.trustStorePassword={}",
            password.trim()
        ))
        .arg(dir.join("Get.java"))
        .args(&urls)
        .output()
        .expect("java runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(qtimes(&String::from_utf8_lossy(&out.stdout)).len(), R);
    let r = w.stop();
    let _ = std::fs::remove_dir_all(&dir);
    let java = r
        .processes
        .iter()
        .find(|p| p.process.cmdline.contains("Get.java"))
        .expect("the java client");
    assert!(
        !java.process.cmdline.contains(password.trim()),
        "{}",
        java.process.cmdline
    );
    for (p, lib, conns) in [
        (process(&r, wget.pid), "GnuTLS", wget.connections),
        (
            java,
            "Java (JSSE)",
            accepted_from(&r, &java.process.label()),
        ),
    ] {
        assert!(conns >= 1, "{lib}: connections");
        assert_eq!(
            p.report.connections.opened, conns,
            "{lib}: connections opened"
        );
        assert!(
            p.report.requests.is_none(),
            "{lib}: {:?}",
            p.report.requests
        );
        let why = p.report.requests_unknown.as_deref().expect("why");
        assert!(
            why.starts_with(&format!("{conns} TLS connections encrypted by {lib} (")),
            "{why}"
        );
        assert_eq!(
            p.process.tls_library.as_ref().map(|l| l.name.as_str()),
            Some(lib)
        );
    }
    let label = |p: &ProcessReport| p.process.label();
    for who in [label(process(&r, wget.pid)), label(java)] {
        let mine: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.what.starts_with(&who))
            .collect();
        assert!(
            mine.iter().any(|f| f.kind == "tls-not-read"),
            "{who}: {mine:?}"
        );
        // Connection-level findings (resets, full handshakes) rest on known counts; none
        // may rest on the requests.
        assert!(
            !mine
                .iter()
                .any(|f| f.what.contains("request") || f.kind.contains("reuse")),
            "{who}: {mine:?}"
        );
    }
    assert!(
        r.verdict
            .contains("plus the unknown requests of 2 processes (TLS not read)"),
        "{}",
        r.verdict
    );
}

/// wget over TLS: GnuTLS on Debian.
fn wget(ca: &str, urls: &[String]) -> Command {
    let mut c = Command::new("wget");
    c.args(["-q", "-O", "-", "--ca-certificate", ca]).args(urls);
    c.env_remove("SSLKEYLOGFILE");
    c
}

const JAVA: &str = r#"
import java.net.URI;
import java.net.http.*;
public class Get {
  public static void main(String[] urls) throws Exception {
    HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    for (String u : urls) {
      System.out.println(c.send(HttpRequest.newBuilder(URI.create(u)).build(),
          HttpResponse.BodyHandlers.ofString()).body());
    }
  }
}
"#;

#[test]
fn a_tls_binary_that_is_missing_or_not_openssl_is_an_error() {
    let ready = ebpf::Ready::check().unwrap_or_else(|e| panic!("{e:#}"));
    let attach = |b: &str| {
        let opts = EbpfOptions {
            ports: vec![9],
            duration: None,
            tls_binaries: vec![b.into()],
        };
        format!("{:#}", ready.attach(&opts).expect_err(b))
    };
    let e = attach("/nonexistent/libssl.so.3");
    assert!(
        e.starts_with("--tls-binary /nonexistent/libssl.so.3: no such file"),
        "{e}"
    );
    let e = attach("/bin/true");
    assert_eq!(
        e,
        "--tls-binary /bin/true: no OpenSSL probe attached: no OpenSSL functions found in it"
    );
}

/// As an unprivileged user with CAP_BPF and CAP_PERFMON (the capabilities that load the
/// probes), the kernel refuses every OpenSSL uprobe (`Permission denied`), and each file is
/// named with that reason; with CAP_SYS_ADMIN alone every file is probed.
#[test]
fn uprobes_need_cap_sys_admin_and_a_refusal_is_named_with_its_reason() {
    if std::env::var_os(CHILD).is_some_and(|v| v == "caps") {
        let ready = ebpf::Ready::check().unwrap_or_else(|e| panic!("{e:#}"));
        let opts = EbpfOptions {
            ports: vec![9],
            duration: None,
            tls_binaries: Vec::new(),
        };
        let p = ready
            .attach(&opts)
            .unwrap_or_else(|e| panic!("attach: {e:#}"));
        for l in &p.tls_libraries {
            println!("probed: {}", l.display());
        }
        for (l, why) in &p.tls_refused {
            println!("refused: {}: {why}", l.display());
        }
        return;
    }
    let targets = ebpf::probes::tls_targets(&[]);
    assert!(!targets.is_empty(), "the system libssl at least");
    for (caps, want) in [("+bpf,+perfmon", "refused: "), ("+sys_admin", "probed: ")] {
        let said = child_with_caps(caps);
        assert_eq!(
            said.len(),
            targets.len(),
            "{caps}: {said:?} for {targets:?}"
        );
        for (line, t) in said.iter().zip(&targets) {
            assert!(
                line.starts_with(&format!("{want}{}", t.display())),
                "{caps}: {line}"
            );
            if want == "refused: " {
                assert!(
                    line.ends_with(
                        ": the kernel refused its uprobes: failed to attach uprobe: \
                                    Permission denied (os error 13)"
                    ),
                    "{line}"
                );
            }
        }
    }
}

/// This test run again as an unprivileged user with only `caps` (setpriv's syntax): the
/// lines it printed about each OpenSSL file.
fn child_with_caps(caps: &str) -> Vec<String> {
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(format!("--inh-caps=-all,{caps}"))
        .arg(format!("--ambient-caps=-all,{caps}"))
        .arg(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            "watch_ebpf::uprobes_need_cap_sys_admin_and_a_refusal_is_named_with_its_reason",
            "--nocapture",
        ])
        .env(CHILD, "caps")
        .output()
        .expect("setpriv runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{caps}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .filter(|l| l.starts_with("probed: ") || l.starts_with("refused: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn refuses_unprivileged_and_without_btf_with_one_message() {
    if std::env::var_os(CHILD).is_some() {
        let e = ebpf::Ready::check().expect_err("unprivileged: refused");
        println!("refusal: {e}");
        return;
    }
    let out = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
        ])
        .arg(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            "watch_ebpf::refuses_unprivileged_and_without_btf_with_one_message",
            "--nocapture",
        ])
        .env(CHILD, "refusal")
        .output()
        .expect("setpriv runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("refusal: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        line,
        "refusal: watch --ebpf cannot run here: it needs root (or the capabilities CAP_BPF and CAP_PERFMON). \
         Nothing was loaded. The pcap path still works: `transport-bench watch --port N` (live, libpcap) \
         or `--read FILE` (a saved capture)."
    );
    let e = ebpf::Ready::check_with(std::path::Path::new("/nonexistent/vmlinux"))
        .expect_err("no BTF: refused");
    assert_eq!(
        e.to_string(),
        "watch --ebpf cannot run here: it needs the kernel's BTF type information (/nonexistent/vmlinux is absent). \
         Nothing was loaded. The pcap path still works: `transport-bench watch --port N` (live, libpcap) \
         or `--read FILE` (a saved capture)."
    );
}
