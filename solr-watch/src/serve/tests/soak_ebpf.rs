//! Three simulated days of process and connection churn through the eBPF daemon's passes
//! (the same [`EbpfServe`] `watch --ebpf --serve` runs, fed kernel events built here): a
//! process every 5 s that opens one connection, asks one search, closes, and exits 30 s
//! after it started; beside it one process alive throughout, with one pooled connection
//! carrying a search every 5 s. Pids above the kernel's maximum (2^22) have no /proc entry.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{exposed_series, lines, pids};
use crate::ebpf::event::{Event, Kind};
use crate::ebpf::session::Session;
use crate::serve::ebpf::EbpfServe;
use crate::serve::metrics::Metrics;
use crate::tests::{resp, GET};

const EVERY_S: u64 = 5;
const LIVES_S: u64 = 30;
const GRACE_S: u64 = 300;
const FIRST: u32 = 5_000_000;
const POOLED: u32 = 4_999_999;

fn event(kind: Kind, pid: u32, sk: u64, ts_s: u64, to_server: bool, data: &[u8]) -> Event {
    let lo = IpAddr::V4(Ipv4Addr::LOCALHOST);
    Event {
        kind,
        to_server,
        old_state: 4,
        tls_plaintext: false,
        pid,
        ts_us: ts_s * 1_000_000,
        sk,
        cgroup: 0,
        extra: 0,
        retransmits: 0,
        local: (lo, 40000 + (sk % 20000) as u16),
        remote: (lo, 8983),
        comm: "soak".into(),
        data: data.to_vec(),
    }
}

/// Process `i`: open, one search, close, at second `t`.
fn short_lived(s: &mut Session, i: u64, t: u64) {
    let (pid, sk) = (FIRST + i as u32, 1_000 + i);
    s.event(event(Kind::Open, pid, sk, t, true, b""));
    s.event(event(Kind::Data, pid, sk, t, true, GET));
    s.event(event(Kind::Data, pid, sk, t, false, &resp(2, 10)));
    s.event(event(Kind::Close, pid, sk, t, true, b""));
}

#[test]
fn three_days_of_process_churn_hold_a_bounded_state() {
    let metrics = Arc::new(Mutex::new(Metrics::new("h")));
    let mut serve = EbpfServe::new(8983, metrics.clone(), Duration::from_secs(GRACE_S));
    let mut s = Session::default();
    s.event(event(Kind::Open, POOLED, 1, 0, true, b""));
    let n = 3 * 86_400 / EVERY_S;
    let alive = |now: u64| {
        move |pid: u32| pid == POOLED || u64::from(pid - FIRST) * EVERY_S + LIVES_S > now
    };
    let (mut most_procs, mut most_known, mut most_windows) = (0, 0, 0);
    let mut kinds = std::collections::BTreeSet::new();
    for i in 0..n {
        let t = i * EVERY_S;
        short_lived(&mut s, i, t);
        s.event(event(Kind::Data, POOLED, 1, t, true, GET));
        s.event(event(Kind::Data, POOLED, 1, t, false, &resp(1, 10)));
        serve.pass_at(&mut s, Duration::from_secs(t), &alive(t));
        let m = metrics.lock().expect("lock");
        most_procs = most_procs.max(m.processes());
        most_known = most_known.max(s.processes.len());
        // 6 series a short-lived process; the pooled one has 7 from its second request
        // on (reused requests).
        let pooled_extra = usize::from(i > 0);
        let findings = if i % 720 == 0 {
            let l = lines(&m);
            let f: Vec<String> = l
                .iter()
                .filter(|x| x.starts_with("solr_watch_findings{"))
                .filter_map(|x| {
                    x.split("finding=\"")
                        .nth(1)?
                        .split('"')
                        .next()
                        .map(String::from)
                })
                .collect();
            kinds.extend(f.iter().cloned());
            assert_eq!(exposed_series(&l), m.series());
            f.len()
        } else {
            m.series() - 6 * m.processes() - pooled_extra
        };
        assert_eq!(
            m.series(),
            6 * m.processes() + pooled_extra + findings,
            "at {t} s"
        );
        assert!(
            findings <= 2 * m.processes(),
            "at {t} s: {findings} findings"
        );
        most_windows = most_windows.max(serve.windows().1);
        assert_eq!(serve.held(), 1, "only the pooled connection");
        assert_eq!(s.live_mut().0.count(), 1);
    }
    // Alive 30 s, then 300 s of grace: 66 short-lived processes and the pooled one.
    let bound = ((LIVES_S + GRACE_S) / EVERY_S + 1) as usize;
    assert_eq!((most_procs, most_known), (bound, bound));
    // One ended connection a short-lived process; the pooled one never ends.
    assert_eq!(most_windows, bound - 1);
    // Every window with a QTime says where the time went (an informational finding); one
    // connection per process is not "no reuse".
    assert_eq!(kinds, ["outside-solr".to_string()].into());
    let m = metrics.lock().expect("lock");
    let l = lines(&m);
    let pooled =
        format!("solr_watch_requests_total{{host=\"h\",pid=\"{POOLED}\",comm=\"soak\"}} {n}");
    assert!(l.contains(&pooled), "{l:#?}");
    assert_eq!(exposed_series(&l), m.series());
    assert_eq!(pids(&l).len(), m.processes());
}
