//! The local Solr instances a run started ([`LocalSolrs`]): an RAII guard the scenario
//! registry holds for the whole run, so the instances are stopped when the run ends, after a
//! report, an error or an early return alike, unless the user asked to keep them
//! (`--keep-solr`).

use std::sync::Mutex;

use anyhow::Result;
use solr_harness::local_solr::{LocalSolr, Mode};

/// The local Solr instances started during one run; dropping it stops those still running,
/// unless it was made to keep them.
#[derive(Debug)]
pub struct LocalSolrs {
    keep: bool,
    started: Mutex<Vec<LocalSolr>>,
}

impl LocalSolrs {
    /// A guard that stops what is started through it when dropped, unless `keep`.
    pub fn new(keep: bool) -> LocalSolrs {
        LocalSolrs {
            keep,
            started: Mutex::new(Vec::new()),
        }
    }

    /// Whether the instances stay up after the run (`--keep-solr`).
    pub fn keep(&self) -> bool {
        self.keep
    }

    /// Starts the project's local Solr (`solr.sh start` with `mode`, instance `name` and
    /// `extra` options) and holds it until the run ends.
    pub fn start(&self, mode: Mode, name: &str, extra: &[&str]) -> Result<LocalSolr> {
        let s = LocalSolr::start(mode, name, extra)?;
        self.lock().push(s.clone());
        Ok(s)
    }

    /// Stops `solr` now (unless kept), for a run that starts instances one after another
    /// (`knn`, one per JVM); an instance this guard did not start is left alone.
    pub fn stop(&self, solr: &LocalSolr) {
        let held = {
            let mut started = self.lock();
            let at = started.iter().position(|s| s.name == solr.name);
            at.map(|i| started.remove(i))
        };
        if let (Some(s), false) = (held, self.keep) {
            stop_one(&s);
        }
    }

    /// The names of the instances still held (started and not yet stopped).
    pub fn names(&self) -> Vec<String> {
        self.lock().iter().map(|s| s.name.clone()).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<LocalSolr>> {
        // A panic while holding the list cannot leave it half-written: take it as it is.
        self.started.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn stop_one(s: &LocalSolr) {
    if let Err(e) = s.stop() {
        eprintln!(
            "transport-bench: warning: could not stop the local Solr {}: {e:#}",
            s.name
        );
    }
}

impl Drop for LocalSolrs {
    fn drop(&mut self) {
        let started = std::mem::take(&mut *self.lock());
        if self.keep {
            return;
        }
        for s in started.iter().rev() {
            stop_one(s);
        }
    }
}
