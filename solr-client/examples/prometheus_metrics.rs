//! The `metrics` feature with a Prometheus exporter: the client records every response into
//! the `metrics` facade (no hook to write), `metrics-exporter-prometheus` renders it. Runs
//! a few searches and one query Solr refuses (400), prints the exposition, and exits with
//! status 1 unless the counters are exact: 5 searches answered 200 and 1 answered 400, one
//! connection opened and the other 5 requests reused it (a pooled client, one call at a
//! time).
//!
//! ```text
//! SOLR_URL=http://127.0.0.1:8983/solr SOLR_COLLECTION=gettingstarted \
//!     cargo run -p solr-client --features metrics \
//!     --example prometheus_metrics
//! ```

#[path = "common/check.rs"]
mod check;
#[path = "common/mod.rs"]
mod common;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
use solr_client::{Select, TransportKind};

/// The value of the sample of `name` whose labels include every `label="value"` of
/// `labels`, in the exposition `text`; None when there is no such line.
fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(name)?;
        let (set, value) = rest.strip_prefix('{')?.split_once("} ")?;
        let parts: Vec<&str> = set.split(',').collect();
        labels
            .iter()
            .all(|l| parts.contains(l))
            .then(|| value.trim().parse().ok())?
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Solr and the collection checked before the recorder is installed: not counted.
    common::client().await;
    // Buckets for the `_seconds` histograms (without them the exporter renders summaries).
    let buckets = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    ];
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &buckets)?
        .install_recorder()?;
    solr_client::observe::describe_metrics();

    let client = common::builder().transport(TransportKind::Pooled).build()?;
    let searches = 5;
    for i in 0..searches {
        client
            .select(&Select::new(format!("id:{i} OR title_t:solr")).rows(3))
            .await?;
    }
    // A query Solr's parser refuses: a Solr error, counted with its status.
    let refused = client.select(&Select::new("title_t:(unclosed")).await;
    check::check(
        matches!(refused, Err(solr_client::Error::Solr { status: 400, .. })),
        "the unbalanced query is refused with a 400",
    );

    let text = handle.render();
    println!("{text}");
    let requests = "solr_client_requests_total";
    let collection = format!("collection=\"{}\"", common::collection());
    let select = [collection.as_str(), "handler=\"select\""];
    let ok = [
        select[0],
        select[1],
        "status=\"200\"",
        "transport=\"pooled\"",
    ];
    let bad = [
        select[0],
        select[1],
        "status=\"400\"",
        "transport=\"pooled\"",
    ];
    check::check_eq(
        "searches answered 200",
        sample(&text, requests, &ok),
        Some(5.0),
    );
    check::check_eq(
        "searches answered 400",
        sample(&text, requests, &bad),
        Some(1.0),
    );
    let pooled = ["transport=\"pooled\""];
    check::check_eq(
        "connections opened",
        sample(&text, "solr_client_connections_opened_total", &pooled),
        Some(1.0),
    );
    check::check_eq(
        "requests on a reused connection",
        sample(
            &text,
            "solr_client_connections_reused_requests_total",
            &pooled,
        ),
        Some(f64::from(searches)),
    );
    check::check_eq(
        "QTime samples of the 200 searches",
        sample(&text, "solr_client_qtime_seconds_count", &ok),
        Some(5.0),
    );
    Ok(())
}
