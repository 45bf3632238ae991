//! Outputs of `routing`: the text table (level x preference, the published reference's columns beside ours,
//! the verdict last), `summary.json`, `cells.csv` (one line per cell and node), `rows.csv` and
//! `p99-vs-write-rate.svg` (read p99 against achieved docs/s, one line per preference); for the
//! cloud topology also `replicas.csv` (one line per cell and replica).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use bench_report::table::Table;

use super::{Pref, RoutingConfig, RoutingReport, Row};
use crate::report::lines::{self, Chart, Series};

/// What the published reference (Websolr) reported for `p` (its charts carried the figures; the text only these).
pub fn seed_result(p: Pref) -> &'static str {
    match p {
        Pref::None => "baseline; the seed expected it to match prefer-master",
        Pref::Leader => "not the same as none, though 'effectively the same thing'",
        Pref::Follower => {
            "slower than the primary on a free-tier index with no write pressure; \
             replication ~30 s behind"
        }
        Pref::SolrNrt | Pref::SolrTlog | Pref::SolrPull => {
            "not tried: the seed had only Websolr's header (prefer-replica is the nearest)"
        }
        Pref::Client => "not tried: the seed had no client-side routing",
    }
}

fn f1(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into())
}

fn f0(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.0}")).unwrap_or_else(|| "-".into())
}

/// Writes the table; the last line is the verdict.
pub fn print_text<W: Write>(r: &RoutingReport, w: &mut W) -> Result<()> {
    if r.topology == "cloud" {
        return print_cloud(r, w);
    }
    let s = &r.settings;
    writeln!(
        w,
        "Read routing under write pressure, {} topology: leader {}, follower {}",
        r.topology, r.leader, r.follower
    )?;
    writeln!(
        w,
        "{} s per cell, {} repetitions interleaved, {} readers (closed loop), indexer batches of {}, \
         soft commit {} ms, hard commit {} ms, follower poll {} s",
        s["duration_s"], s["reps"], s["readers"], s["write_batch"], s["soft_commit_ms"],
        s["hard_commit_ms"], s["poll_interval_s"]
    )?;
    writeln!(w)?;
    let table = rows_table(&[("on lead", 8), ("on foll", 8)], ["cpu L", "cpu F"]);
    table.header(w)?;
    for row in &r.rows {
        let middle = [row.leader_reads.to_string(), row.follower_reads.to_string()];
        table.row_iter(w, row_cells(row, middle))?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "published reference (Websolr free tier, no write pressure):"
    )?;
    for c in &r.seed {
        writeln!(w, "  {:<9} = {:<15} {}", c.pref, c.seed_name, c.seed_result)?;
    }
    writeln!(
        w,
        "reads on lead/foll: client tally (router counters and Solr's QUERY./select.requests agree \
         unless warned); lag: probe add acknowledged -> first read through the preference that \
         finds it; cpu L/F/bench: % of one core; host: % of {} cores; runq: runnable threads",
        r.rows.first().map(|x| x.cpu.cores).unwrap_or(0)
    )?;
    print_tail(r, "", w)
}

/// The rows table of both topologies: write level, rate, preference and read latency, then
/// the topology's own read-count columns (`middle`), then lag and CPU (`cpu`: the two Solr
/// nodes' column titles).
fn rows_table(middle: &[(&str, usize)], cpu: [&str; 2]) -> Table {
    let mut t = Table::new()
        .right("write", 6)
        .right("docs/s", 8)
        .right("pref", 9)
        .right("reads", 7)
        .right("p50 ms", 7)
        .right("p95 ms", 7)
        .right("p99 ms", 7)
        .right("QT p50", 6);
    for (title, width) in middle {
        t = t.right(*title, *width);
    }
    t.right("lag p50", 8)
        .right("lag max", 8)
        .right(cpu[0], 6)
        .right(cpu[1], 6)
        .right("bench", 6)
        .right("host", 5)
        .right("runq", 5)
}

/// The cells of one row of [`rows_table`], `middle` being the topology's read counts.
fn row_cells(row: &Row, middle: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut cells = vec![
        row.level.clone(),
        format!("{:.0}", row.docs_per_s),
        row.pref.clone(),
        row.reads.n.to_string(),
        f1(row.reads.p50_ms),
        f1(row.reads.p95_ms),
        f1(row.reads.p99_ms),
        f0(row.qtime.p50_ms),
    ];
    cells.extend(middle);
    cells.extend([
        f0(row.lag.p50_ms),
        f0(row.lag.max_ms),
        f0(row.cpu.leader_pct),
        f0(row.cpu.follower_pct),
        f0(row.cpu.bench_pct),
        f0(row.cpu.host_pct),
        f1(row.cpu.runnable_mean),
    ]);
    cells
}

/// The cloud table: reads served per replica type instead of per node.
fn print_cloud<W: Write>(r: &RoutingReport, w: &mut W) -> Result<()> {
    let s = &r.settings;
    writeln!(
        w,
        "Read routing under write pressure, cloud topology: reads sent to node1 {}, node2 {}",
        r.leader, r.follower
    )?;
    for x in &r.replicas {
        writeln!(
            w,
            "  replica {:<4} {} on {}{}",
            x.kind,
            x.core,
            x.node,
            if x.leader { " (shard leader)" } else { "" }
        )?;
    }
    writeln!(
        w,
        "{} s per cell, {} repetitions interleaved, {} readers (closed loop), indexer batches of {}, \
         soft commit {} ms, hard commit {} ms (TLOG/PULL poll = half of it); reads with {}",
        s["duration_s"],
        s["reps"],
        s["readers"],
        s["write_batch"],
        s["soft_commit_ms"],
        s["hard_commit_ms"],
        s["cloud_read_params"].as_str().unwrap_or("-")
    )?;
    writeln!(w)?;
    let table = rows_table(
        &[("by NRT", 7), ("by TLOG", 7), ("by PULL", 7)],
        ["cpu n1", "cpu n2"],
    );
    table.header(w)?;
    for row in &r.rows {
        let by = |t: &str| -> String {
            row.replicas
                .iter()
                .filter(|x| x.kind == t)
                .map(|x| x.reads)
                .sum::<u64>()
                .to_string()
        };
        table.row_iter(w, row_cells(row, [by("NRT"), by("TLOG"), by("PULL")]))?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "published reference (Websolr free tier, no write pressure):"
    )?;
    for c in &r.seed {
        writeln!(w, "  {:<9} = {:<17} {}", c.pref, c.seed_name, c.seed_result)?;
    }
    writeln!(
        w,
        "by NRT/TLOG/PULL: reads (searches and probe reads) served by that replica, from shards.info \
         (Solr's QUERY./select[shard].requests per core agrees unless warned); lag: probe add \
         acknowledged by the leader -> first read through the preference that finds it; cpu \
         n1/n2/bench: % of one core; host: % of {} cores; runq: runnable threads",
        r.rows.first().map(|x| x.cpu.cores).unwrap_or(0)
    )?;
    print_tail(r, " on the leader", w)
}

/// The last lines of both topologies: the document check (`found_where` names where the
/// documents were counted), the warnings and the verdict.
fn print_tail<W: Write>(r: &RoutingReport, found_where: &str, w: &mut W) -> Result<()> {
    writeln!(
        w,
        "documents: {} acknowledged, {} found{found_where}{}",
        r.check.acknowledged,
        r.check.found,
        if r.check.ok { "" } else { " (MISMATCH)" }
    )?;
    bench_report::table::print_ending(w, &r.warnings, None, &r.verdict)?;
    Ok(())
}

/// The cloud verdict: for each replica-targeting preference (solr-pull, solr-tlog, solr-nrt,
/// client), the first write level at which its read p99 is at least 10 % below `none`'s
/// (Solr's own choice), its staleness at the top level, and whose contention it was.
pub fn verdict_cloud(rows: &[Row], a: &RoutingConfig) -> String {
    let levels: Vec<String> = a.write_rates.iter().map(|l| l.label()).collect();
    let p99 = |r: &Row| r.reads.p99_ms.or(r.reads.p95_ms);
    let mut parts = Vec::new();
    for p in [Pref::SolrPull, Pref::SolrTlog, Pref::SolrNrt, Pref::Client] {
        let mut pays = None;
        let mut last = None;
        for l in &levels {
            let (Some(x), Some(base)) = (row(rows, l, p), row(rows, l, Pref::None)) else {
                continue;
            };
            let (Some(xp), Some(bp)) = (p99(x), p99(base)) else {
                continue;
            };
            last = Some((l.clone(), x, xp, bp));
            if pays.is_none() && xp < 0.9 * bp {
                pays = Some((l.clone(), xp, bp));
            }
        }
        let Some((tl, x, xp, bp)) = last else {
            continue;
        };
        let head = match pays {
            Some((l, pp, pb)) => format!(
                "{} pays from write level {l} (p99 {pp:.1} vs {pb:.1} ms for none)",
                p.as_str()
            ),
            None => format!(
                "{} never pays (at {tl}: p99 {xp:.1} vs {bp:.1} ms for none)",
                p.as_str()
            ),
        };
        parts.push(format!(
            "{head}, staleness at {tl}: lag p50 {} ms, max {} ms ({} unseen)",
            f0(x.lag.p50_ms),
            f0(x.lag.max_ms),
            x.unseen
        ));
    }
    if parts.is_empty() {
        return "verdict: no level had both `none` and a replica preference with enough \
                searches for a p99"
            .into();
    }
    let top = levels.last().cloned().unwrap_or_default();
    let whose = rows
        .iter()
        .filter(|r| r.level == top)
        .map(|r| {
            (
                r.cpu.runnable_mean.unwrap_or(0.0),
                r.cpu.cores.max(1) as f64,
                r,
            )
        })
        .max_by(|x, y| x.0.total_cmp(&y.0))
        .map(|(q, cores, r)| {
            let who = if q > cores { "the machine's" } else { "Solr's" };
            format!(
                "; contention at level {top} was {who}: run queue {q:.1} on {cores:.0} cores, \
                 host CPU {}%, node1 JVM {}%, node2 {}%",
                f0(r.cpu.host_pct),
                f0(r.cpu.leader_pct),
                f0(r.cpu.follower_pct)
            )
        })
        .unwrap_or_default();
    format!("verdict: {}{whose}", parts.join("; "))
}

fn row<'a>(rows: &'a [Row], level: &str, pref: Pref) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.level == level && r.pref == pref.as_str())
}

/// The verdict: the first write level at which reads on the follower have a p99 at least 10 %
/// below the best leader-side preference (none or leader), what they cost in staleness there,
/// and whether the machine (run queue above the cores) or Solr (the leader's CPU) was the
/// contended resource at the highest level.
pub fn verdict(rows: &[Row], a: &RoutingConfig) -> String {
    let levels: Vec<String> = a.write_rates.iter().map(|l| l.label()).collect();
    let mut pays = None;
    let mut last = None;
    for l in &levels {
        let Some(f) = row(rows, l, Pref::Follower) else {
            continue;
        };
        let lead = [Pref::None, Pref::Leader]
            .iter()
            .filter_map(|p| row(rows, l, *p))
            .filter_map(|r| r.reads.p99_ms.or(r.reads.p95_ms).map(|v| (v, r)))
            .min_by(|x, y| x.0.total_cmp(&y.0));
        let (Some(fp), Some((lp, lr))) = (f.reads.p99_ms.or(f.reads.p95_ms), lead) else {
            continue;
        };
        last = Some((l.clone(), f, fp, lp, lr));
        if pays.is_none() && fp < 0.9 * lp {
            pays = Some((l.clone(), f, fp, lp, lr));
        }
    }
    let Some(last) = last else {
        return "verdict: no level had both a follower and a leader-side preference with enough \
                searches for a p99"
            .into();
    };
    let stale = |f: &Row| {
        format!(
            "staleness of follower reads: probe lag p50 {} ms, max {} ms ({} unseen)",
            f0(f.lag.p50_ms),
            f0(f.lag.max_ms),
            f.unseen
        )
    };
    let head = match &pays {
        Some((l, f, fp, lp, lr)) => format!(
            "replica reads pay from write level {l} ({:.0} docs/s): p99 {fp:.1} ms on the follower \
             vs {lp:.1} ms ({}); {}",
            f.docs_per_s,
            lr.pref,
            stale(f)
        ),
        None => {
            let (l, f, fp, lp, lr) = &last;
            format!(
                "replica reads did not pay at any write level up to {l} ({:.0} docs/s): p99 \
                 {fp:.1} ms on the follower vs {lp:.1} ms ({}) there; {}",
                f.docs_per_s,
                lr.pref,
                stale(f)
            )
        }
    };
    let (_, f, _, _, lr) = &last;
    let cores = f.cpu.cores.max(1) as f64;
    let runq = lr
        .cpu
        .runnable_mean
        .unwrap_or(0.0)
        .max(f.cpu.runnable_mean.unwrap_or(0.0));
    let whose = if runq > cores {
        format!(
            "the machine's: {runq:.1} runnable threads on {cores:.0} cores, host CPU {}%",
            f0(lr.cpu.host_pct)
        )
    } else {
        format!(
            "Solr's: run queue {runq:.1} <= {cores:.0} cores, host CPU {}%",
            f0(lr.cpu.host_pct)
        )
    };
    format!(
        "verdict: {head}; contention at the top level was {whose} (leader JVM {}%, follower {}%, \
         bench {}% of one core)",
        f0(lr.cpu.leader_pct),
        f0(lr.cpu.follower_pct),
        f0(lr.cpu.bench_pct)
    )
}

/// The chart: read p99 (p95 when the sample is too small) against achieved docs/s, one line
/// per preference.
pub fn chart(r: &RoutingReport) -> String {
    let mut prefs: Vec<&str> = Vec::new();
    for row in &r.rows {
        if !prefs.contains(&row.pref.as_str()) {
            prefs.push(&row.pref);
        }
    }
    let series: Vec<Series> = prefs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut points: Vec<(f64, f64)> = r
                .rows
                .iter()
                .filter(|row| row.pref == *p)
                .filter_map(|row| {
                    row.reads
                        .p99_ms
                        .or(row.reads.p95_ms)
                        .map(|y| (row.docs_per_s.round(), y))
                })
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                label: (*p).to_string(),
                points,
                dashed: false,
                color: i,
            }
        })
        .collect();
    lines::render(
        &Chart {
            title: "Read p99 vs write rate, per read preference".into(),
            x_label: "indexing achieved, docs/s".into(),
            y_label: "read p99, ms".into(),
            log_x: false,
        },
        &series,
    )
}

/// Saves `summary.json`, `report.txt`, `rows.csv`, `cells.csv` and `p99-vs-write-rate.svg`.
pub fn save(dir: &Path, r: &RoutingReport) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    std::fs::write(dir.join("summary.json"), serde_json::to_string_pretty(r)?)?;
    let mut txt = Vec::new();
    print_text(r, &mut txt)?;
    std::fs::write(dir.join("report.txt"), txt)?;
    let rows: Vec<RowLine> = r
        .rows
        .iter()
        .map(|x| RowLine {
            level: &x.level,
            pref: &x.pref,
            docs_per_s: x.docs_per_s,
            reads: x.reads.n,
            p50_ms: x.reads.p50_ms,
            p95_ms: x.reads.p95_ms,
            p99_ms: x.reads.p99_ms,
            qtime_p50_ms: x.qtime.p50_ms,
            leader_reads: x.leader_reads,
            follower_reads: x.follower_reads,
            lag_p50_ms: x.lag.p50_ms,
            lag_max_ms: x.lag.max_ms,
            unseen: x.unseen,
            leader_cpu_pct: x.cpu.leader_pct,
            follower_cpu_pct: x.cpu.follower_pct,
            bench_cpu_pct: x.cpu.bench_pct,
            host_cpu_pct: x.cpu.host_pct,
            runnable: x.cpu.runnable_mean,
        })
        .collect();
    bench_report::write_csv(&dir.join("rows.csv"), &rows)?;
    let mut cells = Vec::new();
    for c in &r.cells {
        for n in &c.nodes {
            let cpu = if n.node == "leader" || n.node == "node1" {
                c.cpu.leader_pct
            } else {
                c.cpu.follower_pct
            };
            cells.push(CellLine {
                rep: c.rep,
                level: &c.level,
                pref: &c.pref,
                docs_per_s: c.docs_per_s,
                node: &n.node,
                client_reads: n.client_reads,
                router_reads: n.router_reads,
                solr_select_requests: n.solr_select_requests,
                searches: n.searches,
                wall_p50_ms: n.wall.p50_ms,
                wall_p99_ms: n.wall.p99_ms,
                qtime_p50_ms: n.qtime.p50_ms,
                qtime_p95_ms: n.qtime.p95_ms,
                cpu_pct: cpu,
            });
        }
    }
    bench_report::write_csv(&dir.join("cells.csv"), &cells)?;
    if r.topology == "cloud" {
        let mut reps = Vec::new();
        for c in &r.cells {
            for x in &c.replicas {
                reps.push(ReplicaLine {
                    rep: c.rep,
                    level: &c.level,
                    pref: &c.pref,
                    core: &x.core,
                    r#type: &x.kind,
                    node: &x.node,
                    leader: r.replicas.iter().any(|y| y.core == x.core && y.leader),
                    client_served: x.client_served,
                    solr_served: x.solr_served,
                    solr_received: x.solr_received,
                });
            }
        }
        bench_report::write_csv(&dir.join("replicas.csv"), &reps)?;
    }
    std::fs::write(dir.join("p99-vs-write-rate.svg"), chart(r))?;
    bench_report::RunReport::finish_save(r, dir)
}

/// One line of `rows.csv`.
#[derive(serde::Serialize)]
struct RowLine<'a> {
    level: &'a str,
    pref: &'a str,
    docs_per_s: f64,
    reads: u64,
    p50_ms: Option<f64>,
    p95_ms: Option<f64>,
    p99_ms: Option<f64>,
    qtime_p50_ms: Option<f64>,
    leader_reads: u64,
    follower_reads: u64,
    lag_p50_ms: Option<f64>,
    lag_max_ms: Option<f64>,
    unseen: u64,
    leader_cpu_pct: Option<f64>,
    follower_cpu_pct: Option<f64>,
    bench_cpu_pct: Option<f64>,
    host_cpu_pct: Option<f64>,
    runnable: Option<f64>,
}

/// One line of `cells.csv`: a node of one cell.
#[derive(serde::Serialize)]
struct CellLine<'a> {
    rep: usize,
    level: &'a str,
    pref: &'a str,
    docs_per_s: f64,
    node: &'a str,
    client_reads: u64,
    router_reads: u64,
    solr_select_requests: Option<u64>,
    searches: u64,
    wall_p50_ms: Option<f64>,
    wall_p99_ms: Option<f64>,
    qtime_p50_ms: Option<f64>,
    qtime_p95_ms: Option<f64>,
    cpu_pct: Option<f64>,
}

/// One line of `replicas.csv`: a replica of one cell (cloud topology).
#[derive(serde::Serialize)]
struct ReplicaLine<'a> {
    rep: usize,
    level: &'a str,
    pref: &'a str,
    core: &'a str,
    r#type: &'a str,
    node: &'a str,
    leader: bool,
    client_served: u64,
    solr_served: Option<u64>,
    solr_received: Option<u64>,
}

impl bench_report::RunReport for RoutingReport {
    const KIND: &'static str = "routing";

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        crate::scenario::routing::save(dir, self)
    }

    fn print_text(&self, mut w: &mut dyn std::io::Write) -> Result<()> {
        crate::scenario::routing::print_text(self, &mut w)
    }
}
