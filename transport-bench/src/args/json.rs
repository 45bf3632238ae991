//! `--json`, one option flattened into every command that produces a report ([`JsonArgs`]),
//! and the one way a report is printed at the end of a run ([`JsonArgs::print_saved`]):
//! with `--json`, stdout carries only the report's JSON, byte for byte the file the run saved
//! (`summary.json`, `nrt.json`, `watch.json`, ...), and the human-readable text goes to
//! stderr with the progress; without it, the text goes to stdout.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// `--json`: the report as JSON on stdout, the text on stderr.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct JsonArgs {
    /// Print the report as JSON on stdout (the same JSON as the report file the run saves);
    /// the text report then goes to stderr, with the progress.
    #[arg(long)]
    pub json: bool,
}

/// Where the human-readable text goes: stdout, or stderr under `--json` ([`JsonArgs::human`]).
#[derive(Debug)]
pub enum Human {
    /// Without `--json`.
    Stdout(std::io::StdoutLock<'static>),
    /// With `--json`: stdout is the JSON's alone.
    Stderr(std::io::StderrLock<'static>),
}

impl Write for Human {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Human::Stdout(w) => w.write(buf),
            Human::Stderr(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Human::Stdout(w) => w.flush(),
            Human::Stderr(w) => w.flush(),
        }
    }
}

impl JsonArgs {
    /// The writer of the human-readable text.
    pub fn human(&self) -> Human {
        if self.json {
            Human::Stderr(std::io::stderr().lock())
        } else {
            Human::Stdout(std::io::stdout().lock())
        }
    }

    /// The end of a run that saved its report as `file` in `dir`: `text` writes the
    /// human-readable report ([`JsonArgs::human`]); then, with `--json`, the saved file is
    /// copied to stdout ([`JsonArgs::print_file`]).
    pub fn print_saved(
        &self,
        dir: &Path,
        file: &str,
        text: impl FnOnce(&mut Human) -> Result<()>,
    ) -> Result<()> {
        let mut human = self.human();
        text(&mut human)?;
        human.flush()?;
        drop(human);
        self.print_file(&dir.join(file))
    }

    /// With `--json`, the JSON file at `path` on stdout as saved (one newline after it);
    /// nothing without.
    pub fn print_file(&self, path: &Path) -> Result<()> {
        if !self.json {
            return Ok(());
        }
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes)?;
        if !bytes.ends_with(b"\n") {
            out.write_all(b"\n")?;
        }
        out.flush()?;
        Ok(())
    }

    /// For a command that saves nothing (`compare`): `text` writes the human-readable output;
    /// with `--json`, `value` is printed on stdout as pretty JSON.
    pub fn print_value<T: serde::Serialize>(
        &self,
        value: &T,
        text: impl FnOnce(&mut Human) -> Result<()>,
    ) -> Result<()> {
        let mut human = self.human();
        text(&mut human)?;
        human.flush()?;
        drop(human);
        if self.json {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", serde_json::to_string_pretty(value)?)?;
            out.flush()?;
        }
        Ok(())
    }
}
