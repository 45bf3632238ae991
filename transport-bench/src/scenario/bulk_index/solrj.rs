//! The SolrJ side of `bulk-index`: one JVM running `dev.solrbench.BulkIndex` (built by
//! `local-solr/solr.sh setup` from the project's cached Maven repository), fed one command per
//! run on stdin and answering one `BULKJSON {...}` line per run on stdout.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The marker of the program's answer lines (anything else on stdout is log output).
const MARKER: &str = "BULKJSON ";

/// What SolrJ client a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolrjMode {
    /// `ConcurrentUpdateHttp2SolrClient` with a queue size and a thread count.
    Cusc {
        /// `withQueueSize`.
        queue: usize,
        /// `withThreadCount`.
        threads: usize,
    },
    /// `Http2SolrClient.add(collection, batch)`, one batch after the other.
    Http2 {
        /// Documents per `add`.
        batch: usize,
    },
}

/// One run as the Java program reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SolrjRun {
    /// `cusc` or `http2`.
    pub mode: String,
    /// Documents added.
    pub docs: u64,
    /// Seconds from the first add to the last answer (CUSC: `blockUntilFinished`).
    pub wall_s: f64,
    /// `docs / wall_s`.
    pub docs_per_s: f64,
    /// CPU seconds of the whole JVM during the run (every thread, GC and JIT included);
    /// negative when the JVM cannot tell.
    pub cpu_s: f64,
    /// Errors: CUSC's error handler calls, or failed `add` calls.
    pub errors: u64,
    /// The first error, if any.
    pub first_error: Option<String>,
    /// The JVM's `java.version`.
    pub java: String,
}

#[derive(Debug, Deserialize)]
struct ErrorLine {
    error: String,
}

/// A running SolrJ bench JVM.
#[derive(Debug)]
pub struct Solrj {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

/// The `java @argfile` file `solr.sh setup` writes (the launcher's classpath, SolrJ and the
/// Jetty HTTP/2 client included).
fn argfile(root: &Path) -> PathBuf {
    root.join("local-solr/launcher/target/java-cp.args")
}

impl Solrj {
    /// Starts the JVM (`java`, or the `SOLR_BENCH_JAVA` binary) with its log output going to
    /// `log`; an error names the setup step when the program is not built.
    pub fn start(log: &Path) -> Result<Solrj> {
        let root = solr_harness::project_root();
        let args = argfile(&root);
        let class = root.join("local-solr/launcher/target/classes/dev/solrbench/BulkIndex.class");
        if !args.is_file() || !class.is_file() {
            bail!(
                "the SolrJ bench program is not built ({} or {} missing): run `bash local-solr/solr.sh setup`",
                args.display(),
                class.display()
            );
        }
        let java = std::env::var_os("SOLR_BENCH_JAVA").unwrap_or_else(|| "java".into());
        let log_file = std::fs::File::create(log)
            .with_context(|| format!("cannot create {}", log.display()))?;
        let mut child = Command::new(&java)
            .arg("-Xms256m")
            .arg("-Xmx512m")
            .arg(format!("@{}", args.display()))
            .arg("dev.solrbench.BulkIndex")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file))
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start {}", java.to_string_lossy()))?;
        let stdin = child.stdin.take().context("no stdin pipe")?;
        let stdout = child.stdout.take().context("no stdout pipe")?;
        Ok(Solrj {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
        })
    }

    /// Indexes documents `0..docs` with ids `{prefix}{i}` into `collection` at `url`
    /// (nothing committed) and returns the program's report of the run.
    pub async fn run(
        &mut self,
        url: &str,
        collection: &str,
        prefix: &str,
        docs: usize,
        mode: SolrjMode,
    ) -> Result<SolrjRun> {
        for (what, v) in [("url", url), ("collection", collection), ("prefix", prefix)] {
            if v.is_empty() || v.chars().any(|c| c.is_whitespace()) {
                bail!("the SolrJ program cannot take a {what} that is empty or holds whitespace");
            }
        }
        let mode_words = match mode {
            SolrjMode::Cusc { queue, threads } => {
                format!("mode=cusc queue={queue} threads={threads}")
            }
            SolrjMode::Http2 { batch } => format!("mode=http2 batch={batch}"),
        };
        let line =
            format!("{mode_words} url={url} collection={collection} prefix={prefix} docs={docs}\n");
        self.stdin.write_all(line.as_bytes()).await?;
        self.stdin.flush().await?;
        loop {
            let Some(l) = self.lines.next_line().await? else {
                bail!("the SolrJ program ended without answering (see its log)");
            };
            let Some(json) = l.strip_prefix(MARKER) else {
                continue;
            };
            if let Ok(e) = serde_json::from_str::<ErrorLine>(json) {
                bail!("the SolrJ program failed: {}", e.error);
            }
            return serde_json::from_str(json)
                .with_context(|| format!("cannot read the SolrJ program's answer {json:?}"));
        }
    }

    /// Closes its stdin (the program ends) and waits for it.
    pub async fn finish(mut self) -> Result<()> {
        drop(self.stdin);
        let status = self.child.wait().await?;
        if !status.success() {
            bail!("the SolrJ program exited with {status}");
        }
        Ok(())
    }
}
