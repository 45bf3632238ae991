//! The same 20 searches through every transport: connections opened and median latency.
//! Exits with status 1 when a transport opened another number of connections than its
//! design says: one per search for `fresh`, one in all for `pooled` and `http2`, and fewer
//! than one per search for `reqwest` (its pool may dial a second connection when a request
//! starts before the previous connection is back in the pool).
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --all-features --example transports
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use solr_client::{Select, TlsOptions, TransportKind};

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let mut tls = TlsOptions::new();
    if let Ok(ca) = std::env::var("SOLR_CA") {
        tls = tls.add_ca_pem_file(ca)?;
    }
    // Solr and the collection checked by a client of its own: not counted below.
    common::connect(common::builder().tls(tls.clone())).await;
    println!(
        "{:<14} {:>11} {:>10} {:>10}",
        "transport", "connections", "p50 ms", "QTime p50"
    );
    for kind in TransportKind::ALL {
        for gzip in [false, true] {
            let client = common::builder()
                .transport(kind)
                .gzip(gzip)
                .tls(tls.clone())
                .build()?;
            let mut totals = Vec::new();
            let mut qtimes = Vec::new();
            for _ in 0..20 {
                let r = client.select(&Select::new("*:*").rows(10)).await?;
                totals.push(r.timing.total());
                qtimes.extend(r.header.qtime);
            }
            totals.sort();
            qtimes.sort();
            let opened = client.transport().stats().connections_opened;
            println!(
                "{:<14} {:>11} {:>10.2} {:>10}",
                client.transport().name(),
                opened,
                totals[totals.len() / 2].as_secs_f64() * 1000.0,
                qtimes
                    .get(qtimes.len() / 2)
                    .map_or("-".to_string(), |q| q.to_string())
            );
            let what = format!("{kind:?} connections");
            match kind {
                TransportKind::Fresh => check::check_eq(&what, opened, 20),
                #[cfg(feature = "reqwest")]
                TransportKind::Reqwest => check::check(
                    (1..20).contains(&opened),
                    &format!("{what}: got {opened}, expected 1 to 19"),
                ),
                _ => check::check_eq(&what, opened, 1),
            }
        }
    }
    Ok(())
}
