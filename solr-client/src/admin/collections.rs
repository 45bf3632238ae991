//! The Collections API (`/admin/collections`, SolrCloud): create, delete, reload, list,
//! CLUSTERSTATUS, aliases, replicas, and the status of async requests.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::{check_name, timed, AdminResponse, Call};
use crate::client::SolrClient;
use crate::error::Result;
use crate::timing::Timing;
use crate::types::ResponseHeader;

const PATH: &str = "admin/collections";

/// The Collections API of the cluster the client's node belongs to. Borrowed from
/// [`SolrClient::collections`].
///
/// ```no_run
/// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
/// use solr_client::admin::CreateCollection;
/// let admin = client.collections();
/// admin
///     .create(&CreateCollection::new("books").configset("_default").shards(2).replicas(1))
///     .await?;
/// let status = admin.cluster_status(Some("books")).await?;
/// for (name, shard) in &status.cluster.collections["books"].shards {
///     println!("{name}: leader {:?}", shard.leader().map(|(_, r)| &r.node_name));
/// }
/// admin.create_alias("library", &["books"]).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Collections<'a> {
    client: &'a SolrClient,
    async_id: Option<String>,
}

impl<'a> Collections<'a> {
    pub(crate) fn new(client: &'a SolrClient) -> Self {
        Collections {
            client,
            async_id: None,
        }
    }

    /// Sends the commands of this handle asynchronously under request id `id` (Solr's
    /// `async`): Solr answers at once with the id in [`AdminResponse::request_id`], and
    /// [`Self::request_status`] tells when the command is done. Applies to create, delete,
    /// reload, alias, and replica commands. Default: synchronous.
    pub fn with_async_id(mut self, id: impl Into<String>) -> Self {
        self.async_id = Some(id.into());
        self
    }

    /// The client the commands go through.
    pub(super) fn client(&self) -> &'a SolrClient {
        self.client
    }

    /// A call of `action`, with this handle's async id.
    pub(super) fn command(&self, action: &'static str) -> Call<'static> {
        Call::get(PATH, "collections API response")
            .param("action", action)
            .opt("async", self.async_id.as_deref())
    }

    /// `CREATE`: a new collection.
    pub async fn create(&self, c: &CreateCollection) -> Result<AdminResponse> {
        check_name("collection", &c.name)?;
        self.command("CREATE")
            .param("name", c.name.clone())
            .opt("collection.configName", c.configset.as_deref())
            .opt("numShards", c.shards)
            .opt("replicationFactor", c.replicas)
            .opt("router.name", c.router_name.as_deref())
            .opt("router.field", c.router_field.as_deref())
            .opt("shards", c.shard_names.as_deref())
            .opt("waitForFinalState", c.wait_for_final_state)
            .send(self.client)
            .await
    }

    /// `DELETE`: removes a collection and its data.
    pub async fn delete(&self, name: &str) -> Result<AdminResponse> {
        check_name("collection", name)?;
        self.command("DELETE")
            .param("name", name)
            .send(self.client)
            .await
    }

    /// `RELOAD`: reloads every replica of a collection (after a configset change).
    pub async fn reload(&self, name: &str) -> Result<AdminResponse> {
        check_name("collection", name)?;
        self.command("RELOAD")
            .param("name", name)
            .send(self.client)
            .await
    }

    /// `LIST`: the names of every collection.
    pub async fn list(&self) -> Result<CollectionList> {
        Call::get(PATH, "collection list")
            .param("action", "LIST")
            .send(self.client)
            .await
    }

    /// `CLUSTERSTATUS`: live nodes, aliases, and per collection its shards, replicas,
    /// states and leaders; of one collection when `collection` is given.
    pub async fn cluster_status(&self, collection: Option<&str>) -> Result<ClusterStatus> {
        if let Some(c) = collection {
            check_name("collection", c)?;
        }
        Call::get(PATH, "cluster status")
            .param("action", "CLUSTERSTATUS")
            .opt("collection", collection)
            .send(self.client)
            .await
    }

    /// `CREATEALIAS`: `alias` names `collections` (a search on it searches all of them; an
    /// update needs exactly one). Replaces an existing alias of that name.
    pub async fn create_alias(&self, alias: &str, collections: &[&str]) -> Result<AdminResponse> {
        check_name("alias", alias)?;
        if collections.is_empty() {
            return Err(crate::Error::invalid_input(format!(
                "alias {alias:?} needs at least one collection"
            )));
        }
        for c in collections {
            check_name("collection", c)?;
        }
        self.command("CREATEALIAS")
            .param("name", alias)
            .param("collections", collections.join(","))
            .send(self.client)
            .await
    }

    /// `LISTALIASES`: every alias and the collections it names.
    pub async fn list_aliases(&self) -> Result<Aliases> {
        Call::get(PATH, "alias list")
            .param("action", "LISTALIASES")
            .send(self.client)
            .await
    }

    /// `DELETEALIAS`: removes an alias (the collections stay).
    pub async fn delete_alias(&self, alias: &str) -> Result<AdminResponse> {
        check_name("alias", alias)?;
        self.command("DELETEALIAS")
            .param("name", alias)
            .send(self.client)
            .await
    }

    /// `ADDREPLICA`: one more replica of a shard.
    pub async fn add_replica(&self, r: &ReplicaSpec) -> Result<AdminResponse> {
        check_name("collection", &r.collection)?;
        check_name("shard", &r.shard)?;
        self.command("ADDREPLICA")
            .param("collection", r.collection.clone())
            .param("shard", r.shard.clone())
            .opt("node", r.node.as_deref())
            .opt("type", r.replica_type.as_deref())
            .opt("waitForFinalState", r.wait_for_final_state)
            .send(self.client)
            .await
    }

    /// `DELETEREPLICA`: removes the replica `replica` (its core node name, e.g.
    /// `core_node5`, a key of [`ShardState::replicas`]) of a shard.
    pub async fn delete_replica(
        &self,
        collection: &str,
        shard: &str,
        replica: &str,
    ) -> Result<AdminResponse> {
        check_name("collection", collection)?;
        check_name("shard", shard)?;
        check_name("replica", replica)?;
        self.command("DELETEREPLICA")
            .param("collection", collection)
            .param("shard", shard)
            .param("replica", replica)
            .send(self.client)
            .await
    }

    /// `REQUESTSTATUS`: the state of an async command (see [`Self::with_async_id`]).
    pub async fn request_status(&self, id: &str) -> Result<RequestStatus> {
        check_name("request id", id)?;
        Call::get(PATH, "request status")
            .param("action", "REQUESTSTATUS")
            .param("requestid", id)
            .send(self.client)
            .await
    }

    /// `DELETESTATUS`: forgets the stored result of an async command, so its id can be
    /// used again.
    pub async fn delete_status(&self, id: &str) -> Result<AdminResponse> {
        check_name("request id", id)?;
        Call::get(PATH, "delete status")
            .param("action", "DELETESTATUS")
            .param("requestid", id)
            .send(self.client)
            .await
    }
}

/// The parameters of a `CREATE`. Unset options are left to Solr's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub struct CreateCollection {
    /// The collection name.
    pub name: String,
    /// The configset (`collection.configName`). Default: Solr's (`_default`).
    pub configset: Option<String>,
    /// `numShards`. Default: Solr's (1).
    pub shards: Option<u32>,
    /// `replicationFactor` (NRT replicas per shard). Default: Solr's (1).
    pub replicas: Option<u32>,
    /// `router.name` (`compositeId` or `implicit`). Default: Solr's (`compositeId`).
    pub router_name: Option<String>,
    /// `router.field`: route documents by this field instead of `id`. Default none.
    pub router_field: Option<String>,
    /// `shards`: the shard names of an `implicit` router, comma-separated. Default none.
    pub shard_names: Option<String>,
    /// `waitForFinalState`: answer only once every replica is active. Default: Solr's
    /// (false).
    pub wait_for_final_state: Option<bool>,
}

impl CreateCollection {
    /// A collection named `name` with Solr's defaults.
    pub fn new(name: impl Into<String>) -> Self {
        CreateCollection {
            name: name.into(),
            ..Default::default()
        }
    }

    /// The configset to use.
    pub fn configset(mut self, name: impl Into<String>) -> Self {
        self.configset = Some(name.into());
        self
    }

    /// The number of shards.
    pub fn shards(mut self, n: u32) -> Self {
        self.shards = Some(n);
        self
    }

    /// The number of NRT replicas per shard.
    pub fn replicas(mut self, n: u32) -> Self {
        self.replicas = Some(n);
        self
    }

    /// The router (`compositeId` or `implicit`).
    pub fn router_name(mut self, name: impl Into<String>) -> Self {
        self.router_name = Some(name.into());
        self
    }

    /// Routes documents by `field` (every document must then have it).
    pub fn router_field(mut self, field: impl Into<String>) -> Self {
        self.router_field = Some(field.into());
        self
    }

    /// Shard names of an `implicit` router, comma-separated.
    pub fn shard_names(mut self, names: impl Into<String>) -> Self {
        self.shard_names = Some(names.into());
        self
    }

    /// Answer only once every replica is active.
    pub fn wait_for_final_state(mut self, yes: bool) -> Self {
        self.wait_for_final_state = Some(yes);
        self
    }
}

/// The parameters of an `ADDREPLICA`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub struct ReplicaSpec {
    /// The collection.
    pub collection: String,
    /// The shard (e.g. `shard1`).
    pub shard: String,
    /// The node to put it on (`127.0.0.1:8983_solr`, a [`ClusterState::live_nodes`]
    /// entry). Default: Solr picks.
    pub node: Option<String>,
    /// `NRT`, `TLOG` or `PULL`. Default: Solr's (`NRT`).
    pub replica_type: Option<String>,
    /// Answer only once the replica is active. Default: Solr's (false).
    pub wait_for_final_state: Option<bool>,
}

impl ReplicaSpec {
    /// A replica of `shard` of `collection`.
    pub fn new(collection: impl Into<String>, shard: impl Into<String>) -> Self {
        ReplicaSpec {
            collection: collection.into(),
            shard: shard.into(),
            ..Default::default()
        }
    }

    /// The node to put it on.
    pub fn node(mut self, node: impl Into<String>) -> Self {
        self.node = Some(node.into());
        self
    }

    /// The replica type (`NRT`, `TLOG`, `PULL`).
    pub fn replica_type(mut self, t: impl Into<String>) -> Self {
        self.replica_type = Some(t.into());
        self
    }

    /// Answer only once the replica is active.
    pub fn wait_for_final_state(mut self, yes: bool) -> Self {
        self.wait_for_final_state = Some(yes);
        self
    }
}

/// The answer of `LIST`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CollectionList {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Every collection's name.
    #[serde(default)]
    pub collections: Vec<String>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

/// The answer of `LISTALIASES`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Aliases {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Alias -> the collections it names, in order.
    #[serde(default, deserialize_with = "alias_map")]
    pub aliases: BTreeMap<String, Vec<String>>,
    /// Alias -> its properties.
    #[serde(default)]
    pub properties: BTreeMap<String, Value>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

/// The answer of `CLUSTERSTATUS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClusterStatus {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The cluster.
    #[serde(default)]
    pub cluster: ClusterState,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

/// The `cluster` section of `CLUSTERSTATUS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClusterState {
    /// Nodes registered live in ZooKeeper (`host:port_context`).
    #[serde(default)]
    pub live_nodes: Vec<String>,
    /// Collection name -> its state.
    #[serde(default)]
    pub collections: BTreeMap<String, CollectionState>,
    /// Alias -> the collections it names.
    #[serde(default, deserialize_with = "alias_map")]
    pub aliases: BTreeMap<String, Vec<String>>,
    /// Everything else (`properties`, `roles`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One collection of `CLUSTERSTATUS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CollectionState {
    /// Its configset.
    #[serde(rename = "configName", default)]
    pub config_name: Option<String>,
    /// Its router.
    #[serde(default)]
    pub router: Option<RouterInfo>,
    /// Shard name -> its state.
    #[serde(default)]
    pub shards: BTreeMap<String, ShardState>,
    /// `GREEN`, `YELLOW`, `ORANGE` or `RED`.
    #[serde(default)]
    pub health: Option<String>,
    /// The aliases naming this collection.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Everything else (`replicationFactor`, `znodeVersion`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A collection's router.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RouterInfo {
    /// `compositeId` or `implicit`.
    #[serde(default)]
    pub name: String,
    /// `router.field`, when documents are routed by another field than `id`.
    #[serde(default)]
    pub field: Option<String>,
}

/// One shard of `CLUSTERSTATUS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ShardState {
    /// Its hash range (`80000000-ffffffff`); none with the implicit router.
    #[serde(default)]
    pub range: Option<String>,
    /// `active`, `inactive`, `construction` or `recovery`.
    #[serde(default)]
    pub state: String,
    /// Replica (core node) name -> its state.
    #[serde(default)]
    pub replicas: BTreeMap<String, ReplicaState>,
    /// The shard's health.
    #[serde(default)]
    pub health: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ShardState {
    /// The leader replica (core node name and state), if the shard has one.
    pub fn leader(&self) -> Option<(&str, &ReplicaState)> {
        self.replicas
            .iter()
            .find(|(_, r)| r.leader)
            .map(|(n, r)| (n.as_str(), r))
    }
}

/// One replica of `CLUSTERSTATUS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReplicaState {
    /// Its core's name.
    #[serde(default)]
    pub core: String,
    /// Its node (`host:port_context`).
    #[serde(default)]
    pub node_name: String,
    /// Its node's base URL.
    #[serde(default)]
    pub base_url: Option<String>,
    /// `active`, `down`, `recovering` or `recovery_failed`.
    #[serde(default)]
    pub state: String,
    /// `NRT`, `TLOG` or `PULL`.
    #[serde(rename = "type", default)]
    pub replica_type: Option<String>,
    /// Whether it leads its shard (Solr sends `"leader": "true"` on the leader only).
    #[serde(default, deserialize_with = "loose_bool")]
    pub leader: bool,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer of `REQUESTSTATUS`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestStatus {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The state and Solr's message.
    #[serde(default)]
    pub status: RequestState,
    /// Everything else (the command's own per-node results).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

/// The `status` of `REQUESTSTATUS`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestState {
    /// `submitted`, `running`, `completed`, `failed` or `notfound`.
    #[serde(default)]
    pub state: String,
    /// Solr's message.
    #[serde(default)]
    pub msg: String,
}

impl RequestStatus {
    /// True once the command finished (completed or failed).
    pub fn is_done(&self) -> bool {
        matches!(self.status.state.as_str(), "completed" | "failed")
    }
}

timed!(CollectionList, Aliases, ClusterStatus, RequestStatus);

/// Solr sends an alias's collections as one comma-separated string.
fn alias_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Vec<String>>, D::Error> {
    let raw: Option<BTreeMap<String, Value>> = Option::deserialize(d)?;
    Ok(raw
        .unwrap_or_default()
        .into_iter()
        .map(|(alias, v)| {
            let list = match v {
                Value::String(s) => s
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
                Value::Array(a) => a
                    .into_iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            };
            (alias, list)
        })
        .collect())
}

/// `true`, `"true"` -> true; anything else (absent, null, `"false"`) -> false.
fn loose_bool<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Bool(b) => b,
        Value::String(s) => s.eq_ignore_ascii_case("true"),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_status_of_a_real_solr_9_answer() {
        let s: ClusterStatus =
            serde_json::from_str(include_str!("testdata/clusterstatus.json")).expect("parses");
        let c = &s.cluster;
        assert_eq!(c.live_nodes.len(), 2);
        assert_eq!(c.aliases["probe_a"], vec!["probe_c", "bench"]);
        let coll = &c.collections["probe_c"];
        assert_eq!(coll.config_name.as_deref(), Some("probe_cs"));
        let router = coll.router.as_ref().expect("router");
        assert_eq!(router.name, "compositeId");
        assert_eq!(router.field.as_deref(), Some("category"));
        assert_eq!(coll.health.as_deref(), Some("GREEN"));
        assert_eq!(coll.aliases, vec!["probe_a"]);
        assert_eq!(coll.shards.len(), 2);
        for shard in coll.shards.values() {
            assert_eq!(shard.state, "active");
            assert_eq!(shard.replicas.len(), 1);
            let (_, leader) = shard.leader().expect("a leader");
            assert_eq!(leader.state, "active");
            assert_eq!(leader.replica_type.as_deref(), Some("NRT"));
            assert!(leader
                .base_url
                .as_deref()
                .unwrap_or("")
                .starts_with("http://"));
        }
        assert!(coll.extra.contains_key("znodeVersion"));
        assert_eq!(s.header.qtime, Some(3));
    }

    #[test]
    fn aliases_and_request_status_of_real_answers() {
        let a: Aliases =
            serde_json::from_str(include_str!("testdata/listaliases.json")).expect("parses");
        assert_eq!(a.aliases["probe_a"], vec!["probe_c", "bench"]);
        let r: RequestStatus =
            serde_json::from_str(include_str!("testdata/requeststatus.json")).expect("parses");
        assert_eq!(r.status.state, "completed");
        assert!(r.is_done());
        assert!(r.extra.contains_key("success"));
    }

    #[test]
    fn leader_flag_reads_every_shape() {
        for (json, want) in [
            (r#"{"leader":"true"}"#, true),
            (r#"{"leader":true}"#, true),
            (r#"{"leader":"false"}"#, false),
            (r#"{}"#, false),
        ] {
            let r: ReplicaState = serde_json::from_str(json).expect(json);
            assert_eq!(r.leader, want, "{json}");
        }
    }
}
