//! The harness's error: one variant per way starting or stopping a local Solr can fail.

use std::path::PathBuf;

/// What went wrong while preparing, starting or stopping a local Solr.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A program `solr.sh` needs is not on `PATH` (nothing was started).
    #[error("{tool} not found on PATH: solr-harness needs it to {purpose} ({install})")]
    MissingTool {
        /// The program's name, e.g. `mvn`.
        tool: &'static str,
        /// What it is for.
        purpose: &'static str,
        /// How to install it.
        install: &'static str,
    },
    /// No folder to extract to: `SOLR_HARNESS_HOME`, `XDG_CACHE_HOME` and `HOME` are all unset.
    #[error("solr-harness has no folder to work in: set SOLR_HARNESS_HOME (XDG_CACHE_HOME and HOME are unset)")]
    NoHome,
    /// The home holds a file that differs from the one built into this program, and the
    /// harness did not make that home (no marker file), so it leaves the file alone.
    #[error(
        "{path} differs from the copy built into this program, and {home} was not made by \
         solr-harness (no .solr-harness marker), so it is left as it is: rebuild the program, \
         or point SOLR_HARNESS_HOME at another folder"
    )]
    ForeignHome {
        /// The home folder.
        home: PathBuf,
        /// The differing file.
        path: PathBuf,
    },
    /// Reading or writing a file of the home failed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done (`write`, `read`, `create`).
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// `solr.sh` failed: its arguments, exit status and standard error (which names the log
    /// of a node that did not start).
    #[error("solr.sh {args} failed ({status}):\n{stderr}")]
    Script {
        /// The arguments given to `solr.sh`.
        args: String,
        /// The exit status.
        status: String,
        /// What `solr.sh` printed on standard error.
        stderr: String,
    },
    /// `solr.sh start` succeeded but printed no node URL.
    #[error("solr.sh printed no node for instance {name}: {stdout}")]
    NoNodes {
        /// The instance.
        name: String,
        /// What `solr.sh` printed.
        stdout: String,
    },
    /// The instance has no node of that name.
    #[error("no node {node} in instance {name}")]
    NoSuchNode {
        /// The instance.
        name: String,
        /// The node asked for.
        node: String,
    },
}

/// The harness's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Error {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
