//! What the [`Routing`](crate::transport::Routing) decorator knows of a SolrCloud cluster:
//! [`view`] holds the cluster view (nodes, aliases, shards, replicas, leaders), which
//! [`parse`] reads from `CLUSTERSTATUS`; [`hash`] is SolrCloud's compositeId hashing, which
//! maps an id to a shard. The cloud client built on them
//! ([`SolrClient::cloud`](crate::SolrClient::cloud)) lives with the client.

pub mod hash;
pub mod parse;
pub mod view;

pub use hash::{composite_id_hash, murmurhash3_x86_32, HashRange};
pub use view::{ClusterView, ReplicaInfo, ReplicaType, ShardInfo};
