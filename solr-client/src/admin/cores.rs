//! The CoreAdmin API (`/admin/cores`) of a standalone node: status, reload, create,
//! unload, swap, rename.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{check_name, timed, AdminResponse, Call};
use crate::client::SolrClient;
use crate::error::Result;
use crate::timing::Timing;
use crate::types::ResponseHeader;

const PATH: &str = "admin/cores";

/// The CoreAdmin API of the client's node (standalone Solr; in SolrCloud use
/// [`Collections`](super::Collections)). Borrowed from [`SolrClient::cores`].
///
/// ```no_run
/// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
/// let cores = client.cores();
/// let before = cores.status(Some("books")).await?;
/// cores.reload("books").await?;
/// let after = cores.status(Some("books")).await?;
/// println!("{:?} -> {:?}", before.core("books").map(|c| &c.start_time),
///     after.core("books").map(|c| &c.start_time));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Cores<'a> {
    client: &'a SolrClient,
}

impl<'a> Cores<'a> {
    pub(crate) fn new(client: &'a SolrClient) -> Self {
        Cores { client }
    }

    /// `STATUS` of one core, or of every core when `core` is None.
    pub async fn status(&self, core: Option<&str>) -> Result<CoreStatusResponse> {
        if let Some(c) = core {
            check_name("core", c)?;
        }
        Call::get(PATH, "core status")
            .param("action", "STATUS")
            .opt("core", core)
            .send(self.client)
            .await
    }

    /// `RELOAD`: a new core instance from the core's configuration, swapped in while
    /// requests keep being served.
    pub async fn reload(&self, core: &str) -> Result<AdminResponse> {
        check_name("core", core)?;
        Call::get(PATH, "core reload")
            .param("action", "RELOAD")
            .param("core", core)
            .send(self.client)
            .await
    }

    /// `CREATE`: a new core.
    pub async fn create(&self, c: &CreateCore) -> Result<AdminResponse> {
        check_name("core", &c.name)?;
        Call::get(PATH, "core create")
            .param("action", "CREATE")
            .param("name", c.name.clone())
            .opt("instanceDir", c.instance_dir.as_deref())
            .opt("configSet", c.configset.as_deref())
            .opt("dataDir", c.data_dir.as_deref())
            .send(self.client)
            .await
    }

    /// `UNLOAD`: removes a core from the node; with `delete_files`, its index, data and
    /// instance directories are deleted too.
    pub async fn unload(&self, core: &str, delete_files: bool) -> Result<AdminResponse> {
        check_name("core", core)?;
        let mut call = Call::get(PATH, "core unload")
            .param("action", "UNLOAD")
            .param("core", core);
        if delete_files {
            call = call.param("deleteInstanceDir", "true");
        }
        call.send(self.client).await
    }

    /// `SWAP`: exchanges the names of two cores atomically: requests to `core` reach what
    /// was `other` and the reverse (a rebuilt index put live without a pause).
    pub async fn swap(&self, core: &str, other: &str) -> Result<AdminResponse> {
        self.pair("SWAP", "core swap", core, other).await
    }

    /// `RENAME`: gives `core` the name `to`.
    pub async fn rename(&self, core: &str, to: &str) -> Result<AdminResponse> {
        self.pair("RENAME", "core rename", core, to).await
    }

    /// An action on two core names, `core` and `other` (`SWAP`, `RENAME`): both checked, then
    /// one GET, described as `what` in errors.
    async fn pair(
        &self,
        action: &str,
        what: &'static str,
        core: &str,
        other: &str,
    ) -> Result<AdminResponse> {
        check_name("core", core)?;
        check_name("core", other)?;
        Call::get(PATH, what)
            .param("action", action)
            .param("core", core)
            .param("other", other)
            .send(self.client)
            .await
    }
}

/// The parameters of a core `CREATE`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub struct CreateCore {
    /// The core's name.
    pub name: String,
    /// `instanceDir`. Default: Solr's (the name, under the Solr home).
    pub instance_dir: Option<String>,
    /// `configSet`: a configset under the node's configset directory.
    pub configset: Option<String>,
    /// `dataDir`. Default: Solr's (`data` in the instance directory).
    pub data_dir: Option<String>,
}

impl CreateCore {
    /// A core named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        CreateCore {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Its configset (a directory under the node's configset base directory).
    pub fn configset(mut self, name: impl Into<String>) -> Self {
        self.configset = Some(name.into());
        self
    }

    /// Its instance directory.
    pub fn instance_dir(mut self, dir: impl Into<String>) -> Self {
        self.instance_dir = Some(dir.into());
        self
    }

    /// Its data directory.
    pub fn data_dir(mut self, dir: impl Into<String>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }
}

/// The answer of core `STATUS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CoreStatusResponse {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Core name -> the error that kept it from loading.
    #[serde(rename = "initFailures", default)]
    pub init_failures: BTreeMap<String, Value>,
    /// Core name -> its status. A core asked for by name that does not exist is absent
    /// (Solr answers `{}` for it).
    #[serde(default, deserialize_with = "non_empty_cores")]
    pub status: BTreeMap<String, CoreStatus>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

impl CoreStatusResponse {
    /// The status of core `name`, if it is loaded.
    pub fn core(&self, name: &str) -> Option<&CoreStatus> {
        self.status.get(name)
    }
}

/// One core of core `STATUS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CoreStatus {
    /// The core's name.
    #[serde(default)]
    pub name: String,
    /// Its instance directory.
    #[serde(rename = "instanceDir", default)]
    pub instance_dir: String,
    /// Its data directory.
    #[serde(rename = "dataDir", default)]
    pub data_dir: String,
    /// When this core instance started (ISO 8601); a reload starts a new instance.
    #[serde(rename = "startTime", default)]
    pub start_time: String,
    /// Milliseconds since it started.
    #[serde(default)]
    pub uptime: u64,
    /// Its index.
    #[serde(default)]
    pub index: Option<CoreIndex>,
    /// Everything else (`config`, `schema`, `cloud`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `index` section of a core's status.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CoreIndex {
    /// Live documents.
    #[serde(rename = "numDocs", default)]
    pub num_docs: u64,
    /// Documents including deleted ones not yet merged away.
    #[serde(rename = "maxDoc", default)]
    pub max_doc: u64,
    /// Deleted documents.
    #[serde(rename = "deletedDocs", default)]
    pub deleted_docs: u64,
    /// The index version.
    #[serde(default)]
    pub version: u64,
    /// Segments.
    #[serde(rename = "segmentCount", default)]
    pub segment_count: u64,
    /// Index size in bytes.
    #[serde(rename = "sizeInBytes", default)]
    pub size_in_bytes: u64,
    /// Everything else (`directory`, `current`, `userData`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

timed!(CoreStatusResponse);

/// Skips the `{}` Solr sends for a named core that is not loaded.
fn non_empty_cores<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, CoreStatus>, D::Error> {
    let raw: BTreeMap<String, Value> = BTreeMap::deserialize(d)?;
    raw.into_iter()
        .filter(|(_, v)| v.as_object().is_some_and(|m| !m.is_empty()))
        .map(|(k, v)| {
            CoreStatus::deserialize(v)
                .map(|s| (k, s))
                .map_err(serde::de::Error::custom)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_status_of_a_real_answer() {
        let r: CoreStatusResponse =
            serde_json::from_str(include_str!("testdata/cores_status.json")).expect("parses");
        let c = r.core("bench").expect("bench");
        assert_eq!(c.name, "bench");
        assert!(c.start_time.ends_with('Z'), "{}", c.start_time);
        assert!(c.instance_dir.ends_with("/bench"));
        let idx = c.index.as_ref().expect("index");
        assert_eq!(idx.segment_count, 0);
        assert_eq!(idx.size_in_bytes, 69);
        assert_eq!(c.extra["schema"], "schema.xml");
        assert!(r.init_failures.is_empty());
    }

    #[test]
    fn a_missing_core_is_absent_not_an_empty_status() {
        let r: CoreStatusResponse = serde_json::from_str(
            r#"{"responseHeader":{"status":0,"QTime":0},"initFailures":{},"status":{"nope":{}}}"#,
        )
        .expect("parses");
        assert!(r.core("nope").is_none());
    }
}
