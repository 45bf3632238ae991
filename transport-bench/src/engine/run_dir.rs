//! Where a run's files go: [`out_dir`] picks (and creates) a new folder per run.
//!
//! The default parent is found when the binary runs, never baked in at build time: the
//! folder named by `SOLR_BENCH_RESULTS`, else `results/` in the project root (the nearest
//! folder, from the current one upwards, holding `local-solr/solr.sh`; `SOLR_BENCH_ROOT`
//! names it outright), else `./results`. So an installed or copied binary writes next to the
//! checkout it is run from, and a binary run elsewhere writes to `./results`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The file whose presence marks the project root.
const ROOT_MARKER: &str = "local-solr/solr.sh";

/// `out` when given; otherwise a new folder `{kind}-{unix time}` under [`results_dir`],
/// created here, with `-2`, `-3`, .. appended when that name is taken (two runs in the same
/// second never share a folder).
pub fn out_dir(out: Option<PathBuf>, kind: &str) -> Result<PathBuf> {
    match out {
        Some(dir) => Ok(dir),
        None => unique_dir(
            &results_dir()?,
            &format!("{kind}-{}", solr_harness::seedkit::unix_secs()),
        ),
    }
}

/// The default parent of run folders, from the environment and the current folder (see the
/// module docs).
pub fn results_dir() -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    Ok(results_dir_from(
        std::env::var_os("SOLR_BENCH_RESULTS"),
        std::env::var_os("SOLR_BENCH_ROOT"),
        &cwd,
    ))
}

/// [`results_dir`] with its inputs given: `SOLR_BENCH_RESULTS`, `SOLR_BENCH_ROOT` and the
/// current folder.
pub fn results_dir_from(results: Option<OsString>, root: Option<OsString>, cwd: &Path) -> PathBuf {
    if let Some(r) = results.filter(|r| !r.is_empty()) {
        return cwd.join(r);
    }
    if let Some(r) = root.filter(|r| !r.is_empty()) {
        return cwd.join(r).join("results");
    }
    cwd.ancestors()
        .find(|d| d.join(ROOT_MARKER).is_file())
        .unwrap_or(cwd)
        .join("results")
}

/// Creates and returns a new folder `parent/stem`, or `parent/stem-N` (N = 2, 3, ..) when
/// that exists: `create_dir` either makes the folder or fails, so two processes racing for
/// the same name end up in different folders.
pub fn unique_dir(parent: &Path, stem: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    for n in 1u32.. {
        let dir = if n == 1 {
            parent.join(stem)
        } else {
            parent.join(format!("{stem}-{n}"))
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", dir.display())),
        }
    }
    unreachable!("u32 counter exhausted")
}

/// Writes `records` to `path` as JSON lines (one record a line), the raw data a report is
/// re-rendered from.
pub fn write_jsonl<T: serde::Serialize>(path: &std::path::Path, records: &[T]) -> Result<()> {
    let mut out = Vec::new();
    for rec in records {
        serde_json::to_writer(&mut out, rec)?;
        out.push(b'\n');
    }
    std::fs::write(path, out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tb-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn run_folders_are_unique_within_a_second() {
        let parent = scratch("unique");
        let dirs: Vec<_> = (0..3)
            .map(|_| unique_dir(&parent, "audit-1700000000").expect("dir"))
            .collect();
        assert_eq!(dirs[0], parent.join("audit-1700000000"));
        assert_eq!(dirs[1], parent.join("audit-1700000000-2"));
        assert_eq!(dirs[2], parent.join("audit-1700000000-3"));
        assert!(dirs.iter().all(|d| d.is_dir()));
        std::fs::remove_dir_all(&parent).expect("clean up");
    }

    #[test]
    fn results_folder_is_found_at_run_time() {
        let root = scratch("root");
        std::fs::create_dir_all(root.join("local-solr")).expect("mkdir");
        std::fs::write(root.join(ROOT_MARKER), "").expect("marker");
        let deep = root.join("a").join("b");
        std::fs::create_dir_all(&deep).expect("mkdir");
        // From anywhere inside the checkout: its results/.
        assert_eq!(results_dir_from(None, None, &deep), root.join("results"));
        // Outside any checkout: ./results.
        let elsewhere = scratch("elsewhere");
        assert_eq!(
            results_dir_from(None, None, &elsewhere),
            elsewhere.join("results")
        );
        // SOLR_BENCH_RESULTS wins (relative to the current folder), then SOLR_BENCH_ROOT.
        assert_eq!(
            results_dir_from(Some("/data/runs".into()), Some("/x".into()), &deep),
            PathBuf::from("/data/runs")
        );
        assert_eq!(
            results_dir_from(Some("runs".into()), None, &elsewhere),
            elsewhere.join("runs")
        );
        assert_eq!(
            results_dir_from(None, Some("/srv/bench".into()), &elsewhere),
            PathBuf::from("/srv/bench/results")
        );
        assert_eq!(
            results_dir_from(Some("".into()), None, &deep),
            root.join("results")
        );
        std::fs::remove_dir_all(&root).expect("clean up");
        std::fs::remove_dir_all(&elsewhere).expect("clean up");
    }
}
