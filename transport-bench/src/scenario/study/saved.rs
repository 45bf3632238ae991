//! A saved study: its `summary.json` loaded, or every figure rebuilt from `records.jsonl`.

use std::path::Path;

use anyhow::{Context, Result};

use crate::scenario::study::{summarize, Record, StudyReport};

/// Reads a `summary.json` (or the `summary.json` inside a run folder).
pub fn load_summary(path: &Path) -> Result<StudyReport> {
    let file = if path.is_dir() {
        path.join("summary.json")
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
    serde_json::from_slice(&text)
        .with_context(|| format!("{} is not a transport-bench summary", file.display()))
}

/// Rebuilds every figure of a saved run from its raw `records.jsonl` (witness counts and
/// indexing figures come from `summary.json`, which recorded them), then rewrites the text
/// report, CSV and charts.
pub fn rerender(run: &Path) -> Result<StudyReport> {
    let mut r = load_summary(run)?;
    let path = run.join("records.jsonl");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let records: Vec<Record> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{} line {}", path.display(), i + 1))
        })
        .collect::<Result<_>>()?;
    for t in &mut r.transports {
        let recs: Vec<&Record> = records
            .iter()
            .filter(|x| x.scenario == t.scenario && x.transport == t.transport && !x.warmup)
            .collect();
        let kind = t
            .transport
            .split('+')
            .next()
            .and_then(|k| k.split('(').next())
            .and_then(|k| k.parse().ok())
            .unwrap_or(solr_client::TransportKind::Pooled);
        let elapsed =
            std::time::Duration::from_secs_f64(t.wall.n as f64 / t.throughput_rps.max(1e-9));
        // Which witnesses counted follows from the counts (a run saved before it was
        // recorded said `agree` of the connector alone).
        let mut witnesses = t.witnesses.clone();
        witnesses.judge_agreement();
        *t = summarize(
            &t.scenario,
            &t.transport,
            kind,
            &recs,
            witnesses,
            t.rep_p50_ms.clone(),
            elapsed,
        );
    }
    if !r.formats.is_empty() {
        let formats: Vec<solr_client::ResponseFormat> = r
            .formats
            .iter()
            .filter_map(|f| {
                solr_client::ResponseFormat::ALL
                    .into_iter()
                    .find(|x| x.as_str() == f.format)
            })
            .collect();
        r.formats = crate::scenario::study::formats::summaries(&records, &r.transports, &formats);
    }
    r.findings = crate::scenario::study::judge::rejudge(&r.transports, &r.findings);
    crate::scenario::study::save(run, &r, &records)?;
    Ok(r)
}
