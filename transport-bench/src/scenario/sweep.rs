//! `sweep`: the transport study's searches at several round-trip times through the WAN
//! topology, as one table and one chart of p50 vs RTT per transport.
//!
//! Each point is an ordinary `study` run (searches only, no reindexing) through
//! [`crate::scenario::wan::run_study`]: the topology is built for the point, calibrated, the
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

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use solr_client::{Commit, SolrClient, TransportKind};

use crate::report::lines::{self, Chart, Series};
use crate::scenario::study::{StudyConfig, StudyReport, TransportSummary, Witnesses};
use crate::scenario::wan::{run_study, upstream_of, WanSetup};
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

/// One calibrated point of the sweep.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepPoint {
    /// TLS version at the proxy.
    pub tls: String,
    /// Requested RTT, ms.
    pub rtt_ms: f64,
    /// Median TCP connect time measured before the study, ms.
    pub connect_p50_ms: f64,
    /// Connect time over RTT (None at RTT 0).
    pub connect_ratio: Option<f64>,
    /// Measured bulk goodput over the cap (when a cap was set).
    pub bandwidth_ratio: Option<f64>,
    /// The study's folder (relative to the sweep's).
    pub run: String,
}

/// One row of the sweep table: one transport at one RTT and TLS version.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepRow {
    /// TLS version at the proxy.
    pub tls: String,
    /// Requested RTT, ms.
    pub rtt_ms: f64,
    /// Transport name (e.g. `pooled+gzip`).
    pub transport: String,
    /// Successful measured searches.
    pub n: u64,
    /// Failed searches.
    pub errors: u64,
    /// Wall p50, ms.
    pub p50_ms: Option<f64>,
    /// Wall p95, ms (None under 20 samples).
    pub p95_ms: Option<f64>,
    /// Solr QTime p50 of the searches that carried one, ms.
    pub qtime_p50_ms: Option<f64>,
    /// Searches answered without a QTime (left out of `qtime_p50_ms`, not counted as 0).
    #[serde(default)]
    pub qtime_missing: u64,
    /// Mean wire bytes in per search.
    pub bytes_in_mean: f64,
    /// Connections opened: the transport's connector.
    pub conns_connector: u64,
    /// Connections opened: kernel `ActiveOpens` of the app namespace.
    pub conns_kernel: u64,
    /// Connections opened: SYNs captured on the app-side device.
    pub conns_pcap: Option<u64>,
    /// Connections the transport should open.
    pub conns_expected: u64,
    /// The witnesses that counted, joined by `+` (e.g. `connector+kernel+pcap`).
    #[serde(default)]
    pub witnesses_counted: String,
    /// The witnesses that counted report the same number (None: fewer than two counted).
    pub witnesses_agree: Option<bool>,
    /// The connector opened what the transport should (None: no fixed expectation).
    #[serde(default)]
    pub conns_within_expected: Option<bool>,
    /// Round trips per request in the theory: 3 (TLS 1.3) or 4 (TLS 1.2) for fresh, plus
    /// the slow-start rounds its answer needs ([`slow_start_rounds`]); 1 otherwise.
    pub round_trips: u32,
    /// Theory: p50 at RTT 0 + round_trips x RTT, ms.
    pub expected_p50_ms: Option<f64>,
    /// Measured p50 over expected, minus 1, in %.
    pub vs_expected_pct: Option<f64>,
    /// Fresh rows: measured fresh / pooled p50 (same gzip setting).
    pub fresh_pooled_ratio: Option<f64>,
    /// Fresh rows: the theory's ratio.
    pub theory_ratio: Option<f64>,
    /// Fresh rows: measured over theory ratio, minus 1, in %.
    pub ratio_off_pct: Option<f64>,
    /// Fresh rows at RTT > 0: the ratio is more than 10 % from the theory.
    pub flagged: bool,
}

/// What `sweep.json` holds (schema: `transport-bench/schema/sweep.schema.json`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepReport {
    /// Schema version of this JSON.
    pub schema_version: u32,
    /// The Solr behind the proxy.
    pub upstream: String,
    /// Settings.
    pub settings: serde_json::Value,
    /// One per TLS version and RTT.
    pub points: Vec<SweepPoint>,
    /// The table.
    pub rows: Vec<SweepRow>,
    /// The studies' warnings, prefixed with their point.
    pub warnings: Vec<String>,
    /// Wall-clock duration, seconds.
    pub duration_s: f64,
    /// The one-line verdict.
    pub verdict: String,
}

/// The JSON Schema of `sweep.json`.
pub fn sweep_schema() -> String {
    crate::schema::schema_of::<SweepReport>()
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

fn p95(t: &TransportSummary) -> Option<f64> {
    t.curve_ms
        .iter()
        .find(|(p, _)| (*p - 95.0).abs() < 1e-9)
        .map(|(_, v)| *v)
}

/// Payload bytes per TCP segment on the emulated link (1500-byte MTU, less IPv4, TCP and
/// TCP timestamp headers).
pub const MSS: f64 = 1448.0;
/// Linux's initial congestion window, in segments (RFC 6928).
pub const INITIAL_WINDOW: f64 = 10.0;

/// Round trips beyond the first that a new connection needs to receive `bytes`: slow start
/// sends [`INITIAL_WINDOW`] segments in the first round trip and doubles the window each
/// round trip after (the client acknowledges every second segment; Linux grows the window by
/// the segments acknowledged). A pooled connection's window is already open, so this is
/// charged to fresh connections only; a 21 KB answer costs fresh one more RTT.
pub fn slow_start_rounds(bytes: f64) -> u32 {
    let segments = (bytes / MSS).ceil();
    let (mut sent, mut window, mut extra) = (INITIAL_WINDOW, INITIAL_WINDOW, 0);
    while sent < segments {
        window *= 2.0;
        sent += window;
        extra += 1;
    }
    extra
}

fn round_trips(transport: &str, tls: TlsVersion) -> u32 {
    match (transport.starts_with("fresh"), tls) {
        (true, TlsVersion::Tls13) => 3,
        (true, TlsVersion::Tls12) => 4,
        (false, _) => 1,
    }
}

/// Builds the table from the studies, one per (TLS version, RTT); RTT 0 must be among them.
/// `rebaselines` are extra RTT-0 runs (the sweep repeats RTT 0 at the end): each
/// transport's `t0` is the lowest RTT-0 p50 of all, because a busy machine only adds time.
pub fn rows(
    studies: &[(TlsVersion, f64, &StudyReport)],
    rebaselines: &[(TlsVersion, &StudyReport)],
) -> Vec<SweepRow> {
    let mut out: Vec<SweepRow> = Vec::new();
    for (tls, rtt, r) in studies {
        for t in r.transports.iter().filter(|t| t.scenario == "search") {
            let w = &t.witnesses;
            out.push(SweepRow {
                tls: tls.to_string(),
                rtt_ms: *rtt,
                transport: t.transport.clone(),
                n: t.wall.n,
                errors: t.errors,
                p50_ms: t.wall.p50_ms,
                p95_ms: p95(t),
                qtime_p50_ms: t.qtime.p50_ms,
                qtime_missing: t.qtime_missing,
                bytes_in_mean: t.bytes_in_mean,
                conns_connector: w.connector,
                conns_kernel: w.kernel_active_opens,
                conns_pcap: w.pcap_syns,
                conns_expected: w.expected,
                witnesses_counted: w.counted.join("+"),
                witnesses_agree: w.agree,
                conns_within_expected: w.within_expected,
                round_trips: round_trips(&t.transport, *tls),
                expected_p50_ms: None,
                vs_expected_pct: None,
                fresh_pooled_ratio: None,
                theory_ratio: None,
                ratio_off_pct: None,
                flagged: false,
            });
        }
    }
    // A fresh connection receives its answer in slow start: the pooled sibling's bytes in
    // (the same answer, without the handshake) decide the extra round trips.
    let snapshot = out.clone();
    for row in out.iter_mut().filter(|r| r.transport.starts_with("fresh")) {
        let pooled_name = row.transport.replacen("fresh", "pooled", 1);
        let answer = snapshot
            .iter()
            .find(|r| r.tls == row.tls && r.rtt_ms == row.rtt_ms && r.transport == pooled_name)
            .map_or(row.bytes_in_mean, |p| p.bytes_in_mean);
        row.round_trips += slow_start_rounds(answer);
    }
    let base = |rows: &[SweepRow], tls: &str, transport: &str| {
        let first = rows
            .iter()
            .find(|r| r.tls == tls && r.transport == transport && r.rtt_ms == 0.0)
            .and_then(|r| r.p50_ms);
        rebaselines
            .iter()
            .filter(|(v, _)| v.to_string() == tls)
            .flat_map(|(_, r)| r.transports.iter())
            .filter(|t| t.scenario == "search" && t.transport == transport)
            .filter_map(|t| t.wall.p50_ms)
            .chain(first)
            .min_by(f64::total_cmp)
    };
    let snapshot = out.clone();
    for row in &mut out {
        if let (Some(b), Some(p)) = (base(&snapshot, &row.tls, &row.transport), row.p50_ms) {
            let e = b + f64::from(row.round_trips) * row.rtt_ms;
            row.expected_p50_ms = Some(e);
            row.vs_expected_pct = Some((p / e - 1.0) * 100.0);
        }
        if !row.transport.starts_with("fresh") {
            continue;
        }
        let pooled_name = row.transport.replacen("fresh", "pooled", 1);
        let pooled = snapshot
            .iter()
            .find(|r| r.tls == row.tls && r.rtt_ms == row.rtt_ms && r.transport == pooled_name);
        let (Some(pooled), Some(fresh_p50)) = (pooled, row.p50_ms) else {
            continue;
        };
        let Some(pooled_p50) = pooled.p50_ms else {
            continue;
        };
        let ratio = fresh_p50 / pooled_p50;
        row.fresh_pooled_ratio = Some(ratio);
        let bf = base(&snapshot, &row.tls, &row.transport);
        let bp = base(&snapshot, &row.tls, &pooled_name);
        if let (Some(bf), Some(bp)) = (bf, bp) {
            let theory =
                (bf + f64::from(row.round_trips) * row.rtt_ms) / (bp + row.rtt_ms).max(1e-9);
            let off = ratio / theory - 1.0;
            row.theory_ratio = Some(theory);
            row.ratio_off_pct = Some(off * 100.0);
            row.flagged = row.rtt_ms > 0.0 && off.abs() > RATIO_TOLERANCE;
        }
    }
    out
}

/// The witnesses of every search run of `studies` and of the RTT-0 `rebaselines`,
/// labelled `TLS 1.3 RTT 20 fresh` (`TLS 1.3 RTT 0 again fresh`).
pub fn witness_runs<'a>(
    studies: &[(TlsVersion, f64, &'a StudyReport)],
    rebaselines: &[(TlsVersion, &'a StudyReport)],
) -> Vec<(String, &'a Witnesses)> {
    let points = studies
        .iter()
        .map(|(tls, rtt, r)| (format!("TLS {tls} RTT {rtt}"), *r))
        .chain(
            rebaselines
                .iter()
                .map(|(tls, r)| (format!("TLS {tls} RTT 0 again"), *r)),
        );
    points
        .flat_map(|(point, r)| {
            r.transports
                .iter()
                .filter(|t| t.scenario == "search")
                .map(move |t| (format!("{point} {}", t.transport), &t.witnesses))
        })
        .collect()
}

/// The one-line verdict: what the witnesses of `runs` ([`witness_runs`]) say, then the
/// fresh/pooled figures of the table.
pub fn verdict(rows: &[SweepRow], runs: &[(String, &Witnesses)]) -> String {
    let mut parts = crate::scenario::study::witnesses::verdict_parts(runs);
    let max_rtt = rows.iter().map(|r| r.rtt_ms).fold(0.0, f64::max);
    let mut tls: Vec<&str> = rows.iter().map(|r| r.tls.as_str()).collect();
    tls.dedup();
    for v in tls {
        let at = |name: &str| {
            rows.iter()
                .find(|r| r.tls == v && r.rtt_ms == max_rtt && r.transport == name)
        };
        if let (Some(f), Some(p)) = (at("fresh"), at("pooled")) {
            parts.push(format!(
                "TLS {v} at RTT {max_rtt} ms: fresh p50 {:.1} ms vs pooled {:.1} ms (x{:.2}, theory x{:.2}; QTime p50 {} ms)",
                f.p50_ms.unwrap_or(f64::NAN),
                p.p50_ms.unwrap_or(f64::NAN),
                f.fresh_pooled_ratio.unwrap_or(f64::NAN),
                f.theory_ratio.unwrap_or(f64::NAN),
                p.qtime_p50_ms.map_or("-".into(), |q| format!("{q:.0}")),
            ));
        }
        if let (Some(p), Some(g)) = (at("pooled"), at("pooled+gzip")) {
            if let (Some(a), Some(b)) = (p.p50_ms, g.p50_ms) {
                parts.push(format!(
                    "gzip moved pooled p50 by {:+.0}% ({} -> {} bytes in)",
                    (b / a - 1.0) * 100.0,
                    p.bytes_in_mean.round(),
                    g.bytes_in_mean.round()
                ));
            }
        }
    }
    let checked: Vec<&SweepRow> = rows
        .iter()
        .filter(|r| r.rtt_ms > 0.0 && r.ratio_off_pct.is_some())
        .collect();
    let flagged: Vec<String> = checked
        .iter()
        .filter(|r| r.flagged)
        .map(|r| {
            format!(
                "TLS {} RTT {} {} {:+.0}%",
                r.tls,
                r.rtt_ms,
                r.transport,
                r.ratio_off_pct.unwrap_or(0.0)
            )
        })
        .collect();
    if !checked.is_empty() {
        parts.push(format!(
            "fresh/pooled within 10% of theory in {} of {} cells{}",
            checked.len() - flagged.len(),
            checked.len(),
            if flagged.is_empty() {
                String::new()
            } else {
                format!(" (outside: {})", flagged.join(", "))
            }
        ));
    }
    if !rows.iter().any(|r| r.fresh_pooled_ratio.is_some()) {
        parts.push("no fresh/pooled pair measured".into());
    }
    format!("verdict: {}", parts.join("; "))
}

use bench_report::table::fixed as opt;

/// Prints the table, the calibration of each point, warnings and the verdict (last line).
pub fn print_text<W: Write>(r: &SweepReport, w: &mut W) -> Result<()> {
    writeln!(w, "RTT sweep through the WAN topology, Solr {}", r.upstream)?;
    for p in &r.points {
        writeln!(
            w,
            "  {:<16} TLS {} RTT {:>5} ms: TCP connect p50 {:.2} ms{}{}",
            p.run,
            p.tls,
            p.rtt_ms,
            p.connect_p50_ms,
            p.connect_ratio
                .map(|x| format!(" (ratio {x:.3})"))
                .unwrap_or_default(),
            p.bandwidth_ratio
                .map(|x| format!(", goodput/cap {x:.3}"))
                .unwrap_or_default()
        )?;
    }
    writeln!(w)?;
    writeln!(w, "Searches: wall p50/p95 and Solr QTime p50 (ms); conns = connector / kernel / pcap SYNs / expected; expected p50 = p50 at RTT 0 + k x RTT; fresh/pooled ratio vs theory (! = more than 10% off)")?;
    let table = bench_report::Table::new()
        .left("TLS", 4)
        .right("RTT", 6)
        .left("transport", 13)
        .right("n", 5)
        .right("p50", 8)
        .right("p95", 8)
        .right("QTime", 6)
        .right("conns", 18)
        .right("k", 2)
        .right("expect50", 9)
        .right("vs exp", 7)
        .right("f/p", 7)
        .right("theory", 7)
        .right("off", 7);
    table.header(w)?;
    for x in &r.rows {
        table.row(
            w,
            &[
                &x.tls,
                &x.rtt_ms,
                &x.transport,
                &x.n,
                &opt(x.p50_ms, 2),
                &opt(x.p95_ms, 2),
                &opt(x.qtime_p50_ms, 0),
                &format!(
                    "{}/{}/{}/{}{}",
                    x.conns_connector,
                    x.conns_kernel,
                    x.conns_pcap
                        .map(|p| p.to_string())
                        .unwrap_or_else(|| "-".into()),
                    x.conns_expected,
                    if x.witnesses_agree == Some(false) || x.conns_within_expected == Some(false) {
                        "!"
                    } else {
                        ""
                    }
                ),
                &x.round_trips,
                &opt(x.expected_p50_ms, 2),
                &x.vs_expected_pct
                    .map(|p| format!("{p:+.0}%"))
                    .unwrap_or_else(|| "-".into()),
                &opt(x.fresh_pooled_ratio, 2),
                &opt(x.theory_ratio, 2),
                &x.ratio_off_pct
                    .map(|p| format!("{p:+.1}%{}", if x.flagged { "!" } else { "" }))
                    .unwrap_or_else(|| "-".into()),
            ],
        )?;
    }
    writeln!(w)?;
    let took = format!("sweep took {:.1} s", r.duration_s);
    bench_report::table::print_ending(w, &r.warnings, Some(&took), &r.verdict)?;
    Ok(())
}

/// The chart: p50 vs RTT, one line per TLS version and transport, theory dashed.
pub fn chart(r: &SweepReport) -> String {
    let mut keys: Vec<(String, String)> = Vec::new();
    for x in &r.rows {
        let k = (x.tls.clone(), x.transport.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let multi_tls = keys.iter().any(|k| k.0 != keys[0].0);
    let mut series = Vec::new();
    for (i, (tls, transport)) in keys.iter().enumerate() {
        let mine: Vec<&SweepRow> = r
            .rows
            .iter()
            .filter(|x| &x.tls == tls && &x.transport == transport)
            .collect();
        let label = if multi_tls {
            format!("TLS {tls} {transport}")
        } else {
            transport.clone()
        };
        series.push(Series {
            label: label.clone(),
            points: mine
                .iter()
                .filter_map(|x| x.p50_ms.map(|p| (x.rtt_ms, p)))
                .collect(),
            dashed: false,
            color: i,
        });
        if !transport.contains('+') {
            series.push(Series {
                label: format!("{label} theory"),
                points: mine
                    .iter()
                    .filter_map(|x| x.expected_p50_ms.map(|p| (x.rtt_ms, p)))
                    .collect(),
                dashed: true,
                color: i,
            });
        }
    }
    let tls: Vec<String> = {
        let mut v: Vec<String> = keys.iter().map(|k| k.0.clone()).collect();
        v.dedup();
        v
    };
    lines::render(
        &Chart {
            title: format!(
                "Search p50 vs round-trip time, TLS {} at the proxy",
                tls.join(" and ")
            ),
            x_label: "RTT (ms)".into(),
            y_label: "p50 (ms)".into(),
            log_x: false,
        },
        &series,
    )
}

/// Writes `sweep.json`, `sweep.csv`, `sweep.txt` and `sweep.svg` into `dir`.
pub fn save(dir: &Path, r: &SweepReport) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(dir.join("sweep.json"), serde_json::to_vec_pretty(r)?)?;
    bench_report::write_csv(&dir.join("sweep.csv"), &r.rows)?;
    let mut txt = Vec::new();
    print_text(r, &mut txt)?;
    std::fs::write(dir.join("sweep.txt"), txt)?;
    std::fs::write(dir.join("sweep.svg"), chart(r))?;
    bench_report::RunReport::finish_save(r, dir)
}

/// Indexes `n` seeded documents (ids `sweep-N`) on loopback and commits.
async fn index(url: &str, collection: &str, n: usize, seed: u64) -> Result<()> {
    let client = crate::auth::apply(SolrClient::builder(url))?
        .collection(collection)
        .transport(TransportKind::Pooled)
        .build()?;
    let mut gen = crate::workload::Generator::new(seed, 0);
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
                docs: 0,
                batch: 1,
                searches: a.searches,
                mixed: 0,
                write_ratio: 0.0,
                warmup: a.warmup,
                reps: a.reps,
                rows: a.rows,
                query: None,
                load: crate::load::Load::Closed { concurrency: 1 },
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
            crate::report::save(&out.join(&run), &report, &records)?;
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
            "gzip": a.gzip.as_str(), "load": "closed loop, concurrency 1", "pcap": !a.no_pcap,
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
    use crate::scenario::study::Witnesses;
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
            w.judge(kind, crate::load::Load::Closed { concurrency: 1 });
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
