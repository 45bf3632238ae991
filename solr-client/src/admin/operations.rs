//! The Collections API's maintenance commands: MODIFYCOLLECTION, COLSTATUS, SPLITSHARD,
//! BACKUP and RESTORE (to a repository of the cluster, the local filesystem by default),
//! and waiting for an async command to finish.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::collections::{Collections, RequestStatus};
use super::{check_name, timed, AdminResponse, Call};
use crate::error::{Error, Result};
use crate::timing::Timing;
use crate::types::ResponseHeader;

const PATH: &str = "admin/collections";

impl Collections<'_> {
    /// `MODIFYCOLLECTION`: changes a collection's attributes in place, e.g.
    /// `("replicationFactor", "2")` or `("collection.configName", "other")`. Solr accepts
    /// only its modifiable attributes and refuses the others with a 400.
    pub async fn modify(&self, name: &str, attributes: &[(&str, &str)]) -> Result<AdminResponse> {
        check_name("collection", name)?;
        if attributes.is_empty() {
            return Err(Error::invalid_input(
                "MODIFYCOLLECTION needs at least one attribute",
            ));
        }
        let mut call = self.command("MODIFYCOLLECTION").param("collection", name);
        for (k, v) in attributes {
            call = call.param(k, *v);
        }
        call.send(self.client()).await
    }

    /// `COLSTATUS`: per collection, its configset, shards, replicas and their states (of
    /// one collection when `collection` is given).
    pub async fn status(&self, collection: Option<&str>) -> Result<CollectionStatus> {
        if let Some(c) = collection {
            check_name("collection", c)?;
        }
        Call::get(PATH, "collection status")
            .param("action", "COLSTATUS")
            .opt("collection", collection)
            .send(self.client())
            .await
    }

    /// `SPLITSHARD`: splits `shard` of `collection` in two sub-shards (`shard1_0`,
    /// `shard1_1`); the parent becomes inactive once they are active. Long: send it with
    /// [`Self::with_async_id`] and [`Self::wait_for`] it.
    pub async fn split_shard(&self, collection: &str, shard: &str) -> Result<AdminResponse> {
        check_name("collection", collection)?;
        check_name("shard", shard)?;
        self.command("SPLITSHARD")
            .param("collection", collection)
            .param("shard", shard)
            .send(self.client())
            .await
    }

    /// `BACKUP`: a backup named `name` of `collection` into `location`, a folder of the
    /// cluster's backup repository (the local filesystem by default: every node must be
    /// allowed to write there, Solr's `solr.allowPaths`).
    pub async fn backup(
        &self,
        collection: &str,
        name: &str,
        location: &str,
    ) -> Result<AdminResponse> {
        check_name("collection", collection)?;
        check_name("backup", name)?;
        self.command("BACKUP")
            .param("collection", collection)
            .param("name", name)
            .param("location", location)
            .send(self.client())
            .await
    }

    /// `RESTORE`: the backup `name` in `location` into a new collection `collection`.
    pub async fn restore(
        &self,
        name: &str,
        location: &str,
        collection: &str,
    ) -> Result<AdminResponse> {
        check_name("backup", name)?;
        check_name("collection", collection)?;
        self.command("RESTORE")
            .param("name", name)
            .param("location", location)
            .param("collection", collection)
            .send(self.client())
            .await
    }

    /// Polls `REQUESTSTATUS` of the async command `id` every `every` until it completed
    /// (its status), or failed or is unknown to Solr, or `timeout` passed
    /// ([`Error::AsyncCommand`] with its state, Solr's message, and the wait when it ran out).
    pub async fn wait_for(
        &self,
        id: &str,
        every: Duration,
        timeout: Duration,
    ) -> Result<RequestStatus> {
        let start = tokio::time::Instant::now();
        loop {
            let s = self.request_status(id).await?;
            let waited = match s.status.state.as_str() {
                "completed" => return Ok(s),
                "failed" | "notfound" => None,
                _ if start.elapsed() >= timeout => Some(timeout),
                _ => {
                    tokio::time::sleep(every).await;
                    continue;
                }
            };
            return Err(Error::AsyncCommand {
                id: id.into(),
                state: s.status.state.into(),
                message: s.status.msg.into(),
                waited,
            });
        }
    }
}

/// The answer of `COLSTATUS`: per collection, its status as Solr sent it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CollectionStatus {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Per collection: `stateFormat`, `znodeVersion`, `properties`, `activeShards`,
    /// `inactiveShards`, `schemaNonCompliant`, and per shard its `state`, `range`,
    /// `replicas` (`total`, `active`, `down`, `recovering`, `recovery_failed`) and `leader`.
    #[serde(flatten)]
    pub collections: Map<String, Value>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

impl CollectionStatus {
    /// `(active, inactive)` shard counts of `collection`.
    pub fn shard_counts(&self, collection: &str) -> Option<(u64, u64)> {
        let c = self.collections.get(collection)?;
        Some((
            c.get("activeShards")?.as_u64()?,
            c.get("inactiveShards")?.as_u64()?,
        ))
    }

    /// The `state` of each shard of `collection`, by shard name.
    pub fn shard_states(&self, collection: &str) -> Vec<(String, String)> {
        let shards = self
            .collections
            .get(collection)
            .and_then(|c| c.get("shards"));
        let Some(Value::Object(shards)) = shards else {
            return Vec::new();
        };
        shards
            .iter()
            .map(|(name, s)| (name.clone(), s["state"].as_str().unwrap_or("").to_string()))
            .collect()
    }
}

timed!(CollectionStatus);
