//! The response-format axis of `study` and `audit` (`--response-format`): the same searches
//! (same seed, transports, gzip settings and repetitions) run once per response format
//! (`wt=json`, `xml`, `javabin`, `cbor`), and per format the report gives the response bytes
//! (the bodies the client received, the bytes the transport read, the capture's bytes where
//! one ran), the decode time (the `parse` phase of the client's timing), the wall time and
//! the ratio of each to JSON, and checks that every format found what JSON found.
//!
//! With JSON alone (the default) nothing here runs and the study's output is unchanged.

use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;

use anyhow::Result;
use bench_report::table::Table;
use serde::{Deserialize, Serialize};
use solr_client::ResponseFormat;

use super::{Record, TransportSummary};
use bench_report::stats::{percentiles, Percentiles};

/// True when the study runs the format axis: any format but JSON alone.
pub fn studied(formats: &[ResponseFormat]) -> bool {
    !formats.is_empty() && formats != [ResponseFormat::Json]
}

/// The formats a study runs: `formats` without repeats, JSON when empty.
pub fn normalized(formats: &[ResponseFormat]) -> Vec<ResponseFormat> {
    let mut out: Vec<ResponseFormat> = Vec::new();
    for f in formats {
        if !out.contains(f) {
            out.push(*f);
        }
    }
    if out.is_empty() {
        out.push(ResponseFormat::Json);
    }
    out
}

/// The run name of `transport` (e.g. `pooled+gzip`) in `format`: unchanged when the study
/// runs JSON alone, else suffixed with the format (`pooled+gzip+xml`).
pub fn run_name(transport: &str, format: ResponseFormat, formats: &[ResponseFormat]) -> String {
    if studied(formats) {
        format!("{transport}+{}", format.as_str())
    } else {
        transport.to_string()
    }
}

/// The response format of a run name and the transport name without it; JSON when the
/// name carries no format.
pub fn split_name(run: &str) -> (&str, ResponseFormat) {
    if let Some((base, last)) = run.rsplit_once('+') {
        if let Some(f) = ResponseFormat::ALL.iter().find(|f| f.as_str() == last) {
            return (base, *f);
        }
    }
    (run, ResponseFormat::Json)
}

/// The figures of one response format, summed over every transport and gzip setting of one
/// workload (each format ran the very same searches).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormatSummary {
    /// The format (`wt`): `json`, `xml`, `javabin` or `cbor`.
    pub format: String,
    /// The workload the figures come from (`search`, or `mixed` when no search workload ran).
    pub scenario: String,
    /// Successful measured searches.
    pub requests: u64,
    /// Failed measured searches.
    pub errors: u64,
    /// Response body bytes the client received (after decompression), summed over the
    /// successful searches.
    pub body_bytes: u64,
    /// Bytes the transport read from the socket for those searches (headers, compressed
    /// bodies and TLS records included; see `Timing::bytes_in`).
    pub wire_bytes_in: u64,
    /// Frame bytes Solr -> client in the packet captures of this format's runs (the
    /// search workload only; None when no capture ran).
    pub pcap_bytes_in: Option<u64>,
    /// Decode time: the client's `parse` phase (body -> response type).
    pub decode: Percentiles,
    /// Wall (client total) latency.
    pub wall: Percentiles,
    /// Searches whose `numFound` differed from JSON's for the same search (same transport,
    /// repetition and position in the workload). 0 for JSON itself.
    pub num_found_mismatches: u64,
    /// Searches compared with JSON's `numFound` (both answered).
    pub num_found_compared: u64,
    /// `wire_bytes_in` per search over JSON's (None without a JSON run).
    pub wire_bytes_vs_json: Option<f64>,
    /// `body_bytes` per search over JSON's.
    pub body_bytes_vs_json: Option<f64>,
    /// Decode p50 over JSON's.
    pub decode_p50_vs_json: Option<f64>,
    /// Wall p50 over JSON's.
    pub wall_p50_vs_json: Option<f64>,
    /// Wall p99 over JSON's (None below 100 searches).
    pub wall_p99_vs_json: Option<f64>,
}

impl FormatSummary {
    /// Wire bytes per successful search.
    pub fn wire_bytes_per_search(&self) -> Option<f64> {
        (self.requests > 0).then(|| self.wire_bytes_in as f64 / self.requests as f64)
    }

    /// Body bytes per successful search.
    pub fn body_bytes_per_search(&self) -> Option<f64> {
        (self.requests > 0).then(|| self.body_bytes as f64 / self.requests as f64)
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// Per-format figures of the measured searches in `records` (the search workload, or the
/// mixed one's searches when no search workload ran), in `formats` order; the capture
/// bytes come from the transports' witnesses.
pub fn summaries(
    records: &[Record],
    transports: &[TransportSummary],
    formats: &[ResponseFormat],
) -> Vec<FormatSummary> {
    fn searches<'a>(
        records: &'a [Record],
        scenario: &'a str,
    ) -> impl Iterator<Item = &'a Record> + 'a {
        records
            .iter()
            .filter(move |r| r.scenario == scenario && r.op == "select" && !r.warmup)
    }
    let scenario = if searches(records, "search").next().is_some() {
        "search"
    } else {
        "mixed"
    };
    // JSON's numFound per (transport, repetition, position).
    let mut json_found: HashMap<(&str, usize, usize), u64> = HashMap::new();
    for r in searches(records, scenario) {
        let (base, f) = split_name(&r.transport);
        if let (ResponseFormat::Json, Some(seq), Some(n)) = (f, r.seq, r.num_found) {
            json_found.insert((base, r.rep, seq), n);
        }
    }
    let mut out: Vec<FormatSummary> = formats
        .iter()
        .map(|&format| {
            let recs: Vec<&Record> = searches(records, scenario)
                .filter(|r| split_name(&r.transport).1 == format)
                .collect();
            let ok: Vec<&solr_client::Timing> =
                recs.iter().filter_map(|r| r.timing.as_ref()).collect();
            let (mut compared, mut mismatches) = (0, 0);
            for r in &recs {
                let base = split_name(&r.transport).0;
                let theirs = r.seq.and_then(|s| json_found.get(&(base, r.rep, s)));
                if let (Some(mine), Some(json)) = (r.num_found, theirs) {
                    compared += 1;
                    if mine != *json {
                        mismatches += 1;
                    }
                }
            }
            let runs: Vec<&TransportSummary> = transports
                .iter()
                .filter(|t| t.scenario == "search" && split_name(&t.transport).1 == format)
                .collect();
            let pcap_bytes_in = if scenario == "search" && !runs.is_empty() {
                runs.iter()
                    .map(|t| t.witnesses.pcap_bytes_in)
                    .sum::<Option<u64>>()
            } else {
                None
            };
            FormatSummary {
                format: format.as_str().to_string(),
                scenario: scenario.to_string(),
                requests: ok.len() as u64,
                errors: recs.iter().filter(|r| r.error.is_some()).count() as u64,
                body_bytes: ok.iter().map(|t| t.decoded_bytes).sum(),
                wire_bytes_in: ok.iter().map(|t| t.bytes_in).sum(),
                pcap_bytes_in,
                decode: percentiles(ok.iter().map(|t| t.parse.unwrap_or(Duration::ZERO))),
                wall: percentiles(ok.iter().map(|t| t.total())),
                num_found_mismatches: mismatches,
                num_found_compared: compared,
                wire_bytes_vs_json: None,
                body_bytes_vs_json: None,
                decode_p50_vs_json: None,
                wall_p50_vs_json: None,
                wall_p99_vs_json: None,
            }
        })
        .collect();
    if let Some(json) = out.iter().find(|s| s.format == "json").cloned() {
        for s in &mut out {
            s.wire_bytes_vs_json = ratio(s.wire_bytes_per_search(), json.wire_bytes_per_search());
            s.body_bytes_vs_json = ratio(s.body_bytes_per_search(), json.body_bytes_per_search());
            s.decode_p50_vs_json = ratio(s.decode.p50_ms, json.decode.p50_ms);
            s.wall_p50_vs_json = ratio(s.wall.p50_ms, json.wall.p50_ms);
            s.wall_p99_vs_json = ratio(s.wall.p99_ms, json.wall.p99_ms);
        }
    }
    out
}

/// Warnings: a format whose searches found other counts than JSON's, or that failed.
pub fn warnings(formats: &[FormatSummary]) -> Vec<String> {
    let mut w = Vec::new();
    for f in formats {
        if f.num_found_mismatches > 0 {
            w.push(format!(
                "{}: {} of {} searches found another numFound than the same search in JSON",
                f.format, f.num_found_mismatches, f.num_found_compared
            ));
        }
        if f.errors > 0 {
            w.push(format!("{}: {} searches failed", f.format, f.errors));
        }
    }
    w
}

/// The verdict's part: the format with the fewest response bytes on the wire per search and
/// the one with the fastest decode (p50). None with fewer than two formats measured.
pub fn verdict_part(formats: &[FormatSummary]) -> Option<String> {
    let measured: Vec<&FormatSummary> = formats.iter().filter(|f| f.requests > 0).collect();
    if measured.len() < 2 {
        return None;
    }
    let fewest = measured
        .iter()
        .filter_map(|f| f.wire_bytes_per_search().map(|b| (*f, b)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let fastest = measured
        .iter()
        .filter_map(|f| f.decode.p50_ms.map(|d| (*f, d)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let vs = |r: Option<f64>| r.map_or(String::new(), |r| format!(", x{r:.2} JSON"));
    Some(format!(
        "fewest response bytes: {} ({:.0} B per search{}); fastest decode: {} (p50 {:.3} ms{})",
        fewest.0.format,
        fewest.1,
        vs(fewest.0.wire_bytes_vs_json),
        fastest.0.format,
        fastest.1,
        vs(fastest.0.decode_p50_vs_json)
    ))
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "-".into())
}

/// The text table of the format axis.
pub fn print_text<W: Write>(formats: &[FormatSummary], w: &mut W) -> Result<()> {
    let Some(first) = formats.first() else {
        return Ok(());
    };
    writeln!(
        w,
        "Response formats ({} workload, the same searches in each; bytes summed; times ms; xJSON = ratio to JSON)",
        first.scenario
    )?;
    let table = Table::new()
        .left("format", 8)
        .right("n", 6)
        .right("body bytes", 12)
        .right("wire bytes", 12)
        .right("pcap in", 12)
        .right("decode50", 9)
        .right("decode99", 9)
        .right("p50", 8)
        .right("p99", 8)
        .right("bytes xJSON", 11)
        .right("decode xJSON", 12)
        .right("p50 xJSON", 9)
        .right("p99 xJSON", 9)
        .right("numFound!=JSON", 14);
    table.header(w)?;
    for f in formats {
        table.row(
            w,
            &[
                &f.format,
                &f.requests,
                &f.body_bytes,
                &f.wire_bytes_in,
                &f.pcap_bytes_in
                    .map_or_else(|| "-".to_string(), |b| b.to_string()),
                &opt(f.decode.p50_ms, 3),
                &opt(f.decode.p99_ms, 3),
                &opt(f.wall.p50_ms, 2),
                &opt(f.wall.p99_ms, 2),
                &opt(f.wire_bytes_vs_json, 2),
                &opt(f.decode_p50_vs_json, 2),
                &opt(f.wall_p50_vs_json, 2),
                &opt(f.wall_p99_vs_json, 2),
                &format!("{}/{}", f.num_found_mismatches, f.num_found_compared),
            ],
        )?;
    }
    writeln!(w)?;
    Ok(())
}

/// One line of `formats.csv`.
#[derive(Debug, Serialize)]
pub struct FormatRow<'a> {
    format: &'a str,
    scenario: &'a str,
    requests: u64,
    errors: u64,
    body_bytes: u64,
    wire_bytes_in: u64,
    pcap_bytes_in: Option<u64>,
    decode_p50_ms: Option<f64>,
    decode_p99_ms: Option<f64>,
    decode_mean_ms: f64,
    wall_p50_ms: Option<f64>,
    wall_p99_ms: Option<f64>,
    wire_bytes_vs_json: Option<f64>,
    body_bytes_vs_json: Option<f64>,
    decode_p50_vs_json: Option<f64>,
    wall_p50_vs_json: Option<f64>,
    wall_p99_vs_json: Option<f64>,
    num_found_mismatches: u64,
    num_found_compared: u64,
}

impl<'a> From<&'a FormatSummary> for FormatRow<'a> {
    fn from(f: &'a FormatSummary) -> Self {
        Self {
            format: &f.format,
            scenario: &f.scenario,
            requests: f.requests,
            errors: f.errors,
            body_bytes: f.body_bytes,
            wire_bytes_in: f.wire_bytes_in,
            pcap_bytes_in: f.pcap_bytes_in,
            decode_p50_ms: f.decode.p50_ms,
            decode_p99_ms: f.decode.p99_ms,
            decode_mean_ms: f.decode.mean_ms,
            wall_p50_ms: f.wall.p50_ms,
            wall_p99_ms: f.wall.p99_ms,
            wire_bytes_vs_json: f.wire_bytes_vs_json,
            body_bytes_vs_json: f.body_bytes_vs_json,
            decode_p50_vs_json: f.decode_p50_vs_json,
            wall_p50_vs_json: f.wall_p50_vs_json,
            wall_p99_vs_json: f.wall_p99_vs_json,
            num_found_mismatches: f.num_found_mismatches,
            num_found_compared: f.num_found_compared,
        }
    }
}

/// Writes `formats.csv` into `dir` (nothing when the format axis did not run).
pub fn save_csv(dir: &std::path::Path, formats: &[FormatSummary]) -> Result<()> {
    if formats.is_empty() {
        return Ok(());
    }
    let rows: Vec<FormatRow> = formats.iter().map(FormatRow::from).collect();
    bench_report::write_csv(&dir.join("formats.csv"), &rows)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use solr_client::Timing;

    fn rec(transport: &str, seq: usize, found: u64, bytes: u64, parse_us: u64) -> Record {
        Record {
            scenario: "search".into(),
            op: "select".into(),
            transport: transport.into(),
            rep: 0,
            warmup: false,
            error: None,
            timing: Some({
                let mut t = Timing::default();
                t.server_wait = Duration::from_millis(2);
                t.parse = Some(Duration::from_micros(parse_us));
                t.bytes_in = bytes + 100;
                t.decoded_bytes = bytes;
                t
            }),
            latency_ms: None,
            start_delay_ms: None,
            num_found: Some(found),
            seq: Some(seq),
        }
    }

    #[test]
    fn names_carry_the_format_only_when_the_axis_runs() {
        use ResponseFormat::*;
        assert_eq!(run_name("pooled+gzip", Json, &[Json]), "pooled+gzip");
        assert_eq!(
            run_name("pooled+gzip", Xml, &[Json, Xml]),
            "pooled+gzip+xml"
        );
        assert_eq!(run_name("fresh", Json, &[Json, Cbor]), "fresh+json");
        assert_eq!(split_name("pooled+gzip+javabin"), ("pooled+gzip", Javabin));
        assert_eq!(split_name("pooled+gzip"), ("pooled+gzip", Json));
        assert_eq!(split_name("http2"), ("http2", Json));
        assert_eq!(normalized(&[Xml, Xml, Json]), [Xml, Json]);
        assert_eq!(normalized(&[]), [Json]);
        assert!(!studied(&[Json]) && studied(&[Xml]) && studied(&[Json, Cbor]));
    }

    /// Bytes are summed exactly per format, ratios are per search against JSON, a numFound
    /// that differs from JSON's for the same search is counted, and the verdict names the
    /// format with the fewest bytes and the one with the fastest decode.
    #[test]
    fn per_format_sums_ratios_mismatches_and_verdict() {
        use ResponseFormat::*;
        let recs = vec![
            rec("pooled+json", 0, 5, 1000, 40),
            rec("pooled+json", 1, 7, 1200, 40),
            rec("pooled+javabin", 0, 5, 500, 20),
            rec("pooled+javabin", 1, 7, 700, 20),
            rec("pooled+xml", 0, 5, 2000, 80),
            rec("pooled+xml", 1, 6, 2200, 80),
        ];
        let s = summaries(&recs, &[], &[Json, Javabin, Xml]);
        assert_eq!(
            s.iter()
                .map(|f| (
                    f.format.as_str(),
                    f.requests,
                    f.body_bytes,
                    f.wire_bytes_in,
                    f.num_found_mismatches,
                    f.num_found_compared
                ))
                .collect::<Vec<_>>(),
            [
                ("json", 2, 2200, 2400, 0, 2),
                ("javabin", 2, 1200, 1400, 0, 2),
                ("xml", 2, 4200, 4400, 1, 2),
            ]
        );
        let jb = &s[1];
        assert_eq!(jb.body_bytes_vs_json, Some(1200.0 / 2200.0));
        assert_eq!(jb.wire_bytes_vs_json, Some(1400.0 / 2400.0));
        assert_eq!(jb.pcap_bytes_in, None);
        let d = jb.decode_p50_vs_json.expect("decode ratio");
        assert!((0.45..=0.55).contains(&d), "{d}");
        let v = verdict_part(&s).expect("three formats");
        assert!(
            v.starts_with("fewest response bytes: javabin (700 B per search, x0.58 JSON)"),
            "{v}"
        );
        assert!(v.contains("fastest decode: javabin"), "{v}");
        assert_eq!(
            warnings(&s),
            ["xml: 1 of 2 searches found another numFound than the same search in JSON"]
        );
        let mut text = Vec::new();
        print_text(&s, &mut text).expect("prints");
        let text = String::from_utf8(text).expect("utf-8");
        assert!(text.contains("javabin"), "{text}");
        assert_eq!(verdict_part(&s[..1]), None);
    }
}
