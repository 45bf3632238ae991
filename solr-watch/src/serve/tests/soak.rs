//! Three simulated days of connection churn through the pcap daemon's sink (capture time is
//! the packets' timestamps): a fresh connection with one request every 10 s beside one
//! pooled connection that carries a request every 10 s. What it holds stays bounded.

use std::sync::{Arc, Mutex};

use super::{exposed_series, lines};
use crate::serve::metrics::Metrics;
use crate::serve::pcap::ServeSink;
use crate::tests::{resp, Conv, GET, SRV};
use crate::wire::packet::linktype;

const SECOND: u64 = 1_000_000;
const DAYS: u64 = 3;
const EVERY: u64 = 10 * SECOND;

fn feed(sink: &mut ServeSink, c: &mut Conv) {
    for (ts, f) in c.frames.drain(..) {
        sink.frame(linktype::ETHERNET, &f, f.len() as u32, ts);
    }
}

#[test]
fn three_days_of_connection_churn_hold_a_bounded_state() {
    let metrics = Arc::new(Mutex::new(Metrics::new("h")));
    let mut sink = ServeSink::new(SRV, None, metrics.clone());
    let mut pooled = Conv::new(40000, 0);
    pooled.open();
    feed(&mut sink, &mut pooled);
    let n = DAYS * 86_400 * SECOND / EVERY;
    let (mut most_conns, mut most_held, mut most_series) = (0, 0, 0);
    for i in 1..=n {
        let t = i * EVERY;
        let mut c = Conv::new(41000 + (i % 20000) as u16, t);
        c.open();
        let (q, r) = (c.client(GET), c.server(&resp(3, 10)));
        c.send(q).send(r).close(true).close(false);
        feed(&mut sink, &mut c);
        pooled.ts = t + SECOND;
        let (q, r) = (pooled.client(GET), pooled.server(&resp(1, 10)));
        pooled.send(q).send(r);
        feed(&mut sink, &mut pooled);
        sink.harvest();
        most_conns = most_conns.max(sink.connections());
        most_held = most_held.max(sink.held_messages());
        most_series = most_series.max(metrics.lock().expect("lock").series());
        assert_eq!(sink.cursors(), sink.connections());
    }
    // The pooled connection and the latest fresh one (closed less than 5 s before); 7
    // series and 2 findings (below).
    assert_eq!((most_conns, most_held, most_series), (2, 0, 9));
    assert_eq!(sink.windows(), (1, 16), "the last 16 ended connections");
    sink.end_all();
    assert_eq!((sink.connections(), sink.cursors()), (0, 0));
    let m = metrics.lock().expect("lock");
    let l = lines(&m);
    for want in [
        format!("solr_watch_requests_total{{host=\"h\"}} {}", 2 * n),
        format!(
            "solr_watch_connections_opened_total{{host=\"h\"}} {}",
            n + 1
        ),
        format!(
            "solr_watch_connections_reused_requests_total{{host=\"h\"}} {}",
            n - 1
        ),
        format!("solr_watch_qtime_seconds_count{{host=\"h\"}} {}", 2 * n),
    ] {
        assert!(l.contains(&want), "{want} in {l:#?}");
    }
    let mut findings: Vec<&str> = l
        .iter()
        .filter(|x| x.starts_with("solr_watch_findings{"))
        .map(String::as_str)
        .collect();
    findings.sort_unstable();
    // Judged over the last 16 ended connections, the fresh ones (one request each, a
    // 100 µs wall time under a 3 ms QTime).
    assert_eq!(
        findings,
        [
            "solr_watch_findings{host=\"h\",finding=\"no-reuse\"} 1",
            "solr_watch_findings{host=\"h\",finding=\"outside-solr\"} 1",
        ]
    );
    assert_eq!(exposed_series(&l), 9);
}
