//! A study command run by a test through the CLI parser, as a user would type it: its
//! document ids carry a unique prefix and its files go to a fresh temporary folder.

use std::path::PathBuf;

use transport_bench::scenario::shape::Scenario;

/// Where a study run by a test writes, and the prefix of its document ids.
pub struct StudyRun {
    /// The output folder (`--out`).
    pub out: PathBuf,
    /// The document id prefix (`--id-prefix`).
    pub prefix: String,
}

impl StudyRun {
    /// A run named `name`: both the folder and the prefix are unique to it.
    pub fn new(name: &str) -> Self {
        StudyRun {
            out: std::env::temp_dir().join(super::tag(name)),
            prefix: format!("{}-", super::tag(name)),
        }
    }

    /// Parses `transport-bench ARGS --id-prefix PREFIX --quiet --out OUT` as the options of
    /// scenario `S`.
    pub fn args<S: Scenario>(&self, args: &[&str]) -> S::Args {
        let out = self.out.to_str().expect("utf-8 path");
        let tail = ["--id-prefix", &self.prefix, "--quiet", "--out", out];
        let argv = std::iter::once("transport-bench")
            .chain(args.iter().copied())
            .chain(tail);
        transport_bench::cli::scenario_args::<S>(argv).unwrap_or_else(|e| panic!("{e}"))
    }
}
