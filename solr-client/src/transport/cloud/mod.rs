//! What the [`Routing`](crate::transport::Routing) decorator knows of a SolrCloud cluster:
//! [`view`] holds the cluster view (nodes, aliases, shards, replicas, leaders), which
//! [`parse`] reads from `CLUSTERSTATUS`; [`hash`] is SolrCloud's compositeId hashing, which
//! maps an id to a shard; [`client`] is the one-line cloud client
//! ([`SolrClient::cloud`](crate::SolrClient::cloud)) built on all of them, and [`state`]
//! what it shows of the cluster ([`SolrClient::cloud_state`](crate::SolrClient::cloud_state)).

pub mod client;
pub mod hash;
pub mod parse;
pub mod state;
pub mod view;

pub use client::CloudBuilder;
pub use hash::{composite_id_hash, murmurhash3_x86_32, HashRange};
pub use state::{CloudState, NodeHealth};
pub use view::{ClusterView, ReplicaInfo, ReplicaType, ShardInfo};
