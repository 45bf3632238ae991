//! [`Harness`]: where the local Solr lives (its home folder) and how `solr.sh` is run there.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use crate::assets;
use crate::error::{Error, Result};
use crate::local_solr::{LocalSolr, Mode};
use crate::tools;

/// The environment variable naming the home folder.
pub const HOME_VAR: &str = "SOLR_HARNESS_HOME";

/// One lock per home: serializes this process's `solr.sh` calls in one home (two starts of
/// one instance must not race), while another home (a test's own, building its launcher for
/// a minute) does not hold them up.
static SCRIPT_LOCKS: Mutex<BTreeMap<PathBuf, Arc<Mutex<()>>>> = Mutex::new(BTreeMap::new());

fn home_lock(home: &Path) -> Arc<Mutex<()>> {
    let mut locks = SCRIPT_LOCKS.lock().unwrap_or_else(|e| e.into_inner());
    locks.entry(home.to_path_buf()).or_default().clone()
}

/// Where the local Solr lives: a home folder holding `solr.sh`, the launcher and `run/`.
///
/// One path, in this repository and outside it: the harness extracts its built-in copy of
/// `local-solr/` (see the `assets` module) into the home, then runs `bash HOME/solr.sh`. The
/// home is, first found:
/// 1. [`Harness::with_home`];
/// 2. the `SOLR_HARNESS_HOME` environment variable when the program runs;
/// 3. `SOLR_HARNESS_HOME` as it was when the harness was compiled (a workspace's
///    `.cargo/config.toml` `[env]` sets it; this repository's points at its own `local-solr/`,
///    so its scripts, bench and tests share one folder);
/// 4. `$XDG_CACHE_HOME/solr-harness/VERSION-FINGERPRINT`, else
///    `~/.cache/solr-harness/VERSION-FINGERPRINT`.
///
/// Instances keep their state under `HOME/run/NAME/`; the launcher is built once per home
/// (Maven fetches Solr's jars into `~/.m2`), in `HOME/launcher/target/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Harness {
    home: PathBuf,
}

impl Harness {
    /// The harness of the default home (see [`Harness`]); [`Error::NoHome`] when
    /// none of `SOLR_HARNESS_HOME`, `XDG_CACHE_HOME` and `HOME` is set.
    pub fn new() -> Result<Harness> {
        let home = resolve_home(|k| std::env::var_os(k), option_env!("SOLR_HARNESS_HOME"))?;
        Ok(Harness { home })
    }

    /// The harness of the folder `home` (created when missing).
    pub fn with_home(home: impl Into<PathBuf>) -> Harness {
        Harness { home: home.into() }
    }

    /// The home folder.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Where instances keep their state: `HOME/run` (`run/NAME/nodes.tsv`, logs, data,
    /// `run/tls/ca.pem`).
    pub fn run_dir(&self) -> PathBuf {
        self.home.join("run")
    }

    /// Checks that the programs `solr.sh` needs are on `PATH` ([`Error::MissingTool`] names
    /// the first one missing), then extracts the built-in files into the home; returns how
    /// many files were written (0 when the home was up to date). [`Harness::start`] calls it.
    pub fn prepare(&self) -> Result<usize> {
        tools::check(std::env::var_os("PATH").as_deref())?;
        assets::extract(&self.home)
    }

    /// Starts (or finds running) the instance `name` in `mode`; `extra` are more
    /// `solr.sh start` options such as `--tls` or `--heap 1g` (see `local-solr/README.md`).
    /// The first start in a home builds the launcher with Maven (about a minute); later ones
    /// reuse it.
    pub fn start(&self, mode: Mode, name: &str, extra: &[&str]) -> Result<LocalSolr> {
        self.prepare()?;
        let mut args = vec!["start", mode.as_str(), "--name", name];
        args.extend_from_slice(extra);
        let out = self.script(&args)?;
        LocalSolr::parse(self.clone(), name, &out)
    }

    /// Stops every node of the instance `name` (nothing to do when it is not running).
    pub fn stop(&self, name: &str) -> Result<()> {
        self.script(&["stop", name]).map(|_| ())
    }

    /// Stops every instance of this home.
    pub fn stop_all(&self) -> Result<()> {
        self.script(&["stop", "--all"]).map(|_| ())
    }

    /// Runs `bash HOME/solr.sh ARGS` (the home extracted first); its standard output.
    pub(crate) fn script(&self, args: &[&str]) -> Result<String> {
        let lock = home_lock(&self.home);
        let _guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        assets::extract(&self.home)?;
        let script = self.home.join("solr.sh");
        let out = Command::new("bash")
            .arg(&script)
            .args(args)
            .output()
            .map_err(|e| match e.kind() {
                ErrorKind::NotFound => Error::MissingTool {
                    tool: "bash",
                    purpose: "run solr.sh",
                    install: "apt-get install bash",
                },
                _ => Error::io("run", &script, e),
            })?;
        if !out.status.success() {
            return Err(Error::Script {
                args: args.join(" "),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// The default home, from the environment (`var`) and the value compiled in (`built`).
fn resolve_home(var: impl Fn(&str) -> Option<OsString>, built: Option<&str>) -> Result<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(h) = set(HOME_VAR).or_else(|| built.filter(|b| !b.is_empty()).map(PathBuf::from)) {
        return Ok(h);
    }
    let tag = format!("{}-{}", env!("CARGO_PKG_VERSION"), assets::fingerprint());
    let cache = set("XDG_CACHE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| set("HOME").map(|h| h.join(".cache")))
        .ok_or(Error::NoHome)?;
    Ok(cache.join("solr-harness").join(tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_home_is_the_first_found() {
        let tag = format!("{}-{}", env!("CARGO_PKG_VERSION"), assets::fingerprint());
        let all = [
            ("SOLR_HARNESS_HOME", "/h"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/u"),
        ];
        assert_eq!(
            resolve_home(env(&all), Some("/b")).unwrap(),
            Path::new("/h")
        );
        assert_eq!(
            resolve_home(env(&all[1..]), Some("/b")).unwrap(),
            Path::new("/b")
        );
        let xdg = PathBuf::from("/x/solr-harness").join(&tag);
        assert_eq!(resolve_home(env(&all[1..]), None).unwrap(), xdg);
        // Empty counts as unset; a relative XDG_CACHE_HOME is ignored (the XDG spec).
        let rel = [
            ("SOLR_HARNESS_HOME", ""),
            ("XDG_CACHE_HOME", "rel"),
            ("HOME", "/u"),
        ];
        let home = PathBuf::from("/u/.cache/solr-harness").join(&tag);
        assert_eq!(resolve_home(env(&rel), Some("")).unwrap(), home);
        assert!(matches!(resolve_home(env(&[]), None), Err(Error::NoHome)));
    }
}
