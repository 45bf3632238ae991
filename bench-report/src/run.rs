//! Run folders: every report a command saves implements [`RunReport`] (a kind tag, saving
//! into a folder, printing its text, its JSON schema); saving ends with
//! [`RunReport::finish_save`]: a small manifest, [`MANIFEST`], naming the kind beside the
//! report's files, and the run's page, `index.html` ([`crate::html`]). `report RUN` reads the
//! kind with [`kind_of`] and dispatches on it instead of trying every report type in turn.
//!
//! ```
//! use bench_report::run::{kind_of, RunReport};
//! #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
//! struct Hello { greeting: String }
//! impl RunReport for Hello {
//!     const KIND: &'static str = "hello";
//!     fn save(&self, dir: &std::path::Path) -> anyhow::Result<()> {
//!         bench_report::run::write_json(dir, Self::FILE, self)?;
//!         self.finish_save(dir)
//!     }
//!     fn print_text(&self, w: &mut dyn std::io::Write) -> anyhow::Result<()> {
//!         Ok(writeln!(w, "{}", self.greeting)?)
//!     }
//! }
//! let dir = std::env::temp_dir().join(format!("run-doc-{}", std::process::id()));
//! Hello { greeting: "hi".into() }.save(&dir).unwrap();
//! assert_eq!(kind_of(&dir).unwrap().as_deref(), Some("hello"));
//! let page = std::fs::read_to_string(dir.join(bench_report::html::INDEX)).unwrap();
//! assert!(page.contains("<p id=\"verdict\">hi</p>"));
//! let mut out = Vec::new();
//! let back = Hello::rerender(&dir).unwrap();
//! back.print_text(&mut out).unwrap();
//! assert_eq!(out, b"hi\n");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The manifest file every run folder holds: `{"kind": ..., "report": ...}`.
pub const MANIFEST: &str = "run.json";

/// What [`MANIFEST`] says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Manifest {
    /// The report's [`RunReport::KIND`].
    pub kind: String,
    /// The JSON file in the folder holding the report ([`RunReport::FILE`]).
    pub report: String,
}

/// A report a command saves into a run folder and `report RUN` renders again.
pub trait RunReport: Serialize + DeserializeOwned + schemars::JsonSchema + Sized {
    /// The kind tag written into [`MANIFEST`] (`"study"`, `"nrt"`, ...).
    const KIND: &'static str;
    /// The report's JSON file inside the run folder.
    const FILE: &'static str = "summary.json";

    /// Writes the report's files (its JSON, text, CSV, charts) and the manifest
    /// ([`RunReport::write_manifest`]) into `dir`, creating it.
    fn save(&self, dir: &Path) -> anyhow::Result<()>;

    /// Writes [`MANIFEST`] naming this kind into `dir`.
    fn write_manifest(dir: &Path) -> anyhow::Result<()> {
        write_manifest(dir, Self::KIND, Self::FILE)
    }

    /// The last step of every save: writes [`MANIFEST`] and the run's page,
    /// [`crate::html::INDEX`] ([`RunReport::write_html`]).
    fn finish_save(&self, dir: &Path) -> anyhow::Result<()> {
        Self::write_manifest(dir)?;
        self.write_html(dir).map(drop)
    }

    /// The run's page: by default built from the report's JSON, its text (whose last line
    /// is the verdict) with the table headers and rows laid out while it printed
    /// ([`crate::table::capture`]), and the charts and files already in `dir`
    /// ([`crate::html::page_from_json`]).
    fn page(&self, dir: &Path) -> anyhow::Result<crate::html::Page> {
        let mut text = Vec::new();
        let (printed, tables) = crate::table::capture(|| self.print_text(&mut text));
        printed?;
        let json = serde_json::to_value(self)?;
        let text = String::from_utf8_lossy(&text);
        Ok(crate::html::page_from_json(
            Self::KIND,
            dir,
            &json,
            &text,
            &tables,
        ))
    }

    /// Writes the run's page, [`crate::html::INDEX`], into `dir` and returns its path.
    fn write_html(&self, dir: &Path) -> anyhow::Result<PathBuf> {
        let path = dir.join(crate::html::INDEX);
        std::fs::write(&path, self.page(dir)?.render())
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }

    /// Prints the human-readable report; its last line is the verdict.
    fn print_text(&self, w: &mut dyn Write) -> anyhow::Result<()>;

    /// The JSON schema of [`RunReport::FILE`], pretty-printed.
    fn schema() -> String {
        serde_json::to_string_pretty(&schemars::schema_for!(Self)).expect("a schema serialises")
    }

    /// Reads the report from `dir`'s [`RunReport::FILE`].
    fn load(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join(Self::FILE);
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not a {} report", path.display(), Self::KIND))
    }

    /// Loads the report from `dir` and saves it again (text, CSV and charts rewritten from
    /// the JSON, manifest included). Reports whose figures come from raw records override it.
    fn rerender(dir: &Path) -> anyhow::Result<Self> {
        let r = Self::load(dir)?;
        r.save(dir)?;
        Ok(r)
    }
}

/// Writes [`MANIFEST`] into `dir` (created if missing).
pub fn write_manifest(dir: &Path, kind: &str, report: &str) -> anyhow::Result<()> {
    let m = Manifest {
        kind: kind.into(),
        report: report.into(),
    };
    write_json(dir, MANIFEST, &m)
}

/// The kind named by `dir`'s manifest; `None` for a folder saved before manifests existed.
pub fn kind_of(dir: &Path) -> anyhow::Result<Option<String>> {
    let path = dir.join(MANIFEST);
    if !path.is_file() {
        return Ok(None);
    }
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let m: Manifest = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not a run manifest", path.display()))?;
    Ok(Some(m.kind))
}

/// Writes `value` as pretty JSON into `dir/file`, creating `dir`.
pub fn write_json<T: Serialize + ?Sized>(dir: &Path, file: &str, value: &T) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(file);
    std::fs::write(&path, serde_json::to_vec_pretty(value)?)
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_manifest_has_no_kind_and_a_bad_one_is_an_error() {
        let dir = std::env::temp_dir().join(format!("run-kind-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(kind_of(&dir).unwrap(), None);
        std::fs::write(dir.join(MANIFEST), "[]").unwrap();
        assert!(kind_of(&dir).is_err());
        write_manifest(&dir, "nrt", "summary.json").unwrap();
        assert_eq!(kind_of(&dir).unwrap().as_deref(), Some("nrt"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
