//! The watch report as a run folder (above [`crate::report`], [`crate::report::svg`] and the CSV
//! writers, which it draws with) ([`RunReport`]): `watch.json`, `watch.svg`,
//! `connections.csv`, `run.json` and `index.html`, so `transport-bench report RUN` prints a
//! saved watch again. `requests.csv` is drawn from the capture, not the report: it is written
//! beside ([`crate::save_requests`]).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use bench_report::run::RunReport;

use crate::report::WatchReport;

impl RunReport for WatchReport {
    const KIND: &'static str = "watch";
    const FILE: &'static str = "watch.json";

    fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        std::fs::write(dir.join(Self::FILE), serde_json::to_string_pretty(self)?)?;
        std::fs::write(dir.join("watch.svg"), crate::report::svg::chart(self))?;
        crate::report::csv::connections(dir, &self.connection_list)?;
        self.finish_save(dir)
    }

    fn print_text(&self, mut w: &mut dyn Write) -> Result<()> {
        crate::report::print_text(self, &mut w)
    }
}
