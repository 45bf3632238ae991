//! `sweep`: the transport study's searches at several round-trip times through the WAN
//! topology, as one table and one chart of p50 vs RTT per transport.
//!
//! Each point is an ordinary `study` run (searches only, no reindexing) through
//! [`crate::scenario::study::wan::run_study`]: the topology is built for the point, calibrated, the
//! study runs in the `app` namespace with its three connection witnesses, and the topology is torn
//! down. RTT 0 is always measured: its p50 is each transport's own time (server, proxy,
//! client, TLS CPU) that the theory adds the round trips to:
//!
//! ```text
//! TLS 1.3  fresh  ~ 3 RTT + t0(fresh)     (TCP, TLS handshake, request)
//! TLS 1.2  fresh  ~ 4 RTT + t0(fresh)     (TCP, two handshake round trips, request)
//!          pooled, reqwest, http2 ~ 1 RTT + t0(transport)   (a reused connection)
//! ```
//!
//! `t0` is the lower of two RTT-0 runs, one first and one last (a busy machine only adds
//! time; one burst of load on a 2-core machine during a short RTT-0 run would otherwise skew
//! every theory figure). The fresh/pooled p50 ratio is compared with
//! `(t0(fresh) + k RTT) / (t0(pooled) + RTT)` and flagged when it is more than 10 % off.

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use solr_client::{Commit, SolrClient, TransportKind};

use crate::engine::wan::{upstream_of, WanSetup};
use crate::scenario::study::wan::run_study;
use crate::scenario::study::{StudyConfig, StudyReport};
use wan_emu::TlsVersion;

/// How far the measured fresh/pooled ratio may be from the theory before it is flagged.
pub const RATIO_TOLERANCE: f64 = 0.10;

/// Configuration of `sweep` (built by the command line from its options; see `transport-bench sweep --help`).
#[derive(Debug, Clone)]
pub struct SweepConfig {
    /// Round-trip times in ms, comma-separated. 0 is always measured (the theory's baseline).
    pub rtt: Vec<f64>,
    /// TLS versions terminated at the proxy.
    pub tls_version: TlsChoice,
    /// Jitter in ms (uniform in [-J, +J] on each one-way delay).
    pub jitter: f64,
    /// Bandwidth cap per direction, e.g. 100mbit (none by default).
    pub bandwidth: Option<String>,
    /// Collection or core.
    pub collection: String,
    /// Documents indexed first on loopback (ids `sweep-N`, overwritten on each run); 0 skips.
    pub docs: usize,
    /// Measured searches per transport and point.
    pub searches: usize,
    /// Warm-up searches per transport and point (excluded from figures).
    pub warmup: usize,
    /// Repetitions per point (the transport order rotates).
    pub reps: usize,
    /// Rows per search.
    pub rows: u64,
    /// Transports, comma-separated (fresh and pooled are needed for the ratio).
    pub transports: Vec<TransportKind>,
    /// Gzip settings to compare: both, on or off.
    pub gzip: crate::args::GzipChoice,
    /// Workload seed.
    pub seed: u64,
    /// Do not capture packets.
    pub no_pcap: bool,
    /// No progress bars.
    pub quiet: bool,
    /// Namespace prefix (`PREFIX-app`, `PREFIX-solr`).
    pub wan_prefix: String,
    /// The witnesses' self-test ([`StudyConfig::self_test_connects`]; 0 in a measurement).
    pub self_test_connects: u32,
}

/// The TLS versions a sweep runs (`--tls-version`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TlsChoice {
    /// TLS 1.3 only.
    #[value(name = "1.3")]
    Tls13,
    /// TLS 1.2 only.
    #[value(name = "1.2")]
    Tls12,
    /// TLS 1.3, then TLS 1.2.
    Both,
}

impl TlsChoice {
    /// The versions to run, in order.
    pub fn versions(self) -> Vec<TlsVersion> {
        match self {
            TlsChoice::Tls13 => vec![TlsVersion::Tls13],
            TlsChoice::Tls12 => vec![TlsVersion::Tls12],
            TlsChoice::Both => vec![TlsVersion::Tls13, TlsVersion::Tls12],
        }
    }
}

/// The RTT list, checked, sorted, deduplicated, with 0 added when missing.
pub fn rtt_list(v: &[f64]) -> Result<Vec<f64>> {
    let mut out = vec![0.0];
    for &r in v {
        if !(r.is_finite() && (0.0..=10_000.0).contains(&r)) {
            bail!("--rtt values must be between 0 and 10000 ms, not {r}");
        }
        out.push(r);
    }
    out.sort_by(f64::total_cmp);
    out.dedup();
    Ok(out)
}

pub mod cli;
mod model;
mod render;
mod theory;

pub use model::*;
pub use render::*;
pub use theory::*;

/// Indexes `n` seeded documents (ids `sweep-N`) on loopback and commits.
async fn index(url: &str, collection: &str, n: usize, seed: u64) -> Result<()> {
    let client = solr_harness::auth::apply(SolrClient::builder(url))?
        .collection(collection)
        .transport(TransportKind::Pooled)
        .build()?;
    let mut gen = crate::engine::workload::Generator::new(seed, 0);
    let mut i = 0;
    while i < n {
        let k = 500.min(n - i);
        let docs: Vec<_> = (i..i + k).map(|j| gen.doc("sweep-", j)).collect();
        client
            .add(&docs)
            .await
            .with_context(|| format!("indexing the sweep corpus at {i}"))?;
        i += k;
    }
    client.commit(Commit::default()).await?;
    Ok(())
}

/// Runs the sweep against `url` (a loopback Solr) and saves every point's study under `out`.
pub async fn sweep(a: &SweepConfig, url: &str, out: &Path) -> Result<SweepReport> {
    let t0 = Instant::now();
    let rtts = rtt_list(&a.rtt)?;
    let tls = a.tls_version.versions();
    let gzip = a.gzip.settings();
    if a.searches == 0 {
        bail!("--searches must be at least 1");
    }
    upstream_of(url)?;
    if a.docs > 0 {
        eprintln!("sweep: indexing {} documents on loopback...", a.docs);
        index(url, &a.collection, a.docs, a.seed).await?;
    }
    let total = (rtts.len() + 1) * tls.len();
    let mut studies: Vec<(TlsVersion, f64, StudyReport)> = Vec::new();
    let mut points = Vec::new();
    let mut warnings = Vec::new();
    let mut rebaselines: Vec<(TlsVersion, StudyReport)> = Vec::new();
    for &version in &tls {
        // RTT 0 again at the end: t0 is the lower of the two (see `rows`).
        let order: Vec<(f64, bool)> = rtts
            .iter()
            .map(|r| (*r, false))
            .chain([(0.0, true)])
            .collect();
        for (rtt, again) in order {
            eprintln!(
                "sweep: point {}/{total}: TLS {version}, RTT {rtt} ms{}",
                points.len() + 1,
                if again { " (baseline again)" } else { "" }
            );
            let wan = WanSetup {
                link: wan_emu::LinkParams {
                    rtt: std::time::Duration::from_secs_f64(rtt / 1000.0),
                    jitter: std::time::Duration::from_secs_f64(a.jitter / 1000.0),
                    bandwidth_bps: a
                        .bandwidth
                        .as_deref()
                        .map(wan_emu::parse_rate)
                        .transpose()?,
                },
                rtt_ms: rtt,
                jitter_ms: a.jitter,
                tls_version: Some(version),
                prefix: a.wan_prefix.clone(),
            };
            let cfg = StudyConfig {
                url: url.to_string(),
                collection: a.collection.clone(),
                ca: None,
                proxy: None,
                docs: 0,
                batch: 1,
                searches: a.searches,
                mixed: 0,
                write_ratio: 0.0,
                warmup: a.warmup,
                reps: a.reps,
                rows: a.rows,
                query: None,
                load: crate::engine::load::Load::Closed { concurrency: 1 },
                seed: a.seed,
                transports: a.transports.clone(),
                gzip: gzip.clone(),
                response_formats: vec![solr_client::ResponseFormat::Json],
                vector_dim: 0,
                // run_study replaces it with the app-side device.
                pcap_interface: (!a.no_pcap).then(|| "app-side device".to_string()),
                capture_dir: None,
                quiet: a.quiet,
                self_test_connects: a.self_test_connects,
            };
            let (report, records) = run_study(&wan, true, cfg).await?;
            let run = format!("tls{version}-rtt{rtt}{}", if again { "-end" } else { "" });
            crate::scenario::study::save(&out.join(&run), &report, &records)?;
            let cal = &report.settings["wan"]["calibration"];
            points.push(SweepPoint {
                tls: version.to_string(),
                rtt_ms: rtt,
                connect_p50_ms: cal["connect_p50_ms"].as_f64().unwrap_or(f64::NAN),
                connect_ratio: cal["connect_ratio"].as_f64(),
                bandwidth_ratio: cal["bandwidth_ratio"].as_f64(),
                run,
            });
            warnings.extend(
                report
                    .warnings
                    .iter()
                    .map(|w| format!("TLS {version} RTT {rtt} ms: {w}")),
            );
            if again {
                rebaselines.push((version, report));
            } else {
                studies.push((version, rtt, report));
            }
        }
    }
    let refs: Vec<(TlsVersion, f64, &StudyReport)> =
        studies.iter().map(|(v, r, s)| (*v, *r, s)).collect();
    let again: Vec<(TlsVersion, &StudyReport)> = rebaselines.iter().map(|(v, s)| (*v, s)).collect();
    let rows = rows(&refs, &again);
    let verdict = verdict(&rows, &witness_runs(&refs, &again));
    Ok(SweepReport {
        schema_version: 1,
        upstream: url.to_string(),
        settings: serde_json::json!({
            "rtt_ms": rtts, "tls_versions": tls.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
            "jitter_ms": a.jitter, "bandwidth": a.bandwidth, "collection": a.collection,
            "docs": a.docs, "searches": a.searches, "warmup": a.warmup, "reps": a.reps,
            "rows": a.rows, "seed": a.seed,
            "transports": a.transports.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            "gzip": a.gzip.as_str(), "load": (crate::engine::load::Load::Closed { concurrency: 1 }).to_string(), "pcap": !a.no_pcap,
        }),
        points,
        rows,
        warnings,
        duration_s: t0.elapsed().as_secs_f64(),
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::study::{TransportSummary, Witnesses};
    use bench_report::stats::Percentiles;

    fn summary(transport: &str, p50: f64) -> TransportSummary {
        TransportSummary {
            scenario: "search".into(),
            transport: transport.into(),
            wall: Percentiles {
                n: 20,
                p50_ms: Some(p50),
                ..Default::default()
            },
            curve_ms: vec![(50.0, p50), (95.0, p50 * 1.5)],
            corrected: None,
            qtime: Percentiles::default(),
            qtime_missing: 0,
            overhead: Percentiles::default(),
            rep_p50_ms: vec![],
            phases_mean_ms: vec![],
            bytes_in_mean: 0.0,
            decoded_bytes_mean: 0.0,
            errors: 0,
            error_kinds: vec![],
            reuse_ratio: None,
            witnesses: Witnesses::default(),
            throughput_rps: 0.0,
            late_starts: None,
        }
    }

    fn study(ts: Vec<TransportSummary>) -> StudyReport {
        StudyReport {
            schema_version: 1,
            url: String::new(),
            settings: serde_json::Value::Null,
            indexing: vec![],
            transports: ts,
            warnings: vec![],
            duration_s: 0.0,
            verdict: String::new(),
            idle: None,
            formats: vec![],
            findings: vec![],
        }
    }

    #[test]
    fn slow_start_charges_answers_beyond_the_initial_window() {
        assert_eq!(slow_start_rounds(0.0), 0);
        assert_eq!(slow_start_rounds(500.0), 0);
        assert_eq!(
            slow_start_rounds(10.0 * 1448.0),
            0,
            "exactly the initial window"
        );
        assert_eq!(slow_start_rounds(10.0 * 1448.0 + 1.0), 1);
        assert_eq!(slow_start_rounds(21_178.0), 1, "10 rows of large documents");
        assert_eq!(slow_start_rounds(30.0 * 1448.0), 1, "10 + 20 segments");
        assert_eq!(slow_start_rounds(31.0 * 1448.0), 2);
        assert_eq!(
            slow_start_rounds(2_100_000.0),
            7,
            "1,451 segments: 10..1270 sent, 2550"
        );
    }

    #[test]
    fn a_large_answer_adds_a_round_trip_to_fresh_only() {
        let sized = |t: &str, p50: f64, bytes: f64| TransportSummary {
            bytes_in_mean: bytes,
            ..summary(t, p50)
        };
        // Fresh reads the handshake too (its own bytes in are larger); the pooled sibling's
        // 21 KB answer decides: one slow-start round, so 4 round trips with TLS 1.3.
        let s0 = study(vec![
            sized("fresh", 4.0, 23_000.0),
            sized("pooled", 2.0, 21_178.0),
        ]);
        let s20 = study(vec![
            sized("fresh", 84.0, 23_000.0),
            sized("pooled", 22.0, 21_178.0),
        ]);
        let rows = rows(
            &[
                (TlsVersion::Tls13, 0.0, &s0),
                (TlsVersion::Tls13, 20.0, &s20),
            ],
            &[],
        );
        let get = |t: &str| {
            rows.iter()
                .find(|r| r.rtt_ms == 20.0 && r.transport == t)
                .unwrap()
        };
        assert_eq!(get("fresh").round_trips, 4);
        assert_eq!(get("pooled").round_trips, 1);
        assert_eq!(get("fresh").expected_p50_ms, Some(84.0));
        assert!(!get("fresh").flagged, "{:?}", get("fresh"));
    }

    #[test]
    fn theory_and_flags() {
        let s0 = study(vec![summary("fresh", 4.0), summary("pooled", 2.0)]);
        // RTT 20: theory fresh 64, pooled 22 -> 2.909; measured 64/22 exactly.
        let s20 = study(vec![summary("fresh", 64.0), summary("pooled", 22.0)]);
        // RTT 80 with TLS 1.2: theory (4 + 320) / 82 = 3.951; measured 250/82 = 3.05: flagged.
        let s80 = study(vec![summary("fresh", 250.0), summary("pooled", 82.0)]);
        let t12_0 = study(vec![summary("fresh", 4.0), summary("pooled", 2.0)]);
        // A second RTT-0 run of TLS 1.3 that a busy machine slowed: the lower p50 is t0.
        let slow0 = study(vec![summary("fresh", 9.0), summary("pooled", 7.0)]);
        // A second TLS 1.2 run that was faster than the first: it becomes t0.
        let fast12 = study(vec![summary("fresh", 2.0), summary("pooled", 1.0)]);
        let rows = rows(
            &[
                (TlsVersion::Tls13, 0.0, &s0),
                (TlsVersion::Tls13, 20.0, &s20),
                (TlsVersion::Tls12, 0.0, &t12_0),
                (TlsVersion::Tls12, 80.0, &s80),
            ],
            &[(TlsVersion::Tls13, &slow0), (TlsVersion::Tls12, &fast12)],
        );
        let f20 = rows
            .iter()
            .find(|r| r.tls == "1.3" && r.rtt_ms == 20.0 && r.transport == "fresh")
            .unwrap();
        assert_eq!(f20.round_trips, 3);
        assert!((f20.theory_ratio.unwrap() - 64.0 / 22.0).abs() < 1e-9);
        assert!(f20.ratio_off_pct.unwrap().abs() < 1e-9 && !f20.flagged);
        assert_eq!(f20.expected_p50_ms, Some(64.0));
        assert_eq!(f20.p95_ms, Some(96.0));
        let f80 = rows
            .iter()
            .find(|r| r.tls == "1.2" && r.rtt_ms == 80.0 && r.transport == "fresh")
            .unwrap();
        assert_eq!(f80.round_trips, 4);
        assert_eq!(
            f80.expected_p50_ms,
            Some(322.0),
            "t0 2 ms from the faster run"
        );
        assert!(f80.flagged, "{f80:?}");
        let p0 = rows
            .iter()
            .find(|r| r.rtt_ms == 0.0 && r.transport == "fresh")
            .unwrap();
        assert!(!p0.flagged, "RTT 0 is the baseline, never flagged");
        let v = verdict(&rows, &[]);
        assert!(v.starts_with("verdict: "), "{v}");
        assert!(v.contains("within 10% of theory in 1 of 2 cells"), "{v}");
        let svg = chart(&SweepReport {
            schema_version: 1,
            upstream: String::new(),
            settings: serde_json::Value::Null,
            points: vec![],
            rows: rows.clone(),
            warnings: vec![],
            duration_s: 0.0,
            verdict: v,
        });
        assert!(svg.contains("TLS 1.2 fresh theory"));
    }

    /// A point whose kernel and pcap counted one connection more than the connector: the
    /// row is marked, the verdict names the point and its counts first; the other runs'
    /// witnesses are counted as agreeing.
    #[test]
    fn a_disagreement_at_one_point_is_named_with_its_counts() {
        let witnessed = |t: &str, connector: u64, extra: u64| {
            let mut w = Witnesses {
                requests: 10,
                connector,
                kernel_active_opens: connector + extra,
                kernel_isolated: true,
                pcap_syns: Some(connector + extra),
                pcap_dropped: Some(0),
                expected: connector,
                ..Default::default()
            };
            let kind = if t == "fresh" {
                TransportKind::Fresh
            } else {
                TransportKind::Pooled
            };
            w.judge(kind, crate::engine::load::Load::Closed { concurrency: 1 });
            TransportSummary {
                witnesses: w,
                ..summary(t, if t == "fresh" { 4.0 } else { 2.0 })
            }
        };
        let s0 = study(vec![witnessed("fresh", 10, 0), witnessed("pooled", 1, 0)]);
        let s20 = study(vec![witnessed("fresh", 10, 0), witnessed("pooled", 1, 1)]);
        let studies = [
            (TlsVersion::Tls13, 0.0, &s0),
            (TlsVersion::Tls13, 20.0, &s20),
        ];
        let rows = rows(&studies, &[]);
        let pooled20 = rows
            .iter()
            .find(|r| r.rtt_ms == 20.0 && r.transport == "pooled")
            .unwrap();
        assert_eq!(
            (
                pooled20.witnesses_agree,
                pooled20.witnesses_counted.as_str()
            ),
            (Some(false), "connector+kernel+pcap")
        );
        assert_eq!(
            rows.iter()
                .filter(|r| r.witnesses_agree == Some(true))
                .count(),
            3
        );
        let v = verdict(&rows, &witness_runs(&studies, &[]));
        assert!(
            v.starts_with(
                "verdict: WITNESSES DISAGREE for TLS 1.3 RTT 20 pooled (connector 1, kernel 2, \
                 pcap 2); 3 of 3 witnesses counted (connector, kernel, pcap); TLS 1.3 at RTT 20 ms"
            ),
            "{v}"
        );
        let mut txt = Vec::new();
        let report = SweepReport {
            schema_version: 1,
            upstream: String::new(),
            settings: serde_json::Value::Null,
            points: vec![],
            rows,
            warnings: vec![],
            duration_s: 0.0,
            verdict: v,
        };
        print_text(&report, &mut txt).unwrap();
        let txt = String::from_utf8(txt).unwrap();
        assert_eq!(txt.matches("1/2/2/1!").count(), 1, "{txt}");
    }

    #[test]
    fn rtt_list_adds_the_baseline_and_refuses_bad_values() {
        assert_eq!(
            rtt_list(&[80.0, 2.0, 20.0]).unwrap(),
            vec![0.0, 2.0, 20.0, 80.0]
        );
        assert!(rtt_list(&[-1.0]).is_err());
        assert!(rtt_list(&[f64::NAN]).is_err());
        assert_eq!(TlsChoice::Both.versions().len(), 2);
    }
}
