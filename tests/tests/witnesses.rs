//! 20 identical searches per transport: the transport's own connection counter and the
//! kernel's (`Tcp: ActiveOpens` of this network namespace) must both say fresh = 20,
//! pooled = reqwest = 1 (sequential), http2 = 1 (20 concurrent).

use solr_client::{Select, TransportKind};
use transport_bench::witness::KernelTcp;

use crate::support::{self, client};

#[tokio::test]
async fn twenty_searches_connection_counts() {
    let s = support::standalone();
    let url = s.url(None).unwrap().to_string();
    let _g = support::exclusive();
    for (kind, concurrent, expected) in [
        (TransportKind::Fresh, false, 20u64),
        (TransportKind::Pooled, false, 1),
        (TransportKind::Reqwest, false, 1),
        (TransportKind::Http2, true, 1),
    ] {
        let c = client(&url, kind, false);
        let q = Select::new("title:solr").rows(10);
        let before = KernelTcp::read().expect("kernel counters");
        if concurrent {
            let futs = (0..20).map(|_| c.select(&q));
            for r in futures::future::join_all(futs).await {
                r.unwrap_or_else(|e| panic!("{kind}: {e}"));
            }
        } else {
            for _ in 0..20 {
                c.select(&q).await.unwrap_or_else(|e| panic!("{kind}: {e}"));
            }
        }
        let kernel = KernelTcp::read()
            .expect("kernel counters")
            .since(&before)
            .active_opens;
        let own = c.transport().stats().connections_opened;
        assert_eq!(own, expected, "{kind}: transport's own connector count");
        assert_eq!(kernel, expected, "{kind}: kernel ActiveOpens delta");
        assert_eq!(c.transport().stats().requests, 20);
    }
}
