//! Export every response's phases to the application's own metrics with the
//! `on_response` hook: one HdrHistogram per phase (in-process; swap in the `metrics` crate's
//! `histogram!` or an OpenTelemetry instrument in the same closure), printed at the end.
//! Exits with status 1 unless the hook saw every search, and one connection set up.
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --example metrics_hook
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hdrhistogram::Histogram;
use solr_client::{ResponseEvent, Select, TransportKind};

/// Phase name -> histogram of microseconds.
type Phases = Arc<Mutex<BTreeMap<&'static str, Histogram<u64>>>>;

fn record(phases: &Phases, e: &ResponseEvent<'_>) {
    let t = e.timing;
    let connection = t.connection_setup();
    let mut samples: Vec<(&'static str, Duration)> = vec![
        ("blocked", t.blocked),
        ("write", t.write),
        ("server_wait", t.server_wait),
        ("transfer", t.transfer),
        ("total", t.total()),
    ];
    if !t.reused {
        samples.push(("connection_setup", connection));
    }
    if let Some(p) = t.parse {
        samples.push(("decode", p));
    }
    if let Some(q) = e.qtime_ms {
        samples.push(("qtime", Duration::from_millis(u64::from(q))));
    }
    let mut map = phases.lock().unwrap_or_else(|p| p.into_inner());
    for (name, d) in samples {
        let h = map.entry(name).or_insert_with(|| {
            Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds")
        });
        h.saturating_record(d.as_micros().try_into().unwrap_or(u64::MAX));
    }
}

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    // Solr and the collection checked by a client of its own: the hook sees only the searches.
    common::client().await;
    let phases: Phases = Arc::default();
    let sink = phases.clone();
    let client = common::builder()
        .transport(TransportKind::Pooled)
        .on_response(Arc::new(move |e: &ResponseEvent<'_>| record(&sink, e)))
        .build()?;

    let n = 200;
    for i in 0..n {
        client
            .select(&Select::new(format!("id:{i} OR title_t:solr")).rows(10))
            .await?;
    }

    let map = phases.lock().unwrap_or_else(|p| p.into_inner());
    println!("{n} searches, phases in microseconds");
    println!(
        "{:<18} {:>7} {:>9} {:>9} {:>9}",
        "phase", "count", "p50", "p99", "max"
    );
    for (name, h) in map.iter() {
        println!(
            "{:<18} {:>7} {:>9} {:>9} {:>9}",
            name,
            h.len(),
            h.value_at_quantile(0.5),
            h.value_at_quantile(0.99),
            h.max()
        );
    }
    let count = |phase: &str| map.get(phase).map(Histogram::len);
    check::check_eq("responses the hook saw", count("total"), Some(n));
    check::check_eq(
        "connections set up (pooled)",
        count("connection_setup"),
        Some(1),
    );
    Ok(())
}
