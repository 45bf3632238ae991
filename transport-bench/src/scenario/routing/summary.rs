//! The routing grid's summary from its cells: one row per (write level, read preference), the
//! warnings (failed requests, unseen probes, counts that disagree), the settings and the
//! published reference's columns.

use std::collections::HashMap;

use super::cells::{Ctx, Pool};
use super::{
    latency, seed_result, Cell, CountCheck, Cpu, Pref, ReplicaReads, RoutingConfig, Row,
    SeedColumn, Topology, WriteLevel,
};

/// One row per (level, preference), from its cells and pooled samples.
pub(super) fn rows(
    ctx: &Ctx<'_>,
    cells: &[Cell],
    mut pools: HashMap<(usize, usize), Pool>,
) -> Vec<Row> {
    let a = ctx.a;
    let mut rows = Vec::new();
    for (li, level) in a.write_rates.iter().enumerate() {
        for (pi, pref) in a.prefs().iter().enumerate() {
            let pool = pools.remove(&(li, pi)).unwrap_or_default();
            rows.push(row(ctx, cells, *level, *pref, pool));
        }
    }
    rows
}

/// The row of `level` and `pref`.
fn row(ctx: &Ctx<'_>, cells: &[Cell], level: WriteLevel, pref: Pref, pool: Pool) -> Row {
    let label = level.label();
    let mine: Vec<&Cell> = cells
        .iter()
        .filter(|c| c.level == label && c.pref == pref.as_str())
        .collect();
    let mean = |f: &dyn Fn(&Cell) -> Option<f64>| {
        let v: Vec<f64> = mine.iter().filter_map(|c| f(c)).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let reads_on = |node: &str| -> u64 {
        mine.iter()
            .flat_map(|c| c.nodes.iter())
            .filter(|nc| nc.node == node)
            .map(|nc| nc.client_reads)
            .sum()
    };
    Row {
        level: label.clone(),
        pref: pref.as_str().into(),
        docs_per_s: mean(&|c| Some(c.docs_per_s)).unwrap_or(0.0),
        reads: latency(&pool.reads),
        qtime: latency(&pool.qtimes),
        leader_reads: reads_on(ctx.direct[0].0),
        follower_reads: reads_on(ctx.direct[1].0),
        replicas: replica_reads(ctx, &mine),
        lag: latency(&pool.lags),
        unseen: mine.iter().map(|c| c.lag.unseen).sum(),
        cpu: Cpu {
            leader_pct: mean(&|c| c.cpu.leader_pct),
            follower_pct: mean(&|c| c.cpu.follower_pct),
            bench_pct: mean(&|c| c.cpu.bench_pct),
            host_pct: mean(&|c| c.cpu.host_pct),
            runnable_mean: mean(&|c| c.cpu.runnable_mean),
            cores: mine.first().map(|c| c.cpu.cores).unwrap_or(0),
        },
    }
}

/// Reads each replica served in `mine` (cloud; empty for the pair).
fn replica_reads(ctx: &Ctx<'_>, mine: &[&Cell]) -> Vec<ReplicaReads> {
    ctx.replicas
        .iter()
        .map(|(r, _)| ReplicaReads {
            core: r.core.clone(),
            kind: r.kind.clone(),
            leader: r.leader,
            reads: mine
                .iter()
                .flat_map(|c| c.replicas.iter())
                .filter(|x| x.core == r.core)
                .map(|x| x.client_served)
                .sum(),
        })
        .collect()
}

/// What went wrong in the cells, and the count check when it failed.
pub(super) fn warnings(a: &RoutingConfig, cells: &[Cell], check: &CountCheck) -> Vec<String> {
    let mut warnings = Vec::new();
    for c in cells {
        cell_warnings(a, c, &mut warnings);
    }
    if !check.ok {
        warnings.push(format!(
            "{} documents found of {} acknowledged",
            check.found, check.acknowledged
        ));
    }
    warnings
}

/// The warnings of one cell: failed requests, unseen probes, reads served elsewhere than the
/// preference names, and read counts on which client, router and Solr disagree.
fn cell_warnings(a: &RoutingConfig, c: &Cell, warnings: &mut Vec<String>) {
    let at = format!("rep {} level {} pref {}", c.rep, c.level, c.pref);
    if c.read_errors > 0 || c.write_errors > 0 {
        warnings.push(format!(
            "{at}: {} searches and {} update requests failed",
            c.read_errors, c.write_errors
        ));
    }
    if c.lag.unseen > 0 {
        warnings.push(format!(
            "{at}: {} probe documents never seen within {} s",
            c.lag.unseen, a.probe_timeout
        ));
    }
    let named = a
        .prefs()
        .iter()
        .find(|p| p.as_str() == c.pref)
        .and_then(|p| p.replica_type());
    for rc in &c.replicas {
        if rc.solr_served != Some(rc.client_served) {
            warnings.push(format!(
                "{at}: reads served by {} disagree: client (shards.info) {}, Solr {:?}",
                rc.core, rc.client_served, rc.solr_served
            ));
        }
        if let Some(t) = named {
            if rc.kind != t && rc.client_served > 0 {
                warnings.push(format!(
                    "{at}: {} reads served by {} ({}), not a {t} replica",
                    rc.client_served, rc.core, rc.kind
                ));
            }
        }
    }
    for nc in &c.nodes {
        if nc.client_reads != nc.router_reads || nc.solr_select_requests != Some(nc.router_reads) {
            warnings.push(format!(
                "{at}: {} reads disagree: client {}, router {}, Solr {:?}",
                nc.node, nc.client_reads, nc.router_reads, nc.solr_select_requests
            ));
        }
    }
}

/// The run's settings as saved in the report.
pub(super) fn settings(ctx: &Ctx<'_>, local: bool) -> serde_json::Value {
    let a = ctx.a;
    let cloud = a.topology == Topology::Cloud;
    let mut settings = serde_json::json!({
        "collection": a.collection,
        "prefs": a.prefs().iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        "write_rates": a.write_rates.iter().map(|l| l.label()).collect::<Vec<_>>(),
        "duration_s": a.duration,
        "reps": a.reps,
        "readers": a.readers,
        "write_batch": a.write_batch,
        "preload": a.preload,
        "rows": a.rows,
        "poll_interval_s": (local && !cloud).then_some(a.poll_interval),
        "hard_commit_ms": local.then_some(a.hard_commit()),
        "soft_commit_ms": local.then_some(a.soft_commit_ms),
        "probe_poll_ms": a.probe_poll_ms,
        "probe_timeout_s": a.probe_timeout,
        "warmup": a.warmup,
        "transport": "pooled",
        "local_pair": local,
        "id_prefix": ctx.prefix,
        "seed": a.seed,
    });
    if cloud {
        settings["topology"] = "cloud".into();
        settings["cloud_read_params"] =
            "shortCircuit=false&distrib.singlePass=true&shards.info=true".into();
    }
    settings
}

/// The published reference's column of each preference.
pub(super) fn seed_columns(prefs: &[Pref]) -> Vec<SeedColumn> {
    prefs
        .iter()
        .map(|p| SeedColumn {
            pref: p.as_str().into(),
            seed_name: p.seed_name().into(),
            seed_result: seed_result(*p).into(),
        })
        .collect()
}
