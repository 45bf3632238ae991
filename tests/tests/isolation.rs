//! The kernel witness counts only the client, also on a busy machine. A thread
//! opens and closes connections to another local port throughout a study; the study's
//! client runs in its own network namespace (`stbc-PID-N`), so connector, kernel and pcap
//! still agree exactly: fresh 20, pooled 1. Two namespaces of one process, made at once, are
//! two: their own names, devices and subnets, each counting its own connects.

use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use solr_client::{Select, TransportKind};
use transport_bench::engine::witness::isolation::ClientNamespace;
use transport_bench::engine::witness::KernelTcp;
use transport_bench::scenario::study::load_summary;

use crate::support;

/// Connections to a listener on another local port, opened and closed every 3 ms until
/// stopped; returns the count.
struct Churn {
    stop: Arc<AtomicBool>,
    opened: Arc<AtomicU64>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Churn {
    fn start() -> Churn {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind churn listener");
        let addr = listener.local_addr().expect("addr");
        let stop = Arc::new(AtomicBool::new(false));
        let opened = Arc::new(AtomicU64::new(0));
        let s = stop.clone();
        let accept = std::thread::spawn(move || {
            for conn in listener.incoming() {
                drop(conn);
                if s.load(Ordering::SeqCst) {
                    break;
                }
            }
        });
        let (s, o) = (stop.clone(), opened.clone());
        let connect = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                if TcpStream::connect(addr).is_ok() {
                    o.fetch_add(1, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(3));
            }
            // Wakes the accept loop so it sees the stop flag.
            let _ = TcpStream::connect(addr);
        });
        Churn {
            stop,
            opened,
            threads: vec![connect, accept],
        }
    }

    fn stop(self) -> u64 {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads {
            t.join().expect("churn thread");
        }
        self.opened.load(Ordering::SeqCst)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn witnesses_agree_exactly_beside_connection_churn() {
    let url = support::standalone().url(None).expect("url").to_string();
    let out = std::env::temp_dir().join(support::tag("isolation"));
    let (churned, root_opens) = {
        let _g = support::exclusive().await;
        let root_before = KernelTcp::read().expect("kernel counters");
        let churn = Churn::start();
        // The churn is under way before the study starts.
        while churn.opened.load(Ordering::SeqCst) < 5 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let cli = support::searches_only_study(
            &url,
            &out,
            "20",
            &["--reps", "1", "--transports", "fresh,pooled"],
        );
        let r = transport_bench::cli::run(cli).await;
        let churned = churn.stop();
        r.expect("study runs");
        let root = KernelTcp::read()
            .expect("kernel counters")
            .since(&root_before)
            .active_opens;
        (churned, root)
    };
    let r = load_summary(&out).expect("summary.json");
    eprintln!(
        "churn: {churned} connects beside the study; the root namespace counted {root_opens} opens; {}",
        r.verdict
    );
    assert!(
        churned >= 20,
        "the churn ran throughout: {churned} connects"
    );
    assert!(
        root_opens >= churned,
        "the root namespace's ActiveOpens saw the churn ({root_opens} < {churned})"
    );
    let scope = r.settings["kernel_witness"]
        .as_str()
        .expect("kernel_witness");
    assert!(scope.starts_with("isolated: "), "{scope}");
    for (name, expected) in [("fresh", 20u64), ("pooled", 1)] {
        let t = r
            .transports
            .iter()
            .find(|t| t.transport == name)
            .unwrap_or_else(|| panic!("{name} in the report"));
        let w = &t.witnesses;
        assert!(w.kernel_isolated, "{name}: kernel witness isolated");
        assert_eq!(
            (w.connector, w.kernel_active_opens, w.pcap_syns, w.expected),
            (expected, expected, Some(expected), expected),
            "{name}: connector, kernel, pcap, expected"
        );
        assert_eq!(
            w.kernel_syn_retrans,
            Some(0),
            "{name}: no SYN retransmitted"
        );
        assert_eq!(w.pcap_dropped, Some(0), "{name}: capture drops");
        assert_eq!(w.counted, ["connector", "kernel", "pcap"], "{name}");
        assert_eq!(w.agree, Some(true), "{name}: witnesses agree");
        assert_eq!((t.wall.n, t.errors), (20, 0), "{name}: all answered");
    }
    assert!(!r.verdict.contains("DISAGREE"), "{}", r.verdict);
    assert!(!r.verdict.contains("not isolated"), "{}", r.verdict);
    let _ = std::fs::remove_dir_all(&out);
}

/// `fresh` connects `n` times from inside `ns`; the namespace's kernel count of connects.
async fn opens_in(ns: &ClientNamespace, url: String, n: usize) -> u64 {
    ns.spawn(move || async move {
        let c = support::client(&url, TransportKind::Fresh, false);
        let before = KernelTcp::read()?;
        for _ in 0..n {
            c.select(&Select::new("*:*").rows(0)).await?;
        }
        Ok(KernelTcp::read()?.since(&before).active_opens)
    })
    .await
    .expect("the namespace thread ends")
    .expect("searches from the namespace")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_namespaces_of_one_process_at_once_are_separate() {
    let url = support::standalone().url(None).expect("url").to_string();
    let _g = support::shared().await;
    let made: Vec<ClientNamespace> = std::thread::scope(|s| {
        let a = s.spawn(ClientNamespace::create);
        let b = s.spawn(ClientNamespace::create);
        [a, b]
            .map(|t| {
                t.join()
                    .expect("thread")
                    .expect("a client namespace (run as root)")
            })
            .into()
    });
    let (a, b) = (&made[0], &made[1]);
    assert_ne!(a.name(), b.name());
    assert_ne!(a.device(), b.device());
    assert!(
        a.device().len() <= 15,
        "{}: longer than IFNAMSIZ",
        a.device()
    );
    let (on_a, on_b) = tokio::join!(opens_in(a, url.clone(), 3), opens_in(b, url, 5));
    assert_eq!(
        (on_a, on_b),
        (3, 5),
        "each namespace counts its own connects"
    );
    let names: Vec<String> = made.iter().map(|ns| ns.name().to_string()).collect();
    drop(made);
    for name in names {
        assert!(
            !std::path::Path::new("/run/netns").join(&name).exists(),
            "{name} deleted"
        );
    }
}
